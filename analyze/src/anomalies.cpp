#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/error.hpp"

#include "nt/units.hpp"

namespace nt::analysis {
namespace {
// "12.3 sigmas", or what stands for it when the data has no noise (a simulated cluster): a robust
// sigma of 0 makes every z-score infinite or undefined, which is no number to print.
std::string sigmas_text(double z) { return std::isfinite(z) ? fmt::format("{:.1f} sigmas", z) : "noise-free data"; }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> hosts_of(const std::vector<int>& ranks, const std::vector<std::string>& hosts) {
  std::vector<std::string> h;
  if (hosts.empty()) return h;
  for (int r : ranks)
    if (r >= 0 && static_cast<std::size_t>(r) < hosts.size()) h.push_back(hosts[static_cast<std::size_t>(r)]);
  std::sort(h.begin(), h.end());
  h.erase(std::unique(h.begin(), h.end()), h.end());
  return h;
}

// Lengths present in both cubes: (index in a, index in b), ascending.
std::vector<std::pair<std::size_t, std::size_t>> common_lengths(const Cube& a, const Cube& b) {
  std::vector<std::pair<std::size_t, std::size_t>> ks;
  for (std::size_t x = 0; x < a.count(); ++x) {
    const auto it = std::find(b.lengths.begin(), b.lengths.end(), a.lengths[x]);
    if (it != b.lengths.end()) ks.emplace_back(x, static_cast<std::size_t>(it - b.lengths.begin()));
  }
  return ks;
}

std::size_t needed(std::size_t K, double fraction) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(K) - 1e-9)));
}

// Link anomalies merged per pair of node groups: a bad cable between two nodes shows in every
// rank pair between them.
struct LinkHit {
  int i, j;
  double score;
  std::vector<std::int64_t> lengths;
  double sigmas = 0.0;  // median robust z-score of the residual (or of the direction difference)
};

// Link hits merged per pair of node groups. `ordered`: per (sender group, receiver group), for
// one-way findings whose direction matters; else per unordered pair of groups.
std::vector<Anomaly> merge_links(const std::string& kind, const std::vector<LinkHit>& hits, const Topology& t,
                                 const std::vector<std::string>& hosts, std::size_t max_items,
                                 const std::string& what, bool ordered) {
  std::map<std::pair<int, int>, std::vector<const LinkHit*>> by;
  const auto& g = t.levels.front().group_of;
  for (const auto& h : hits) {
    int a = g[static_cast<std::size_t>(h.i)], b = g[static_cast<std::size_t>(h.j)];
    if (!ordered && a > b) std::swap(a, b);
    by[{a, b}].push_back(&h);
  }
  const std::string group_word = t.node_level_identified ? "node group" : "group";
  std::vector<Anomaly> out;
  for (auto& [key, v] : by) {
    Anomaly a;
    a.kind = kind;
    std::set<int> ranks;
    std::set<std::int64_t> lens;
    std::vector<double> scores, sig;
    for (const auto* h : v) {
      ranks.insert(h->i);
      ranks.insert(h->j);
      lens.insert(h->lengths.begin(), h->lengths.end());
      scores.push_back(h->score);
      sig.push_back(h->sigmas);
      a.pairs.emplace_back(h->i, h->j);
    }
    a.ranks.assign(ranks.begin(), ranks.end());
    a.lengths.assign(lens.begin(), lens.end());
    a.score = finite_median(scores);
    a.hosts = hosts_of(a.ranks, hosts);
    const std::string evidence =
        fmt::format("{:.2f}x, {}, at {} of the lengths", a.score, sigmas_text(finite_median(sig)), a.lengths.size());
    if (v.size() == 1)
      a.detail = fmt::format("{} rank {} -> rank {}: {}", what, v.front()->i, v.front()->j, evidence);
    else if (ordered)
      a.detail = fmt::format("{} {} {} -> {} {} (sender -> receiver, {} rank pairs): {}", what, group_word,
                             key.first, group_word, key.second, v.size(), evidence);
    else if (key.first == key.second)
      a.detail = fmt::format("{} within {} {}, both directions ({} rank pairs): {}", what, group_word, key.first,
                             v.size(), evidence);
    else
      a.detail = fmt::format("{} between {}s {} and {}, both directions ({} rank pairs): {}", what, group_word,
                             key.first, key.second, v.size(), evidence);
    out.push_back(std::move(a));
  }
  std::sort(out.begin(), out.end(), [](const Anomaly& x, const Anomaly& y) { return x.score > y.score; });
  if (out.size() > max_items) out.resize(max_items);
  return out;
}

}  // namespace

