// Faults whose slow pairs are some routes of their nodes, not all.
//
// A partial uplink: a switch with several uplinks routes each destination through one of them
// (SimGrid's FAT_TREE: d-mod-k), so one slow uplink of a pod's switch slows the routes into the pod
// toward a few of its nodes, and those of all of the pod's nodes toward the same few positions in
// the other pods. The rank effects read the few as slow nodes (slow from every node outside the
// pod, from none inside) and the others as one-way pairs: one slow_link on the few, the pairs that
// cross the uplink folded in.
//
// A one-way block: one direction of a link that every route from a set S of nodes to a set R
// crosses (a torus link: the routes of its sending end and the nodes behind it toward the far
// side's columns) is one one-way pair per pair of node groups, each adding the same time: one
// asymmetric_pair finding with all of their pairs.
#include "node_delays.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include <fmt/format.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {

bool alike(const std::vector<double>& scores) {
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  return lo != scores.end() && *hi <= kTuning.alike_ratio * *lo;
}

bool alike_times(const std::vector<double>& a, const std::vector<double>& b) {
  std::size_t shared = 0;
  for (std::size_t k = 0; k < a.size() && k < b.size(); ++k) {
    if (!std::isfinite(a[k]) || !std::isfinite(b[k])) continue;
    if (a[k] <= 0 || b[k] <= 0 || !alike({a[k], b[k]})) return false;
    ++shared;
  }
  return shared > 0;
}

