// The clustering of one level: items (ranks, or groups of them) whose profiles look alike, compared
// with their nearest candidates first, joined by average linkage (share/doc/design.md §7).
#include "topology_parts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <map>
#include <numeric>

#include "nt/analysis/linkage.hpp"
#include "nt/analysis/tuning.hpp"

namespace nt::analysis::topology_parts {

namespace {

// Rank-to-rank (or group-to-group) comparison of profiles. The distance of items a and c in band
// b: their rows and columns after removing the median difference of each (so a uniformly slow
// item still matches its mates), the cells of a and c themselves and of the `skip` items left out
// (except the nearest item of a normal a or c: see cluster_profiles);
// per third party the smaller of the row and column |difference| counted twice when both differ
// the same way, else 0 (one direction alone when the other is unknown), and of these the second
// largest (robust to one odd cell). The median offsets come from a sample of about
// kTuning.offset_cells cells (all cells for up to kTuning.offset_all_up_to items).
template <class T>
class Comparer {
 public:
  Comparer(const ProfilesOf<T>& prof, std::size_t n) : prof_(prof), N_(n), skip_(n, 0), nearest_(n, n) {
    // One band at a time, each allocated in place: a temporary P^2 profile copied in would be a
    // third P^2 array at the peak (20,000 ranks need their 4 GB address space without it).
    tr_.resize(prof.size());
    for (auto& band : tr_) band.resize(N_ * N_);
    parallel_for(N_, [&](std::size_t i0, std::size_t i1) {
      for (std::size_t b = 0; b < prof_.size(); ++b)
        for (std::size_t i = i0; i < i1; ++i)
          for (std::size_t j = 0; j < N_; ++j) tr_[b][j * N_ + i] = prof_[b][i * N_ + j];
    });
    stride_ = N_ > kTuning.offset_all_up_to ? N_ / kTuning.offset_cells : 1;
  }
  struct Scratch {
    std::vector<double> x, y, all, parties;
  };
  struct Result {
    double dist = 0.0;             // second largest agreed |difference|
    double spread = 0.0;           // mean agreed |difference| of the kTuning.spread_parties most different third parties
    double row_off = 0.0, col_off = 0.0;  // median (a - c) of the rows and of the columns
  };
  // Items left out of the comparisons, and per item its nearest (kept in a normal item's own).
  void set_skip(std::vector<char> s, std::vector<std::size_t> nearest) {
    skip_ = std::move(s);
    nearest_ = std::move(nearest);
  }

  // Whether compare() takes the spread (the levels above the nodes; not the ranks, whose
  // comparisons are the most numerous).
  void set_spread(bool on) { spread_ = on; }
  // Both distances of a and c in every band: out[b] the second largest, out[B + b] the spread,
  // 0 when a or c is odd (a slow node's or slow uplink's cells vary with its fault, more than the
  // band's noise says: the three nodes behind a slow uplink, 6.5x, came apart).
  void distances(std::size_t a, std::size_t c, Scratch& s, double* out) const {
    const std::size_t B = prof_.size();
    for (std::size_t b = 0; b < B; ++b) {
      const Result r = compare(b, a, c, s);
      out[b] = r.dist;
      out[B + b] = skip_[a] || skip_[c] ? 0.0 : r.spread;
    }
  }