namespace {

// One length of the median polish: log(delay) = class constant + sender effect + receiver effect +
// residual over the off-diagonal cells of the slice m. s and r (N each) get the effects; R (N*N)
// the residual, NaN where unknown. Rows, columns and class medians over the whole slice, in
// parallel within the length (so one length at a time is in memory).
void polish_length(const float* m, const std::vector<std::int8_t>& cls, int nc, std::size_t N, std::vector<double>& R,
                   std::vector<double>& s, std::vector<double>& r) {
  R.resize(N * N);
  s.assign(N, 0.0);
  r.assign(N, 0.0);
  parallel_for(N, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t x = i0 * N; x < i1 * N; ++x) {
      const double v = m[x];
      R[x] = (cls[x] >= 0 && Cube::usable(v)) ? std::log(v) : kNaN;
    }
  });
  std::vector<double> colm(N), tmp, dc(static_cast<std::size_t>(nc));
  std::mutex mu;
  // Up to 5 sweeps; stop once a sweep after the first moves no effect by more than 0.2 % (the
  // precision of a rank effect from a few hundred cells of 5 % noise, and 1/200 of the
  // smallest slowdown reported): usually after 2 sweeps.
  for (int it = 0; it < 5; ++it) {
    double moved = 0.0;
    auto byclass = population_samples(static_cast<std::size_t>(nc), [&](auto&& take) {
      for (std::size_t x = 0; x < N * N; ++x)
        if (std::isfinite(R[x])) take(static_cast<std::size_t>(cls[x]), R[x]);
    });
    for (int q = 0; q < nc; ++q) {
      auto& b = byclass[static_cast<std::size_t>(q)];
      dc[static_cast<std::size_t>(q)] = b.empty() ? 0.0 : population_median(b);
    }
    if (it > 0)
      for (double x : dc) moved = std::max(moved, std::fabs(x));
    // Classes, then each row's median (rows in parallel).
    parallel_for(N, [&](std::size_t i0, std::size_t i1) {
      std::vector<double> row;
      double mv = 0.0;
      for (std::size_t i = i0; i < i1; ++i) {
        double* Ri = R.data() + i * N;
        const std::int8_t* ci = cls.data() + i * N;
        for (std::size_t j = 0; j < N; ++j)
          if (ci[j] >= 0) Ri[j] -= dc[static_cast<std::size_t>(ci[j])];
        row.clear();
        for (std::size_t j = 0; j < N; ++j)
          if (std::isfinite(Ri[j])) row.push_back(Ri[j]);
        if (row.empty()) continue;
        const double md = median_inplace(row);
        s[i] += md;
        mv = std::max(mv, std::fabs(md));
        for (std::size_t j = 0; j < N; ++j) Ri[j] -= md;
      }
      const std::lock_guard<std::mutex> lock(mu);
      moved = std::max(moved, mv);
    });
    // Each column's median, columns in blocks (a block's cells gathered row by row).
    std::fill(colm.begin(), colm.end(), 0.0);
    constexpr std::size_t kCols = 64;
    parallel_for((N + kCols - 1) / kCols, [&](std::size_t b0, std::size_t b1) {
      std::vector<std::vector<double>> cols(kCols);
      for (std::size_t blk = b0; blk < b1; ++blk) {
        const std::size_t j0 = blk * kCols, j1 = std::min(N, j0 + kCols);
        for (auto& col : cols) col.clear();
        for (std::size_t i = 0; i < N; ++i)
          for (std::size_t j = j0; j < j1; ++j)
            if (std::isfinite(R[i * N + j])) cols[j - j0].push_back(R[i * N + j]);
        for (std::size_t j = j0; j < j1; ++j)
          if (!cols[j - j0].empty()) colm[j] = median_inplace(cols[j - j0]);
      }
    });
    parallel_for(N, [&](std::size_t i0, std::size_t i1) {
      for (std::size_t i = i0; i < i1; ++i)
        for (std::size_t j = 0; j < N; ++j) R[i * N + j] -= colm[j];
    });
    for (std::size_t j = 0; j < N; ++j) {
      r[j] += colm[j];
      moved = std::max(moved, std::fabs(colm[j]));
    }
    // Keep the rank effects centred (their median is 0): the class constants take the level
    // (the residual is unchanged: s and r move down by what the class constants move up).
    tmp = s;
    const double ms = finite_median(tmp);
    tmp = r;
    const double mr = finite_median(tmp);
    for (auto& x : s) x -= ms;
    for (auto& x : r) x -= mr;
    if (moved < 2e-3) break;
  }
}