namespace {

// The finest level above the nodes whose group of `node` holds other nodes, and whose nodes outside
// are exactly those in `slow` (0: none), the nodes in `unknown` left out of the comparison. first[n]
// is a rank of node n.
std::size_t boundary_level(const Topology& t, const std::vector<int>& first, int node, const std::set<int>& slow,
                           const std::set<int>& unknown) {
  if (slow.empty()) return 0;
  for (std::size_t l = 1; l < t.levels.size(); ++l) {
    const auto& g = t.levels[l].group_of;
    const int mine = g[static_cast<std::size_t>(first[static_cast<std::size_t>(node)])];
    bool exact = true, mates = false;
    for (std::size_t y = 0; y < first.size() && exact; ++y) {
      if (static_cast<int>(y) == node || unknown.count(static_cast<int>(y))) continue;
      const bool inside = g[static_cast<std::size_t>(first[y])] == mine;
      mates = mates || inside;
      exact = (slow.count(static_cast<int>(y)) != 0) != inside;
    }
    if (exact && mates) return l;
  }
  return 0;
}

std::vector<int> first_ranks(const Level& nodes) {
  std::vector<int> first;
  for (const auto& g : nodes.groups) first.push_back(g.front());
  return first;
}

// The slow_link of a partial uplink of group `group` of level `level`: its members' ranks, their
// pairs across the group's boundary (the slow direction).
Anomaly uplink_finding(const AnomalyScan& scan, std::size_t level, int group, const std::vector<Side>& members,
                       const std::vector<Anomaly>& out) {
  const auto& nodes = scan.topo.levels.front();
  const auto& lev = scan.topo.levels[level];
  const auto first = first_ranks(nodes);
  Anomaly f;
  f.kind = AnomalyKind::slow_link;
  std::set<std::int64_t> lens;
  std::vector<double> scores;
  std::vector<int> names;
  for (const auto& m : members) {
    const auto& own = nodes.groups[static_cast<std::size_t>(m.node)];
    f.ranks.insert(f.ranks.end(), own.begin(), own.end());
    lens.insert(out[m.finding].lengths.begin(), out[m.finding].lengths.end());
    scores.push_back(out[m.finding].score);
    names.push_back(m.node);
    for (int y : m.slow)
      for (int x : own)
        for (int r : nodes.groups[static_cast<std::size_t>(y)]) f.pairs.emplace_back(m.in ? r : x, m.in ? x : r);
  }
  std::sort(f.ranks.begin(), f.ranks.end());
  f.hosts = hosts_of(f.ranks, scan.hosts);
  f.lengths.assign(lens.begin(), lens.end());
  f.score = finite_median(scores);
  std::size_t inside = 0;
  for (int r : first) inside += lev.group_of[static_cast<std::size_t>(r)] == group;
  const std::string word = scan.topo.node_level_identified ? "node groups" : "groups";
  const bool in = members.front().in;
  f.detail = fmt::format(
      "slow uplink of {0} group {1}, part of its routes: {2} {3} {4} slowly {5} every node outside it ({6} nodes) "
      "and {5} none inside, alike ({7:.2f}x), its {8} other nodes not: one of the group's uplinks, the one {9} "
      "them take (a switch with several uplinks sends each destination's routes over one)",
      lev.name, group, word, fmt::join(names, ","), in ? "receive" : "send", in ? "from" : "to", members.front().slow.size(),
      f.score, inside - members.size(), in ? "the routes to" : "the routes from");
  return f;
}

// The slow nodes of one switch group read alike, keyed by (level, group, direction).
using Boundaries = std::map<std::tuple<std::size_t, int, bool>, std::vector<Side>>;

// A node with a slow_node finding of its own is left out of the comparison: where its cable (or
// port) is as slow as the uplink or slower, it sets the time of its routes across the uplink too,
// and its typical delay, the measure of "slow", is already slow; the uplink is hidden there.
Boundaries slow_nodes_at_boundaries(const AnomalyScan& scan, const NodeDelays& d, const std::vector<Anomaly>& out) {
  const auto& t = scan.topo;
  const auto& nodes = t.levels.front();
  const auto first = first_ranks(nodes);
  const double min_ratio = std::exp(scan.min_log);
  std::set<int> found_nodes;
  for (const auto& a : out)
    if (is_node_finding(a, nodes)) found_nodes.insert(nodes.group_of[static_cast<std::size_t>(a.ranks.front())]);
  Boundaries by_group;
  for (std::size_t f = 0; f < out.size(); ++f) {
    if (!is_node_finding(out[f], nodes)) continue;
    const int node = nodes.group_of[static_cast<std::size_t>(out[f].ranks.front())];
    const auto lengths = length_indices(scan.cube, out[f].lengths);
    // The node is slow (its finding says so); the partners it is slow with are those beyond
    // boundary_share of its own slowdown (log) where that is under --min-ratio: a node found at
    // 1.5x, at the line, is not 1.5x with every partner of its slow side under noise.
    const double cut = std::min(min_ratio, std::exp(kTuning.boundary_share * std::log(out[f].score)));
    for (const bool in : {true, false}) {
      Side s{f, node, d.slow(node, in, lengths, cut), in};
      const std::size_t l = boundary_level(t, first, node, s.slow, found_nodes);
      if (l == 0) continue;
      const int g = t.levels[l].group_of[static_cast<std::size_t>(first[static_cast<std::size_t>(node)])];
      by_group[{l, g, in}].push_back(std::move(s));
      break;
    }
  }
  return by_group;
}

void keep_undropped(std::vector<Anomaly>& out, const std::vector<char>& drop, std::vector<Anomaly>& found) {
  std::vector<Anomaly> kept;
  for (std::size_t g = 0; g < out.size(); ++g)
    if (!drop[g]) kept.push_back(std::move(out[g]));
  kept.insert(kept.end(), std::make_move_iterator(found.begin()), std::make_move_iterator(found.end()));
  out = std::move(kept);
}

// The node groups (indices) of group `group` of level `level`.
std::set<int> group_nodes(const Topology& t, std::size_t level, int group) {
  std::set<int> in;
  const auto& nodes = t.levels.front();
  for (std::size_t n = 0; n < nodes.groups.size(); ++n)
    if (t.levels[level].group_of[static_cast<std::size_t>(nodes.groups[n].front())] == group) in.insert(static_cast<int>(n));
  return in;
}

// The far ends of partial uplinks: an uplink that carries the routes into its group toward a few
// of its nodes carries those from its group toward the nodes at the same positions elsewhere too
// (d-mod-k), so those nodes receive slowly from every node of the group (of each such group) and
// from no other: slow nodes to the rank effects. A slow cable would be slow with the node's switch
// mates too. A slow_node finding of a node with mates, none of them among those it is slow with,
// that is slow with exactly the nodes of some groups of the uplinks found (uplink_groups[u]: the
// nodes of found[u]'s group), is those uplinks' routes: its pairs go to their findings, it is
// dropped (drop).
void fold_far_ends(const AnomalyScan& scan, const NodeDelays& d, const std::vector<std::set<int>>& uplink_groups,
                   const std::vector<Anomaly>& out, std::vector<char>& drop, std::vector<Anomaly>& found) {
  if (uplink_groups.empty() || scan.topo.levels.size() < 2) return;
  const auto& nodes = scan.topo.levels.front();
  const auto& switches = scan.topo.levels[1];
  const double min_ratio = std::exp(scan.min_log);
  const auto switch_of = [&](int n) { return switches.group_of[static_cast<std::size_t>(nodes.groups[static_cast<std::size_t>(n)].front())]; };
  std::vector<std::size_t> folded(found.size(), 0);
  std::set<int> all_groups;
  for (const auto& g : uplink_groups) all_groups.insert(g.begin(), g.end());
  for (std::size_t f = 0; f < out.size(); ++f) {
    if (drop[f] || !is_node_finding(out[f], nodes)) continue;
    const int node = nodes.group_of[static_cast<std::size_t>(out[f].ranks.front())];
    std::size_t mates = 0;
    for (std::size_t n = 0; n < nodes.groups.size(); ++n) mates += switch_of(static_cast<int>(n)) == switch_of(node);
    if (mates < 2) continue;
    const auto lengths = length_indices(scan.cube, out[f].lengths);
    for (const bool in : {true, false}) {
      const auto slow = d.slow(node, in, lengths, min_ratio);
      if (slow.empty() || std::any_of(slow.begin(), slow.end(), [&](int n) { return switch_of(n) == switch_of(node); }))
        continue;
      std::set<int> covered;
      std::vector<std::size_t> by;
      for (std::size_t u = 0; u < uplink_groups.size(); ++u)
        if (!uplink_groups[u].count(node) &&
            std::includes(slow.begin(), slow.end(), uplink_groups[u].begin(), uplink_groups[u].end())) {
          covered.insert(uplink_groups[u].begin(), uplink_groups[u].end());
          by.push_back(u);
        }
      // A far end is slow on the routes across the uplinks only, both ways (its sends to the near
      // ends cross them too): a node slow toward others as well has a fault of its own (its cable
      // sends slowly), kept.
      const auto back = d.slow(node, !in, lengths, min_ratio);
      if (covered != slow ||
          !std::all_of(back.begin(), back.end(), [&](int n) { return all_groups.count(n) != 0; }))
        continue;
      for (std::size_t u : by) {
        for (int x : uplink_groups[u])
          for (int a : nodes.groups[static_cast<std::size_t>(x)])
            for (int b : out[f].ranks) found[u].pairs.emplace_back(in ? a : b, in ? b : a);
        ++folded[u];
      }
      drop[f] = 1;
      break;
    }
  }
  for (std::size_t u = 0; u < found.size(); ++u)
    if (folded[u] > 0)
      found[u].detail += fmt::format("; the routes of its group to (from) {} nodes at the same positions elsewhere "
                                     "cross it too (their slow_node findings folded in)",
                                     folded[u]);
}

}  // namespace