  // keep_all: leave every |difference| in s.all (for the noise estimate).
  Result compare(std::size_t b, std::size_t a, std::size_t c, Scratch& s, bool keep_all = false) const {
    const T* ra = prof_[b].data() + a * N_;
    const T* rc = prof_[b].data() + c * N_;
    const T* ca = tr_[b].data() + a * N_;
    const T* cc = tr_[b].data() + c * N_;
    s.x.clear();
    s.y.clear();
    const auto left_out = [&](std::size_t k) {
      return k == a || k == c || (skip_[k] && !(k == nearest_[a] && !skip_[a]) && !(k == nearest_[c] && !skip_[c]));
    };
    for (std::size_t k = 0; k < N_; k += stride_) {
      if (left_out(k)) continue;
      const double d1 = dbl(ra[k]) - dbl(rc[k]), d2 = dbl(ca[k]) - dbl(cc[k]);
      if (std::isfinite(d1)) s.x.push_back(d1);
      if (std::isfinite(d2)) s.y.push_back(d2);
    }
    Result r;
    if (s.x.size() >= 2) r.row_off = median_inplace(s.x);
    if (s.y.size() >= 2) r.col_off = median_inplace(s.y);
    double first = 0.0, second = 0.0;
    std::size_t count = 0;
    if (keep_all) s.all.clear();
    s.parties.clear();
    const auto party = [&](double e) {
      if (spread_) s.parties.push_back(e);
    };
    auto take = [&](double e) {
      if (!std::isfinite(e)) return;
      ++count;
      if (e > first) {
        second = first;
        first = e;
      } else if (e > second) {
        second = e;
      }
    };
    for (std::size_t k = 0; k < N_; ++k) {
      if (left_out(k)) continue;
      // A third party k tells a and c apart when both directions agree (k's links to a and to c
      // differ whether k sends or receives): nodes and switches are symmetric, a disturbed cell
      // (two outliers among a band's lengths) is not. With only one direction known, that one.
      // The noise estimate (keep_all) still sees each direction's difference.
      const double dr = dbl(ra[k]) - dbl(rc[k]) - r.row_off, dc = dbl(ca[k]) - dbl(cc[k]) - r.col_off;
      const double er = std::fabs(dr), ec = std::fabs(dc);
      if (keep_all) {
        if (std::isfinite(er)) s.all.push_back(er);
        if (std::isfinite(ec)) s.all.push_back(ec);
      }
      if (std::isfinite(er) && std::isfinite(ec)) {
        // Both directions count, each at what they agree on: a structural difference (k a mate
        // of a but not of c) is seen in both, the same way (k nearer to a, or farther, whichever
        // sends), and counts twice; a lone odd cell adds nothing, and neither do two that
        // disagree (a -> k slower than c -> k but k -> a faster than k -> c: two transients, as a
        // stall of k's cable each way while a's and c's samples ran; counted, such stalls split
        // the two ranks of one host into two nodes on noisy data).
        const double agreed = (dr > 0) == (dc > 0) ? std::min(er, ec) : 0.0;
        take(agreed);
        take(agreed);
        party(agreed);
      } else {
        take(er);
        take(ec);
        party(std::isfinite(er) ? er : ec);
      }
    }
    r.dist = count >= 2 ? second : first;
    if (spread_) r.spread = top_mean(s.parties);
    return r;
  }

 private:
  // The mean of the kTuning.spread_parties largest finite values (fewer: divided by that many
  // all the same, so that a lone odd third party is not a spread).
  static double top_mean(std::vector<double>& v) {
    v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
    const std::size_t m = kTuning.spread_parties, k = std::min(m, v.size());
    std::partial_sort(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end(), std::greater<>());
    return std::accumulate(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), 0.0) / static_cast<double>(m);
  }

