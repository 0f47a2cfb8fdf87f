// The model of the explanation check (explain.cpp): every cell's delay predicted from the levels
// (its class's base) and the claims of the findings (each one's factor), the residual of a cell
// against it, the tolerance per length, and what the cells say of each finding: its direction, and
// how much of its cells it explains.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <unordered_map>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"
#include "explain_parts.hpp"

namespace nt::analysis {

std::set<std::uint64_t> pair_cells(const Anomaly& a, std::size_t P) {
  // Exactly its pairs (a one-way pair of two ranks is not every rank pair of their nodes).
  // A slow link's pairs listed one way round each (sender below receiver) stand for both
  // directions, unless its direction is one way; listed otherwise, they are the directions that are
  // slow.
  std::set<std::uint64_t> cells;
  const bool both = a.kind == AnomalyKind::slow_link && a.direction != "send" && a.direction != "receive" &&
                    std::all_of(a.pairs.begin(), a.pairs.end(), [](const auto& p) { return p.first < p.second; });
  for (auto [x, y] : a.pairs) {
    const auto cx = static_cast<std::uint64_t>(x), cy = static_cast<std::uint64_t>(y);
    cells.insert(cx * P + cy);
    if (both) cells.insert(cy * P + cx);
  }
  return cells;
}

namespace explain_parts {

bool explains_delays(AnomalyKind k) {
  return k == AnomalyKind::slow_rank || k == AnomalyKind::slow_node || k == AnomalyKind::slow_switch ||
         k == AnomalyKind::slow_link || k == AnomalyKind::asymmetric_pair || k == AnomalyKind::unexplained;
}

bool ends_kind(AnomalyKind k) {
  return k == AnomalyKind::slow_rank || k == AnomalyKind::slow_node || k == AnomalyKind::slow_switch;
}

Grid make_grid(const Cube& c, const Topology& t, const AnomalyOptions& opt) {
  Grid g{c, t, opt, static_cast<std::size_t>(c.P), c.count(), 1, pair_classes(t), {}, {}, 0, nullptr, {}, 0};
  g.need = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(opt.min_length_fraction * static_cast<double>(g.K) - 1e-9)));
  // No tree above: blocks of node pairs (a dragonfly's or a torus's distance is a pair's own: the
  // routers it crosses), then of the finest switch groups.
  g.block_levels = t.no_tree_above ? std::min<std::size_t>(t.levels.size(), 2) : 0;
  std::vector<float> buf;
  g.logv.resize(g.K);
  for (std::size_t k = 0; k < g.K; ++k) {
    const float* m = c.slice(k, buf);
    auto& lv = g.logv[k];
    lv.resize(g.P * g.P);
    for (std::size_t x = 0; x < g.P * g.P; ++x) {
      const double v = m[x];
      lv[x] = g.cls[x] >= 0 && Cube::usable(v) ? static_cast<float>(std::log(v)) : std::nanf("");
    }
  }
  return g;
}

