// The node-to-node delays that the route rules read (internal to nt_analysis): a slow link of a
// direct network (anomalies_neighbours.cpp), a partial uplink of a switch group and a one-way
// block (anomalies_routes.cpp). Per length, each node's median delay to every node (over the rank
// pairs) and per node the typical delay to it and from it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <set>
#include <utility>
#include <vector>

#include "anomalies_parts.hpp"

namespace nt::analysis::anomaly_parts {

// The node matrices of every length are held: at most this many cells (256 MB), else no pass.
constexpr std::size_t kMaxNodeCells = std::size_t{32} << 20;

class NodeDelays {
 public:
  NodeDelays(const Cube& c, const Level& nodes);
  // Delay from node x to node y at length k; `in` swaps them.
  double at(std::size_t k, int x, int y, bool in = false) const {
    const auto a = static_cast<std::size_t>(in ? y : x), b = static_cast<std::size_t>(in ? x : y);
    return m_[k][a * N_ + b];
  }
  // The nodes node a is slow to (in: slow from) at every one of `lengths`: min_ratio over the
  // typical delay to that node (in: from it).
  std::set<int> slow(int a, bool in, const std::vector<std::size_t>& lengths, double min_ratio) const;

 private:
  std::size_t N_;
  std::vector<std::vector<double>> m_, to_, from_;
};

// The indices of the cube's lengths among `lengths`.
std::vector<std::size_t> length_indices(const Cube& c, const std::vector<std::int64_t>& lengths);

// Whether a finding is a slow_node on exactly one node group.
bool is_node_finding(const Anomaly& a, const Level& nodes);

// A link's end: its slow_node finding (out.size() when it has none), its node and the nodes it is
// slow to (`in`: slow from).
struct Side {
  std::size_t finding;
  int node;
  std::set<int> slow;
  bool in = false;
};

// Whether the pair x -> y of nodes is a route through the end `s`: y on its far side and x is s or
// reaches s before y (s.in: x on its far side and y is s or is reached from s), at the shortest
// length by the faster direction of each pair, and slowed as much as s's own pair (the same
// bottleneck, within 25 %) at length k1.
bool through(const NodeDelays& d, std::size_t k1, const Side& s, int x, int y);

// Folds into `link` the pair findings (asymmetric_pair, slow_link) not dropped whose every pair is
// a route through one of `ends`; marks them in drop and says how many pairs in the detail. Returns
// how many rank pairs it folded.
std::size_t fold_routes(const AnomalyScan& scan, const NodeDelays& d, const std::vector<Side>& ends,
                        std::vector<Anomaly>& out, std::vector<char>& drop, Anomaly& link);

// anomalies_routes.cpp: slow nodes of one switch group G (two or more, not all of its nodes) each
// slow from (or to) every node outside G and none inside, alike: one of G's uplinks carries their
// routes (a partial uplink), one slow_link on their ranks with the pair findings routed through it.
void partial_uplinks(const AnomalyScan& scan, const NodeDelays& d, std::vector<Anomaly>& out);

// The node pairs of a direct network's slow links (anomalies_slopes.cpp, anomalies_latency.cpp).
struct SlowPair {
  int a, b;      // node groups, sender and receiver
  double ratio;  // the log of what sets it apart (its time per byte, its added latency)
};

// Per node, how many of a cluster's pairs it sends and how many it receives.
struct Tally {
  std::vector<std::size_t> sends, recvs;
  Tally(const std::vector<SlowPair>& c, std::size_t n_nodes) : sends(n_nodes, 0), recvs(n_nodes, 0) {
    for (const auto& p : c) {
      ++sends[static_cast<std::size_t>(p.a)];
      ++recvs[static_cast<std::size_t>(p.b)];
    }
  }
};

// The clusters of slow pairs: sorted by ratio, split where the next is further than `gap`.
std::vector<std::vector<SlowPair>> clusters_of(std::vector<SlowPair> slow, double gap);
// A cluster's connected parts (nodes joined by its pairs): the routes of one link meet at its two
// ends, two links slowed alike elsewhere are two parts.
std::vector<std::vector<SlowPair>> connected_parts(const std::vector<SlowPair>& c, std::size_t n_nodes);
// Whether a node sends in the cluster to all other nodes but a few, or receives from them: the
// cluster is the node's (a link's end meets some of the others each way, a small torus's most of
// them, but not all one way).
bool a_nodes_cluster(const std::vector<SlowPair>& c, std::size_t n_nodes);
// The indices of the cube's shortest and longest lengths.
std::pair<std::size_t, std::size_t> shortest_and_longest(const Cube& c);
// Whether every node pair of a finding is among the pairs of the named links.
bool held_by(const Anomaly& a, const Level& nodes, const std::set<std::pair<int, int>>& named);
// Whether the node pairs' delays at the shortest length are no one class: fewer than half of them
// within `floor` of their median (a torus's hops; under one switch every pair is one distance).
bool distances_differ(const NodeDelays& d, std::size_t n_nodes, std::size_t k0, double floor);

}  // namespace nt::analysis::anomaly_parts