void partial_uplinks(const AnomalyScan& scan, const NodeDelays& d, std::vector<Anomaly>& out) {
  if (scan.topo.levels.size() < 2) return;
  const auto& nodes = scan.topo.levels.front();
  const auto first = first_ranks(nodes);
  const double min_ratio = std::exp(scan.min_log);
  std::vector<char> drop(out.size(), 0);
  std::vector<Anomaly> found;
  std::vector<std::set<int>> uplink_groups;  // the nodes of each found[] finding's group
  for (const auto& [key, members] : slow_nodes_at_boundaries(scan, d, out)) {
    const auto& [level, group, in] = key;
    std::size_t inside = 0;
    for (int r : first) inside += scan.topo.levels[level].group_of[static_cast<std::size_t>(r)] == group;
    std::vector<double> scores;
    for (const auto& m : members) scores.push_back(out[m.finding].score);
    // Every node of the group slow: the group's own uplink or switch (a slow_switch's), not a part.
    if (members.size() < 2 || members.size() >= inside || !alike(scores)) continue;
    Anomaly link = uplink_finding(scan, level, group, members, out);
    std::vector<Side> ends;
    for (const auto& m : members) {
      drop[m.finding] = 1;
      const auto lengths = length_indices(scan.cube, out[m.finding].lengths);
      ends.push_back(m);
      ends.push_back(Side{m.finding, m.node, d.slow(m.node, !m.in, lengths, min_ratio), !m.in});
    }
    fold_routes(scan, d, ends, out, drop, link);
    found.push_back(std::move(link));
    uplink_groups.push_back(group_nodes(scan.topo, level, group));
  }
  fold_far_ends(scan, d, uplink_groups, out, drop, found);
  keep_undropped(out, drop, found);
}

