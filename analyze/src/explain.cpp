// The explanation of the whole matrix, checked (share/doc/analyze.md "Explanation").
//
// The levels and the findings are a model of every cell: a cell's delay is its class's delay (the
// median of the class's cells that no finding claims), times the factor of the slowest finding that
// claims it (a finding's factor: the median ratio of its cells of that class to their base). The model is then
// compared with the measured matrix, cell by cell, at every length:
//  - each slow finding's direction is read from its cells (what its ranks send, what they receive);
//  - a finding whose cells are predicted as well without it explains nothing: it is dropped;
//  - the cells the model leaves slow are searched for a fault at a level the topology has (a node
//    or a switch group, the cells it sends, receives or both); the group that explains most of them
//    becomes a finding, and the search goes on until no group explains a majority of its cells;
//  - what is still slow after that, at enough lengths, is an `unexplained` finding with its hosts;
//  - the share of cells the model predicts within the noise is stated.
// The rules are the same for every topology and fault: nothing here knows a kind of network.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <unordered_map>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"
#include "anomalies_parts.hpp"
#include "text_util.hpp"

namespace nt::analysis {

std::set<std::uint64_t> pair_cells(const Anomaly& a, std::size_t P) {
  // Exactly its pairs (a one-way pair of two ranks is not every rank pair of their nodes).
  // A slow link's pairs listed one way round each (sender below receiver) stand for both
  // directions; listed otherwise, they are the directions that are slow.
  std::set<std::uint64_t> cells;
  const bool both = a.kind == AnomalyKind::slow_link &&
                    std::all_of(a.pairs.begin(), a.pairs.end(), [](const auto& p) { return p.first < p.second; });
  for (auto [x, y] : a.pairs) {
    const auto cx = static_cast<std::uint64_t>(x), cy = static_cast<std::uint64_t>(y);
    cells.insert(cx * P + cy);
    if (both) cells.insert(cy * P + cx);
  }
  return cells;
}

namespace {

using anomaly_parts::hosts_of;

// The cells a finding claims: the cells between its ranks and the others (its direction: those they
// send, those they receive, or both), or the cells between ordered pairs of nodes.
struct Claim {
  std::size_t finding = 0;
  bool ends = true;                  // ends: `in` holds its ranks; else `cells`
  std::vector<char> in;              // per rank
  bool send = true, recv = true;     // ends: the cells its ranks send, those they receive
  bool inner = false;                // ends: also the cells among its ranks (a slow node's own)
  std::set<std::uint64_t> cells;  // its cells (sender * P + receiver)
  // Per length and pair class: log of the median ratio of its cells to their base (a slow cable
  // slows a pair by a factor that depends on the pair's other links: 4x within its switch, less
  // across the network).
  std::vector<std::vector<double>> factor;
  double at(std::size_t k, std::int8_t c) const { return factor[k][static_cast<std::size_t>(c)]; }
};

bool explains_delays(AnomalyKind k) {
  return k == AnomalyKind::slow_rank || k == AnomalyKind::slow_node || k == AnomalyKind::slow_switch ||
         k == AnomalyKind::slow_link || k == AnomalyKind::asymmetric_pair || k == AnomalyKind::unexplained;
}

bool ends_kind(AnomalyKind k) {
  return k == AnomalyKind::slow_rank || k == AnomalyKind::slow_node || k == AnomalyKind::slow_switch;
}

// Everything the check reads, per length the log delays of the cells (NaN: the diagonal, a bad or
// missing cell).
struct Grid {
  const Cube& c;
  const Topology& t;
  const AnomalyOptions& opt;
  std::size_t P, K;              // ranks, lengths
  std::size_t need;              // lengths a finding must show at
  std::vector<std::int8_t> cls;  // pair class per cell, -1 on the diagonal
  std::vector<std::vector<float>> logv;
  std::vector<double> tol;       // per length: a cell beyond its prediction by more is unexplained (log)
  // No tree above the top level (a dragonfly, a torus): the cells between the finest switch groups
  // take the delay of their pair of groups, which holds the distance between them.
  bool blocks = false;
  std::size_t G1 = 0;
  int node_of(std::size_t r) const { return t.levels.front().group_of[r]; }
  std::size_t cell(std::size_t i, std::size_t j) const { return i * P + j; }
};

Grid make_grid(const Cube& c, const Topology& t, const AnomalyOptions& opt) {
  Grid g{c, t, opt, static_cast<std::size_t>(c.P), c.count(), 1, pair_classes(t),
         {}, {}, false, 0};
  g.need = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(opt.min_length_fraction * static_cast<double>(g.K) - 1e-9)));
  g.blocks = t.no_tree_above && t.levels.size() >= 2;
  if (g.blocks) g.G1 = t.levels[1].groups.size();
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

// Which claims hold each cell: per rank the `ends` claims that hold it, per cell the others.
struct ClaimIndex {
  std::vector<std::vector<std::size_t>> by_rank;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_cell;
};

ClaimIndex index_claims(const Grid& g, const std::vector<Claim>& claims) {
  ClaimIndex ix{std::vector<std::vector<std::size_t>>(g.P), {}};
  for (std::size_t q = 0; q < claims.size(); ++q) {
    if (claims[q].ends) {
      for (std::size_t r = 0; r < g.P; ++r)
        if (claims[q].in[r]) ix.by_rank[r].push_back(q);
    } else {
      for (auto np : claims[q].cells) ix.by_cell[np].push_back(q);
    }
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
      for (std::size_t q : it->second) f(q);
  }
}

// The base of every cell at one length: its class's delay, read from the cells no claim holds. Per
// class, each part the class joins (the groups of the level below it: of the pairs between leaves of
// one pod, the leaves) has the median of its cells; the class's base is the lower median of those.
// A part is a component that may be faulty, not a pair: of three pods one slow, two thirds of the
// pairs between pods are slow, but two of the three pods are not. Between the finest switch groups
// of a topology with no tree above, the median of the cells of the pair of groups, where it has 3
// such cells (it holds their distance). A class all of whose cells are claimed takes the median of
// all of them.
std::vector<float> base_of_length(const Grid& g, std::size_t k, const std::vector<char>& claimed) {
  const std::size_t C = static_cast<std::size_t>(g.t.class_count());
  const std::size_t B = g.blocks ? g.G1 * g.G1 : 0;
  std::vector<std::vector<double>> blocks(B), all(C);
  std::vector<std::vector<std::vector<double>>> parts(C);
  for (std::size_t c = 0; c < C; ++c) parts[c].resize(g.t.levels[std::max<std::size_t>(c, 1) - 1].groups.size());
  const auto& lv = g.logv[k];
  const auto& g1 = g.blocks ? g.t.levels[1].group_of : g.t.levels.front().group_of;
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      const std::size_t x = g.cell(i, j);
      if (std::isnan(lv[x])) continue;
      const auto c = static_cast<std::size_t>(g.cls[x]);
      all[c].push_back(lv[x]);
      if (g.blocks && c >= 2) {
        const std::size_t b = static_cast<std::size_t>(g1[i]) * g.G1 + static_cast<std::size_t>(g1[j]);
        if (!claimed[x]) blocks[b].push_back(lv[x]);
      }
      if (claimed[x]) continue;
      const auto& part = g.t.levels[std::max<std::size_t>(c, 1) - 1].group_of;
      parts[c][static_cast<std::size_t>(part[i])].push_back(lv[x]);
      parts[c][static_cast<std::size_t>(part[j])].push_back(lv[x]);
    }
  std::vector<double> med(C, kNaN), block_med(B, kNaN);
  for (std::size_t c = 0; c < C; ++c) {
    std::vector<double> m;
    for (auto& v : parts[c])
      if (!v.empty()) m.push_back(lower_median_inplace(v));
    if (!m.empty()) med[c] = lower_median_inplace(m);
    else if (!all[c].empty()) med[c] = lower_median_inplace(all[c]);
  }
  for (std::size_t b = 0; b < B; ++b)
    if (blocks[b].size() >= 3) block_med[b] = lower_median_inplace(blocks[b]);
  std::vector<float> base(g.P * g.P, std::nanf(""));
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      const std::size_t x = g.cell(i, j);
      if (g.cls[x] < 0) continue;
      const auto c = static_cast<std::size_t>(g.cls[x]);
      double b = med[c];
      if (g.blocks && c >= 2) {
        const double bm = block_med[static_cast<std::size_t>(g1[i]) * g.G1 + static_cast<std::size_t>(g1[j])];
        if (std::isfinite(bm)) b = bm;
      }
      base[x] = static_cast<float>(b);
    }
  return base;
}

