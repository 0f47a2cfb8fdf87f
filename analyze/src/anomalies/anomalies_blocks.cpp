// Slow links between two sets of nodes (a dragonfly's global link, a trunk between two
// switches of no common tree level): every pair between a node of one set and a node of the other
// crosses the slow link, no other pair of theirs does. The residuals of the rank-effect model show
// part of such a block only (where a block fills a third of a row, the median polish gives the
// rows and columns part of it as rank effects), as many slow links between single nodes: the
// hits are the seeds, and the block is read from the delays themselves. One direction of such a
// link (a dragonfly's global link slow one way) the same way, from the one-way hits and
// the delays each node sends and receives apart: one asymmetric_pair.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "nt/stats.hpp"
#include "nt/analysis/tuning.hpp"

namespace nt::analysis::anomaly_parts {
namespace {

constexpr int kSideS = 0, kSideT = 1, kRest = 2;
constexpr std::size_t kMaxCells = std::size_t{16} << 20;  // kept per length: 128 MB

// The node groups of a component of the hits' graph, split in its two sides (the graph is
// bipartite: every hit joins the sides), each side of two nodes or more.
struct Block {
  std::vector<int> side[2];
};

// The side of every node group in a block (kSideS, kSideT; kRest for the groups outside it).
std::vector<int> sides_of(const Block& b, std::size_t n_nodes) {
  std::vector<int> side(n_nodes, kRest);
  for (int s : {kSideS, kSideT})
    for (int n : b.side[s]) side[static_cast<std::size_t>(n)] = s;
  return side;
}

// Whether two node groups or more are left outside the seeds: the rest their sides are compared with.
bool leaves_a_rest(const Block& seeds, std::size_t n_nodes) {
  return seeds.side[0].size() + seeds.side[1].size() + 2 <= n_nodes;
}

std::vector<Block> bipartite_components(const std::vector<LinkHit>& hits, const std::vector<int>& node_of) {
  std::map<int, std::set<int>> adj;
  for (const auto& h : hits) {
    const int a = node_of[static_cast<std::size_t>(h.i)], b = node_of[static_cast<std::size_t>(h.j)];
    if (a == b) continue;
    adj[a].insert(b);
    adj[b].insert(a);
  }
  std::map<int, int> colour;
  std::vector<Block> out;
  for (const auto& [start, unused] : adj) {
    if (colour.count(start)) continue;
    Block b;
    bool bipartite = true;
    std::vector<int> todo{start};
    colour[start] = 0;
    while (!todo.empty()) {
      const int x = todo.back();
      todo.pop_back();
      b.side[colour[x]].push_back(x);
      for (int y : adj[x]) {
        if (!colour.count(y)) {
          colour[y] = 1 - colour[x];
          todo.push_back(y);
        } else if (colour[y] == colour[x]) {
          bipartite = false;
        }
      }
    }
    if (bipartite && b.side[0].size() >= 2 && b.side[1].size() >= 2) out.push_back(std::move(b));
  }
  return out;
}

// Per length, per node group: the median log delay of its cells to the seeds' side S and to side T
// (not its own node). Both directions pooled, [k][node * 2 + side]; `directed`, the cells it sends
// and those it receives apart, [k][node * 4 + side] sent to that side, [k][node * 4 + 2 + side]
// received from it.
std::vector<std::vector<double>> side_medians(const Cube& c, const std::vector<int>& node_of, std::size_t n_nodes,
                                              const std::vector<int>& side_of_node, bool directed = false) {
  const auto N = static_cast<std::size_t>(c.P);
  const int rows = rows_per_block(c.P, N * sizeof(float));
  const std::size_t slots = directed ? 4 : 2, recv = directed ? 2 : 0;
  // The cells to either side, two per pair: at most kMaxCells kept, every stride-th of them by
  // (i + j) (a block of half of 10,000 ranks would otherwise keep 10^8 of them).
  std::size_t side_ranks = 0;
  for (std::size_t r = 0; r < N; ++r) side_ranks += side_of_node[static_cast<std::size_t>(node_of[r])] != kRest;
  const std::size_t stride = std::max<std::size_t>(1, (2 * N * side_ranks + kMaxCells - 1) / kMaxCells);
  std::vector<std::vector<double>> med(c.count(), std::vector<double>(slots * n_nodes, kNaN));
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    auto samples = population_samples(slots * n_nodes, [&](auto&& take) {
      for (int r0 = 0; r0 < c.P; r0 += rows) {
        const int r1 = std::min(c.P, r0 + rows);
        const float* v = c.rows(k, r0, r1, buf);
        for (auto i = static_cast<std::size_t>(r0); i < static_cast<std::size_t>(r1); ++i)
          for (std::size_t j = 0; j < N; ++j) {
            if ((i + j) % stride != 0) continue;
            const float d = v[(i - static_cast<std::size_t>(r0)) * N + j];
            const auto a = static_cast<std::size_t>(node_of[i]), b = static_cast<std::size_t>(node_of[j]);
            if (a == b || !Cube::usable(d)) continue;
            const double x = std::log(static_cast<double>(d));
            if (side_of_node[b] != kRest) take(a * slots + static_cast<std::size_t>(side_of_node[b]), x);
            if (side_of_node[a] != kRest) take(b * slots + recv + static_cast<std::size_t>(side_of_node[a]), x);
          }
      }
    });
    for (std::size_t q = 0; q < samples.size(); ++q)
      if (!samples[q].empty()) med[k][q] = population_median(samples[q]);
  }
  return med;
}

// Per length and slot (side, or direction and side), the typical node's median log delay: the
// median over the nodes of neither side (the reference a member of the block is slower than).
std::vector<std::vector<double>> references(const std::vector<std::vector<double>>& med,
                                            const std::vector<int>& side_of_node) {
  const std::size_t slots = med.empty() ? 0 : med.front().size() / side_of_node.size();
  std::vector<std::vector<double>> ref(med.size(), std::vector<double>(slots, kNaN));
  std::vector<double> tmp;
  for (std::size_t k = 0; k < med.size(); ++k)
    for (std::size_t s = 0; s < slots; ++s) {
      tmp.clear();
      for (std::size_t n = 0; n < side_of_node.size(); ++n)
        if (side_of_node[n] == kRest && std::isfinite(med[k][n * slots + s])) tmp.push_back(med[k][n * slots + s]);
      if (!tmp.empty()) ref[k][s] = median_inplace(tmp);
    }
  return ref;
}

// Whether a slow delay `there` is the block's beside `other`, the node's delay of the same kind off
// the block: `other` not slow, or (a node slow on its own, whose cable also sets its time) `there`
// slower by block_margin of the slow line. A node slow alike to all is slow on its own only.
bool beyond_own(double there, double other, const AnomalyScan& scan) {
  return !std::isfinite(other) || other < scan.min_log || there - other >= kTuning.block_margin * scan.min_log;
}

// Whether a node's delays to the side `to` are beyond min_ratio over the typical node's at enough
// lengths, and beyond its delays to the other side at every length (beyond_own); its ratios at those
// lengths added to `ratios` when it is.
bool slow_to_side(const std::vector<std::vector<double>>& med, const std::vector<std::vector<double>>& ref,
                  std::size_t node, int to, const AnomalyScan& scan, std::vector<double>& ratios) {
  std::vector<double> mine;
  const auto t = static_cast<std::size_t>(to), o = static_cast<std::size_t>(1 - to);
  for (std::size_t k = 0; k < med.size(); ++k) {
    const double there = med[k][node * 2 + t] - ref[k][t], other = med[k][node * 2 + o] - ref[k][o];
    if (!std::isfinite(there)) continue;
    if (!beyond_own(there, other, scan)) return false;
    if (there >= scan.min_log) mine.push_back(std::exp(there));
  }
  if (mine.size() < scan.need) return false;
  ratios.insert(ratios.end(), mine.begin(), mine.end());
  return true;
}

// The seeds of one-way blocks: the one-way hits between nodes that only send in them and nodes
// that only receive (a node that does both, as a stray pair of the noise makes it, is left to the
// delays' read), in components of two nodes or more on each side, complete (a hit from every
// sending node to every receiving node): an incomplete one stays pairs. Senders first.
std::vector<Block> one_way_components(const std::vector<LinkHit>& hits, const std::vector<int>& node_of) {
  std::map<int, int> sends, receives;
  for (const auto& h : hits) {
    ++sends[node_of[static_cast<std::size_t>(h.i)]];
    ++receives[node_of[static_cast<std::size_t>(h.j)]];
  }
  std::vector<LinkHit> pure;
  for (const auto& h : hits)
    if (!receives.count(node_of[static_cast<std::size_t>(h.i)]) &&
        !sends.count(node_of[static_cast<std::size_t>(h.j)]))
      pure.push_back(h);
  std::vector<Block> out;
  for (Block b : bipartite_components(pure, node_of)) {
    if (!sends.count(b.side[0].front())) std::swap(b.side[0], b.side[1]);
    const std::set<int> first(b.side[0].begin(), b.side[0].end());
    std::set<std::pair<int, int>> node_pairs;
    for (const auto& h : pure)
      if (first.count(node_of[static_cast<std::size_t>(h.i)]))
        node_pairs.emplace(node_of[static_cast<std::size_t>(h.i)], node_of[static_cast<std::size_t>(h.j)]);
    if (node_pairs.size() == b.side[0].size() * b.side[1].size()) out.push_back(std::move(b));
  }
  return out;
}

// One bottleneck: the time a hit's slow direction takes beyond its other direction, at each of its
// lengths, over the median of the seeds' hits at that length (the median over its lengths). A slow
// link adds the same time to every route across it, whatever the route's length (its ratio is not
// alike: a longer route hides more of it); a pair slowed by another cause adds another time.
std::vector<double> relative_excess(const Cube& c, const std::vector<const LinkHit*>& seeds) {
  const auto N = static_cast<std::size_t>(c.P);
  const int rows = rows_per_block(c.P, N * sizeof(float));
  std::vector<std::vector<double>> rel(seeds.size());
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    std::vector<double> fwd(seeds.size(), kNaN), rev(seeds.size(), kNaN), excess;
    for (int r0 = 0; r0 < c.P; r0 += rows) {
      const int r1 = std::min(c.P, r0 + rows);
      const float* v = c.rows(k, r0, r1, buf);
      const auto cell = [&](int i, int j) {
        return static_cast<double>(v[static_cast<std::size_t>(i - r0) * N + static_cast<std::size_t>(j)]);
      };
      for (std::size_t h = 0; h < seeds.size(); ++h) {
        if (seeds[h]->i >= r0 && seeds[h]->i < r1) fwd[h] = cell(seeds[h]->i, seeds[h]->j);
        if (seeds[h]->j >= r0 && seeds[h]->j < r1) rev[h] = cell(seeds[h]->j, seeds[h]->i);
      }
    }
    const auto shows = [&](std::size_t h) {
      const auto& l = seeds[h]->lengths;
      return std::find(l.begin(), l.end(), c.lengths[k]) != l.end() && std::isfinite(fwd[h] - rev[h]);
    };
    for (std::size_t h = 0; h < seeds.size(); ++h)
      if (shows(h)) excess.push_back(fwd[h] - rev[h]);
    if (excess.empty()) continue;
    const double typical = median_inplace(excess);
    for (std::size_t h = 0; h < seeds.size(); ++h)
      if (shows(h) && typical > 0) rel[h].push_back((fwd[h] - rev[h]) / typical);
  }
  std::vector<double> out;
  for (auto& r : rel) out.push_back(r.empty() ? kNaN : median_inplace(r));
  return out;
}

