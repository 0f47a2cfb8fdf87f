// Slow links of a direct network (a torus: every node a router, no level above the nodes), read from
// the time per byte. A route's time per byte is its narrowest link's; distance adds latency, not
// time per byte. So every pair whose route crosses a slow link has the same slope of delay over
// length, that link's, and the pairs of one slow link form one cluster of slopes above the typical
// one. Of a cluster, the link's ends are the sender of most of its pairs and the receiver of most
// (every route from one end toward the other's side crosses it), the nearest at the shortest length
// among equals. Both directions when the cluster holds the reverse of that pair. A cluster one node
// is in with nearly every other node is that node's (a slow router or cable: the node detectors'),
// no link's. Only where no tree is above the nodes and their distances differ: under one switch,
// pairs slow alike are a load's or a node's, no link between them.
#include "node_delays.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {

std::vector<std::vector<SlowPair>> clusters_of(std::vector<SlowPair> slow, double gap) {
  std::sort(slow.begin(), slow.end(), [](const SlowPair& x, const SlowPair& y) { return x.ratio < y.ratio; });
  std::vector<std::vector<SlowPair>> out;
  for (std::size_t i = 0; i < slow.size(); ++i) {
    if (i == 0 || slow[i].ratio - slow[i - 1].ratio > gap) out.emplace_back();
    out.back().push_back(slow[i]);
  }
  return out;
}

std::vector<std::vector<SlowPair>> connected_parts(const std::vector<SlowPair>& c, std::size_t n_nodes) {
  std::vector<std::size_t> root(n_nodes);
  for (std::size_t n = 0; n < n_nodes; ++n) root[n] = n;
  const auto find = [&](std::size_t x) {
    while (root[x] != x) x = root[x] = root[root[x]];
    return x;
  };
  for (const auto& p : c) root[find(static_cast<std::size_t>(p.a))] = find(static_cast<std::size_t>(p.b));
  std::vector<std::vector<SlowPair>> parts;
  std::vector<std::size_t> index(n_nodes, n_nodes);
  for (const auto& p : c) {
    const std::size_t r = find(static_cast<std::size_t>(p.a));
    if (index[r] == n_nodes) {
      index[r] = parts.size();
      parts.emplace_back();
    }
    parts[index[r]].push_back(p);
  }
  return parts;
}

bool a_nodes_cluster(const std::vector<SlowPair>& c, std::size_t n_nodes) {
  const Tally n_of(c, n_nodes);
  const auto& sends = n_of.sends;
  const auto& recvs = n_of.recvs;
  const double most = kTuning.node_cluster_share * static_cast<double>(n_nodes - 1);
  for (std::size_t n = 0; n < n_nodes; ++n)
    if (static_cast<double>(sends[n]) >= most || static_cast<double>(recvs[n]) >= most) return true;
  return false;
}

std::pair<std::size_t, std::size_t> shortest_and_longest(const Cube& c) {
  std::size_t k0 = 0, k1 = 0;
  for (std::size_t k = 1; k < c.count(); ++k) {
    if (c.lengths[k] < c.lengths[k0]) k0 = k;
    if (c.lengths[k] > c.lengths[k1]) k1 = k;
  }
  return {k0, k1};
}

bool held_by(const Anomaly& a, const Level& nodes, const std::set<std::pair<int, int>>& named) {
  if (a.pairs.empty()) return false;
  return std::all_of(a.pairs.begin(), a.pairs.end(), [&](const auto& p) {
    const int x = nodes.group_of[static_cast<std::size_t>(p.first)], y = nodes.group_of[static_cast<std::size_t>(p.second)];
    return x == y || named.count({x, y}) || named.count({y, x});
  });
}