// The model of the matrix for a set of claims: per length the base of each cell, and each claim's
// factor; the prediction of a cell is its base plus the largest factor of the claims that hold it.
struct Model {
  std::vector<std::vector<float>> base;
  ClaimIndex ix;
};

// log(delay / base) of cell x at length k.
double lift(const Grid& g, const Model& m, std::size_t k, std::size_t x) {
  return static_cast<double>(g.logv[k][x]) - static_cast<double>(m.base[k][x]);
}

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

Model fit_model(const Grid& g, std::vector<Claim>& claims) {
  Model m;
  m.ix = index_claims(g, claims);
  const auto claimed = claimed_cells(g, claims, m.ix);
  for (std::size_t k = 0; k < g.K; ++k) m.base.push_back(base_of_length(g, k, claimed));
  fit_factors(g, m, claims);
  return m;
}

// What a cell's lift (log of its delay over its base) leaves unexplained by claims whose factors are
// `largest` at most and `total` together: the faults on one route slow it by at least their largest
// factor (bandwidths: the narrowest link) and at most by all of them (latencies add up), so a lift
// between the two is explained; below, it is that much faster, above that much slower.
double beyond(double lift, double largest, double total) {
  return lift < largest ? lift - largest : lift > total ? lift - total : 0.0;
}