namespace {

ClaimIndex index_claims(const Grid& g, const std::vector<Claim>& claims) {
  ClaimIndex ix{std::vector<std::vector<std::size_t>>(g.P), {}};
  for (std::size_t q = 0; q < claims.size(); ++q) {
    if (claims[q].ends)
      for (std::size_t r = 0; r < g.P; ++r)
        if (claims[q].in[r]) ix.by_rank[r].push_back(q);
    for (auto np : claims[q].cells) ix.by_cell[np].push_back(q);
  }
  return ix;
}

bool holds(const Claim& q, std::size_t i, std::size_t j) {
  if (q.in[i] && q.in[j]) return q.inner;
  return q.in[i] != q.in[j] && ((q.send && q.in[i]) || (q.recv && q.in[j]));
}

// Calls f(q) for every claim that holds cell (i, j), once each.
template <class F>
void for_claims(const Grid& g, const std::vector<Claim>& claims, const ClaimIndex& ix, std::size_t i, std::size_t j,
                F&& f) {
  for (std::size_t q : ix.by_rank[i])
    if (holds(claims[q], i, j)) f(q);
  for (std::size_t q : ix.by_rank[j])
    if (!claims[q].in[i] && holds(claims[q], i, j)) f(q);
  if (!ix.by_cell.empty()) {
    const auto key = static_cast<std::uint64_t>(i) * g.P + static_cast<std::uint64_t>(j);
    if (auto it = ix.by_cell.find(key); it != ix.by_cell.end())
      for (std::size_t q : it->second)
        if (!claims[q].ends || !holds(claims[q], i, j)) f(q);  // once: not again by its ranks
  }
}

// Per length and block (a pair of the groups of `level`, with no tree above them), the log of the
// block's healthy delay. Distance adds latency, not time per byte: a farther pair of groups
// crosses more links of the same bandwidth, so a block's delay at the shortest length holds its
// distance, and each longer length adds the time per byte of the blocks' median slope. A block whose
// slope is steeper is slow, however far it is. From the cells no claim holds, where a block has
// min(3, its cells) of them; NaN where it has fewer.
std::vector<std::vector<float>> block_bases(const Grid& g, const std::vector<char>& claimed, std::size_t level) {
  const auto& groups = g.t.levels[level].groups;
  const std::size_t G = groups.size(), B = G * G;
  std::vector<std::vector<float>> med(g.K, std::vector<float>(B, std::nanf("")));  // float: P x P per length at most
  std::size_t k0 = 0;
  for (std::size_t k = 1; k < g.K; ++k)
    if (g.c.lengths[k] < g.c.lengths[k0]) k0 = k;
  std::vector<double> v;
  for (std::size_t a = 0; a < G; ++a)
    for (std::size_t b = 0; b < G; ++b) {
      if (a == b) continue;
      const std::size_t least = std::min<std::size_t>(3, groups[a].size() * groups[b].size());
      for (std::size_t k = 0; k < g.K; ++k) {
        v.clear();
        for (int i : groups[a])
          for (int j : groups[b]) {
            const std::size_t x = g.cell(static_cast<std::size_t>(i), static_cast<std::size_t>(j));
            if (!claimed[x] && !std::isnan(g.logv[k][x])) v.push_back(std::exp(static_cast<double>(g.logv[k][x])));
          }
        if (v.size() >= least && !v.empty()) med[k][a * G + b] = static_cast<float>(lower_median_inplace(v));
      }
    }
  std::vector<std::vector<float>> out(g.K, std::vector<float>(B, std::nanf("")));
  for (std::size_t k = 0; k < g.K; ++k) {
    const double span = static_cast<double>(g.c.lengths[k] - g.c.lengths[k0]);
    v.clear();
    for (std::size_t b = 0; b < B; ++b)
      if (std::isfinite(med[k][b]) && std::isfinite(med[k0][b]) && span > 0)
        v.push_back(static_cast<double>(med[k][b] - med[k0][b]) / span);
    const double slope = v.empty() ? 0.0 : lower_median_inplace(v);
    for (std::size_t b = 0; b < B; ++b)
      if (std::isfinite(med[k0][b]))
        out[k][b] = static_cast<float>(std::log(static_cast<double>(med[k0][b]) + std::max(0.0, span * slope)));
  }
  return out;
}

// The base of every cell at one length: its class's delay, read from the cells no claim holds. Per
// class, each part the class joins (the groups of the level below it: of the pairs between leaves of
// one pod, the leaves) has the median of its cells; the class's base is the lower median of those.
// A part is a component that may be faulty, not a pair: of three pods one slow, two thirds of the
// pairs between pods are slow, but two of the three pods are not. Between the groups of a topology
// with no tree above them, the base of the pair of nodes, else of their pair of switch groups
// (block_bases: a node whose cells are all claimed keeps the distance of its switch group). A class
// all of whose cells are claimed takes the median of all of them.
using BlockTables = std::vector<std::vector<std::vector<float>>>;  // per block level, length, block

std::vector<float> base_of_length(const Grid& g, std::size_t k, const std::vector<char>& claimed,
                                  const BlockTables& blocks) {
  const std::size_t C = static_cast<std::size_t>(g.t.class_count());
  std::vector<std::vector<double>> all(C);
  std::vector<std::vector<std::vector<double>>> parts(C);
  for (std::size_t c = 0; c < C; ++c) parts[c].resize(g.t.levels[std::max<std::size_t>(c, 1) - 1].groups.size());
  const auto& lv = g.logv[k];
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      const std::size_t x = g.cell(i, j);
      if (std::isnan(lv[x])) continue;
      const auto c = static_cast<std::size_t>(g.cls[x]);
      all[c].push_back(lv[x]);
      if (claimed[x]) continue;
      const auto& part = g.t.levels[std::max<std::size_t>(c, 1) - 1].group_of;
      parts[c][static_cast<std::size_t>(part[i])].push_back(lv[x]);
      parts[c][static_cast<std::size_t>(part[j])].push_back(lv[x]);
    }
  std::vector<double> med(C, kNaN);
  for (std::size_t c = 0; c < C; ++c) {
    std::vector<double> m;
    for (auto& v : parts[c])
      if (!v.empty()) m.push_back(lower_median_inplace(v));
    if (!m.empty()) med[c] = lower_median_inplace(m);
    else if (!all[c].empty()) med[c] = lower_median_inplace(all[c]);
  }
  std::vector<float> base(g.P * g.P, std::nanf(""));
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      const std::size_t x = g.cell(i, j);
      if (g.cls[x] < 0) continue;
      const auto c = static_cast<std::size_t>(g.cls[x]);
      double b = med[c];
      for (std::size_t l = 0; l < blocks.size(); ++l) {
        const auto& go = g.t.levels[l].group_of;
        if (go[i] == go[j]) break;
        const double bm = blocks[l][k][static_cast<std::size_t>(go[i]) * g.t.levels[l].groups.size() +
                                      static_cast<std::size_t>(go[j])];
        if (std::isfinite(bm)) {
          b = bm;
          break;
        }
      }
      base[x] = static_cast<float>(b);
    }
  return base;
}

}  // namespace