bool distances_differ(const NodeDelays& d, std::size_t n_nodes, std::size_t k0, double floor) {
  std::vector<double> v;
  for (std::size_t a = 0; a < n_nodes; ++a)
    for (std::size_t b = 0; b < n_nodes; ++b)
      if (a != b && std::isfinite(d.at(k0, static_cast<int>(a), static_cast<int>(b))))
        v.push_back(d.at(k0, static_cast<int>(a), static_cast<int>(b)));
  if (v.empty()) return false;
  auto copy = v;
  const double mid = lower_median_inplace(copy);
  const auto near = std::count_if(v.begin(), v.end(), [&](double x) { return x <= floor * mid && x * floor >= mid; });
  return 2 * static_cast<std::size_t>(near) < v.size();
}

namespace {

// The nodes the data cannot tell from an end: as many of the cluster's pairs (count), and their
// pair with the far end in the cluster and within end_tie of the ends' own delay at the shortest
// length (delay: NaN where the pair is not in the cluster).
std::vector<int> tied_with(int end, const std::vector<std::size_t>& count, const std::function<double(int)>& delay) {
  std::vector<int> out;
  const double nearest = delay(end);
  for (std::size_t n = 0; n < count.size(); ++n) {
    const auto x = static_cast<int>(n);
    if (x == end || (count[n] == count[static_cast<std::size_t>(end)] &&
                     std::abs(delay(x) - nearest) <= kTuning.end_tie * nearest))
      out.push_back(x);
  }
  return out;
}

Anomaly link_of_cluster(const AnomalyScan& scan, const NodeDelays& d, std::size_t k0,
                        const std::vector<SlowPair>& c) {
  const auto& nodes = scan.topo.levels.front();
  // The ends: the pair whose sender sends and whose receiver receives the most of the cluster's
  // pairs (every route from one end toward the other's side crosses the link, a third party's only
  // some), the nearest at the shortest length among equals; with the nodes tied with each end
  // (the hosts of one router of a dragonfly: the link is their router's).
  const Tally n_of(c, nodes.groups.size());
  const auto in_pairs = [&](int n) { return n_of.sends[static_cast<std::size_t>(n)] + n_of.recvs[static_cast<std::size_t>(n)]; };
  const auto weight = [&](const SlowPair& p) { return in_pairs(p.a) + in_pairs(p.b); };
  const auto ends = *std::min_element(c.begin(), c.end(), [&](const SlowPair& x, const SlowPair& y) {
    if (weight(x) != weight(y)) return weight(x) > weight(y);
    return d.at(k0, x.a, x.b) < d.at(k0, y.a, y.b);
  });
  std::set<std::pair<int, int>> in_c;
  for (const auto& p : c) in_c.emplace(p.a, p.b);
  const auto at = [&](int a, int b) { return in_c.count({a, b}) ? d.at(k0, a, b) : kNaN; };
  const std::vector<int> from = tied_with(ends.a, n_of.sends, [&](int x) { return at(x, ends.b); });
  const std::vector<int> to = tied_with(ends.b, n_of.recvs, [&](int x) { return at(ends.a, x); });
  const bool both = std::any_of(c.begin(), c.end(), [&](const SlowPair& p) { return p.a == ends.b && p.b == ends.a; });
  Anomaly f;
  f.kind = AnomalyKind::slow_link;
  for (const auto* side : {&from, &to})
    for (int n : *side)
      for (int r : nodes.groups[static_cast<std::size_t>(n)]) f.ranks.push_back(r);
  std::sort(f.ranks.begin(), f.ranks.end());
  f.ranks.erase(std::unique(f.ranks.begin(), f.ranks.end()), f.ranks.end());
  f.hosts = hosts_of(f.ranks, scan.hosts);
  f.direction = both ? "both" : "send";
  std::vector<double> ratios;
  for (const auto& p : c) {
    ratios.push_back(p.ratio);
    for (int x : nodes.groups[static_cast<std::size_t>(p.a)])
      for (int y : nodes.groups[static_cast<std::size_t>(p.b)]) f.pairs.emplace_back(x, y);
  }
  f.score = std::exp(finite_median(ratios));
  f.lengths.assign(scan.cube.lengths.begin(), scan.cube.lengths.end());
  const std::string word = scan.topo.node_level_identified ? "node group" : "group";
  const auto names = [&](const std::vector<int>& side) {
    return side.size() == 1 ? fmt::format("{} {}", word, side.front())
                            : fmt::format("{}s {} (alike)", word, fmt::join(side, ", "));
  };
  f.detail = fmt::format(
      "slow link between {} and {}, {}: {} node pairs take {:.2f}x the typical time per byte, alike, "
      "and these send and receive the most of them, the nearest among equals: the link between them, the "
      "narrowest link of every route that crosses it (a direct network, such as a torus)",
      names(from), names(to), both ? "both directions" : "one way (the first sends)", c.size(), f.score);
  return f;
}

}  // namespace