// The residual of a cell, leaving out claim `skip` (npos: none); `ends_only`: the claims of node and
// switch groups only (the search for groups reads the cells that pair findings claim as unexplained,
// so that a group can take the place of the pair findings it explains).
double residual(const Grid& g, const Model& m, const std::vector<Claim>& claims, std::size_t k, std::size_t i,
                std::size_t j, std::size_t skip = static_cast<std::size_t>(-1), bool ends_only = false) {
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
  if (ends_kind(a.kind)) {
    q.in.assign(g.P, 0);
    for (int r : a.ranks) q.in[static_cast<std::size_t>(r)] = 1;
    q.send = a.direction != "receive";
    q.recv = a.direction != "send";
    q.inner = a.kind != AnomalyKind::slow_switch;
    return q;
  }
  q.ends = false;
  q.cells = pair_cells(a, g.P);
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
      if (best >= 0.5 * g.tol[k]) ++gain[q].first;
      gain[q].second += best;
    }
  }
  return gain;
}

// A place the search tries: the cells group `group` of level `level` sends (to ranks outside it) or
// receives.
struct Region {
  std::size_t level = 0, group = 0;
  bool send = true;
};

// Per region, pair class and length, how many of its cells are usable and how many the model leaves
// slow. A region is judged class by class: the cells of a leaf inside a slow pod that leave the pod
// are the pod's, those to the other leaves of the pod its own.
struct RegionCounts {
  std::vector<std::size_t> offset;  // per level, the index of its first region
  std::size_t classes = 0;
  std::vector<std::vector<std::uint32_t>> usable, slow;  // [k][region * classes + class]
  std::uint64_t cells = 0, within = 0, slower = 0;       // every usable cell: within the tolerance, beyond it
};

std::size_t region_index(const RegionCounts& rc, std::size_t level, std::size_t group, bool send) {
  return rc.offset[level] + 2 * group + (send ? 0 : 1);
}

RegionCounts count_regions(const Grid& g, const Model& m, const std::vector<Claim>& claims,
                           std::vector<std::vector<char>>& slow_cells, bool ends_only) {
  RegionCounts rc;
  std::size_t n = 0;
  for (const auto& lev : g.t.levels) {
    rc.offset.push_back(n);
    n += 2 * lev.groups.size();
  }
  rc.classes = static_cast<std::size_t>(g.t.class_count());
  rc.usable.assign(g.K, std::vector<std::uint32_t>(n * rc.classes, 0));
  rc.slow.assign(g.K, std::vector<std::uint32_t>(n * rc.classes, 0));
  slow_cells.assign(g.K, std::vector<char>(g.P * g.P, 0));
  for (std::size_t k = 0; k < g.K; ++k)
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (i == j || std::isnan(g.logv[k][x])) continue;
        const double r = residual(g, m, claims, k, i, j, static_cast<std::size_t>(-1), ends_only);
        const bool slow = r > g.tol[k];
        slow_cells[k][x] = slow;
        ++rc.cells;
        rc.within += std::fabs(r) <= g.tol[k];
        rc.slower += slow;
        for (std::size_t l = 0; l < g.t.levels.size(); ++l) {
          const auto& go = g.t.levels[l].group_of;
          if (go[i] == go[j]) break;  // same group here, and at every coarser level
          const auto c = static_cast<std::size_t>(g.cls[x]);
          const auto si = region_index(rc, l, static_cast<std::size_t>(go[i]), true) * rc.classes + c;
          const auto rj = region_index(rc, l, static_cast<std::size_t>(go[j]), false) * rc.classes + c;
          ++rc.usable[k][si];
          ++rc.usable[k][rj];
          rc.slow[k][si] += slow;
          rc.slow[k][rj] += slow;
        }
      }
  return rc;
}