Anomaly one_way_block_finding(const AnomalyScan& scan, std::vector<std::pair<int, int>> pairs,
                              std::vector<std::int64_t> lengths, double score, const std::set<int>& S,
                              const std::set<int>& R) {
  const auto& nodes = scan.topo.levels.front();
  Anomaly f;
  f.kind = AnomalyKind::asymmetric_pair;
  f.pairs = std::move(pairs);
  f.lengths = std::move(lengths);
  f.score = score;
  // The nodes the block's pairs concentrate on: those in more than half as many of its node pairs as
  // the most (of a complete block, a node of S is in |R| of them and one of R in |S|: the smaller
  // side, or both).
  std::set<std::pair<int, int>> node_pairs;
  for (const auto& [i, j] : f.pairs)
    node_pairs.emplace(nodes.group_of[static_cast<std::size_t>(i)], nodes.group_of[static_cast<std::size_t>(j)]);
  std::map<int, std::size_t> in_pairs;
  for (const auto& [a, b] : node_pairs) {
    ++in_pairs[a];
    ++in_pairs[b];
  }
  std::size_t top = 0;
  for (const auto& [n, count] : in_pairs) top = std::max(top, count);
  std::vector<int> named;
  for (const auto& [n, count] : in_pairs)
    if (2 * count > top) named.push_back(n);
  set_node_ranks(nodes, named, scan.hosts, f);
  const std::string word = scan.topo.node_level_identified ? "node groups" : "groups";
  const bool complete = node_pairs.size() == S.size() * R.size();
  f.detail = fmt::format(
      "one-way slow link: {6} from {0} {1} to {0} {2} {7} slow one way ({3:.2f}x, {4} rank pairs), none back: "
      "one direction of a link that every route from the first set to the second crosses (a global link of a "
      "dragonfly, a link of a torus); named by {0} {5}, those in more than half as many of its pairs as the most "
      "(the smaller side, where its routes converge, or both sides)",
      word, fmt::join(S, ","), fmt::join(R, ","), f.score, f.pairs.size(), fmt::join(named, ","),
      complete ? std::string("every pair") : fmt::format("{} of the {} node pairs", node_pairs.size(), S.size() * R.size()),
      complete ? "is" : "are");
  return f;
}