// log(delay / base) of cell x at length k.
double lift(const Grid& g, const Model& m, std::size_t k, std::size_t x) {
  return static_cast<double>(g.logv[k][x]) - static_cast<double>(m.base[k][x]);
}

double overclaimed_share(const Grid& g, const Model& m, const Claim& q) {
  std::size_t slow = 0, not_slow = 0;
  const auto count = [&](std::size_t k, std::size_t i, std::size_t j) {
    const std::size_t x = g.cell(i, j);
    if (i == j || std::isnan(g.logv[k][x]) || !holds(q, i, j) || q.at(k, g.cls[x]) <= g.tol[k]) return;
    ++(lift(g, m, k, x) > g.tol[k] ? slow : not_slow);
  };
  for (std::size_t k = 0; k < g.K; ++k)
    for (std::size_t i = 0; i < g.P; ++i) {
      if (!q.in[i]) continue;
      for (std::size_t j = 0; j < g.P; ++j) {
        count(k, i, j);
        if (!q.in[j]) count(k, j, i);
      }
    }
  return slow + not_slow ? static_cast<double>(not_slow) / static_cast<double>(slow + not_slow) : 0.0;
}

bool flat_claim(const Grid& g, const Model& m, const Claim& q) {
  for (std::size_t k = 0; k < g.K; ++k) {
    std::vector<double> v;
    for (std::uint64_t x : q.cells)
      if (!std::isnan(g.logv[k][x])) v.push_back(lift(g, m, k, x));
    if (v.empty() || lower_median_inplace(v) > g.tol[k]) return false;
  }
  return !q.cells.empty();
}

bool claim_slow_insides(const Grid& g, const Model& m, std::vector<Claim>& claims) {
  bool any = false;
  for (auto& q : claims) {
    if (!q.ends || q.inner) continue;
    // the ranks of other group findings inside it: a slow node under the switch slows its own
    // cells there, not the switch's
    std::vector<char> own(g.P, 0);
    for (const auto& o : claims)
      if (&o != &q && o.ends)
        for (std::size_t r = 0; r < g.P; ++r) own[r] = own[r] || (o.in[r] && q.in[r]);
    std::vector<std::size_t> mine;  // its ranks but the other findings'
    for (std::size_t r = 0; r < g.P; ++r)
      if (q.in[r] && !own[r]) mine.push_back(r);
    std::size_t lengths = 0;
    for (std::size_t k = 0; k < g.K; ++k) {
      std::vector<double> v;
      for (std::size_t i : mine)
        for (std::size_t j : mine)
          if (g.node_of(i) != g.node_of(j) && !std::isnan(g.logv[k][g.cell(i, j)]))
            v.push_back(lift(g, m, k, g.cell(i, j)));
      if (!v.empty() && lower_median_inplace(v) > g.tol[k]) ++lengths;
    }
    if (lengths >= g.need) any = q.inner = true;
  }
  return any;
}

namespace {

std::vector<char> claimed_cells(const Grid& g, const std::vector<Claim>& claims, const ClaimIndex& ix) {
  std::vector<char> claimed(g.P * g.P, 0);
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j)
      if (i != j) for_claims(g, claims, ix, i, j, [&](std::size_t) { claimed[g.cell(i, j)] = 1; });
  return claimed;
}