// Every node of a switch group slow while the links inside the group are not: that is the group's
// uplink (or the switch), one finding on the group's ranks, not so many slow nodes (issue 22: a
// leaf with an uplink at 1/8 came out as 4 slow nodes). The links inside are compared, per length,
// with the same class of the other switch groups (median over rank pairs of different nodes); all
// of the group's nodes must be among the slow ones and the inside links below min_ratio at every
// length. Groups of one node are lone nodes, judged elsewhere.
void merge_slow_switches(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                         const AnomalyOptions& opt, std::vector<Anomaly>& out) {
  if (t.levels.size() < 2) return;
  const auto& sw = t.levels[1];
  const auto& node_of = t.levels.front().group_of;
  // The slow_node findings of switch group s (indices into out) and the group's nodes.
  auto findings_of = [&](std::size_t s, std::vector<std::size_t>& idx, std::set<int>& nodes) {
    nodes.clear();
    idx.clear();
    for (int r : sw.groups[s]) nodes.insert(node_of[static_cast<std::size_t>(r)]);
    std::set<int> slow_nodes;
    for (std::size_t i = 0; i < out.size(); ++i) {
      const auto& a = out[i];
      if (a.kind != "slow_node" || a.ranks.empty()) continue;
      if (sw.group_of[static_cast<std::size_t>(a.ranks.front())] != static_cast<int>(s)) continue;
      idx.push_back(i);
      slow_nodes.insert(node_of[static_cast<std::size_t>(a.ranks.front())]);
    }
    return nodes.size() >= 2 && slow_nodes == nodes;
  };
  // Candidates: switch groups whose every node is reported slow (merging one does not change
  // whether another is one: its findings stay, only their indices move).
  std::vector<std::size_t> cand;
  std::vector<std::size_t> idx;
  std::set<int> nodes;
  for (std::size_t s = 0; s < sw.groups.size(); ++s)
    if (findings_of(s, idx, nodes)) cand.push_back(s);
  // The links inside each candidate against the others', one length at a time.
  std::vector<char> normal(cand.size(), 1);
  std::vector<float> buf;
  const auto N = static_cast<std::size_t>(c.P);
  for (std::size_t k = 0; k < c.count() && !cand.empty(); ++k) {
    const float* m = c.slice(k, buf);
    for (std::size_t w = 0; w < cand.size(); ++w) {
      if (!normal[w]) continue;
      std::vector<float> inside, others;
      for (int i = 0; i < c.P; ++i)
        for (int j = 0; j < c.P; ++j) {
          if (t.pair_class(i, j) != 1) continue;
          const float v = m[static_cast<std::size_t>(i) * N + static_cast<std::size_t>(j)];
          if (!Cube::usable(v)) continue;
          (sw.group_of[static_cast<std::size_t>(i)] == static_cast<int>(cand[w]) ? inside : others).push_back(v);
        }
      if (inside.empty() || others.empty()) normal[w] = 0;
      else normal[w] = float_median(inside) < opt.min_ratio * float_median(others);
    }
  }
  for (std::size_t w = 0; w < cand.size(); ++w) {
    const std::size_t s = cand[w];
    const auto& ranks = sw.groups[s];
    findings_of(s, idx, nodes);
    const bool inside_normal = normal[w] != 0;
    if (!inside_normal) continue;
    Anomaly a;
    a.kind = "slow_switch";
    a.ranks = ranks;
    a.hosts = hosts_of(ranks, hosts);
    std::set<std::int64_t> lens;
    std::vector<double> scores;
    for (std::size_t i : idx) {
      lens.insert(out[i].lengths.begin(), out[i].lengths.end());
      scores.push_back(out[i].score);
    }
    a.lengths.assign(lens.begin(), lens.end());
    a.score = finite_median(scores);
    a.detail = fmt::format("every node of {} group {} ({} nodes) is {:.2f}x slower to the rest, its links inside the "
                           "group are not: the group's uplink or its switch (at {} of {} lengths)",
                           sw.name, s, nodes.size(), a.score, a.lengths.size(), c.count());
    for (auto it = idx.rbegin(); it != idx.rend(); ++it) out.erase(out.begin() + static_cast<std::ptrdiff_t>(*it));
    out.push_back(std::move(a));
  }
}
}  // namespace

