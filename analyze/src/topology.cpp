#include "nt/analysis/topology.hpp"
#include "nt/analysis/ranks.hpp"
#include "nt/stats.hpp"

#include <algorithm>
#include <cstdint>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/analysis/linkage.hpp"

namespace nt::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Median of a scratch buffer (reordered); NaN when empty.
double median_inplace(std::vector<double>& x) { return x.empty() ? kNaN : nt::median_inplace(x); }

// n x n profile per band, [b][a*n + c]; NaN where unknown (and on the diagonal). The ranks'
// profiles are held in single precision (B P^2 values twice, with the transposed copy: 2.4 GB
// instead of 4.8 GB for 10,000 ranks); the groups' in double.
template <class T>
double dbl(T x) { return static_cast<double>(x); }
template <class T>
using ProfilesOf = std::vector<std::vector<T>>;
using Profiles = ProfilesOf<double>;

// Rank-to-rank (or group-to-group) comparison of profiles. The distance of items a and c in band
// b: their rows and columns after removing the median difference of each (so a uniformly slow
// item still matches its mates), the cells of a and c themselves and of the `skip` items left out
// (except the nearest item of a normal a or c: see cluster_profiles);
// per third party the smaller of the row and column |difference| counted twice (one direction
// alone when the other is unknown), and of these the second largest (robust to one odd cell). The median offsets come from a sample
// of at most ~64 cells (all cells for up to 128 items).
template <class T>
class Comparer {
 public:
  Comparer(const ProfilesOf<T>& prof, std::size_t n) : prof_(prof), N_(n), skip_(n, 0), nearest_(n, n) {
    // One band at a time, each allocated in place: assign(n, vector(N * N)) first built a
    // temporary P^2 profile and copied it, a third P^2 array at the peak (the report of 20,000
    // ranks ran out of a 4 GB address space here).
    tr_.resize(prof.size());
    for (auto& band : tr_) band.resize(N_ * N_);
    parallel_for(N_, [&](std::size_t i0, std::size_t i1) {
      for (std::size_t b = 0; b < prof_.size(); ++b)
        for (std::size_t i = i0; i < i1; ++i)
          for (std::size_t j = 0; j < N_; ++j) tr_[b][j * N_ + i] = prof_[b][i * N_ + j];
    });
    stride_ = N_ > 128 ? N_ / 64 : 1;
  }
  struct Scratch {
    std::vector<double> x, y, all;
  };
  struct Result {
    double dist = 0.0;             // second largest agreed |difference|
    double row_off = 0.0, col_off = 0.0;  // median (a - c) of the rows and of the columns
  };
  // Items left out of the comparisons, and per item its nearest (kept in a normal item's own).
  void set_skip(std::vector<char> s, std::vector<std::size_t> nearest) {
    skip_ = std::move(s);
    nearest_ = std::move(nearest);
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
      const double er = std::fabs(dbl(ra[k]) - dbl(rc[k]) - r.row_off);
      const double ec = std::fabs(dbl(ca[k]) - dbl(cc[k]) - r.col_off);
      if (keep_all) {
        if (std::isfinite(er)) s.all.push_back(er);
        if (std::isfinite(ec)) s.all.push_back(ec);
      }
      if (std::isfinite(er) && std::isfinite(ec)) {
        // Both directions count, each at what they agree on: a structural difference (k a mate
        // of a but not of c) is seen in both and counts twice, as before; a lone odd cell adds
        // nothing.
        take(std::min(er, ec));
        take(std::min(er, ec));
      } else {
        take(er);
        take(ec);
      }
    }
    r.dist = count >= 2 ? second : first;
    return r;
  }

 private:
  const ProfilesOf<T>& prof_;
  ProfilesOf<T> tr_;  // transposed profiles: columns become contiguous
  std::size_t N_;
  std::size_t stride_;
  std::vector<char> skip_;
  std::vector<std::size_t> nearest_;  // N_: none
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
  if (oddness.size() > N / 4) oddness.resize(N / 4);
  std::vector<char> skip(N, 0);
  for (auto [worst, a] : oddness) skip[a] = 1;
  cmp.set_skip(skip, graph.nearest);
  return skip;
}