namespace {

// The one-way findings of one ordered pair of node groups each: (finding, sender node, receiver node).
std::vector<std::tuple<std::size_t, int, int>> one_way_node_pairs(const std::vector<Anomaly>& out, const Level& nodes) {
  std::vector<std::tuple<std::size_t, int, int>> found;
  const auto node = [&](int r) { return nodes.group_of[static_cast<std::size_t>(r)]; };
  for (std::size_t f = 0; f < out.size(); ++f) {
    const auto& a = out[f];
    if (a.kind != AnomalyKind::asymmetric_pair || a.pairs.empty()) continue;
    const int s = node(a.pairs.front().first), r = node(a.pairs.front().second);
    if (std::all_of(a.pairs.begin(), a.pairs.end(), [&](const auto& p) { return node(p.first) == s && node(p.second) == r; }))
      found.emplace_back(f, s, r);
  }
  return found;
}

Anomaly block_of_one_way_pairs(const AnomalyScan& scan, const std::vector<std::size_t>& members,
                               const std::set<int>& S, const std::set<int>& R, const std::vector<Anomaly>& out) {
  std::vector<std::pair<int, int>> pairs;
  std::set<std::int64_t> lens;
  std::vector<double> scores;
  for (std::size_t m : members) {
    pairs.insert(pairs.end(), out[m].pairs.begin(), out[m].pairs.end());
    lens.insert(out[m].lengths.begin(), out[m].lengths.end());
    scores.push_back(out[m].score);
  }
  return one_way_block_finding(scan, std::move(pairs), {lens.begin(), lens.end()}, finite_median(scores), S, R);
}

// The time a one-way finding's slow direction takes beyond the other direction, per length: the
// median over its rank pairs (NaN where it does not show, or no pair is finite). A slow link adds
// the same time to every route across it, whatever the route's length.
std::vector<double> added_time(const Cube& c, const Anomaly& a) {
  std::vector<double> out(c.count(), kNaN);
  for (std::size_t k = 0; k < c.count(); ++k) {
    if (std::find(a.lengths.begin(), a.lengths.end(), c.lengths[k]) == a.lengths.end()) continue;
    std::vector<double> d;
    for (const auto& [i, j] : a.pairs) {
      float fwd = kNaN, rev = kNaN;
      c.block(k, i, i + 1, j, j + 1, &fwd);
      c.block(k, j, j + 1, i, i + 1, &rev);
      if (std::isfinite(fwd) && std::isfinite(rev)) d.push_back(static_cast<double>(fwd) - static_cast<double>(rev));
    }
    out[k] = finite_median(d);
  }
  return out;
}

// The one-way node pairs (indices into `pairs`) of one bottleneck: by_time, their added times
// alike; else those whose added time could not be read, left to be judged by their ratios.
struct Bottleneck {
  std::vector<std::size_t> members;
  bool by_time = true;
};

// The one-way node pairs grouped by bottleneck: the one that adds most time first, with every pair
// whose added time is alike to the median of those alike to its own; what is left, the next. Two links slowed by different
// amounts are two bottlenecks even where their node pairs share nodes (two links of one torus ring).
std::vector<Bottleneck> bottlenecks(const AnomalyScan& scan, const std::vector<Anomaly>& out,
                                    const std::vector<std::tuple<std::size_t, int, int>>& pairs) {
  // Added times are read cell by cell: a bound on the cells keeps a streamed file's reads few.
  std::size_t cells = 0;
  for (const auto& p : pairs) cells += out[std::get<0>(p)].pairs.size();
  std::vector<std::vector<double>> time;
  if (cells <= kTuning.one_way_time_cells)
    for (const auto& p : pairs) time.push_back(added_time(scan.cube, out[std::get<0>(p)]));
  const auto largest = [](const std::vector<double>& t) {
    double m = kNaN;
    for (double x : t)
      if (std::isfinite(x) && !(x <= m)) m = x;
    return m;
  };
  std::vector<std::size_t> order, unread;
  for (std::size_t i = 0; i < pairs.size(); ++i)
    (!time.empty() && std::isfinite(largest(time[i])) ? order : unread).push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return largest(time[a]) > largest(time[b]); });
  std::vector<Bottleneck> out_groups;
  std::vector<char> taken(pairs.size(), 0);
  // Those alike to `profile` among the pairs not taken yet.
  const auto alike_to = [&](const std::vector<double>& profile) {
    std::vector<std::size_t> m;
    for (std::size_t i : order)
      if (!taken[i] && alike_times(profile, time[i])) m.push_back(i);
    return m;
  };
  for (std::size_t seed : order) {
    if (taken[seed]) continue;
    // The seed may be the noisiest of its bottleneck: the group is those alike to the median of
    // the pairs alike to the seed (the seed alone where none is).
    const auto first = alike_to(time[seed]);
    std::vector<double> median(time[seed].size(), kNaN);
    for (std::size_t k = 0; k < median.size(); ++k) {
      std::vector<double> x;
      for (std::size_t i : first) x.push_back(time[i][k]);
      median[k] = finite_median(x);
    }
    Bottleneck b{alike_to(median), true};
    if (b.members.empty()) b.members = {seed};
    for (std::size_t i : b.members) taken[i] = 1;
    out_groups.push_back(std::move(b));
  }
  if (!unread.empty()) out_groups.push_back(Bottleneck{unread, false});
  return out_groups;
}

// The components of the graph whose edges are the node pairs `members` (indices into `pairs`).
std::vector<std::vector<std::size_t>> node_components(const std::vector<std::tuple<std::size_t, int, int>>& pairs,
                                                      const Bottleneck& b) {
  std::map<int, int> parent;
  const auto root = [&](int x) {
    while (parent.count(x) && parent[x] != x) x = parent[x];
    return x;
  };
  for (std::size_t i : b.members) {
    const int s = std::get<1>(pairs[i]), r = std::get<2>(pairs[i]);
    parent.emplace(s, s);
    parent.emplace(r, r);
    parent[root(s)] = root(r);
  }
  std::map<int, std::vector<std::size_t>> component;
  for (std::size_t i : b.members) component[root(std::get<1>(pairs[i]))].push_back(i);
  std::vector<std::vector<std::size_t>> out;
  for (auto& [unused, idx] : component) out.push_back(std::move(idx));
  return out;
}

// Whether the senders and the receivers of the node pairs `idx` (indices into `pairs`) are apart.
bool sides_apart(const std::vector<std::tuple<std::size_t, int, int>>& pairs, const std::vector<std::size_t>& idx) {
  std::set<int> S, R;
  for (std::size_t i : idx) {
    S.insert(std::get<1>(pairs[i]));
    R.insert(std::get<2>(pairs[i]));
  }
  return std::none_of(S.begin(), S.end(), [&](int n) { return R.count(n) != 0; });
}