// Whether a node is a sender (role 0) or a receiver (role 1) of a one-way block from side S to side
// T, read from the directed medians: its delays to T (receiver: from S) beyond min_ratio over the
// typical node's at enough lengths, and at none of the lengths its delays the other way (from T; to
// S) nor those of the same direction with its own side (a slow sender or receiver is slow with
// everyone) unless its slow direction is beyond them (beyond_own). Its ratios at those lengths added
// to `ratios` when it is.
bool one_way_member(const std::vector<std::vector<double>>& med, const std::vector<std::vector<double>>& ref,
                    std::size_t node, int role, const AnomalyScan& scan, std::vector<double>& ratios) {
  const auto r = static_cast<std::size_t>(role);
  const std::size_t slow = 2 * r + (1 - r), back = 2 * (1 - r) + (1 - r), own = 3 * r;
  std::vector<double> mine;
  for (std::size_t k = 0; k < med.size(); ++k) {
    const auto ratio = [&](std::size_t s) { return med[k][node * 4 + s] - ref[k][s]; };
    for (const std::size_t s : {back, own})
      if (!beyond_own(ratio(slow), ratio(s), scan)) return false;
    if (std::isfinite(ratio(slow)) && ratio(slow) >= scan.min_log) mine.push_back(std::exp(ratio(slow)));
  }
  if (mine.size() < scan.need) return false;
  ratios.insert(ratios.end(), mine.begin(), mine.end());
  return true;
}