// Noise per band: the typical |difference| between each item and its nearest candidate; the
// threshold of a band (tau) is noise_factor times it, at least log(floor_ratio).
template <class T>
std::vector<double> band_thresholds(const Comparer<T>& cmp, const CandidateGraph& graph, const std::vector<double>& dist,
                                    std::size_t B, std::size_t N, const TopologyOptions& opt,
                                    std::vector<double>* noise = nullptr) {
  std::vector<double> tau(B);
  if (noise) noise->assign(B, 0.0);
  typename Comparer<T>::Scratch scratch;
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<double> nearest_sigmas;
    for (std::size_t a = 0; a < N; ++a) {
      std::size_t best = N;
      double best_dist = 0.0;
      for (std::size_t e : graph.adj[a]) {
        const std::size_t c = graph.other(e, a);
        const double candidate_dist = dist[e * B + b];
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
    if (noise) (*noise)[b] = sigma;
  }
  return tau;
}

// The scaled distance of two items: the worst band's distance over its threshold.
struct ScaledDistance {
  std::vector<double> tau;
  double operator()(const double* dist) const {
    double worst = 0.0;
    for (std::size_t b = 0; b < tau.size(); ++b) worst = std::max(worst, dist[b] / tau[b]);
    return worst;
  }
};

// A large set (one rank per node: a whole switch) is one group when every member is close, on
// average, to 16 members spread over the set: O(16 s) comparisons instead of all s^2 / 2.
template <class T>
bool every_member_close(const Comparer<T>& cmp, const std::vector<std::size_t>& members, std::size_t B,
                        const ScaledDistance& scaled) {
  const std::size_t s = members.size();
  std::vector<char> far(s, 0);
  parallel_for(s, [&](std::size_t q0, std::size_t q1) {
    typename Comparer<T>::Scratch scratch;
    std::vector<double> dist(B);
    for (std::size_t q = q0; q < q1; ++q) {
      double sum = 0.0;
      std::size_t compared = 0;
      for (std::size_t t = 0; t < 16; ++t) {
        const std::size_t r = (q + 1 + t * (s - 1) / 16) % s;
        if (r == q) continue;
        for (std::size_t b = 0; b < B; ++b) dist[b] = cmp.compare(b, members[q], members[r], scratch).dist;
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
      D[q * s + it->second] = scaled(&dist[e * B]);
      known[q * s + it->second] = 1;
    }
  for (std::size_t q = 0; q < s; ++q)
    for (std::size_t r = q + 1; r < s; ++r)
      if (!known[q * s + r]) todo.emplace_back(q, r);
  parallel_for(todo.size(), [&](std::size_t t0, std::size_t t1) {
    typename Comparer<T>::Scratch scratch;
    std::vector<double> pair_dist(B);
    for (std::size_t t = t0; t < t1; ++t) {
      const auto [q, r] = todo[t];
      for (std::size_t b = 0; b < B; ++b) pair_dist[b] = cmp.compare(b, members[q], members[r], scratch).dist;
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
    if (scaled(&dist[e * B]) < 1.0) joined.join(graph.edges[e].first, graph.edges[e].second);
  std::map<std::size_t, std::vector<std::size_t>> sets;
  for (std::size_t a = 0; a < N; ++a) sets[joined.find(a)].push_back(a);
  std::vector<int> label(N);
  for (std::size_t a = 0; a < N; ++a) label[a] = static_cast<int>(a);
  for (auto& [root, members] : sets) {
    const std::size_t s = members.size();
    if (s == 1) continue;
    // Else (two groups chained by a borderline pair) every pair is compared below.
    if (s > 64 && every_member_close(cmp, members, B, scaled)) {
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

// An odd item (a slow node) joins the group of the normal item it reaches fastest by the direct
// link, when that group is nearer than every other by more than the noise: its profile matches
// none of its switch mates' (a slow cable caps every path alike, so only the latency of the hops
// still tells where it is; issue 32: with one rank per host a slow host joined a slow leaf, or
// stood alone as a ninth leaf). Reaching every group alike it keeps its label (a lone node: behind
// a switch of its own, or slow; the report says both).
template <class T>
void attach_odd_items(const ProfilesOf<T>& prof, std::size_t N, const std::vector<char>& odd,
                      const std::vector<double>& noise, double cell_noise, const TopologyOptions& opt,
                      std::vector<int>& label) {
  // Both directions of every band, noise_factor sigmas each: of the groups' profiles, and of the
  // ranks' cells (a direct link is one cell; a group's profile a median of many: on noisy data a
  // node behind a switch of its own reaches one group fastest by chance).
  double margin = 0.0;
  for (double sigma : noise) margin += 2 * opt.noise_factor * std::max(sigma, cell_noise);
  const auto before = label;
  for (std::size_t a = 0; a < odd.size(); ++a) {
    if (!odd[a]) continue;
    // Per group of normal items, its nearest member by the direct link (both ways, every band).
    std::map<int, double> nearest;
    for (std::size_t c = 0; c < N; ++c) {
      if (c == a || odd[c]) continue;
      double sum = 0.0;
      for (const auto& band : prof) sum += dbl(band[a * N + c]) + dbl(band[c * N + a]);
      if (!std::isfinite(sum)) continue;
      auto [it, inserted] = nearest.emplace(before[c], sum);
      if (!inserted) it->second = std::min(it->second, sum);
    }
    if (nearest.size() < 2) continue;
    std::vector<std::pair<double, int>> order;
    for (auto [l, sum] : nearest) order.emplace_back(sum, l);
    std::sort(order.begin(), order.end());
    if (order[1].first - order[0].first > std::max(margin, 1e-9)) label[a] = order[0].second;
  }
}

// Clusters n items whose profiles (rows and columns) look alike; returns a label per item.
//
// Not every pair is compared (that is O(B n^3)): each item is compared with its `candidates`
// nearest items by the direct link between them (both directions, every band, after removing the
// row and column medians so that a slow item's own links do not hide its mates); items whose
// distance is below the threshold are joined, and within each joined set the full average linkage
// decides (every pair of the set compared). Average linkage never groups items that no chain of
// close pairs joins, so with all pairs as candidates (n <= candidates + 1) this is exactly average
// linkage over all items. A set of more than 64 items whose members are all close on average to a
// sample of the set is taken whole. Cost O(B n^2 candidates) (plus O(B n s^2) for a set of s items
// that is not homogeneous).
//
// With skip_odd (groups, not ranks), third parties that are odd (their links to everyone are offset
// by a factor: a slow node) are left out of the comparisons: with two slow nodes, each one's row
// differs from its switch mates' at the other one's cells by the other's factor when the factors do
// not multiply (issue 13: slow nodes became switches of their own), where a switch boundary differs
// on the cells of whole switches. An odd item still counts in the comparisons of a normal item
// whose nearest it is (by the direct link, as the candidates): with two nodes per switch, a node's
// mate is the only third party that tells its switch from the others, and leaving a slow mate out
// made a healthy node look like the two nodes of a slow leaf, which see only each other (issue
// 22: the three became one switch and the slow uplink two slow nodes). Not for two odd items
// (two slow nodes are each other's nearest when their factors do not multiply; issue 13 again).
// Not for ranks: ranks of one node have the same links whatever the
// third party, and a slow node's ranks are the only evidence that tells them from other nodes'.
template <class T>
std::vector<int> cluster_profiles(const ProfilesOf<T>& prof, int n, const TopologyOptions& opt, bool skip_odd,
                                  double cell_noise = 0.0, double* noise_out = nullptr) {
  if (n <= 2) return std::vector<int>(static_cast<std::size_t>(n), 0);  // no third item to compare against: one group
  const auto N = static_cast<std::size_t>(n);
  const std::size_t B = prof.size();
  Comparer<T> cmp(prof, N);
  const auto graph = candidate_graph(prof, N, opt);
  std::vector<char> odd;
  if (skip_odd) odd = skip_odd_items(cmp, graph, B, N, opt);
  // Distances of the candidate pairs, per band.
  const std::size_t E = graph.edges.size();
  std::vector<double> dist(E * B);
  parallel_for(E, [&](std::size_t e0, std::size_t e1) {
    typename Comparer<T>::Scratch scratch;
    for (std::size_t e = e0; e < e1; ++e)
      for (std::size_t b = 0; b < B; ++b)
        dist[e * B + b] = cmp.compare(b, graph.edges[e].first, graph.edges[e].second, scratch).dist;
  });
  std::vector<double> noise;
  const ScaledDistance scaled{band_thresholds(cmp, graph, dist, B, N, opt, &noise)};
  auto label = link_sets(cmp, graph, dist, B, N, scaled);
  if (skip_odd) attach_odd_items(prof, N, odd, noise, cell_noise, opt, label);
  if (noise_out) *noise_out = noise.empty() ? 0.0 : *std::max_element(noise.begin(), noise.end());
  return label;
}

// A group that its profile alone places wrongly: a slow node's links are slower by a factor that
// depends on the path (a slow cable caps every path at its own bandwidth, so it costs 4x on the
// links within its switch and 2x beyond a 2x slower uplink: the factors do not multiply), so its
// profile matches no switch; it became a switch of its own or joined another odd group (issue 22).
// Its direct links still say where it is: the switch it reaches fastest. Each finer group A moves
// to the upper group S it reaches clearly fastest (per length, the nearest member of S: the least,
// over S's finer groups, of the median log delay between their ranks and A's, both ways, so that
// one slow member does not push its mates away; at some length min_ratio below every other
// group, and at no length more than half of that above), when S is not its group already. A node
// behind a switch of its own reaches every other switch alike and stays. Cost O(P^2 K).
// Per finer group a, per length k and upper group u ([a][k*S + u]): the least, over u's finer
// groups, of the median log delay between their ranks and a's, both ways (NaN where none); one
// length at a time over every finer group (the delays are read once per length).
std::vector<std::vector<double>> nearest_member_delays(const Cube& c, const std::vector<std::vector<int>>& finer,
                                                       const std::vector<std::size_t>& up_of, std::size_t S) {
  const std::size_t G = finer.size(), K = c.count();
  std::vector<int> group_of(static_cast<std::size_t>(c.P), -1);
  for (std::size_t g = 0; g < G; ++g)
    for (int r : finer[g]) group_of[static_cast<std::size_t>(r)] = static_cast<int>(g);
  std::vector<std::vector<double>> dall(G, std::vector<double>(K * S, kNaN));
  std::vector<float> buf;
  const auto N = static_cast<std::size_t>(c.P);
  for (std::size_t k = 0; k < K; ++k) {
    const float* slice = c.slice(k, buf);
    parallel_for(G, [&](std::size_t g0, std::size_t g1) {
      std::vector<std::vector<double>> vals(G);
      for (std::size_t a = g0; a < g1; ++a) {
        std::vector<double>& nearest = dall[a];
        for (auto& of_group : vals) of_group.clear();
        for (int x : finer[a])
          for (int y = 0; y < c.P; ++y) {
            const int gy = group_of[static_cast<std::size_t>(y)];
            if (gy < 0 || static_cast<std::size_t>(gy) == a) continue;
            const auto X = static_cast<std::size_t>(x), Y = static_cast<std::size_t>(y);
            for (const double delay : {static_cast<double>(slice[X * N + Y]), static_cast<double>(slice[Y * N + X])})
              if (Cube::usable(delay)) vals[static_cast<std::size_t>(gy)].push_back(std::log(delay));
          }
        for (std::size_t gy = 0; gy < G; ++gy) {
          if (vals[gy].empty()) continue;
          double& near = nearest[k * S + up_of[gy]];
          const double md = median_inplace(vals[gy]);
          if (!(near <= md)) near = md;
        }
      }
    });
  }
  return dall;
}

// The upper group of least summed nearest delay among those `allowed` (S when none has delays).
template <class Allowed>
std::size_t fastest_group(const std::vector<double>& nearest, std::size_t S, std::size_t K, Allowed allowed) {
  std::size_t best = S;
  double best_sum = 0.0;
  for (std::size_t u = 0; u < S; ++u) {
    if (!allowed(u)) continue;
    double sum = 0.0;
    for (std::size_t k = 0; k < K; ++k) sum += nearest[k * S + u];
    if (std::isfinite(sum) && (best == S || sum < best_sum)) {
      best = u;
      best_sum = sum;
    }
  }
  return best;
}

// The upper group a finer group reaches clearly fastest (nearest: its nearest_member_delays), or
// `own` when none does.
std::size_t clearly_nearest_group(const std::vector<double>& nearest, std::size_t S, std::size_t K, std::size_t own,
                                  double margin) {
  const std::size_t best = fastest_group(nearest, S, K, [](std::size_t) { return true; });
  if (best == S || best == own) return own;
  // Clearly nearer than every other group with links to compare (a's own group, when a is
  // alone in it, has none); with no other group to compare, nothing is clear and a stays.
  bool clear = true;
  std::size_t compared = 0;
  for (std::size_t u = 0; u < S && clear; ++u) {
    bool known = false;
    for (std::size_t k = 0; k < K; ++k) known = known || std::isfinite(nearest[k * S + u]);
    if (u == best || !known) continue;
    ++compared;
    double most = -1e300, least = 1e300;
    for (std::size_t k = 0; k < K; ++k) {
      const double diff = nearest[k * S + u] - nearest[k * S + best];
      most = std::max(most, diff);
      least = std::min(least, diff);
    }
    clear = most >= margin && least >= -margin / 2;
  }
  return clear && compared > 0 ? best : own;
}

// Which of `upper` each of the G finer groups belongs to.
std::vector<std::size_t> group_of_each(const std::vector<std::vector<int>>& upper, std::size_t G) {
  std::vector<std::size_t> up_of(G);
  for (std::size_t u = 0; u < upper.size(); ++u)
    for (int g : upper[u]) up_of[static_cast<std::size_t>(g)] = u;
  return up_of;
}

void move_to_nearest(const Cube& c, const std::vector<std::vector<int>>& finer, std::vector<std::vector<int>>& upper,
                     double min_ratio) {
  const std::size_t G = finer.size(), S = upper.size(), K = c.count();
  if (S < 2) return;
  const std::vector<std::size_t> up_of = group_of_each(upper, G);
  const double margin = std::log(min_ratio);
  const auto dall = nearest_member_delays(c, finer, up_of, S);
  std::vector<std::size_t> dest(G);
  parallel_for(G, [&](std::size_t g0, std::size_t g1) {
    for (std::size_t a = g0; a < g1; ++a) dest[a] = clearly_nearest_group(dall[a], S, K, up_of[a], margin);
  });
  std::vector<std::vector<int>> moved(S);
  for (std::size_t g = 0; g < G; ++g) moved[dest[g]].push_back(static_cast<int>(g));
  upper.clear();
  for (auto& members : moved)
    if (!members.empty()) upper.push_back(std::move(members));
  std::sort(upper.begin(), upper.end());
}

// Above the switches, a group of one finer group is no level of the hierarchy: one switch that
// reaches every other alike, only slower, is a switch behind a slow uplink (issue 22: 8 leaves of
// 2 nodes, one uplink at 1/8, came out as a level "switch-2" of that leaf against the rest, whose
// links then had a class of their own and the fault vanished from the anomalies). Such a group
// joins the group it reaches fastest (the least summed nearest-member delay); with one group
// left there is no level, and the anomalies see the switch's slow links.
void absorb_lone_groups(const Cube& c, const std::vector<std::vector<int>>& finer, std::vector<std::vector<int>>& upper) {
  const std::size_t G = finer.size(), S = upper.size(), K = c.count();
  if (S < 2) return;
  const std::vector<std::size_t> up_of = group_of_each(upper, G);
  std::vector<std::vector<int>> kept;
  std::vector<std::size_t> lone;
  std::vector<std::size_t> kept_of(S, S);
  for (std::size_t u = 0; u < S; ++u) {
    if (upper[u].size() == 1) {
      lone.push_back(u);
    } else {
      kept_of[u] = kept.size();
      kept.push_back(upper[u]);
    }
  }
  // Every group alone: no level either way (the caller sees as many groups as finer ones).
  if (lone.empty() || kept.empty()) return;
  const auto dall = nearest_member_delays(c, finer, up_of, S);
  for (std::size_t u : lone) {
    const auto g = static_cast<std::size_t>(upper[u].front());
    std::size_t best = fastest_group(dall[g], S, K, [&](std::size_t v) { return kept_of[v] != S; });
    if (best == S)  // no delays known: the largest group
      for (std::size_t v = 0; v < S; ++v)
        if (kept_of[v] != S && (best == S || upper[v].size() > upper[best].size())) best = v;
    kept[kept_of[best]].push_back(static_cast<int>(g));
  }
  for (auto& members : kept) std::sort(members.begin(), members.end());
  std::sort(kept.begin(), kept.end());
  upper = std::move(kept);
}

// Groups from labels: ranks ascending, groups by first member.
std::vector<std::vector<int>> groups_from_labels(const std::vector<int>& label) {
  std::map<int, std::vector<int>> by;
  for (std::size_t i = 0; i < label.size(); ++i) by[label[i]].push_back(static_cast<int>(i));
  std::vector<std::vector<int>> g;
  for (auto& [l, v] : by) g.push_back(std::move(v));
  std::sort(g.begin(), g.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return g;
}

Level make_level(std::string name, std::vector<std::vector<int>> groups, int P) {
  Level l;
  l.name = std::move(name);
  for (auto& g : groups) std::sort(g.begin(), g.end());
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  l.groups = std::move(groups);
  l.group_of.assign(static_cast<std::size_t>(P), -1);
  for (std::size_t g = 0; g < l.groups.size(); ++g)
    for (int r : l.groups[g]) l.group_of[static_cast<std::size_t>(r)] = static_cast<int>(g);
  return l;
}

}  // namespace

std::vector<std::int8_t> pair_classes(const Topology& t) {
  const auto N = static_cast<std::size_t>(t.P);
  std::vector<std::int8_t> cls(N * N, -1);
  parallel_for(N, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
      for (std::size_t j = 0; j < N; ++j)
        if (i != j) cls[i * N + j] = static_cast<std::int8_t>(t.pair_class(static_cast<int>(i), static_cast<int>(j)));
  });
  return cls;
}

std::string topology_title(const Topology& t) {
  return t.nodes_from_hosts ? "Topology (nodes: the hosts the file names; levels above: from the delays)"
                            : "Topology (from the delays alone)";
}

int Topology::pair_class(int i, int j) const {
  for (std::size_t l = 0; l < levels.size(); ++l)
    if (levels[l].group_of[static_cast<std::size_t>(i)] == levels[l].group_of[static_cast<std::size_t>(j)])
      return static_cast<int>(l);
  return static_cast<int>(levels.size());
}

std::string Topology::class_name(int c) const {
  if (!node_level_identified) {
    if (c == 0) return "within-group";
    if (c == 1) return "between-groups";
  }
  if (c == 0) return "intra-node";
  if (c == 1) return "inter-node";
  if (c == 2) return "inter-switch";
  return fmt::format("inter-switch-{}", c - 1);
}

namespace {

// Per length, the median off-diagonal delay (one length at a time); NaN where none.
std::vector<double> median_delays(const Cube& c) {
  const auto n_ranks = static_cast<std::size_t>(c.P);
  std::vector<double> medians(c.count(), kNaN);
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    const float* slice = c.slice(k, buf);
    auto sample = population_sample([&](auto&& take) {
      for (std::size_t i = 0; i < n_ranks; ++i)
        for (std::size_t j = 0; j < n_ranks; ++j)
          if (i != j && Cube::usable(slice[i * n_ranks + j])) take(static_cast<double>(slice[i * n_ranks + j]));
    });
    if (!sample.empty()) medians[k] = population_median(sample);
  }
  return medians;
}

// The profile rows of senders r0..r1 in band k0..k1 (senders in parallel): per receiver, the
// median over the band's lengths of log(delay / that length's median delay).
void band_profile_rows(const std::vector<const float*>& rows, const std::vector<double>& norm, std::size_t k0,
                       std::size_t k1, std::size_t n_ranks, int r0, int r1, std::vector<float>& profile) {
  const std::size_t nb = k1 - k0;
  parallel_for(static_cast<std::size_t>(r1 - r0), [&](std::size_t q0, std::size_t q1) {
    std::vector<double> logs(n_ranks * nb), tmp;
    std::vector<std::size_t> cnt(n_ranks);
    for (std::size_t i = static_cast<std::size_t>(r0) + q0; i < static_cast<std::size_t>(r0) + q1; ++i) {
      std::fill(cnt.begin(), cnt.end(), std::size_t{0});
      for (std::size_t k = k0; k < k1; ++k) {
        if (!(std::isfinite(norm[k]) && norm[k] > 0)) continue;
        const float* row = rows[k - k0] + (i - static_cast<std::size_t>(r0)) * n_ranks;
        for (std::size_t j = 0; j < n_ranks; ++j)
          if (j != i && Cube::usable(row[j]))
            logs[j * nb + cnt[j]++] = std::log(static_cast<double>(row[j]) / norm[k]);
      }
      for (std::size_t j = 0; j < n_ranks; ++j) {
        if (cnt[j] == 0) continue;
        tmp.assign(logs.begin() + static_cast<std::ptrdiff_t>(j * nb),
                   logs.begin() + static_cast<std::ptrdiff_t>(j * nb + cnt[j]));
        profile[i * n_ranks + j] = static_cast<float>(median_inplace(tmp));
      }
    }
  });
}

// The rank profiles: per band and sender, the band's rows of that sender, then the median per
// receiver over the band's lengths; read in blocks of senders (every length of the band for one
// block at a time).
ProfilesOf<float> rank_profiles(const Cube& c, std::size_t B) {
  const int P = c.P;
  const auto N = static_cast<std::size_t>(P);
  const std::size_t K = c.count();
  // Log of each delay over the median off-diagonal delay of its length.
  const auto norm = median_delays(c);
  ProfilesOf<float> prof(B, std::vector<float>(N * N, std::numeric_limits<float>::quiet_NaN()));
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t k0 = b * K / B, k1 = (b + 1) * K / B, nb = k1 - k0;
    const int rb = rows_per_block(P, nb * N * sizeof(float));
    std::vector<std::vector<float>> bufs(nb);
    std::vector<const float*> blk(nb);
    for (int r0 = 0; r0 < P; r0 += rb) {
      const int r1 = std::min(P, r0 + rb);
      // Under mpiexec the block's owner alone reads and computes its profile rows, then sends them.
      const auto blk_no = static_cast<std::size_t>(r0 / rb);
      float* out = prof[b].data() + static_cast<std::size_t>(r0) * N;
      const std::size_t out_bytes = static_cast<std::size_t>(r1 - r0) * N * sizeof(float);
      if (owns_block(blk_no)) {
        for (std::size_t k = k0; k < k1; ++k) blk[k - k0] = c.rows(k, r0, r1, bufs[k - k0]);
        band_profile_rows(blk, norm, k0, k1, N, r0, r1, prof[b]);
      }
      share_block(blk_no, out, out_bytes);
    }
  }
  return prof;
}

// The profiles of groups of ranks: per band, the median of the rank profile cells between two
// groups.
Profiles group_profiles(const ProfilesOf<float>& prof, const std::vector<std::vector<int>>& groups, std::size_t N) {
  const std::size_t B = prof.size(), G = groups.size();
  Profiles gp(B, std::vector<double>(G * G, kNaN));
  parallel_for(G, [&](std::size_t A0, std::size_t A1) {
    std::vector<double> tmp;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t A = A0; A < A1; ++A)
        for (std::size_t C = 0; C < G; ++C) {
          if (A == C) continue;
          tmp.clear();
          for (int a : groups[A])
            for (int cc : groups[C]) {
              const double cell = prof[b][static_cast<std::size_t>(a) * N + static_cast<std::size_t>(cc)];
              if (std::isfinite(cell)) tmp.push_back(cell);
            }
          if (!tmp.empty()) gp[b][A * G + C] = median_inplace(tmp);
        }
  });
  return gp;
}

// Ranks grouped by host name: ranks ascending, groups by first rank.
std::vector<std::vector<int>> host_groups(const std::vector<std::string>& hosts) {
  std::map<std::string, int> id;
  std::vector<int> label(hosts.size());
  for (std::size_t r = 0; r < hosts.size(); ++r) label[r] = id.emplace(hosts[r], static_cast<int>(id.size())).first->second;
  return groups_from_labels(label);
}

// Whether every group holds whole hosts (the ranks of a host never split over groups).
bool holds_whole_hosts(const std::vector<std::vector<int>>& groups, const std::vector<std::string>& hosts) {
  std::map<std::string, std::size_t> group_of_host;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int r : groups[g]) {
      const auto [it, inserted] = group_of_host.emplace(hosts[static_cast<std::size_t>(r)], g);
      if (!inserted && it->second != g) return false;
    }
  return true;
}

}  // namespace

Topology find_topology(const Cube& c, const TopologyOptions& opt, const std::vector<std::string>& hosts) {
  Topology t;
  t.P = c.P;
  const int P = c.P;
  const auto N = static_cast<std::size_t>(P);
  const std::size_t K = c.count();
  // At least 3 lengths per band where there are 3: a profile cell is then a median that one gross
  // outlier does not move (a band of 2 lengths averages it in; with 0.1 % outliers, 8 lengths in 3
  // bands split 512 ranks into 430 groups).
  const std::size_t B =
      std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(1, opt.bands)), K / 3));
  const auto prof = rank_profiles(c, B);
  if (P <= 2) t.notes.push_back("2 ranks: too few to tell nodes apart from the delays; both ranks form one group");
  // The ranks are clustered whether or not the hosts are known: the noise between a rank and its
  // nearest (one cell's noise) sets the smallest ratio that may separate the groups above. Their
  // profiles are medians of many cells, so their own noise is tiny, while a few odd cells (a slow
  // node's) move them by a few per cent; only on clean data (a simulator's) does a 2-4 % step
  // between switches separate them (floor_ratio), on noisy data it takes min_ratio.
  // The ranks keep min_ratio as their floor (a node's ranks differ by noise only, and contention
  // under --concurrent moves a few cells of a rank by more than the noise of the rest).
  double cell_noise = 0.0;
  TopologyOptions ranks = opt;
  ranks.floor_ratio = std::max(opt.floor_ratio, opt.min_ratio);
  auto labels = cluster_profiles(prof, P, ranks, false, 0.0, &cell_noise);
  TopologyOptions upper = opt;
  upper.floor_ratio = std::clamp(std::exp(opt.noise_factor * cell_noise), opt.floor_ratio, std::max(opt.floor_ratio, opt.min_ratio));
  t.delay_groups = groups_from_labels(labels);
  if (hosts.size() == N && holds_whole_hosts(t.delay_groups, hosts)) {
    // The hosts are a measured fact (network_test records each rank's machine): when the groups the
    // delays find hold whole hosts (the same, or unions of them) they are the node level. With one rank per host the delays cannot tell node mates
    // from switch mates, and a slow host's profile matches none of its switch mates' (issue 32:
    // 9 groups for 8 leaves); as groups of the level below the switches, a slow host is an odd
    // item that the switch clustering leaves out of its comparisons.
    t.levels.push_back(make_level("node", host_groups(hosts), P));
    t.nodes_from_hosts = true;
  } else {  // no hosts, or groups that split hosts (sockets) or disagree with them (a wrong hosts file)
    t.levels.push_back(make_level("node", t.delay_groups, P));
  }

  // Upper levels: the same on the groups.
  for (int lev = 1; lev <= opt.max_levels; ++lev) {
    const auto& cur = t.levels.back().groups;
    const int n = static_cast<int>(cur.size());
    if (n <= 2) break;
    auto gl = cluster_profiles(group_profiles(prof, cur, N), n, upper, true, cell_noise);
    auto ggroups = groups_from_labels(gl);
    move_to_nearest(c, cur, ggroups, opt.min_ratio);
    if (lev >= 2) absorb_lone_groups(c, cur, ggroups);
    if (ggroups.size() <= 1 || static_cast<int>(ggroups.size()) >= n) break;
    std::vector<std::vector<int>> rank_groups;
    for (const auto& gg : ggroups) {
      std::vector<int> rs;
      for (int gi : gg)
        rs.insert(rs.end(), cur[static_cast<std::size_t>(gi)].begin(), cur[static_cast<std::size_t>(gi)].end());
      rank_groups.push_back(std::move(rs));
    }
    t.levels.push_back(make_level(lev == 1 ? "switch" : fmt::format("switch-{}", lev), std::move(rank_groups), P));
  }
  return t;
}

double adjusted_rand_index(const std::vector<int>& a, const std::vector<int>& b) {
  const std::size_t n = a.size();
  if (n < 2 || b.size() != n) return 1.0;
  std::map<std::pair<int, int>, long long> nij;
  std::map<int, long long> ai, bj;
  for (std::size_t i = 0; i < n; ++i) {
    ++nij[{a[i], b[i]}];
    ++ai[a[i]];
    ++bj[b[i]];
  }
  auto c2 = [](long long x) { return static_cast<double>(x) * static_cast<double>(x - 1) / 2.0; };
  double sij = 0, sa = 0, sb = 0;
  for (auto& [k, v] : nij) sij += c2(v);
  for (auto& [k, v] : ai) sa += c2(v);
  for (auto& [k, v] : bj) sb += c2(v);
  const double total = c2(static_cast<long long>(n));
  const double expected = sa * sb / total;
  const double maxi = 0.5 * (sa + sb);
  if (maxi - expected == 0.0) return 1.0;
  return (sij - expected) / (maxi - expected);
}

HostAgreement compare_with_hosts(const std::vector<std::vector<int>>& groups, const std::vector<std::string>& hosts) {
  HostAgreement h;
  if (hosts.empty()) {
    h.summary = "no host names known";
    return h;
  }
  h.known = true;
  const std::size_t P = hosts.size();
  std::map<std::string, int> id;
  std::vector<int> hl(P), gl(P, -1);
  for (std::size_t r = 0; r < P; ++r) {
    auto [it, inserted] = id.emplace(hosts[r], static_cast<int>(id.size()));
    hl[r] = it->second;
  }
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int r : groups[g])
      if (r >= 0 && static_cast<std::size_t>(r) < P) gl[static_cast<std::size_t>(r)] = static_cast<int>(g);
  h.host_groups = groups_from_labels(hl);
  for (const auto& g : h.host_groups) h.host_names.push_back(hosts[static_cast<std::size_t>(g.front())]);
  h.adjusted_rand = adjusted_rand_index(gl, hl);
  bool coarser = true, finer = true;
  for (const auto& g : groups) {
    std::vector<std::string> hs;
    for (int r : g) hs.push_back(hosts[static_cast<std::size_t>(r)]);
    std::sort(hs.begin(), hs.end());
    hs.erase(std::unique(hs.begin(), hs.end()), hs.end());
    if (hs.size() > 1) {
      finer = false;
      h.mismatches.push_back(fmt::format("group of ranks {} spans hosts {}", fmt::join(g, ","), fmt::join(hs, ",")));
    }
  }
  for (std::size_t k = 0; k < h.host_groups.size(); ++k) {
    std::vector<int> gs;
    for (int r : h.host_groups[k]) gs.push_back(gl[static_cast<std::size_t>(r)]);
    std::sort(gs.begin(), gs.end());
    gs.erase(std::unique(gs.begin(), gs.end()), gs.end());
    if (gs.size() > 1) {
      coarser = false;
      h.mismatches.push_back(fmt::format("host {} is split over {} groups", h.host_names[k], gs.size()));
    }
  }
  h.exact = h.mismatches.empty();
  if (h.exact) h.summary = fmt::format("the groups equal the {} hosts", h.host_groups.size());
  else if (coarser) h.summary = "the groups are unions of hosts (ranks on different hosts look alike)";
  else if (finer) h.summary = "the groups split hosts (e.g. sockets or NUMA domains look different)";
  else h.summary = "the groups and the hosts disagree";
  return h;
}

}  // namespace nt::analysis

