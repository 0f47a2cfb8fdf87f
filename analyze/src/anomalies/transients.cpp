// Pair findings that a transient made (common on noisy networks). A pair's samples are measured
// back to back, so a stall of a link shorter than the run but longer than the pair's samples moves
// one cell's median, and often its fastest sample too, while a fault slows every route across it.
// Two checks, each a property of any fault on a route:
// - a fault slows every sample: the fastest sample of a slow cell shows at least half of its
//   median's slowdown (in log). For a one-way pair the other direction is the reference; for the
//   pairs between two nodes slow both ways, each cell's row in the same file (median for the
//   median, min for the min).
// - every link of a network whose levels form a tree carries the routes of several pairs of nodes
//   (a host's cable all of its routes, an uplink its switch's): a finding whose cells all lie
//   between one pair of nodes, with no other pair slowed alike, has no link of its own to be the
//   fault of; it is a transient while that pair's samples ran. Where the levels form no tree (a
//   torus, a dragonfly) the structure does not say so, and such a finding goes only when it shows
//   at one length of several (a stall; a link's fault shows wherever its bandwidth or latency
//   counts). On any network the ranks of two nodes share their route: a finding on part of their
//   rank pairs, the others measured apart and not slow, is no link's either.
// Findings that fail either are moved to a note naming them, not deleted silently.
#include "nt/analysis/anomalies.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

#include "anomalies_parts.hpp"