void slope_links(const AnomalyScan& scan, std::vector<Anomaly>& out) {
  const auto& t = scan.topo;
  if (t.levels.size() != 1 || scan.cube.count() < 2) return;
  const auto& nodes = t.levels.front();
  const std::size_t N = nodes.groups.size();
  if (N < 3 || N * N * scan.cube.count() > kMaxNodeCells) return;
  const auto [k0, k1] = shortest_and_longest(scan.cube);
  const auto span = static_cast<double>(scan.cube.lengths[k1] - scan.cube.lengths[k0]);
  if (span <= 0) return;
  const NodeDelays d(scan.cube, nodes);
  if (!t.no_tree_above && !distances_differ(d, N, k0, scan.opt.explain_floor)) return;
  std::vector<double> slopes;
  std::vector<double> slope(N * N, kNaN);
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = 0; b < N; ++b) {
      const double s = (d.at(k1, static_cast<int>(a), static_cast<int>(b)) - d.at(k0, static_cast<int>(a), static_cast<int>(b))) / span;
      if (a != b && std::isfinite(s) && s > 0) slopes.push_back(slope[a * N + b] = s);
    }
  if (slopes.size() < 3) return;
  const double typical = lower_median_inplace(slopes);
  std::vector<SlowPair> slow;
  std::vector<double> healthy;
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = 0; b < N; ++b) {
      if (!std::isfinite(slope[a * N + b])) continue;
      const double r = std::log(slope[a * N + b] / typical);
      if (r >= scan.min_log) slow.push_back({static_cast<int>(a), static_cast<int>(b), r});
      else healthy.push_back(r);
    }
  if (slow.empty()) return;
  const double sigma = healthy.size() >= 3 ? population_spread(healthy).sigma : 0.0;
  const double gap = std::max(kTuning.slope_gap, scan.opt.mad_factor * (std::isfinite(sigma) ? sigma : 0.0));
  std::vector<Anomaly> links;
  std::set<std::pair<int, int>> named;
  for (const auto& alike : clusters_of(std::move(slow), gap)) {
    if (a_nodes_cluster(alike, N)) continue;
    for (const auto& c : connected_parts(alike, N)) {
      // One pair alone is a pair's (a stall of a noisy run, or a pair finding's), no link's routes:
      // a link carries its two ends' routes both ways, or one end's to two nodes or more.
      if (c.size() < 2) continue;
      links.push_back(link_of_cluster(scan, d, k0, c));
      for (const auto& p : c) named.emplace(p.a, p.b);
    }
  }
  if (links.empty()) return;
  // The pair findings of other detectors on these routes (a torus link read from its ends' slow
  // nodes, one-way pairs) are the links' now.
  std::erase_if(out, [&](const Anomaly& a) {
    return (a.kind == AnomalyKind::slow_link || a.kind == AnomalyKind::asymmetric_pair) && held_by(a, nodes, named);
  });
  out.insert(out.end(), links.begin(), links.end());
}

}  // namespace nt::analysis::anomaly_parts