std::vector<Anomaly> find_anomalies(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                                    const AnomalyOptions& opt) {
  std::vector<Anomaly> out;
  const int P = c.P;
  const auto N = static_cast<std::size_t>(P);
  const std::size_t K = c.count();
  if (P < 3) return out;  // nothing to compare a rank with
  const double min_log = std::log(opt.min_ratio);
  // One pass over the lengths: the median polish of each (rank effects), the spread of its
  // residuals, and the cells beyond the link thresholds (kept; every other residual is dropped).
  struct Cell {
    std::uint64_t pair;  // i*P + j; for asymmetry i < j
    std::uint32_t k;
    float a, b;          // residual of (i, j), and of (j, i) for asymmetry
  };
  std::vector<double> thr(K), athr(K), rmed(K), rsig(K), dsig(K);
  std::vector<Cell> slow_cells, asym_cells;
  RankEffects e;
  e.send.resize(K);
  e.recv.resize(K);
  {
    const auto cls = pair_classes(t);
    std::vector<float> buf;
    std::vector<double> R;
    std::mutex mu;
    for (std::size_t k = 0; k < K; ++k) {
      polish_length(c.slice(k, buf), cls, t.class_count(), N, R, e.send[k], e.recv[k]);
      // The residual as the analysis keeps it (float); NaN where unknown.
      auto res = [&](std::size_t x) {
        const auto f = static_cast<float>(R[x]);
        return std::isfinite(R[x]) && std::isfinite(f) ? static_cast<double>(f) : kNaN;
      };
      auto d = population_sample([&](auto&& take) {
        for (std::size_t x = 0; x < N * N; ++x)
          if (const double v = res(x); std::isfinite(v)) take(v);
      });
      const auto [m, sg] = population_spread(d);
      rmed[k] = std::isfinite(m) ? m : 0.0;
      rsig[k] = sg;
      thr[k] = std::max(min_log, opt.mad_factor * sg) + (std::isfinite(m) ? m : 0.0);
      d = population_sample([&](auto&& take) {
        for (std::size_t i = 0; i < N; ++i)
          for (std::size_t j = i + 1; j < N; ++j) {
            const double a = res(i * N + j), b = res(j * N + i);
            if (std::isfinite(a) && std::isfinite(b)) take(a - b);
          }
      });
      const auto [md, sd] = population_spread(d);
      athr[k] = std::max(min_log, opt.mad_factor * sd);
      dsig[k] = sd;
      (void)md;
      // Cells beyond the thresholds, in pair order (rows in parallel, blocks joined in order).
      std::vector<std::vector<Cell>> part_slow(N), part_asym(N);
      parallel_for(N, [&](std::size_t i0, std::size_t i1) {
        std::vector<Cell> ls, la;
        for (std::size_t i = i0; i < i1; ++i)
          for (std::size_t j = 0; j < N; ++j) {
            if (i == j) continue;
            const double x = res(i * N + j);
            if (std::isfinite(x) && x > thr[k])
              ls.push_back({i * N + j, static_cast<std::uint32_t>(k), static_cast<float>(x), 0.0f});
            if (j > i) {
              const double y = res(j * N + i);
              if (std::isfinite(x) && std::isfinite(y) && std::fabs(x - y) > athr[k])
                la.push_back({i * N + j, static_cast<std::uint32_t>(k), static_cast<float>(x), static_cast<float>(y)});
            }
          }
        const std::lock_guard<std::mutex> lock(mu);
        part_slow[i0] = std::move(ls);
        part_asym[i0] = std::move(la);
      });
      for (auto& v : part_slow) slow_cells.insert(slow_cells.end(), v.begin(), v.end());
      for (auto& v : part_asym) asym_cells.insert(asym_cells.end(), v.begin(), v.end());
    }
  }
  // Per pair, its lengths in order.
  auto by_pair = [](const Cell& x, const Cell& y) { return x.pair < y.pair; };
  std::stable_sort(slow_cells.begin(), slow_cells.end(), by_pair);
  std::stable_sort(asym_cells.begin(), asym_cells.end(), by_pair);
  const std::size_t need = needed(K, opt.min_length_fraction);
  const std::string group_word = t.node_level_identified ? "node group" : "group";

  // --- slow ranks and nodes
  struct RankHit {
    bool slow = false;
    bool send = false, recv = false;
    std::vector<std::int64_t> lengths;
    std::vector<double> score;
    std::vector<double> sigmas;  // robust z-score of the effect at each of those lengths
  };
  std::vector<RankHit> hit(N);
  std::vector<RobustSpread> send_rob(K), recv_rob(K);  // per length, computed once
  for (std::size_t k = 0; k < K; ++k) {
    send_rob[k] = robust_spread(e.send[k]);
    recv_rob[k] = robust_spread(e.recv[k]);
  }
  for (std::size_t k = 0; k < K; ++k) {
    const auto [ms, ss] = send_rob[k];
    const auto [mr, sr] = recv_rob[k];
    for (std::size_t i = 0; i < N; ++i) {
      const double ds = e.send[k][i] - ms, dr = e.recv[k][i] - mr;
      const bool fs = ds >= min_log && ds >= opt.mad_factor * ss;
      const bool fr = dr >= min_log && dr >= opt.mad_factor * sr;
      if (fs || fr) {
        hit[i].send |= fs;
        hit[i].recv |= fr;
        hit[i].lengths.push_back(c.lengths[k]);
        const double d = std::max(fs ? ds : 0.0, fr ? dr : 0.0);
        const double sig = d == ds ? ss : sr;
        hit[i].score.push_back(std::exp(d));
        hit[i].sigmas.push_back(sig > 0 ? d / sig : kNaN);
      }
    }
  }
  for (auto& h : hit) h.slow = h.lengths.size() >= need;
  // A node as a whole: the median effect of its ranks per length. A node slowed by exactly the
  // threshold factor has rank effects scattered around it, so some ranks pass and some do not
  // (issue 13: 4-5 separate slow_rank entries); the node's median has sqrt(ranks) less noise and
  // is allowed one standard error below the threshold.
  std::vector<char> node_slow(t.levels.front().groups.size(), 0);
  std::vector<std::vector<double>> node_score(node_slow.size()), node_sig(node_slow.size());
  std::vector<std::vector<std::int64_t>> node_lens(node_slow.size());
  // A node alone in an upper-level group has links of its own class only: judged further down.
  std::vector<char> lone(node_slow.size(), 0);
  for (std::size_t l = 1; l < t.levels.size(); ++l)
    for (std::size_t lg : lone_node_groups(t, l))
      lone[static_cast<std::size_t>(t.levels.front().group_of[static_cast<std::size_t>(t.levels[l].groups[lg].front())])] = 1;
  for (std::size_t gi = 0; gi < t.levels.front().groups.size(); ++gi) {
    const auto& g = t.levels.front().groups[gi];
    if (g.size() < 2 || lone[gi]) continue;
    std::vector<double> ds, dr, d_all, se_all;
    for (std::size_t k = 0; k < K; ++k) {
      const auto [ms, ss] = send_rob[k];
      const auto [mr, sr] = recv_rob[k];
      ds.clear();
      dr.clear();
      for (int r : g) {
        ds.push_back(e.send[k][static_cast<std::size_t>(r)] - ms);
        dr.push_back(e.recv[k][static_cast<std::size_t>(r)] - mr);
      }
      const double nds = finite_median(ds), ndr = finite_median(dr);
      const double se = std::max(ss, sr) * 1.2533 / std::sqrt(static_cast<double>(g.size()));
      const double d = std::max(nds, ndr);
      const double sig = d == nds ? ss : sr;
      d_all.push_back(d);
      se_all.push_back(se);
      if (d >= min_log - 2 * se && d >= opt.mad_factor * sig) {
        node_lens[gi].push_back(c.lengths[k]);
        node_score[gi].push_back(std::exp(d));
        node_sig[gi].push_back(sig > 0 ? d / sig : kNaN);
      }
    }
    // ... and the node is that slow at the long lengths as well, not only at the short ones (a node
    // behind a switch of its own differs by the switch's latency: at the short lengths only).
    // Two standard errors of slack: the median polish leaks a little of a slow node's effect into
    // its peers' (a few per cent of the cell noise), which made a node at exactly the threshold
    // vanish on 1 of 200 seeds with one.
    // Half of its ranks slow on their own also makes the node slow (once, not rank by rank).
    const auto nslow = std::count_if(g.begin(), g.end(), [&](int r) { return hit[static_cast<std::size_t>(r)].slow; });
    node_slow[gi] = node_lens[gi].size() >= need &&
                    (finite_median(std::span<const double>(d_all).subspan(d_all.size() / 2)) >=
                         min_log - 2 * finite_median(se_all) ||
                     2 * static_cast<std::size_t>(nslow) >= g.size());
  }
  // Ranks of slow nodes: a link between two of them is not compared with the product of both
  // factors (two slow ends need not multiply; issue 13: a spurious asymmetric pair between them).
  std::vector<char> slow_end(N, 0);
  auto direction = [](const RankHit& h) {
    return h.send && h.recv ? "sends and receives" : (h.send ? "sends" : "receives");
  };
  for (std::size_t gi = 0; gi < t.levels.front().groups.size(); ++gi) {
    const auto& g = t.levels.front().groups[gi];
    const bool all = std::all_of(g.begin(), g.end(), [&](int r) { return hit[static_cast<std::size_t>(r)].slow; });
    if (!all && node_slow[gi]) {
      Anomaly a;
      a.kind = "slow_node";
      a.ranks = g;
      a.hosts = hosts_of(g, hosts);
      a.lengths = node_lens[gi];
      a.score = finite_median(node_score[gi]);
      a.detail = fmt::format("the ranks of the group are {:.2f}x their class (median over its {} ranks, {}, "
                             "at {} of {} lengths)",
                             a.score, g.size(), sigmas_text(finite_median(node_sig[gi])), a.lengths.size(), K);
      if (!a.hosts.empty()) a.detail += " on " + fmt::format("{}", fmt::join(a.hosts, ","));
      for (int r : g) slow_end[static_cast<std::size_t>(r)] = 1;
      out.push_back(std::move(a));
      continue;
    }
    if (all && g.size() >= 2) {
      Anomaly a;
      a.kind = "slow_node";
      a.ranks = g;
      a.hosts = hosts_of(g, hosts);
      std::set<std::int64_t> lens;
      std::vector<double> sc, zs;
      for (int r : g) {
        const auto& h = hit[static_cast<std::size_t>(r)];
        lens.insert(h.lengths.begin(), h.lengths.end());
        sc.insert(sc.end(), h.score.begin(), h.score.end());
        zs.insert(zs.end(), h.sigmas.begin(), h.sigmas.end());
      }
      a.lengths.assign(lens.begin(), lens.end());
      a.score = finite_median(sc);
      a.detail = fmt::format("every rank of the group {} slowly ({:.2f}x its class, {}, at {} of {} lengths)",
                             direction(hit[static_cast<std::size_t>(g.front())]), a.score, sigmas_text(finite_median(zs)),
                             a.lengths.size(), K);
      if (!a.hosts.empty()) a.detail += " on " + fmt::format("{}", fmt::join(a.hosts, ","));
      for (int r : g) slow_end[static_cast<std::size_t>(r)] = 1;
      out.push_back(std::move(a));
      continue;
    }
    for (int r : g) {
      auto& h = hit[static_cast<std::size_t>(r)];
      if (!h.slow) continue;
      Anomaly a;
      a.kind = "slow_rank";
      a.ranks = {r};
      a.hosts = hosts_of(a.ranks, hosts);
      a.lengths = h.lengths;
      a.score = finite_median(h.score);
      a.detail = fmt::format("rank {} {} {:.2f}x slower than its class ({}, at {} of {} lengths)", r,
                             direction(h), a.score, sigmas_text(finite_median(h.sigmas)), a.lengths.size(), K);
      out.push_back(std::move(a));
    }
  }

  merge_slow_switches(c, t, hosts, opt, out);

  std::vector<char> explained(N, 0);  // ranks of lone slow nodes: their residuals mean nothing
  // --- a node alone in its upper-level group: all of its links form their own class, so the
  // model above cannot compare them with anything. Compare them with the inter-node links of the
  // other nodes instead (it is a slow node, or a node behind a switch of its own).
  {
    std::set<int> reported;
    for (const auto& a : out)
      for (int r : a.ranks) reported.insert(r);
    const auto& node_of = t.levels.front().group_of;
    // The lone groups not reported yet, and per length the median of their links over the median
    // of the reference links (one length at a time for all of them).
    struct Lone {
      std::size_t l, lg;
      std::vector<char> in;
      bool have_class1 = false;
      std::vector<double> ratio;  // per length; NaN where either side has no delay
    };
    std::vector<Lone> lones;
    for (std::size_t l = 1; l < t.levels.size(); ++l)
      for (std::size_t lg : lone_node_groups(t, l)) {
        const auto& g = t.levels[l].groups[lg];
        if (reported.count(g.front())) continue;
        Lone x{l, lg, std::vector<char>(N, 0), false, std::vector<double>(K, kNaN)};
        for (int r : g) x.in[static_cast<std::size_t>(r)] = 1;
        for (std::size_t i = 0; i < N && !x.have_class1; ++i)
          for (std::size_t j = 0; j < N; ++j)
            if (i != j && !x.in[i] && !x.in[j] && t.pair_class(static_cast<int>(i), static_cast<int>(j)) == 1) {
              x.have_class1 = true;
              break;
            }
        lones.push_back(std::move(x));
      }
    {
      std::vector<float> buf, own, ref;
      for (std::size_t k = 0; k < K && !lones.empty(); ++k) {
        const float* m = c.slice(k, buf);
        for (auto& x : lones) {
          own.clear();
          ref.clear();
          const auto& in = x.in;
          for (std::size_t i = 0; i < N; ++i)
            for (std::size_t j = 0; j < N; ++j) {
              if (i == j) continue;
              const float v = m[i * N + j];
              if (!Cube::usable(v)) continue;
              const int q = t.pair_class(static_cast<int>(i), static_cast<int>(j));
              if (in[i] != in[j]) own.push_back(v);
              else if (!in[i] && (x.have_class1 ? q == 1 : q >= 1)) ref.push_back(v);
            }
          if (!own.empty() && !ref.empty()) x.ratio[k] = float_median(own) / float_median(ref);
        }
      }
    }
    for (const auto& x : lones) {
      const std::size_t l = x.l;
      const auto& g = t.levels[l].groups[x.lg];
      if (reported.count(g.front())) continue;
      const int n = node_of[static_cast<std::size_t>(g.front())];
      std::vector<std::int64_t> lens;
      std::vector<double> ratios;
      for (std::size_t k = 0; k < K; ++k) {
        const double ratio = x.ratio[k];
        if (std::isnan(ratio)) continue;
        if (ratio >= opt.min_ratio) {
          lens.push_back(c.lengths[k]);
          ratios.push_back(ratio);
        }
      }
      if (lens.size() < need) continue;
      Anomaly a;
      a.kind = g.size() >= 2 ? "slow_node" : "slow_rank";
      a.ranks = g;
      a.hosts = hosts_of(g, hosts);
      a.lengths = lens;
      a.score = finite_median(ratios);
      a.detail = fmt::format("{} {} is alone in its {} group: its links are {:.2f}x the {} links of the others "
                             "(at {} of {} lengths); a lone node {}",
                             group_word, n, t.levels[l].name, a.score, t.class_name(1), a.lengths.size(), K,
                             kLoneNodeCaveat);
      out.push_back(std::move(a));
      for (int r : g) {
        reported.insert(r);
        explained[static_cast<std::size_t>(r)] = 1;
      }
    }
  }

  // --- slow links and asymmetric pairs, from the residuals of the rank-effect model (the cells
  // beyond the thresholds, kept by the pass above)
  std::vector<LinkHit> slow, asym;
  std::vector<std::uint64_t> slow_pairs;  // ascending
  auto skipped = [&](std::size_t i, std::size_t j) {
    return explained[i] || explained[j] || (slow_end[i] && slow_end[j]);
  };
  for (std::size_t q = 0; q < slow_cells.size();) {
    std::size_t q1 = q;
    while (q1 < slow_cells.size() && slow_cells[q1].pair == slow_cells[q].pair) ++q1;
    const std::size_t i = slow_cells[q].pair / N, j = slow_cells[q].pair % N;
    if (!skipped(i, j) && q1 - q >= need) {
      LinkHit h{static_cast<int>(i), static_cast<int>(j), 0, {}};
      std::vector<double> sc, zs;
      for (std::size_t u = q; u < q1; ++u) {
        const double x = static_cast<double>(slow_cells[u].a);
        const std::size_t k = slow_cells[u].k;
        h.lengths.push_back(c.lengths[k]);
        sc.push_back(std::exp(x));
        zs.push_back(rsig[k] > 0 ? (x - rmed[k]) / rsig[k] : kNaN);
      }
      h.score = finite_median(sc);
      h.sigmas = finite_median(zs);
      slow.push_back(h);
      slow_pairs.push_back(slow_cells[q].pair);
    }
    q = q1;
  }
  auto is_slow = [&](std::size_t i, std::size_t j) {
    return std::binary_search(slow_pairs.begin(), slow_pairs.end(), static_cast<std::uint64_t>(i * N + j));
  };
  for (std::size_t q = 0; q < asym_cells.size();) {
    std::size_t q1 = q;
    while (q1 < asym_cells.size() && asym_cells[q1].pair == asym_cells[q].pair) ++q1;
    const std::size_t i = asym_cells[q].pair / N, j = asym_cells[q].pair % N;
    const std::size_t first = q;
    q = q1;
    if (is_slow(i, j) || is_slow(j, i) || skipped(i, j)) continue;
    std::vector<double> sc, zs;
    std::vector<std::int64_t> lens;
    int sign = 0;
    for (std::size_t u = first; u < q1; ++u) {
      const double a = static_cast<double>(asym_cells[u].a), b = static_cast<double>(asym_cells[u].b);
      const std::size_t k = asym_cells[u].k;
      lens.push_back(c.lengths[k]);
      sc.push_back(std::exp(std::fabs(a - b)));
      zs.push_back(dsig[k] > 0 ? std::fabs(a - b) / dsig[k] : kNaN);
      sign += a > b ? 1 : -1;
    }
    if (lens.size() >= need && static_cast<std::size_t>(std::abs(sign)) == lens.size()) {
      LinkHit h = sign > 0 ? LinkHit{static_cast<int>(i), static_cast<int>(j), 0, lens}
                           : LinkHit{static_cast<int>(j), static_cast<int>(i), 0, lens};
      h.score = finite_median(sc);
      h.sigmas = finite_median(zs);
      asym.push_back(h);
    }
  }
  // A slow link whose reverse direction is normal is one-way: an asymmetric pair (sender ->
  // receiver), not a slow cable (issue 13: it was reported as slow_link, receiving group first).
  std::vector<LinkHit> both;
  for (const auto& h : slow) {
    if (is_slow(static_cast<std::size_t>(h.j), static_cast<std::size_t>(h.i))) both.push_back(h);
    else asym.push_back(h);
  }
  auto sl = merge_links("slow_link", both, t, hosts, opt.max_links, "slow link", false);
  auto as = merge_links("asymmetric_pair", asym, t, hosts, opt.max_links,
                        "asymmetric, one-way slow (slower direction)", true);
  out.insert(out.end(), sl.begin(), sl.end());
  out.insert(out.end(), as.begin(), as.end());
  return out;
}