namespace nt::analysis {
namespace {

double cell(const Cube& c, std::size_t k, int i, int j, std::vector<float>& buf) {
  return static_cast<double>(c.rows(k, i, i + 1, buf)[j]);
}

// Whether the fastest samples show the finding's pairs one-way slow: per pair and length, the
// log ratio of the two directions' minima over that of their medians; true when at least half of
// them reach 1/2.
bool fastest_agree(const Cube& values, const Cube& fastest, const Anomaly& a) {
  std::vector<float> buf;
  std::size_t agree = 0, seen = 0;
  for (const auto& [i, j] : a.pairs)
    for (std::size_t k = 0; k < values.count(); ++k) {
      if (std::find(a.lengths.begin(), a.lengths.end(), values.lengths[k]) == a.lengths.end()) continue;
      const double mi = cell(values, k, i, j, buf), mj = cell(values, k, j, i, buf);
      const double fi = cell(fastest, k, i, j, buf), fj = cell(fastest, k, j, i, buf);
      if (!Cube::usable(mi) || !Cube::usable(mj) || !Cube::usable(fi) || !Cube::usable(fj) || mi <= mj) continue;
      ++seen;
      if (std::log(fi / fj) >= kTuning.fastest_share * std::log(mi / mj)) ++agree;
    }
  return seen == 0 || 2 * agree >= seen;
}

// The median of row i at length k (off-diagonal, usable cells): a pair cell's reference.
double row_median(const Cube& c, std::size_t k, int i, std::vector<float>& buf) {
  const float* r = c.rows(k, i, i + 1, buf);
  std::vector<double> v;
  v.reserve(static_cast<std::size_t>(c.P));
  for (int j = 0; j < c.P; ++j)
    if (j != i && Cube::usable(r[j])) v.push_back(static_cast<double>(r[j]));
  return v.empty() ? 0.0 : median(v);
}

// Whether the fastest samples show a pair finding slow against each cell's row: per pair and
// length whose median carries at least half the finding's slowdown (in log) over its row's, the
// fastest sample's log ratio to the min file's row over the median's; true when at least half
// reach 1/2.
bool fastest_agree_rows(const Cube& values, const Cube& fastest, const Anomaly& a) {
  if (a.score <= 1.0) return true;
  std::vector<float> buf;
  std::size_t agree = 0, seen = 0;
  for (std::size_t k = 0; k < values.count(); ++k) {
    if (std::find(a.lengths.begin(), a.lengths.end(), values.lengths[k]) == a.lengths.end()) continue;
    for (const auto& [i, j] : a.pairs) {
      const double m = cell(values, k, i, j, buf), f = cell(fastest, k, i, j, buf);
      const double rm = row_median(values, k, i, buf), rf = row_median(fastest, k, i, buf);
      if (!Cube::usable(m) || !Cube::usable(f) || rm <= 0.0 || rf <= 0.0) continue;
      const double slow = std::log(m / rm);
      if (slow < kTuning.fastest_share * std::log(a.score)) continue;
      ++seen;
      if (std::log(f / rf) >= kTuning.fastest_share * slow) ++agree;
    }
  }
  return seen == 0 || 2 * agree >= seen;
}

bool pair_kind(const Anomaly& a) {
  return (a.kind == AnomalyKind::asymmetric_pair || a.kind == AnomalyKind::slow_link) && !a.pairs.empty();
}

// The node of rank r: its group at t's finest level when that level is the nodes, else the rank.
int node_of(const Topology& t, int r) {
  if (!t.node_level_identified || t.levels.empty()) return r;
  return t.levels[0].group_of[static_cast<std::size_t>(r)];
}

// Whether every pair of a lies between the same two nodes (either direction), and not within one.
bool one_node_pair(const Topology& t, const Anomaly& a) {
  const int x = node_of(t, a.pairs.front().first), y = node_of(t, a.pairs.front().second);
  if (x == y) return false;
  return std::all_of(a.pairs.begin(), a.pairs.end(), [&](const auto& p) {
    const int u = node_of(t, p.first), v = node_of(t, p.second);
    return (u == x && v == y) || (u == y && v == x);
  });
}

// Whether the first pairs of a and b share a node.
bool share_a_node(const Topology& t, const Anomaly& a, const Anomaly& b) {
  const int a0 = node_of(t, a.pairs.front().first), a1 = node_of(t, a.pairs.front().second);
  const int b0 = node_of(t, b.pairs.front().first), b1 = node_of(t, b.pairs.front().second);
  return a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1;
}

// Whether a holds fewer than half of the rank pairs between its two nodes in the directions it
// names (the others measured apart and not slow alike): a transient of one rank pair, since the
// ranks of two nodes share their route.
bool part_of_node_pair(const Topology& t, const Anomaly& a) {
  if (!t.node_level_identified || t.levels.empty()) return false;
  const auto& g = t.levels[0];
  const int x = node_of(t, a.pairs.front().first), y = node_of(t, a.pairs.front().second);
  const std::size_t per_direction = g.groups[static_cast<std::size_t>(x)].size() * g.groups[static_cast<std::size_t>(y)].size();
  if (per_direction < 2) return false;
  bool forward = false, back = false;
  for (const auto& p : a.pairs) (node_of(t, p.first) == x ? forward : back) = true;
  const std::size_t all = per_direction * (forward && back ? 2 : 1);
  return 2 * a.pairs.size() < all;
}

// Whether the rank pairs between a's two nodes hold one measurement per direction: one rank per
// node, or the file's schedule copied one rank pair's values to the others (`copied`).
bool one_measurement(const Topology& t, const Anomaly& a, bool copied) {
  if (copied || !t.node_level_identified || t.levels.empty()) return true;
  const auto& g = t.levels[0];
  const auto& xs = g.groups[static_cast<std::size_t>(node_of(t, a.pairs.front().first))];
  const auto& ys = g.groups[static_cast<std::size_t>(node_of(t, a.pairs.front().second))];
  return xs.size() * ys.size() < 2;
}

// The share of the cells of `line_cells` (a row or a column, P cells) off the nodes x and y that are
// at least `line` times their median.
double slow_share(const Topology& t, const std::vector<float>& line_cells, int x, int y, double line) {
  std::vector<double> v;
  for (std::size_t r = 0; r < line_cells.size(); ++r) {
    const int n = node_of(t, static_cast<int>(r));
    if (n != x && n != y && Cube::usable(line_cells[r])) v.push_back(static_cast<double>(line_cells[r]));
  }
  if (v.empty()) return 0.0;
  const double mid = median(v);
  const auto slow = std::count_if(v.begin(), v.end(), [&](double d) { return d >= line * mid; });
  return static_cast<double>(slow) / static_cast<double>(v.size());
}

// Whether other cells of the senders' rows or the receivers' columns (beyond the two nodes) are slow
// with a's pairs: a tenth of them or more at half the finding's slowdown (in log) over the row's or
// column's median, at one of its lengths. A cable or an uplink slows many routes; a transient one.
// Each sender's row and receiver's column is read once per length (a column in one block).
bool routes_slow_with(const Cube& c, const Topology& t, const Anomaly& a) {
  if (a.score <= 1.0) return true;
  const double line = std::exp(kTuning.fastest_share * std::log(a.score));
  const int x = node_of(t, a.pairs.front().first), y = node_of(t, a.pairs.front().second);
  std::set<int> senders, receivers;
  for (const auto& [i, j] : a.pairs) {
    senders.insert(i);
    receivers.insert(j);
  }
  std::vector<float> buf, cells(static_cast<std::size_t>(c.P));
  for (std::size_t k = 0; k < c.count(); ++k) {
    if (std::find(a.lengths.begin(), a.lengths.end(), c.lengths[k]) == a.lengths.end()) continue;
    for (int i : senders) {
      const float* row = c.rows(k, i, i + 1, buf);
      cells.assign(row, row + c.P);
      if (slow_share(t, cells, x, y, line) >= kTuning.lone_row_share) return true;
    }
    for (int j : receivers) {
      c.block(k, 0, c.P, j, j + 1, cells.data());
      if (slow_share(t, cells, x, y, line) >= kTuning.lone_row_share) return true;
    }
  }
  return false;
}

std::string first_pair(const Anomaly& a) {
  return fmt::format("{}->{}", a.pairs.front().first, a.pairs.front().second);
}

}  // namespace

std::optional<std::string> drop_lone_pairs(const Cube& values, const Topology& t, bool copied,
                                           std::vector<Anomaly>& found, std::vector<std::pair<int, int>>& left_out) {
  const std::size_t nodes = t.node_level_identified && !t.levels.empty() ? t.levels[0].groups.size()
                                                                         : static_cast<std::size_t>(t.P);
  if (nodes < kTuning.lone_min_nodes) return std::nullopt;
  // Levels above the nodes that form a tree (switches, routers): every link carries several pairs'
  // routes. Without them (a torus, a dragonfly) the structure does not say so, and a lone pair
  // finding goes only where it shows at one length of several: a stall while its samples ran, where
  // a slow link of a few routes slows them wherever its bandwidth or latency counts.
  const bool switched = t.levels.size() > 1 && !t.no_tree_above;
  const auto one_length = [&](const Anomaly& a) { return a.lengths.size() == 1 && values.count() > 1; };
  // Pair findings slow alike (at the same lengths, within 25 %) are one fault's routes when they
  // share a node or show at more than one length (a pod's partial uplink carries a few disjoint
  // pairs of nodes, each its own finding): none is alone. Stalls of one size (a cable at a fixed
  // fraction of its bandwidth) slow pairs measured at different times alike, at one length each.
  std::vector<char> joined(found.size(), 0);
  for (std::size_t x = 0; x < found.size(); ++x)
    for (std::size_t y = x + 1; y < found.size(); ++y) {
      const Anomaly &a = found[x], &b = found[y];
      if (!pair_kind(a) || !pair_kind(b) || a.lengths != b.lengths) continue;
      if (std::max(a.score, b.score) > kTuning.alike_ratio * std::min(a.score, b.score)) continue;
      if (a.lengths.size() > 1 || share_a_node(t, a, b)) joined[x] = joined[y] = 1;
    }
  std::vector<std::string> moved;
  std::vector<Anomaly> kept;
  for (std::size_t x = 0; x < found.size(); ++x) {
    const Anomaly& a = found[x];
    // A part of a pair of nodes' rank pairs is no link's, joined or not: the others share its route.
    const bool lone = pair_kind(a) && one_node_pair(t, a) &&
                      (part_of_node_pair(t, a) || (!joined[x] && (switched || one_length(a)) && one_measurement(t, a, copied) &&
                                                   !routes_slow_with(values, t, a)));
    if (!lone) {
      kept.push_back(a);
      continue;
    }
    moved.push_back(first_pair(a));
    left_out.insert(left_out.end(), a.pairs.begin(), a.pairs.end());
  }
  found = std::move(kept);
  if (moved.empty()) return std::nullopt;
  return fmt::format(
      "{} pair finding(s) left out (first ranks {}): each slow between one pair of nodes alone, no other pair "
      "across the same cables or switches slowed alike, while every link carries the routes of several pairs: a "
      "transient while their samples ran, not a fault of a link (measure these pairs again to be sure)",
      moved.size(), fmt::join(moved, ", "));
}

bool slow_in_medians_only(const Cube& values, const Cube& fastest, const Topology& t, const Anomaly& a) {
  if (!pair_kind(a) || fastest.P != values.P || fastest.lengths != values.lengths) return false;
  if (a.kind == AnomalyKind::asymmetric_pair && !fastest_agree(values, fastest, a)) return true;
  // A slow link of many node pairs as well (a direct network's link read from its routes' time per
  // byte, the explanation's routes between two sets of groups): a stall of a cable slows a few
  // pairs' medians, a fault every sample.
  return (one_node_pair(t, a) || a.kind == AnomalyKind::slow_link) && !fastest_agree_rows(values, fastest, a);
}

std::optional<std::string> drop_transient_pairs(const Cube& values, const Cube& fastest, const Topology& t,
                                                std::vector<Anomaly>& found, std::vector<std::pair<int, int>>& left_out) {
  if (fastest.P != values.P || fastest.lengths != values.lengths) return std::nullopt;
  const auto moved = anomaly_parts::take_out(
      found,
      [&](const Anomaly& a) { return slow_in_medians_only(values, fastest, t, a); },
      first_pair, &left_out);
  if (moved.empty()) return std::nullopt;
  return fmt::format(
      "{} pair finding(s) left out (first ranks {}): slow in the medians only, their fastest samples (the "
      "min file) are not: a transient while their samples ran (samples of a pair are taken back to back), not a "
      "fault; a fault slows every sample",
      moved.size(), fmt::join(moved, ", "));
}

}  // namespace nt::analysis