// The best region to name: most of its cells slow at enough lengths, the one that covers the most
// slow cells. Both directions of a group when both qualify.
struct Pick {
  bool found = false;
  std::size_t level = 0, group = 0;
  bool send = false, recv = false;
  std::vector<std::size_t> lengths;  // length indices where it shows
};

Pick best_region(const Grid& g, const RegionCounts& rc, const std::vector<std::vector<char>>& tried) {
  Pick best;
  std::size_t best_cover = 0;
  for (std::size_t l = 0; l < g.t.levels.size(); ++l)
    for (std::size_t grp = 0; grp < g.t.levels[l].groups.size(); ++grp) {
      if (tried[l][grp]) continue;
      bool ok[2] = {false, false};
      std::size_t cover = 0;
      std::vector<std::size_t> lens;
      for (int d = 0; d < 2; ++d) {
        const auto q = region_index(rc, l, grp, d == 0) * rc.classes;
        std::vector<std::size_t> at;
        std::size_t c = 0;
        for (std::size_t k = 0; k < g.K; ++k) {
          std::size_t u = 0, sl = 0;
          for (std::size_t cl = 0; cl < rc.classes; ++cl) u += rc.usable[k][q + cl], sl += rc.slow[k][q + cl];
          if (u >= 2 && 2 * sl > u) {
            at.push_back(k);
            c += sl;
          }
        }
        if (at.size() >= g.need) {
          ok[d] = true;
          cover += c;
          if (at.size() > lens.size()) lens = at;
        }
      }
      if ((ok[0] || ok[1]) && cover > best_cover) {
        best_cover = cover;
        best = {true, l, grp, ok[0], ok[1], lens};
      }
    }
  return best;
}

const char* direction_words(const std::string& d) {
  return d == "send" ? "sends" : d == "receive" ? "receives" : "sends and receives";
}

Anomaly region_finding(const Grid& g, const Pick& p, const std::vector<std::string>& hosts) {
  Anomaly a;
  const auto& lev = g.t.levels[p.level];
  a.kind = p.level == 0 ? AnomalyKind::slow_node : AnomalyKind::slow_switch;
  a.ranks = lev.groups[p.group];
  a.hosts = hosts_of(a.ranks, hosts);
  a.direction = p.send && p.recv ? "both" : p.send ? "send" : "receive";
  for (std::size_t k : p.lengths) a.lengths.push_back(g.c.lengths[k]);
  a.detail = fmt::format("{} {} {} slowly: most of its cells to and from the other {}s are slower than the "
                         "levels and the other findings predict, at {} of {} lengths",
                         p.level == 0 ? (g.t.node_level_identified ? "node group" : "group") : lev.name, p.group,
                         direction_words(a.direction), p.level == 0 ? "node" : lev.name, p.lengths.size(), g.K);
  return a;
}

// The score of a finding the check added: its factor at the lengths where it shows (median).
void score_from_factor(const Grid& g, const Claim& q, Anomaly& a) {
  std::vector<double> f;
  for (std::size_t k = 0; k < g.K; ++k)
    if (std::find(a.lengths.begin(), a.lengths.end(), g.c.lengths[k]) != a.lengths.end())
      f.push_back(*std::max_element(q.factor[k].begin(), q.factor[k].end()));
  a.score = f.empty() ? 1.0 : std::exp(finite_median(f));
  a.detail += fmt::format(" ({:.2f}x)", a.score);
  if (!a.hosts.empty()) a.detail += " on " + text::hosts_text(a.hosts);
}