// The finest level above the nodes at which the node groups `side` are exactly one group: (level,
// group); (0, -1) where none is.
std::pair<std::size_t, int> group_of_side(const Topology& t, const std::vector<int>& side) {
  const auto& nodes = t.levels.front();
  const auto rank_of = [&](std::size_t n) { return static_cast<std::size_t>(nodes.groups[n].front()); };
  for (std::size_t l = 1; l < t.levels.size(); ++l) {
    const auto& g = t.levels[l].group_of;
    const int mine = g[rank_of(static_cast<std::size_t>(side.front()))];
    std::size_t members = 0;
    for (std::size_t n = 0; n < nodes.groups.size(); ++n) members += g[rank_of(n)] == mine;
    const bool inside = std::all_of(side.begin(), side.end(),
                                    [&](int n) { return g[rank_of(static_cast<std::size_t>(n))] == mine; });
    if (inside && members == side.size()) return {l, mine};
  }
  return {0, -1};
}

// A block one side of which is a whole switch group and the other not is that group's uplink, the
// one the routes between the two sides take: the finding is the group's (its ranks; the pairs stay
// the block's). Both sides whole groups: the link between the two.
void name_uplink(const Block& b, const AnomalyScan& scan, Anomaly& f) {
  const auto s0 = group_of_side(scan.topo, b.side[0]), s1 = group_of_side(scan.topo, b.side[1]);
  if ((s0.first > 0) == (s1.first > 0)) return;
  const int own = s0.first > 0 ? 0 : 1;
  const auto [level, group] = s0.first > 0 ? s0 : s1;
  set_node_ranks(scan.topo.levels.front(), b.side[static_cast<std::size_t>(own)], scan.hosts, f);
  const std::string word = scan.topo.node_level_identified ? "node groups" : "groups";
  f.detail = fmt::format(
      "slow uplink of {} group {}, part of its routes, both directions: every pair between its {} {} and {} {} outside "
      "it is slow ({:.2f}x the other nodes' delays to that set, median), no other pair of theirs: one of the group's "
      "uplinks, the one the routes between them take (a switch with several uplinks sends each destination's routes "
      "over one)",
      scan.topo.levels[level].name, group, word, fmt::join(b.side[static_cast<std::size_t>(own)], ","), word,
      fmt::join(b.side[static_cast<std::size_t>(1 - own)], ","), f.score);
}