// Per claim, length and pair class, the median of log(delay / base) over the cells it holds.
void fit_factors(const Grid& g, const Model& m, std::vector<Claim>& claims) {
  const auto C = static_cast<std::size_t>(g.t.class_count());
  for (auto& q : claims) q.factor.assign(g.K, std::vector<double>(C, 0.0));
  for (std::size_t k = 0; k < g.K; ++k) {
    std::vector<std::vector<double>> ratios(claims.size() * C);
    const auto& lv = g.logv[k];
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (i == j || std::isnan(lv[x])) continue;
        const auto c = static_cast<std::size_t>(g.cls[x]);
        for_claims(g, claims, m.ix, i, j, [&](std::size_t q) { ratios[q * C + c].push_back(lift(g, m, k, x)); });
      }
    for (std::size_t q = 0; q < claims.size(); ++q)
      for (std::size_t c = 0; c < C; ++c) {
        auto& r = ratios[q * C + c];
        claims[q].factor[k][c] = r.empty() ? 0.0 : std::max(0.0, median_inplace(r));
      }
  }
}

}  // namespace

Model fit_model(const Grid& g, std::vector<Claim>& claims) {
  Model m;
  m.ix = index_claims(g, claims);
  const auto claimed = claimed_cells(g, claims, m.ix);
  BlockTables blocks;
  for (std::size_t l = 0; l < g.block_levels; ++l) blocks.push_back(block_bases(g, claimed, l));
  for (std::size_t k = 0; k < g.K; ++k) m.base.push_back(base_of_length(g, k, claimed, blocks));
  fit_factors(g, m, claims);
  return m;
}

namespace {

// What a cell's lift (log of its delay over its base) leaves unexplained by claims whose factors are
// `largest` at most and `total` together: the faults on one route slow it by at least their largest
// factor (bandwidths: the narrowest link) and at most by all of them (latencies add up), so a lift
// between the two is explained; below, it is that much faster, above that much slower.
double beyond(double lift, double largest, double total) {
  return lift < largest ? lift - largest : lift > total ? lift - total : 0.0;
}

}  // namespace

// The residual of a cell, leaving out claim `skip` (npos: none); `ends_only`: the claims of node and
// switch groups only (the search for groups reads the cells that pair findings claim as unexplained,
// so that a group can take the place of the pair findings it explains).
double residual(const Grid& g, const Model& m, const std::vector<Claim>& claims, std::size_t k, std::size_t i,
                std::size_t j, std::size_t skip, bool ends_only) {
  const std::size_t x = g.cell(i, j);
  double largest = 0.0, total = 0.0;
  for_claims(g, claims, m.ix, i, j, [&](std::size_t q) {
    if (q == skip || (ends_only && !claims[q].ends)) return;
    largest = std::max(largest, claims[q].at(k, g.cls[x]));
    total += claims[q].at(k, g.cls[x]);
  });
  return beyond(lift(g, m, k, x), largest, total);
}

// Per length, the tolerance of a cell: explain_sigmas robust sigmas of the residuals of the cells no
// claim holds (the noise of the explained part), and at least log(explain_floor).
// Returns the share of those cells within the floor: how well the levels alone describe the distances.
double set_tolerances(Grid& g, const Model& m, const std::vector<Claim>& claims) {
  g.tol.assign(g.K, std::log(g.opt.explain_floor));
  std::vector<std::vector<double>> lifts(g.K);
  for (std::size_t k = 0; k < g.K; ++k) {
    auto& r = lifts[k];
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (i == j || std::isnan(g.logv[k][x])) continue;
        bool any = false;
        for_claims(g, claims, m.ix, i, j, [&](std::size_t) { any = true; });
        if (!any) r.push_back(lift(g, m, k, x));
      }
    if (r.size() < 3) continue;
    auto copy = r;
    const double sigma = population_spread(copy).sigma;
    if (std::isfinite(sigma)) g.tol[k] = std::max(g.tol[k], g.opt.explain_sigmas * sigma);
  }
  // Within the floor, not the tolerance: distances the levels miss widen the spread the tolerance
  // is taken from (a torus's hops at short lengths), and must not pass for noise here.
  std::size_t n = 0, within = 0;
  const double floor = std::log(g.opt.explain_floor);
  for (std::size_t k = 0; k < g.K; ++k)
    for (double x : lifts[k]) {
      ++n;
      within += std::fabs(x) <= floor;
    }
  return n ? static_cast<double>(within) / static_cast<double>(n) : 1.0;
}