// The node pairs `idx` (indices into `pairs`) split by sender: the senders with the same set of
// receivers together, with their pairs.
std::vector<std::vector<std::size_t>> same_receivers(const std::vector<std::tuple<std::size_t, int, int>>& pairs,
                                                     const std::vector<std::size_t>& idx) {
  std::map<int, std::set<int>> receivers;
  for (std::size_t i : idx) receivers[std::get<1>(pairs[i])].insert(std::get<2>(pairs[i]));
  std::map<std::set<int>, std::vector<std::size_t>> by_set;
  for (std::size_t i : idx) by_set[receivers[std::get<1>(pairs[i])]].push_back(i);
  std::vector<std::vector<std::size_t>> out;
  for (auto& [unused, sub] : by_set) out.push_back(std::move(sub));
  return out;
}

}  // namespace

void one_way_blocks(const AnomalyScan& scan, double cut, std::vector<Anomaly>& out) {
  if (scan.topo.levels.empty()) return;
  const auto& nodes = scan.topo.levels.front();
  const auto pairs = one_way_node_pairs(out, nodes);
  std::vector<char> drop(out.size(), 0);
  std::vector<Anomaly> found;
  // A block of one bottleneck: its findings joined into one (into found), or left as they are.
  const auto take = [&](const std::vector<std::size_t>& idx, bool by_time) {
    std::set<int> S, R;
    std::set<std::pair<int, int>> node_pairs;
    std::vector<std::size_t> members;
    std::vector<double> scores;
    for (std::size_t i : idx) {
      const auto& [f, s, r] = pairs[i];
      S.insert(s);
      R.insert(r);
      node_pairs.emplace(s, r);
      members.push_back(f);
      scores.push_back(out[f].score);
    }
    // Two nodes or more on each side, or one node and block_one_node or more (all of one node's slow
    // pairs to or from part of the others).
    const bool sized = std::min(S.size(), R.size()) >= 2 || std::max(S.size(), R.size()) >= kTuning.block_one_node;
    // Pairs of one bottleneck (their added times alike) need not fill S x R: a torus link carries
    // the routes of the nodes behind its sending end toward part of the far side only. Pairs alike
    // by their ratios alone (no added time to compare) must: a ratio does not tell two links apart.
    const bool filled = by_time ? 2 * node_pairs.size() >= S.size() * R.size()
                                : node_pairs.size() == S.size() * R.size() && alike(scores);
    if (!sized || !filled || members.size() != node_pairs.size()) return;
    for (std::size_t m : members) drop[m] = 1;
    found.push_back(block_of_one_way_pairs(scan, members, S, R, out));
  };
  for (const auto& bottleneck : bottlenecks(scan, out, pairs))
    for (const auto& idx : node_components(pairs, bottleneck)) {
      if (sides_apart(pairs, idx)) {
        take(idx, bottleneck.by_time);
        continue;
      }
      // Nodes that send and receive in one component: two links alike in a chain (a dragonfly's
      // global links from group A to B and from B to C, slowed alike). Each set of senders with the
      // same receivers is a block of its own, complete.
      if (bottleneck.by_time)
        for (const auto& sub : same_receivers(pairs, idx)) take(sub, true);
    }
  // The pairs no bottleneck took (their added times too noisy to group) among those listed (scored
  // `cut` or more: the weaker ones join the strong into components that are no block): complete
  // blocks, alike by their ratios.
  Bottleneck rest{{}, false};
  for (std::size_t i = 0; i < pairs.size(); ++i)
    if (!drop[std::get<0>(pairs[i])] && out[std::get<0>(pairs[i])].score >= cut) rest.members.push_back(i);
  for (const auto& idx : node_components(pairs, rest))
    if (sides_apart(pairs, idx)) take(idx, false);
  keep_undropped(out, drop, found);
}

void cap_one_way_pairs(const Topology& t, std::size_t max_links, double cut, std::vector<Anomaly>& out) {
  if (t.levels.empty()) return;
  const auto singles = one_way_node_pairs(out, t.levels.front());
  std::vector<std::size_t> order;
  for (const auto& p : singles) order.push_back(std::get<0>(p));
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return out[a].score > out[b].score; });
  std::vector<char> drop(out.size(), 0);
  for (std::size_t s = 0; s < order.size(); ++s)
    if (s >= max_links || out[order[s]].score < cut) drop[order[s]] = 1;
  std::vector<Anomaly> none;
  keep_undropped(out, drop, none);
}

}  // namespace nt::analysis::anomaly_parts