// The cells left slow at enough lengths after the search: one `unexplained` finding, its pairs
// (the first max_links) and the ranks most of them touch.
std::optional<Anomaly> leftover(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                                const std::vector<std::string>& hosts, std::size_t* count) {
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::size_t> touch(g.P, 0);
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      std::size_t n = 0;
      for (std::size_t k = 0; k < g.K; ++k) n += slow_cells[k][g.cell(i, j)];
      if (i == j || n < g.need) continue;
      pairs.emplace_back(static_cast<int>(i), static_cast<int>(j));
      ++touch[i];
      ++touch[j];
    }
  *count = pairs.size();
  const std::size_t cells = g.P * (g.P - 1);
  if (pairs.size() < std::max<std::size_t>(g.opt.explain_min_cells,
                                           static_cast<std::size_t>(g.opt.explain_min_share * static_cast<double>(cells))))
    return std::nullopt;
  Anomaly a;
  a.kind = AnomalyKind::unexplained;
  const std::size_t top = *std::max_element(touch.begin(), touch.end());
  for (std::size_t r = 0; r < g.P; ++r)
    if (2 * touch[r] > top) a.ranks.push_back(static_cast<int>(r));
  a.hosts = hosts_of(a.ranks, hosts);
  a.score = 1.0;
  for (std::size_t k = 0; k < g.K; ++k) a.lengths.push_back(g.c.lengths[k]);
  a.detail = fmt::format("{} rank pairs ({:.1f} % of the matrix) are slower than the levels and the findings predict "
                         "and no finding at a level explains them; most are on ranks {}",
                         pairs.size(), 100.0 * static_cast<double>(pairs.size()) / static_cast<double>(cells),
                         text_of_ranks(a.ranks));
  if (!a.hosts.empty()) a.detail += fmt::format(" (hosts {})", text::hosts_text(a.hosts));
  if (pairs.size() > g.opt.max_links) pairs.resize(g.opt.max_links);
  a.pairs = std::move(pairs);
  return a;
}

// Whether the check may drop a finding that explains nothing: a node or switch group (a distance
// read as a slow group), or pairs within one node (a node's own pairs read as slow links against a
// rank-effect model). Pair findings across nodes are the route detectors' (a partial uplink, one
// direction of a torus link): their cells follow routes the classes do not hold, so a class's
// median is no judge of them.
bool droppable(const Grid& g, const Claim& q, const std::vector<Anomaly>& found) {
  if (q.ends) {
    // A lone node (alone in its switch group) has no peers in its class: no class judges it.
    for (std::size_t l = 1; l < g.t.levels.size(); ++l)
      for (std::size_t lg : lone_node_groups(g.t, l))
        if (g.t.levels[l].groups[lg] == found[q.finding].ranks) return false;
    // A group that holds another finding's ranks: the two share its cells, and the median of a
    // group with a slower member inside is no judge of the group.
    for (std::size_t f = 0; f < found.size(); ++f)
      if (f != q.finding && !found[f].ranks.empty() && ends_kind(found[f].kind) &&
          std::all_of(found[f].ranks.begin(), found[f].ranks.end(), [&](int r) { return q.in[static_cast<std::size_t>(r)] != 0; }) &&
          found[f].ranks.size() < found[q.finding].ranks.size())
        return false;
    return true;
  }
  for (auto [x, y] : found[q.finding].pairs)
    if (g.node_of(static_cast<std::size_t>(x)) != g.node_of(static_cast<std::size_t>(y))) return false;
  return true;
}

// Drops, one at a time and the weakest first, the findings that explain nothing at any length
// (drop[finding]; a detector's finding may show at fewer lengths than the check's tolerance allows):
// of two findings on the same cells each explains nothing beside the other, and one is to stay.
void drop_idle(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<Anomaly>& found,
               std::vector<char>& drop, Explanation& e) {
  for (;;) {
    const auto gain = gains(g, m, claims);
    std::size_t weakest = claims.size();
    for (std::size_t q = 0; q < claims.size(); ++q)
      if (claims[q].finding < found.size() && gain[q].first == 0 && droppable(g, claims[q], found) &&
          (weakest == claims.size() || gain[q] < gain[weakest]))
        weakest = q;
    if (weakest == claims.size()) return;
    const Anomaly& a = found[claims[weakest].finding];
    drop[claims[weakest].finding] = 1;
    e.dropped.push_back(fmt::format("{} on ranks {}", name_of(a.kind), text_of_ranks(a.ranks)));
    claims.erase(claims.begin() + static_cast<std::ptrdiff_t>(weakest));
    m = fit_model(g, claims);
  }
}

// Names the groups of a level whose cells the model leaves slow, the one that covers most first,
// until none is left (at most explain_max_added).
// A group's uplink that carries part of its routes (a switch with several uplinks sends each
// destination's routes over one): the group is slow to a set R of the ranks outside it and not to
// the others. Per direction, R holds the ranks outside that every member's cells to (or from) are
// slow at enough lengths; a block is two ranks or more of R, short of all the ranks outside (all of
// them is the group's own region), with no other slow cell of the group's.
struct UplinkBlock {
  std::size_t level = 0, group = 0, cells = 0;
  std::vector<int> to, from;  // R of the cells the group sends, and of those it receives
};