  const ProfilesOf<T>& prof_;
  ProfilesOf<T> tr_;  // transposed profiles: columns become contiguous
  std::size_t N_;
  std::size_t stride_;
  std::vector<char> skip_;
  std::vector<std::size_t> nearest_;  // N_: none
  bool spread_ = false;
};

struct DisjointSets {
  std::vector<std::size_t> p;
  explicit DisjointSets(std::size_t n) : p(n) { std::iota(p.begin(), p.end(), std::size_t{0}); }
  std::size_t find(std::size_t x) {
    while (p[x] != x) x = p[x] = p[p[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) {
    a = find(a);
    b = find(b);
    if (a != b) p[std::max(a, b)] = std::min(a, b);
  }
};

// The candidate pairs of cluster_profiles: edges (a < c), and per item the edges it is in.
struct CandidateGraph {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
  std::vector<std::vector<std::size_t>> adj;
  std::vector<std::size_t> nearest;  // per item, its first candidate
  // per item, its candidates nearest first with their direct-link sums (log, both directions, every band)
  std::vector<std::vector<std::pair<double, std::uint32_t>>> ranked;
  std::size_t other(std::size_t e, std::size_t a) const { return edges[e].first == a ? edges[e].second : edges[e].first; }
};

// Per band, the median of each item's row and of its column (its own cell left out).
template <class T>
void row_and_column_medians(const ProfilesOf<T>& prof, std::size_t N, std::vector<std::vector<double>>& rowm,
                            std::vector<std::vector<double>>& colm) {
  const std::size_t B = prof.size();
  rowm.assign(B, std::vector<double>(N, 0.0));
  colm.assign(B, std::vector<double>(N, 0.0));
  parallel_for(N, [&](std::size_t a0, std::size_t a1) {
    std::vector<double> tmp;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t a = a0; a < a1; ++a) {
        for (int pass = 0; pass < 2; ++pass) {
          tmp.clear();
          for (std::size_t k = 0; k < N; ++k) {
            const double value = pass == 0 ? prof[b][a * N + k] : prof[b][k * N + a];
            if (k != a && std::isfinite(value)) tmp.push_back(value);
          }
          (pass == 0 ? rowm : colm)[b][a] = tmp.empty() ? 0.0 : median_inplace(tmp);
        }
      }
  });
}

// Candidates: each item's `opt.candidates` nearest items by the direct link between them (both
// directions, every band), row and column effects removed.
template <class T>
CandidateGraph candidate_graph(const ProfilesOf<T>& prof, std::size_t N, const TopologyOptions& opt) {
  const std::size_t B = prof.size();
  std::vector<std::vector<double>> rowm, colm;
  row_and_column_medians(prof, N, rowm, colm);
  const std::size_t n_cand = std::min<std::size_t>(N - 1, static_cast<std::size_t>(std::max(1, opt.candidates)));
  std::vector<std::vector<std::uint32_t>> cand(N);
  CandidateGraph graph;
  graph.ranked.resize(N);
  parallel_for(N, [&](std::size_t a0, std::size_t a1) {
    std::vector<std::pair<double, std::uint32_t>> row;
    for (std::size_t a = a0; a < a1; ++a) {
      row.clear();
      for (std::size_t c = 0; c < N; ++c) {
        if (c == a) continue;
        double sum = 0.0;
        for (std::size_t b = 0; b < B; ++b) {
          const double there = dbl(prof[b][a * N + c]) - rowm[b][a] - colm[b][c];
          const double back = dbl(prof[b][c * N + a]) - rowm[b][c] - colm[b][a];
          sum += (std::isfinite(there) ? there : 0.0) + (std::isfinite(back) ? back : 0.0);
          if (!std::isfinite(there) && !std::isfinite(back)) sum += 1e6;  // nothing known: last
        }
        row.emplace_back(sum, static_cast<std::uint32_t>(c));
      }
      std::partial_sort(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n_cand), row.end());
      for (std::size_t q = 0; q < n_cand; ++q) cand[a].push_back(row[q].second);
      graph.ranked[a].assign(row.begin(), row.begin() + static_cast<std::ptrdiff_t>(n_cand));
    }
  });
  graph.nearest.resize(N);
  for (std::size_t a = 0; a < N; ++a) graph.nearest[a] = cand[a].empty() ? N : cand[a].front();
  auto& edges = graph.edges;
  for (std::size_t a = 0; a < N; ++a)
    for (std::uint32_t c : cand[a]) edges.emplace_back(std::min<std::uint32_t>(static_cast<std::uint32_t>(a), c),
                                                       std::max<std::uint32_t>(static_cast<std::uint32_t>(a), c));
  std::sort(edges.begin(), edges.end());
  edges.erase(std::unique(edges.begin(), edges.end()), edges.end());
  graph.adj.resize(N);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    graph.adj[edges[e].first].push_back(e);
    graph.adj[edges[e].second].push_back(e);
  }
  return graph;
}

// Odd items: the median offset of an item's row (or column) against its candidates' beyond
// min_ratio; at most a quarter of the items (the most offset ones: the rest must be the norm)
// are left out of the comparisons.
template <class T>
std::vector<char> skip_odd_items(Comparer<T>& cmp, const CandidateGraph& graph, std::size_t B, std::size_t N,
                                 const TopologyOptions& opt) {
  const auto& edges = graph.edges;
  const std::size_t E = edges.size();
  std::vector<double> off(E * B * 2);
  parallel_for(E, [&](std::size_t e0, std::size_t e1) {
    typename Comparer<T>::Scratch scratch;
    for (std::size_t e = e0; e < e1; ++e)
      for (std::size_t b = 0; b < B; ++b) {
        const auto result = cmp.compare(b, edges[e].first, edges[e].second, scratch);
        off[(e * B + b) * 2] = result.row_off;
        off[(e * B + b) * 2 + 1] = result.col_off;
      }
  });
  std::vector<std::pair<double, std::size_t>> oddness;
  std::vector<double> tmp;
  for (std::size_t a = 0; a < N; ++a) {
    double worst = 0.0;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t w = 0; w < 2; ++w) {
        tmp.clear();
        for (std::size_t e : graph.adj[a])
          tmp.push_back(edges[e].first == a ? off[(e * B + b) * 2 + w] : -off[(e * B + b) * 2 + w]);
        if (!tmp.empty()) worst = std::max(worst, std::fabs(median_inplace(tmp)));
      }
    if (worst > std::log(opt.min_ratio)) oddness.emplace_back(worst, a);
  }
  std::sort(oddness.rbegin(), oddness.rend());
  const auto most_odd = static_cast<std::size_t>(kTuning.odd_share * static_cast<double>(N));
  if (oddness.size() > most_odd) oddness.resize(most_odd);
  std::vector<char> skip(N, 0);
  for (auto [worst, a] : oddness) skip[a] = 1;
  cmp.set_skip(skip, graph.nearest);
  return skip;
}