Claim claim_of(const Grid& g, const Anomaly& a, std::size_t index) {
  Claim q;
  q.finding = index;
  // Its pairs: a pair finding's, or the routes of others folded into a slow switch (fold_transit_routes).
  q.cells = pair_cells(a, g.P);
  if (ends_kind(a.kind)) {
    q.in.assign(g.P, 0);
    for (int r : a.ranks) q.in[static_cast<std::size_t>(r)] = 1;
    q.send = a.direction != "receive";
    q.recv = a.direction != "send";
    q.inner = a.kind != AnomalyKind::slow_switch;
    return q;
  }
  q.ends = false;
  return q;
}

// A slow finding on a set of ranks: the direction its cells show (each side's median ratio to the
// base beyond the tolerance at enough lengths). Only a side that is clearly normal is left out.
void read_direction(const Grid& g, const Model& m, const std::vector<Claim>& claims, Claim& q, Anomaly& a) {
  if (!q.ends) return;
  std::size_t send_slow = 0, recv_slow = 0;
  for (std::size_t k = 0; k < g.K; ++k) {
    std::vector<double> s, r;
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (i == j || q.in[i] == q.in[j] || std::isnan(g.logv[k][x])) continue;
        // the other claims' share left out: what this finding's ranks add
        double other = 0.0;
        for_claims(g, claims, m.ix, i, j, [&](std::size_t p) {
          if (claims[p].finding != q.finding) other = std::max(other, claims[p].at(k, g.cls[x]));
        });
        (q.in[i] ? s : r).push_back(lift(g, m, k, x) - other);
      }
    const double ms = s.empty() ? 0.0 : median_inplace(s), mr = r.empty() ? 0.0 : median_inplace(r);
    send_slow += ms >= g.tol[k] ? 1 : 0;
    recv_slow += mr >= g.tol[k] ? 1 : 0;
  }
  const bool send = send_slow >= g.need, recv = recv_slow >= g.need;
  if (send == recv) {
    a.direction = "both";
    return;
  }
  // One side slow at enough lengths, the other at none: one-way.
  if ((send && recv_slow == 0) || (recv && send_slow == 0)) {
    a.direction = send ? "send" : "receive";
    q.send = send;
    q.recv = recv;
  } else {
    a.direction = "both";
  }
}

// How much of its cells each claim explains: per length and pair class, the median residual of its
// cells with it left out (the largest factor of the other claims that hold a cell in its place). A
// claim explains its cells when that is beyond half the tolerance in some class at enough lengths;
// the gain is the count of such lengths, then the sum of the largest medians.
std::vector<std::pair<std::size_t, double>> gains(const Grid& g, const Model& m, const std::vector<Claim>& claims) {
  std::vector<std::pair<std::size_t, double>> gain(claims.size(), {0, 0.0});
  const auto C = static_cast<std::size_t>(g.t.class_count());
  std::vector<std::vector<double>> r(claims.size() * C);  // [claim * C + class]
  std::vector<std::size_t> holders;
  for (std::size_t k = 0; k < g.K; ++k) {
    for (auto& v : r) v.clear();
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (i == j || std::isnan(g.logv[k][x])) continue;
        holders.clear();
        double max1 = 0.0, max2 = 0.0, total = 0.0;
        std::size_t arg = claims.size();
        for_claims(g, claims, m.ix, i, j, [&](std::size_t q) {
          holders.push_back(q);
          const double f = claims[q].at(k, g.cls[x]);
          total += f;
          if (arg == claims.size() || f > max1) {
            max2 = max1;
            max1 = f;
            arg = q;
          } else {
            max2 = std::max(max2, f);
          }
        });
        const double d = lift(g, m, k, x);
        for (std::size_t q : holders)
          r[q * C + static_cast<std::size_t>(g.cls[x])].push_back(
              beyond(d, q == arg ? max2 : max1, total - claims[q].at(k, g.cls[x])));
      }
    // Class by class: a node slow to its leaf mates only is slow in one class of its cells.
    for (std::size_t q = 0; q < claims.size(); ++q) {
      double best = -1e300;
      for (std::size_t c = 0; c < C; ++c)
        if (!r[q * C + c].empty()) best = std::max(best, lower_median_inplace(r[q * C + c]));
      if (best == -1e300) continue;
      if (best >= kTuning.claim_gain_share * g.tol[k]) ++gain[q].first;
      gain[q].second += best;
    }
  }
  return gain;
}

}  // namespace explain_parts

}  // namespace nt::analysis