Anomaly block_finding(const Block& b, const std::vector<const LinkHit*>& inside, const std::vector<double>& ratios,
                      const AnomalyScan& scan) {
  const auto& nodes = scan.topo.levels.front();
  Anomaly f;
  f.kind = AnomalyKind::slow_link;
  std::set<std::int64_t> lens;
  for (const auto* h : inside) {
    f.pairs.emplace_back(h->i, h->j);
    lens.insert(h->lengths.begin(), h->lengths.end());
  }
  std::vector<int> both = b.side[0];
  both.insert(both.end(), b.side[1].begin(), b.side[1].end());
  set_node_ranks(nodes, both, scan.hosts, f);
  f.lengths.assign(lens.begin(), lens.end());
  f.score = finite_median(ratios);
  const std::string word = scan.topo.node_level_identified ? "node groups" : "groups";
  f.detail = fmt::format(
      "slow links between two sets of {}, both directions: every pair between {} {} and {} {} is slow ({:.2f}x the "
      "other nodes' delays to that set, median), no other pair of theirs: one link or switch that every route between the two sets "
      "crosses (a global link of a dragonfly, a trunk between switches)",
      word, word, fmt::join(b.side[0], ","), word, fmt::join(b.side[1], ","), f.score);
  name_uplink(b, scan, f);
  return f;
}

// A component of the hits' graph as the seeders grow it into a block: its sides, and the node level.
struct Seeds {
  const Block& block;
  const std::vector<int>& node_of;  // the node group of every rank
  std::size_t n_nodes;
  std::vector<int> side_of_node;  // sides_of(block)
};

// A block grown from the seeds of slow_blocks: every node slow to one side of the seeds and not to
// the other (the seeds included), both directions; its hits taken out of `hits`.
std::optional<Anomaly> two_way_block(const AnomalyScan& scan, const Seeds& seeds, std::vector<LinkHit>& hits) {
  const auto& node_of = seeds.node_of;
  const std::size_t n_nodes = seeds.n_nodes;
  const auto med = side_medians(scan.cube, node_of, n_nodes, seeds.side_of_node);
  const auto ref = references(med, seeds.side_of_node);
  Block b;
  std::vector<double> ratios;
  for (std::size_t n = 0; n < n_nodes; ++n)
    for (int s : {kSideS, kSideT})
      if (slow_to_side(med, ref, n, 1 - s, scan, ratios)) b.side[s].push_back(static_cast<int>(n));
  const auto covers = [&](int s) {
    return std::all_of(seeds.block.side[s].begin(), seeds.block.side[s].end(), [&](int n) {
      return std::binary_search(b.side[s].begin(), b.side[s].end(), n);
    });
  };
  if (!covers(kSideS) || !covers(kSideT)) return std::nullopt;
  const auto block_side = sides_of(b, n_nodes);
  const auto in_block = [&](const LinkHit& h) {
    const int a = block_side[static_cast<std::size_t>(node_of[static_cast<std::size_t>(h.i)])],
              c = block_side[static_cast<std::size_t>(node_of[static_cast<std::size_t>(h.j)])];
    return a != kRest && c != kRest && a != c;
  };
  std::vector<const LinkHit*> inside;
  for (const auto& h : hits)
    if (in_block(h)) inside.push_back(&h);
  auto f = block_finding(b, inside, ratios, scan);
  std::erase_if(hits, in_block);
  return f;
}