std::vector<int> slow_partners(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                               const std::vector<int>& members, const std::vector<int>& go, int grp, bool send,
                               std::size_t& stray) {
  std::vector<int> far;
  for (std::size_t y = 0; y < g.P; ++y) {
    if (go[y] == grp) continue;
    std::size_t slow = 0;
    for (int i : members) {
      const std::size_t x = send ? g.cell(static_cast<std::size_t>(i), y) : g.cell(y, static_cast<std::size_t>(i));
      std::size_t n = 0;
      for (std::size_t k = 0; k < g.K; ++k) n += slow_cells[k][x];
      slow += n >= g.need;
    }
    if (slow == members.size()) far.push_back(static_cast<int>(y));
    else stray += slow;
  }
  return far;
}

std::optional<UplinkBlock> uplink_block(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                                        const std::vector<std::vector<char>>& tried) {
  std::optional<UplinkBlock> best;
  for (std::size_t l = 1; l < g.t.levels.size(); ++l) {
    const auto& go = g.t.levels[l].group_of;
    for (std::size_t grp = 0; grp < g.t.levels[l].groups.size(); ++grp) {
      if (tried[l][grp]) continue;
      const auto& members = g.t.levels[l].groups[grp];
      const std::size_t outside = g.P - members.size();
      std::size_t stray = 0;
      UplinkBlock b{l, grp, 0, slow_partners(g, slow_cells, members, go, static_cast<int>(grp), true, stray),
                    slow_partners(g, slow_cells, members, go, static_cast<int>(grp), false, stray)};
      for (auto* side : {&b.to, &b.from})
        if (side->size() < 2 || side->size() >= outside) side->clear();
      b.cells = (b.to.size() + b.from.size()) * members.size();
      if (b.cells == 0 || stray * 10 > b.cells) continue;
      if (!best || b.cells > best->cells) best = std::move(b);
    }
  }
  return best;
}

Anomaly uplink_finding(const Grid& g, const UplinkBlock& b, const std::vector<std::string>& hosts) {
  Anomaly a;
  const auto& lev = g.t.levels[b.level];
  a.kind = AnomalyKind::slow_link;
  a.ranks = lev.groups[b.group];
  a.hosts = hosts_of(a.ranks, hosts);
  a.direction = !b.to.empty() && !b.from.empty() ? "both" : !b.to.empty() ? "send" : "receive";
  for (int i : a.ranks) {
    for (int y : b.to) a.pairs.emplace_back(i, y);
    for (int y : b.from) a.pairs.emplace_back(y, i);
  }
  for (std::size_t k = 0; k < g.K; ++k) a.lengths.push_back(g.c.lengths[k]);
  a.detail = fmt::format("slow uplink of {} group {}, part of its routes: it {} slowly {} {} of the {} ranks outside "
                         "it, and no other: one of the group's uplinks, the one those routes take",
                         lev.name, b.group, direction_words(a.direction), b.to.empty() ? "from" : "to",
                         std::max(b.to.size(), b.from.size()), g.P - a.ranks.size());
  return a;
}

void search_groups(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                   std::size_t n_found, std::vector<Anomaly>& added) {
  std::vector<std::vector<char>> tried, slow_cells;
  for (const auto& lev : g.t.levels) tried.emplace_back(lev.groups.size(), 0);
  // A group that holds or is held by a detector's slow group is that finding's to explain (its
  // factor is a median over hosts that differ), not a new fault.
  for (const auto& q : claims) {
    if (!q.ends || q.finding >= n_found) continue;
    for (std::size_t l = 0; l < g.t.levels.size(); ++l)
      for (std::size_t grp = 0; grp < g.t.levels[l].groups.size(); ++grp)
        for (int r : g.t.levels[l].groups[grp])
          if (q.in[static_cast<std::size_t>(r)]) tried[l][grp] = 1;
  }
  for (std::size_t round = 0; round < g.opt.explain_max_added; ++round) {
    const auto rc = count_regions(g, m, claims, slow_cells, true);
    const Pick p = best_region(g, rc, tried);
    if (!p.found) {
      const auto b = uplink_block(g, slow_cells, tried);
      if (!b) break;
      tried[b->level][b->group] = 1;
      added.push_back(uplink_finding(g, *b, hosts));
      claims.push_back(claim_of(g, added.back(), n_found + added.size() - 1));
      m = fit_model(g, claims);
      continue;
    }
    tried[p.level][p.group] = 1;
    added.push_back(region_finding(g, p, hosts));
    claims.push_back(claim_of(g, added.back(), n_found + added.size() - 1));
    claims.back().send = p.send;
    claims.back().recv = p.recv;
    m = fit_model(g, claims);
  }
}