// The scaled distance of two items (their 2B distances, as Comparer::distances): the worst band's
// distance over its threshold, the second largest over tau and the spread over spread_tau (none
// when empty).
struct ScaledDistance {
  std::vector<double> tau, spread_tau;
  double operator()(const double* dist) const {
    const std::size_t B = tau.size();
    double worst = 0.0;
    for (std::size_t b = 0; b < B; ++b) {
      worst = std::max(worst, dist[b] / tau[b]);
      if (!spread_tau.empty()) worst = std::max(worst, dist[B + b] / spread_tau[b]);
    }
    return worst;
  }
};

// Noise per band: the typical |difference| between each item and its nearest candidate; the
// threshold of a band (tau) is noise_factor times it, at least log(floor_ratio).
// spread_floor_ratio > 0: the spread is judged too, at kTuning.spread_sigmas times the noise, at
// least log(spread_floor_ratio). The second largest difference is an extreme of many noisy cells
// (and a stalled cell is one of them), so it takes noise_factor sigmas; the mean of several third
// parties is not, and a step smaller than that (a leaf of a 2-level tree on noisy data, one hop's
// latency) still shows in all the third parties of the two leaves alike. Only where in every band
// the nearest items differ by no more than kTuning.spread_noise_ratio times the two directions of
// one pair (direction_noise): their difference is then the measurement's noise. Where it is more
// in some band, the nearest items differ by structure (a torus's neighbours, a dragonfly's routers:
// every item has distances of its own), the noise estimate is that structure, and a threshold at a
// few times it would cut the structure into groups that are no switches (on noisy tori the nearest
// items differed by 1.06x to 190x the direction noise in their worst band, on trees by 0.4x to
// 1.25x, 91 of 100 under 1.1x).
template <class T>
ScaledDistance band_thresholds(const Comparer<T>& cmp, const CandidateGraph& graph, const std::vector<double>& dist,
                               std::size_t B, std::size_t N, const TopologyOptions& opt, double spread_floor_ratio,
                               const std::vector<double>& pair_noise, std::vector<double>* noise = nullptr) {
  ScaledDistance scaled;
  auto& tau = scaled.tau;
  tau.resize(B);
  if (spread_floor_ratio > 0) scaled.spread_tau.assign(B, std::numeric_limits<double>::infinity());
  if (noise) noise->assign(B, 0.0);
  typename Comparer<T>::Scratch scratch;
  std::vector<double> sigmas(B, 0.0);
  bool noise_alike = spread_floor_ratio > 0;
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<double> nearest_sigmas;
    for (std::size_t a = 0; a < N; ++a) {
      std::size_t best = N;
      double best_dist = 0.0;
      for (std::size_t e : graph.adj[a]) {
        const std::size_t c = graph.other(e, a);
        const double candidate_dist = dist[e * 2 * B + b];
        if (best == N || candidate_dist < best_dist || (candidate_dist == best_dist && c < best)) {
          best = c;
          best_dist = candidate_dist;
        }
      }
      if (best == N) continue;
      cmp.compare(b, a, best, scratch, true);
      if (!scratch.all.empty()) nearest_sigmas.push_back(robust_sigma_of_deviations(scratch.all));
    }
    const double sigma = nearest_sigmas.empty() ? 0.0 : median_inplace(nearest_sigmas);
    tau[b] = std::max(std::log(opt.floor_ratio), opt.noise_factor * sigma);
    sigmas[b] = sigma;
    noise_alike = noise_alike && sigma <= kTuning.spread_noise_ratio * pair_noise[b];
    if (noise) (*noise)[b] = sigma;
  }
  for (std::size_t b = 0; b < B && noise_alike; ++b)
    if (pair_noise[b] > 0) scaled.spread_tau[b] = std::max(std::log(spread_floor_ratio), kTuning.spread_sigmas * sigmas[b]);
  return scaled;
}