// A block grown from the seeds of one_way_slow_blocks, when one bottleneck explains them: the nodes
// that send slowly to the seeds' side T and those that receive slowly from side S; its hits taken
// out of `hits`.
std::optional<Anomaly> one_way_block(const AnomalyScan& scan, const Seeds& seeds, std::vector<LinkHit>& hits) {
  const auto& node_of = seeds.node_of;
  const std::size_t n_nodes = seeds.n_nodes;
  const auto side = [&](int rank) {
    return seeds.side_of_node[static_cast<std::size_t>(node_of[static_cast<std::size_t>(rank)])];
  };
  std::vector<const LinkHit*> inside_seeds;
  for (const auto& h : hits)
    if (side(h.i) == kSideS && side(h.j) == kSideT) inside_seeds.push_back(&h);
  const auto excess = relative_excess(scan.cube, inside_seeds);
  const bool finite = std::all_of(excess.begin(), excess.end(), [](double x) { return std::isfinite(x); });
  if (!finite || !alike(excess)) return std::nullopt;  // more than one bottleneck
  const auto med = side_medians(scan.cube, node_of, n_nodes, seeds.side_of_node, true);
  const auto ref = references(med, seeds.side_of_node);
  std::set<int> block[2];
  std::vector<double> ratios;
  for (std::size_t n = 0; n < n_nodes; ++n)
    for (int role : {kSideS, kSideT})
      if (one_way_member(med, ref, n, role, scan, ratios)) block[role].insert(static_cast<int>(n));
  const auto covers = [&](int s) {
    const auto& seed = seeds.block.side[s];
    return std::all_of(seed.begin(), seed.end(), [&](int n) { return block[s].count(n) != 0; });
  };
  const bool disjoint = std::none_of(block[0].begin(), block[0].end(), [&](int n) { return block[1].count(n); });
  if (!covers(kSideS) || !covers(kSideT) || !disjoint) return std::nullopt;
  const auto in_block = [&](const LinkHit& h) {
    return block[0].count(node_of[static_cast<std::size_t>(h.i)]) != 0 &&
           block[1].count(node_of[static_cast<std::size_t>(h.j)]) != 0;
  };
  std::vector<std::pair<int, int>> pairs;
  std::set<std::int64_t> lens;
  for (const auto& h : hits)
    if (in_block(h)) {
      pairs.emplace_back(h.i, h.j);
      lens.insert(h.lengths.begin(), h.lengths.end());
    }
  auto f = one_way_block_finding(scan, std::move(pairs), {lens.begin(), lens.end()}, finite_median(ratios), block[0],
                                 block[1]);
  std::erase_if(hits, in_block);
  return f;
}

// The seeders' one loop: the components `components` finds in the hits' graph (taken before any
// block takes its hits out), each that leaves a rest of node groups grown by `grow` into a finding
// or none.
template <class Components, class Grow>
std::vector<Anomaly> blocks_of_seeds(const AnomalyScan& scan, std::vector<LinkHit>& hits, Components components,
                                     Grow grow) {
  std::vector<Anomaly> out;
  if (scan.topo.levels.empty()) return out;
  const auto& nodes = scan.topo.levels.front();
  const std::size_t n_nodes = nodes.groups.size();
  for (const Block& block : components(hits, nodes.group_of))
    if (leaves_a_rest(block, n_nodes))
      if (auto f = grow(scan, Seeds{block, nodes.group_of, n_nodes, sides_of(block, n_nodes)}, hits))
        out.push_back(std::move(*f));
  return out;
}

}  // namespace

std::vector<Anomaly> slow_blocks(const AnomalyScan& scan, std::vector<LinkHit>& hits) {
  return blocks_of_seeds(scan, hits, bipartite_components, two_way_block);
}

std::vector<Anomaly> one_way_slow_blocks(const AnomalyScan& scan, std::vector<LinkHit>& hits) {
  return blocks_of_seeds(scan, hits, one_way_components, one_way_block);
}

}  // namespace nt::analysis::anomaly_parts