// Whether two slow groups are one fault of a group the levels lack (two leaves of a slow pod, where
// the pod is no level): the same direction, the same factor within a quarter (or the tolerance) at
// every length, and the cells between them as fast as their class.
bool siblings(const Grid& g, const Model& m, const Claim& a, const Claim& b) {
  if (a.send != b.send || a.recv != b.recv) return false;
  for (std::size_t k = 0; k < g.K; ++k) {
    const double fa = *std::max_element(a.factor[k].begin(), a.factor[k].end());
    const double fb = *std::max_element(b.factor[k].begin(), b.factor[k].end());
    if (std::fabs(fa - fb) > std::max(g.tol[k], 0.25 * std::max(fa, fb))) return false;
    std::vector<double> between;
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (((a.in[i] && b.in[j]) || (b.in[i] && a.in[j])) && !std::isnan(g.logv[k][x]))
          between.push_back(lift(g, m, k, x));
      }
    if (between.empty() || median_inplace(between) > g.tol[k]) return false;
  }
  return true;
}

// Slow switch findings that are siblings (above) become one finding on the union of their ranks.
void merge_siblings(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                    std::vector<Anomaly>& found, std::vector<Anomaly>& added, std::vector<char>& drop) {
  auto finding = [&](std::size_t f) -> Anomaly& { return f < found.size() ? found[f] : added[f - found.size()]; };
  bool merged = false;
  for (std::size_t a = 0; a < claims.size(); ++a) {
    if (!claims[a].ends || finding(claims[a].finding).kind != AnomalyKind::slow_switch) continue;
    for (std::size_t b = a + 1; b < claims.size();) {
      if (!claims[b].ends || finding(claims[b].finding).kind != AnomalyKind::slow_switch ||
          !siblings(g, m, claims[a], claims[b])) {
        ++b;
        continue;
      }
      Anomaly& keep = finding(claims[a].finding);
      const Anomaly& gone = finding(claims[b].finding);
      keep.ranks.insert(keep.ranks.end(), gone.ranks.begin(), gone.ranks.end());
      std::sort(keep.ranks.begin(), keep.ranks.end());
      keep.hosts = hosts_of(keep.ranks, hosts);
      keep.detail += fmt::format("; with ranks {}, as slow and fast to them: one group the levels above do not show",
                                 text_of_ranks(gone.ranks));
      for (std::size_t r = 0; r < g.P; ++r) claims[a].in[r] = claims[a].in[r] || claims[b].in[r];
      drop[claims[b].finding] = 1;
      claims.erase(claims.begin() + static_cast<std::ptrdiff_t>(b));
      merged = true;
    }
  }
  if (merged) m = fit_model(g, claims);
}

// The findings revised against the model: their directions read from the delays, the ones that
// explain nothing dropped (drop[finding]), the groups whose cells the model leaves slow added, and
// the findings those make idle dropped.
void revise(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
            std::vector<Anomaly>& found, std::vector<char>& drop, std::vector<Anomaly>& added, Explanation& e,
            bool search) {
  for (auto& q : claims) read_direction(g, m, claims, q, found[q.finding]);
  m = fit_model(g, claims);
  drop_idle(g, m, claims, found, drop, e);
  // Where route findings claim pairs across nodes, what is left slow may be their routes: no search.
  const bool routes = std::any_of(claims.begin(), claims.end(), [&](const Claim& q) { return !droppable(g, q, found); });
  if (search && !routes) search_groups(g, m, claims, hosts, found.size(), added);
  drop_idle(g, m, claims, found, drop, e);
  drop.resize(found.size() + added.size(), 0);
  merge_siblings(g, m, claims, hosts, found, added, drop);
  for (std::size_t a = 0; a < added.size(); ++a) {
    const auto q = std::find_if(claims.begin(), claims.end(), [&](const Claim& x) { return x.finding == found.size() + a; });
    if (q != claims.end()) score_from_factor(g, *q, added[a]);
  }
}

}  // namespace

std::string text_of_ranks(const std::vector<int>& r) { return text::rank_runs_text(r); }