// A large set (one rank per node: a whole switch) is one group when every member is close, on
// average, to kTuning.set_sample members spread over the set: O(kTuning.set_sample s) comparisons instead of all
// s^2 / 2.
template <class T>
bool every_member_close(const Comparer<T>& cmp, const std::vector<std::size_t>& members, std::size_t B,
                        const ScaledDistance& scaled) {
  const std::size_t s = members.size();
  std::vector<char> far(s, 0);
  parallel_for(s, [&](std::size_t q0, std::size_t q1) {
    typename Comparer<T>::Scratch scratch;
    std::vector<double> dist(2 * B);
    for (std::size_t q = q0; q < q1; ++q) {
      double sum = 0.0;
      std::size_t compared = 0;
      for (std::size_t t = 0; t < kTuning.set_sample; ++t) {
        const std::size_t r = (q + 1 + t * (s - 1) / kTuning.set_sample) % s;
        if (r == q) continue;
        cmp.distances(members[q], members[r], scratch, dist.data());
        sum += scaled(dist.data());
        ++compared;
      }
      far[q] = compared > 0 && sum / static_cast<double>(compared) >= 1.0;
    }
  });
  return std::none_of(far.begin(), far.end(), [](char is_far) { return is_far != 0; });
}

// Scaled distances of every pair of a set (s x s): the candidate pairs known, the others compared now.
template <class T>
std::vector<double> set_distances(const Comparer<T>& cmp, const CandidateGraph& graph, const std::vector<double>& dist,
                                  const std::vector<std::size_t>& members, std::size_t B, const ScaledDistance& scaled) {
  const std::size_t s = members.size();
  std::vector<double> D(s * s, 0.0);
  std::vector<std::pair<std::size_t, std::size_t>> todo;
  std::map<std::size_t, std::size_t> local;
  for (std::size_t q = 0; q < s; ++q) local[members[q]] = q;
  std::vector<char> known(s * s, 0);
  for (std::size_t q = 0; q < s; ++q)
    for (std::size_t e : graph.adj[members[q]]) {
      auto it = local.find(graph.other(e, members[q]));
      if (it == local.end()) continue;
      D[q * s + it->second] = scaled(&dist[e * 2 * B]);
      known[q * s + it->second] = 1;
    }
  for (std::size_t q = 0; q < s; ++q)
    for (std::size_t r = q + 1; r < s; ++r)
      if (!known[q * s + r]) todo.emplace_back(q, r);
  parallel_for(todo.size(), [&](std::size_t t0, std::size_t t1) {
    typename Comparer<T>::Scratch scratch;
    std::vector<double> pair_dist(2 * B);
    for (std::size_t t = t0; t < t1; ++t) {
      const auto [q, r] = todo[t];
      cmp.distances(members[q], members[r], scratch, pair_dist.data());
      D[q * s + r] = D[r * s + q] = scaled(pair_dist.data());
    }
  });
  return D;
}

// Sets joined by close candidate pairs, then average linkage inside each set (a large set whose
// members are all close taken whole); a label per item.
template <class T>
std::vector<int> link_sets(const Comparer<T>& cmp, const CandidateGraph& graph, const std::vector<double>& dist,
                           std::size_t B, std::size_t N, const ScaledDistance& scaled) {
  DisjointSets joined(N);
  for (std::size_t e = 0; e < graph.edges.size(); ++e)
    if (scaled(&dist[e * 2 * B]) < 1.0) joined.join(graph.edges[e].first, graph.edges[e].second);
  std::map<std::size_t, std::vector<std::size_t>> sets;
  for (std::size_t a = 0; a < N; ++a) sets[joined.find(a)].push_back(a);
  std::vector<int> label(N);
  for (std::size_t a = 0; a < N; ++a) label[a] = static_cast<int>(a);
  for (auto& [root, members] : sets) {
    const std::size_t s = members.size();
    if (s == 1) continue;
    // Else (two groups chained by a borderline pair) every pair is compared below.
    if (s > kTuning.large_set && every_member_close(cmp, members, B, scaled)) {
      for (std::size_t q = 0; q < s; ++q) label[members[q]] = static_cast<int>(members.front());
      continue;
    }
    auto distances = set_distances(cmp, graph, dist, members, B, scaled);
    const auto linkage = average_linkage(distances, s, 1.0);
    for (std::size_t q = 0; q < s; ++q)
      label[members[q]] = static_cast<int>(members[static_cast<std::size_t>(linkage[q])]);
  }
  return label;
}