std::vector<Anomaly> find_variance_anomalies(const Cube& values, const Cube& deviation,
                                             const std::vector<std::string>& hosts, const AnomalyOptions& opt) {
  std::vector<Anomaly> out;
  if (values.P != deviation.P || values.P < 3) return out;
  const auto N = static_cast<std::size_t>(values.P);
  const auto ks = common_lengths(values, deviation);
  if (ks.empty()) return out;
  std::vector<double> cv_rank(N, kNaN);
  // Per block of ranks: their rows and columns of both files at every common length.
  const int P = values.P;
  const int rb = rows_per_block(P, N * ks.size() * (2 * sizeof(double) + 4 * sizeof(float)));
  std::vector<float> vr, dr, vc, dc;
  for (int r0 = 0; r0 < P; r0 += rb) {
    const int r1 = std::min(P, r0 + rb);
    const auto nr = static_cast<std::size_t>(r1 - r0);
    std::vector<std::vector<double>> tmp(nr);
    vc.resize(N * nr);
    dc.resize(N * nr);
    for (auto [a, b] : ks) {
      const float* V = values.rows(a, r0, r1, vr);
      const float* D = deviation.rows(b, r0, r1, dr);
      values.block(a, 0, P, r0, r1, vc.data());
      deviation.block(b, 0, P, r0, r1, dc.data());
      for (std::size_t q = 0; q < nr; ++q) {
        const std::size_t r = static_cast<std::size_t>(r0) + q;
        for (std::size_t o = 0; o < N; ++o) {
          if (o == r) continue;
          // (r, o) from the rows, (o, r) from the columns
          for (auto [v, d] : {std::pair{static_cast<double>(V[q * N + o]), static_cast<double>(D[q * N + o])},
                              std::pair{static_cast<double>(vc[o * nr + q]), static_cast<double>(dc[o * nr + q])}})
            if (Cube::usable(v) && std::isfinite(d) && d >= 0) tmp[q].push_back(d / v);
        }
      }
    }
    for (std::size_t q = 0; q < nr; ++q)
      if (!tmp[q].empty()) cv_rank[static_cast<std::size_t>(r0) + q] = finite_median(tmp[q]);
  }
  const auto [m, s] = robust_spread(cv_rank);
  for (std::size_t r = 0; r < N; ++r) {
    const double cv = cv_rank[r];
    if (!std::isfinite(cv)) continue;
    if (cv >= opt.variance_min_cv && cv >= opt.variance_ratio * m && cv - m >= opt.mad_factor * s) {
      Anomaly a;
      a.kind = "high_variance";
      a.ranks = {static_cast<int>(r)};
      a.hosts = hosts_of(a.ranks, hosts);
      for (auto [ka, kb] : ks) a.lengths.push_back(values.lengths[ka]);
      a.score = m > 0 ? cv / m : cv;
      a.detail = fmt::format("rank {}: coefficient of variation {:.3f}, typical {:.3f} ({:.2f}x, {:.1f} sigmas, at {} lengths)",
                             r, cv, m, a.score, s > 0 ? (cv - m) / s : kNaN, a.lengths.size());
      out.push_back(std::move(a));
    }
  }
  return out;
}