Explanation explain_and_check(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                              const AnomalyOptions& opt, std::vector<Anomaly>& found, bool change) {
  Explanation e;
  if (c.P < 3 || c.count() == 0 || t.levels.empty()) return e;
  const auto cells = static_cast<std::uint64_t>(c.P) * static_cast<std::uint64_t>(c.P) * c.count();
  if (cells > opt.explain_max_cells) {
    e.note = fmt::format("the explanation was not checked: {} cells, more than {}", cells, opt.explain_max_cells);
    return e;
  }
  Grid g = make_grid(c, t, opt);
  std::vector<Claim> claims;
  for (std::size_t a = 0; a < found.size(); ++a)
    if (explains_delays(found[a].kind)) claims.push_back(claim_of(g, found[a], a));
  Model m = fit_model(g, claims);
  e.levels_share = set_tolerances(g, m, claims);
  // Where the levels do not describe the distances (a dragonfly whose distances form no tree; a
  // single level whose classes leave the distances of a torus unexplained), a group left slow may be
  // a distance: the check then reads the directions, drops idle findings and merges siblings, but
  // adds none.
  const bool levels_fit = !t.no_tree_above && e.levels_share >= opt.explain_levels_fit;
  std::vector<char> drop(found.size(), 0);
  std::vector<Anomaly> added;
  std::vector<std::vector<char>> slow_cells;
  // A tolerance wider than the detectors' line is the spread of distances the levels leave, not
  // noise (random corpus rnd146: a dragonfly without levels, 28x and 76x, and the slow cable of a
  // host, 3.7x, went as explaining nothing): the tolerance is capped there, no group is searched
  // and no region added, and the report says so.
  const double widest = g.tol.empty() ? 0.0 : *std::max_element(g.tol.begin(), g.tol.end());
  const bool judged = widest <= std::log(opt.explain_judge_max);
  if (!judged) {
    e.note = fmt::format("the spread of the delays the levels leave is {:.3g}x, wider than a finding's {:.3g}x: the "
                         "explanation is checked within {:.3g}x, and no slow region is searched for",
                         std::exp(widest), opt.explain_judge_max, opt.explain_judge_max);
    for (double& x : g.tol) x = std::min(x, std::log(opt.explain_judge_max));
  }
  if (change) revise(g, m, claims, hosts, found, drop, added, e, levels_fit && judged);
  // Every claim's residual once: the slow cells left, and the share explained.
  const auto whole = count_regions(g, m, claims, slow_cells, false);
  std::size_t left = 0;
  auto rest = leftover(g, slow_cells, hosts, &left);
  const bool routes = std::any_of(claims.begin(), claims.end(), [&](const Claim& q) {
    return q.finding < found.size() && !droppable(g, q, found);
  });
  const bool could_add = change && levels_fit && !routes && judged;
  if (!could_add) rest.reset();
  e.changed_findings = change;
  // The share of cells within the tolerance of their prediction.
  const auto usable = static_cast<double>(whole.cells);
  e.checked = true;
  e.cells = whole.cells;
  e.explained_share = whole.cells ? static_cast<double>(whole.within) / usable : kNaN;
  e.slow_share = whole.cells ? static_cast<double>(whole.slower) / usable : kNaN;
  for (double x : g.tol) e.tolerance.push_back(std::exp(x));
  e.unexplained_pairs = left;
  // Never silent: cells left slow that the check could not name (it adds no region where the levels
  // do not describe the distances) are said in a warning, with what they are (a healthy torus's
  // hops, or faults no finding names: the report cannot tell the two apart there).
  // Pairs slow at enough lengths, as many as an `unexplained` finding needs: scattered slow cells
  // of a noisy run (the demo: 2.8 % of the cells of 4 oversubscribed ranks, no pair slow at enough
  // lengths) are noise, not a region.
  if (change && !could_add && e.slow_share >= opt.explain_warn_share && left >= opt.explain_min_cells)
    e.warning = fmt::format(
        "WARNING: {:.1f} % of the cells ({} pairs at enough lengths) are slower than the levels and the findings "
        "predict, and no finding names them: {}; read the matrix (or `network_analyze compare` with a healthy run)",
        100 * e.slow_share, left,
        !judged ? "their spread is wider than a finding's, the levels do not describe the distances here"
        : !levels_fit ? "the levels do not describe the distances here (no tree above the nodes, as on a torus or a "
                        "dragonfly), so a slow region cannot be told from a farther one"
                      : "pair findings claim the routes they cross, which the check does not judge");
  e.added = static_cast<std::size_t>(std::count(drop.begin() + static_cast<std::ptrdiff_t>(found.size()), drop.end(), 0)) +
            (rest ? 1 : 0);
  std::vector<Anomaly> kept;
  drop.resize(found.size() + added.size(), 0);
  for (std::size_t a = 0; a < found.size(); ++a)
    if (!drop[a]) kept.push_back(std::move(found[a]));
  for (std::size_t a = 0; a < added.size(); ++a)
    if (!drop[found.size() + a]) kept.push_back(std::move(added[a]));
  if (rest) kept.push_back(std::move(*rest));
  found = std::move(kept);
  return e;
}

}  // namespace nt::analysis