// An odd item (a slow node), then a normal item alone in its group, joins the group of the normal
// item it reaches fastest by the direct link, when that group is nearer than every other by more
// than the noise: its profile matches none of its switch mates' (a slow cable caps every path alike, so only the latency of the hops
// still tells where it is: with one rank per host a slow host would join a slow leaf, or stand
// alone as a ninth leaf). Reaching every group alike it keeps its label (a lone node: behind
// a switch of its own, or slow; the report says both). Its own group counts among the candidates,
// odd mates included: odd items that the profiles joined and that reach each other fastest stay
// together (on a dragonfly with a slow global link, hosts of a third group look odd; alone they
// would go to a router of another group one link away, though their router mate is nearer).
template <class T>
void attach_odd_items(const ProfilesOf<T>& prof, std::size_t N, const std::vector<char>& odd,
                      const std::vector<double>& noise, double cell_noise, const TopologyOptions& opt,
                      std::vector<int>& label) {
  // Both directions of every band, noise_factor sigmas each: of the groups' profiles, and of the
  // ranks' cells (a direct link is one cell; a group's profile a median of many: on noisy data a
  // node behind a switch of its own reaches one group fastest by chance).
  double margin = 0.0;
  for (double sigma : noise) margin += 2 * opt.noise_factor * std::max(sigma, cell_noise);
  // Nearer by less than 0.01 % a cell is a tie, whatever the noise: runs of one simulation differ
  // by a nanosecond (2e-5 of a 56 us delay), which decided where the healthy mate of a slow host
  // went on noise-free data (alone in its leaf of two hosts, it was as near to the nodes of two
  // other leaves, and joined whichever came first by 1e-5).
  const double tie = kTuning.tie_log * 2 * static_cast<double>(prof.size());
  // movers: the items that may join another group; unite: each joins with its whole group (the
  // items alone in theirs), so that two of them that are each other's nearest end together rather
  // than swap labels (a router's two hosts whose one pair inside stalled one way).
  const auto attach = [&](const std::vector<char>& movers, bool unite) {
    const auto before = label;
    DisjointSets sets(unite ? *std::max_element(label.begin(), label.end()) + 1 : 0);
    for (std::size_t a = 0; a < N; ++a) {
      if (!movers[a]) continue;
      // Per group of normal items (and a's own), its nearest member by the direct link (every
      // band, the faster direction twice: a slow item is slow both ways, while one stalled cell is
      // one way: with the slower direction, a router's two hosts, one of them 4.7x one way at
      // 1 KiB, both went to another router).
      std::map<int, double> nearest;
      for (std::size_t c = 0; c < N; ++c) {
        if (c == a || (odd[c] && before[c] != before[a])) continue;
        double sum = 0.0;
        for (const auto& band : prof) {
          const double there = dbl(band[a * N + c]), back = dbl(band[c * N + a]);
          sum += std::isfinite(there) && std::isfinite(back) ? 2 * std::min(there, back) : kNaN;
        }
        if (!std::isfinite(sum)) continue;
        auto [it, inserted] = nearest.emplace(before[c], sum);
        if (!inserted) it->second = std::min(it->second, sum);
      }
      if (nearest.size() < 2) continue;
      std::vector<std::pair<double, int>> order;
      for (auto [l, sum] : nearest) order.emplace_back(sum, l);
      std::sort(order.begin(), order.end());
      if (order[1].first - order[0].first <= std::max(margin, tie)) continue;
      if (unite) sets.join(static_cast<std::size_t>(before[a]), static_cast<std::size_t>(order[0].second));
      else label[a] = order[0].second;
    }
    if (unite)
      for (auto& l : label) l = static_cast<int>(sets.find(static_cast<std::size_t>(l)));
  };
  attach(odd, false);
  // Then the normal items left alone in their group: a slow node that the quarter of odd items
  // did not hold (branch tree41: on 4 leaves of 3 hosts the slow leaf's 3 hosts filled it, and a
  // slow host of another leaf stood alone as a fifth leaf). After the odd items, so that a node
  // alone only because its one mate is odd has that mate back first (a dragonfly's router).
  std::map<int, std::size_t> members;
  for (int l : label) ++members[l];
  std::vector<char> alone(N, 0);
  for (std::size_t a = 0; a < N; ++a) alone[a] = !odd[a] && members[label[a]] == 1;
  attach(alone, true);
}

}  // namespace