namespace nt::analysis {

std::vector<std::size_t> lone_node_groups(const Topology& t, std::size_t l) {
  std::vector<std::size_t> out;
  if (l == 0 || l >= t.levels.size()) return out;
  const auto& node_of = t.levels.front().group_of;
  for (std::size_t g = 0; g < t.levels[l].groups.size(); ++g) {
    const auto& rs = t.levels[l].groups[g];
    if (std::all_of(rs.begin(), rs.end(), [&](int r) { return node_of[static_cast<std::size_t>(r)] == node_of[static_cast<std::size_t>(rs.front())]; }))
      out.push_back(g);
  }
  return out;
}

double check_node_level(const Cube& c, Topology& t, bool hosts_known, double min_ratio) {
  if (t.levels.empty() || c.P < 3 || c.count() == 0) return std::nan("");
  // Median delay of the two finest classes over the shortest lengths (up to 3).
  std::vector<float> in, out, buf;
  const std::size_t kn = std::min<std::size_t>(3, c.count());
  const auto N = static_cast<std::size_t>(c.P);
  for (std::size_t k = 0; k < kn; ++k) {
    const float* m = c.slice(k, buf);
    for (int i = 0; i < c.P; ++i)
      for (int j = 0; j < c.P; ++j) {
        const float v = m[static_cast<std::size_t>(i) * N + static_cast<std::size_t>(j)];
        if (i == j || !Cube::usable(v)) continue;
        const int q = t.pair_class(i, j);
        if (q == 0) in.push_back(v);
        else if (q == 1 || (q > 1 && t.levels.size() == 1)) out.push_back(v);
      }
  }
  if (in.empty() || out.empty()) return std::nan("");
  const double ratio = float_median(out) / float_median(in);
  if (!hosts_known && ratio < min_ratio) {
    t.node_level_identified = false;
    t.levels.front().name = "group";
    t.notes.push_back(fmt::format(
        "WARNING: the node level cannot be identified: links inside the finest groups are only {:.2f}x faster than "
        "between them (shared memory is usually {:.1f}x or more faster than the network), so these groups are "
        "probably switches or sets of nodes with one rank per node; give a hosts file (--hosts) to know the nodes",
        ratio, min_ratio));
  }
  return ratio;
}

}  // namespace nt::analysis