DuplexResult analyze_duplex(const Cube& one, const Cube& async, const Topology& t,
                            const std::vector<std::string>& hosts, const AnomalyOptions& opt) {
  DuplexResult d;
  if (one.P != async.P)
    throw Error(fmt::format("duplex check: the one_to_one file has {} ranks, the async file {}", one.P, async.P));
  const int P = one.P;
  const auto N = static_cast<std::size_t>(P);
  auto ks = common_lengths(one, async);
  if (ks.empty()) throw Error("duplex check: the two files have no message length in common");
  // Long messages only: the upper half of the common lengths (bandwidth shows there).
  ks.erase(ks.begin(), ks.begin() + static_cast<std::ptrdiff_t>(ks.size() / 2));
  for (auto [a, b] : ks) d.lengths.push_back(one.lengths[a]);
  std::vector<double> ratio(N * N, kNaN), tmp;
  // In blocks of senders: their rows of both files at the compared lengths.
  const int rb = rows_per_block(P, N * ks.size() * 2 * sizeof(float));
  std::vector<std::vector<float>> b1(ks.size()), b2(ks.size());
  std::vector<const float*> X(ks.size()), Y(ks.size());
  for (int r0 = 0; r0 < P; r0 += rb) {
    const int r1 = std::min(P, r0 + rb);
    for (std::size_t q = 0; q < ks.size(); ++q) {
      X[q] = one.rows(ks[q].first, r0, r1, b1[q]);
      Y[q] = async.rows(ks[q].second, r0, r1, b2[q]);
    }
    for (std::size_t i = static_cast<std::size_t>(r0); i < static_cast<std::size_t>(r1); ++i)
      for (std::size_t j = 0; j < N; ++j) {
        if (i == j) continue;
        tmp.clear();
        const std::size_t at = (i - static_cast<std::size_t>(r0)) * N + j;
        for (std::size_t q = 0; q < ks.size(); ++q) {
          const double x = X[q][at], y = Y[q][at];
          if (Cube::usable(x) && Cube::usable(y)) tmp.push_back(y / x);
        }
        if (!tmp.empty()) ratio[i * N + j] = finite_median(tmp);
      }
  }
  const int nc = t.class_count();
  std::vector<LinkHit> hits;
  for (int q = 0; q < nc; ++q) {
    std::vector<double> v;
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j)
        if (i != j && t.pair_class(static_cast<int>(i), static_cast<int>(j)) == q && std::isfinite(ratio[i * N + j]))
          v.push_back(ratio[i * N + j]);
    if (v.empty()) continue;
    std::vector<double> lv;
    for (double x : v) lv.push_back(std::log(x));
    const auto [m, s] = robust_spread(lv);
    DuplexClass dc;
    dc.cls = q;
    dc.name = t.class_name(q);
    dc.median_ratio = std::exp(m);
    dc.half_duplex = dc.median_ratio >= opt.duplex_ratio;
    d.classes.push_back(dc);
    if (dc.half_duplex) {
      Anomaly a;
      a.kind = "half_duplex";
      std::set<int> rs;
      for (std::size_t i = 0; i < N; ++i)
        for (std::size_t j = 0; j < N; ++j)
          if (i != j && t.pair_class(static_cast<int>(i), static_cast<int>(j)) == q) {
            rs.insert(static_cast<int>(i));
            rs.insert(static_cast<int>(j));
          }
      a.ranks.assign(rs.begin(), rs.end());
      a.hosts = hosts_of(a.ranks, hosts);
      a.lengths = d.lengths;
      a.score = dc.median_ratio;
      a.detail = fmt::format("every {} link: a simultaneous exchange takes {:.2f}x one message (median over {} pairs, "
                             "at {} lengths)", dc.name, dc.median_ratio, v.size(), d.lengths.size());
      d.anomalies.push_back(std::move(a));
      continue;
    }
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        if (i == j || t.pair_class(static_cast<int>(i), static_cast<int>(j)) != q) continue;
        const double x = ratio[i * N + j];
        if (!std::isfinite(x)) continue;
        const double z = std::log(x) - m;
        if (x >= opt.duplex_ratio && z >= opt.mad_factor * s && z >= std::log(opt.duplex_ratio) / 2)
          hits.push_back({static_cast<int>(i), static_cast<int>(j), x, d.lengths, s > 0 ? z / s : kNaN});
      }
  }
  auto links = merge_links("half_duplex", hits, t, hosts, opt.max_links, "half duplex", false);
  d.anomalies.insert(d.anomalies.end(), links.begin(), links.end());
  return d;
}

}  // namespace nt::analysis