// Clusters n items whose profiles (rows and columns) look alike; returns a label per item.
//
// Not every pair is compared (that is O(B n^3)): each item is compared with its `candidates`
// nearest items by the direct link between them (both directions, every band, after removing the
// row and column medians so that a slow item's own links do not hide its mates); items whose
// distance is below the threshold are joined, and within each joined set the full average linkage
// decides (every pair of the set compared). Average linkage never groups items that no chain of
// close pairs joins, so with all pairs as candidates (n <= candidates + 1) this is exactly average
// linkage over all items. A set of more than kTuning.large_set items whose members are all close on
// average to a sample of the set is taken whole. Cost O(B n^2 candidates) (plus O(B n s^2) for a
// set of s items that is not homogeneous).
//
// With skip_odd (groups, not ranks), third parties that are odd (their links to everyone are offset
// by a factor: a slow node) are left out of the comparisons: with two slow nodes, each one's row
// differs from its switch mates' at the other one's cells by the other's factor when the factors do
// not multiply (slow nodes would become switches of their own), where a switch boundary differs
// on the cells of whole switches. An odd item still counts in the comparisons of a normal item
// whose nearest it is (by the direct link, as the candidates): with two nodes per switch, a node's
// mate is the only third party that tells its switch from the others, and leaving a slow mate out
// makes a healthy node look like the two nodes of a slow leaf, which see only each other (the
// three would become one switch and the slow uplink two slow nodes). Not for two odd items (two slow
// nodes are each other's nearest when their factors do not multiply, the case above).
// Not for ranks: ranks of one node have the same links whatever the
// third party, and a slow node's ranks are the only evidence that tells them from other nodes'.
template <class T>
std::vector<int> cluster_profiles(const ProfilesOf<T>& prof, int n, const TopologyOptions& opt, bool skip_odd,
                                  double cell_noise, double* noise_out, double spread_floor_ratio) {
  if (n <= 2) return std::vector<int>(static_cast<std::size_t>(n), 0);  // no third item to compare against: one group
  const auto N = static_cast<std::size_t>(n);
  const std::size_t B = prof.size();
  Comparer<T> cmp(prof, N);
  cmp.set_spread(spread_floor_ratio > 0);
  const auto graph = candidate_graph(prof, N, opt);
  std::vector<char> odd;
  if (skip_odd) odd = skip_odd_items(cmp, graph, B, N, opt);
  // Distances of the candidate pairs, per band (2B per pair: Comparer::distances).
  const std::size_t E = graph.edges.size();
  std::vector<double> dist(E * 2 * B);
  parallel_for(E, [&](std::size_t e0, std::size_t e1) {
    typename Comparer<T>::Scratch scratch;
    for (std::size_t e = e0; e < e1; ++e)
      cmp.distances(graph.edges[e].first, graph.edges[e].second, scratch, &dist[e * 2 * B]);
  });
  std::vector<double> noise;
  const ScaledDistance scaled =
      band_thresholds(cmp, graph, dist, B, N, opt, spread_floor_ratio,
                      spread_floor_ratio > 0 ? direction_noise(prof, N) : std::vector<double>(B, 0.0), &noise);
  auto label = link_sets(cmp, graph, dist, B, N, scaled);
  if (skip_odd) attach_odd_items(prof, N, odd, noise, cell_noise, opt, label);
  if (noise_out) *noise_out = noise.empty() ? 0.0 : *std::max_element(noise.begin(), noise.end());
  return label;
}

template std::vector<int> cluster_profiles<float>(const ProfilesOf<float>&, int, const TopologyOptions&, bool, double,
                                                  double*, double);
template std::vector<int> cluster_profiles<double>(const Profiles&, int, const TopologyOptions&, bool, double, double*,
                                                   double);

}  // namespace nt::analysis::topology_parts
