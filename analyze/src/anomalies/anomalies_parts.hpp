// What the detectors of find_anomalies share (internal to nt_analysis). anomalies.cpp runs them in
// order: anomalies_polish.cpp fits the rank-effect model once per length; anomalies_nodes.cpp finds
// slow ranks and nodes from its rank effects; group_faults.cpp and anomalies_switches.cpp slow
// switch groups; anomalies_lone.cpp nodes alone in an upper-level group; anomalies_links.cpp slow
// links and asymmetric pairs from its residuals. anomalies_findings.cpp builds the findings they
// share; anomalies_variance.cpp and duplex.cpp are the two checks on a second file of the run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"

#include "group_faults.hpp"

namespace nt::analysis::anomaly_parts {


// "12.3 sigmas", or what stands for it when the data has no noise (a simulated cluster): a robust
// sigma of 0 makes every z-score infinite or undefined, which is no number to print.
std::string sigmas_text(double z);

// Removes the findings `drop` selects from `found` and returns label(finding) of each, in order: what
// a note says of the findings it moves out of the anomalies (transients.cpp, shared_cores.cpp);
// with `pairs`, appends the moved findings' pairs to it.
template <class Drop, class Label>
std::vector<std::string> take_out(std::vector<Anomaly>& found, const Drop& drop, const Label& label,
                                  std::vector<std::pair<int, int>>* pairs = nullptr) {
  std::vector<std::string> moved;
  std::erase_if(found, [&](const Anomaly& a) {
    if (!drop(a)) return false;
    moved.push_back(label(a));
    if (pairs) pairs->insert(pairs->end(), a.pairs.begin(), a.pairs.end());
    return true;
  });
  return moved;
}

// The host names of `ranks`, sorted and unique (none when the hosts are unknown).
std::vector<std::string> hosts_of(const std::vector<int>& ranks, const std::vector<std::string>& hosts);

// A finding on node groups `ids` (indices into nodes.groups): its ranks, sorted, and their hosts.
void set_node_ranks(const Level& nodes, const std::vector<int>& ids, const std::vector<std::string>& hosts, Anomaly& f);

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
std::vector<Anomaly> merge_links(AnomalyKind kind, const std::vector<LinkHit>& hits, const Topology& t,
                                 const std::vector<std::string>& hosts, std::size_t max_items,
                                 const std::string& what, bool ordered);

// What every detector of find_anomalies reads: the delays, their topology, the hosts and the
// options, with the sizes and thresholds derived from them.
struct AnomalyScan {
  const Cube& cube;
  const Topology& topo;
  const std::vector<std::string>& hosts;
  const AnomalyOptions& opt;
  std::size_t n_ranks;       // cube.P
  std::size_t n_lengths;     // cube.count()
  std::size_t need;          // lengths a finding must show at
  double min_log;            // log(opt.min_ratio)
};

// A residual cell beyond a link threshold, kept by the pass over the lengths.
struct ResidualCell {
  std::uint64_t pair;  // i*P + j; for asymmetry i < j
  std::uint32_t k;
  float forward, reverse;  // residual of (i, j), and of (j, i) for asymmetry
};

// What the one pass over the lengths keeps: per length the rank effects, the spread of the
// residuals and of the direction differences, and the cells beyond the link thresholds (every
// other residual is dropped).
struct PolishedLengths {
  RankEffects effects;
  std::vector<double> residual_median, residual_sigma, direction_sigma;
  // The thresholds the link detectors apply (log ratios: a residual above the median, a direction
  // difference), min_log or mad_factor sigmas: what the sensitivity reports.
  std::vector<double> link_threshold, asym_threshold;
  std::vector<ResidualCell> slow_cells, asym_cells;  // sorted by pair: per pair, its lengths in order
};

// Ranks a link anomaly does not look at: those of slow nodes, lone or not (`explained`: their
// links are the node's evidence: else a spurious asymmetric pair between two slow nodes, or a
// slow host's links to its switch mates), and the pairs that cross the boundary of a
// slow switch group (`slow_group`: its index per rank, -1 outside any: that group's evidence).
struct LinkExclusions {
  std::vector<char> explained;
  std::vector<int> slow_group;
  bool skipped(std::size_t i, std::size_t j) const {
    return explained[i] || explained[j] || crosses_slow_group(slow_group, i, j);
  }
};

// anomalies_polish.cpp: one pass over the lengths, the median polish of each (rank effects), the
// spread of its residuals and of its direction differences, and the cells beyond the link thresholds.
// `slow_group` (per rank, as LinkExclusions::slow_group; empty: none): the pairs that cross a slow
// switch group's boundary are left out of the model (class constants, effects and residuals).
PolishedLengths polish_every_length(const AnomalyScan& scan, const std::vector<int>& slow_group = {});

// anomalies_nodes.cpp: slow nodes and slow ranks from the rank effects: per node group, one
// slow_node when the node as a whole is slow, else one slow_rank per slow rank. The ranks of slow
// nodes are marked in exclusions.explained.
void find_slow_ranks_and_nodes(const AnomalyScan& scan, const RankEffects& effects, std::vector<Anomaly>& out,
                               LinkExclusions& exclusions);

// anomalies_switches.cpp: one slow_switch finding per fault (where_faults_live's); the node
// findings inside one that its effect explains are dropped, and the pairs that cross its boundary
// are marked in exclusions.slow_group.
void add_slow_switches(const AnomalyScan& scan, const std::vector<GroupFault>& faults, std::vector<Anomaly>& out,
                       LinkExclusions& exclusions);

// anomalies_lone.cpp: nodes alone in their upper-level group, compared with the inter-node links of
// the other nodes. Their ranks are marked in exclusions.explained.
void find_slow_lone_nodes(const AnomalyScan& scan, std::vector<Anomaly>& out, LinkExclusions& exclusions);

// anomalies_links.cpp: slow links and asymmetric pairs, from the residuals of the rank-effect model
// (the cells beyond the thresholds, kept by the pass over the lengths). The slow links between two
// sets of nodes (slow_blocks) and their one-way kind (one_way_slow_blocks) go to `blocks`, apart:
// the later passes read a slow_link as the pair of node groups of its first pair. one_way_cut: the
// score of the max_links-th strongest one-way pair (0 when fewer), for cap_one_way_pairs.
void find_slow_and_asymmetric_links(const AnomalyScan& scan, const PolishedLengths& pass,
                                    const LinkExclusions& exclusions, std::vector<Anomaly>& out,
                                    std::vector<Anomaly>& blocks,
                                    double& one_way_cut);

// anomalies_blocks.cpp: the slow links between two sets of nodes (every pair between them slow,
// none of their other pairs), seeded by the slow-link hits between single nodes (both directions)
// that form a bipartite component of two nodes or more on each side, read from the delays; the
// hits inside a block are taken out of `hits`. One slow_link finding per block, with every rank of
// both sets.
std::vector<Anomaly> slow_blocks(const AnomalyScan& scan, std::vector<LinkHit>& hits);

// anomalies_blocks.cpp: the same for one direction (one direction of a dragonfly's global link): the one-way hits (sender -> receiver) whose graph has senders on one side only, two nodes
// or more on each, seed a block read from the delays each node sends and receives apart: every
// node slow sending to the receivers' side and to no other, every node slow receiving from the
// senders' side and from no other. One asymmetric_pair finding per block (one_way_block_finding);
// the hits inside it are taken out of `hits`.
std::vector<Anomaly> one_way_slow_blocks(const AnomalyScan& scan, std::vector<LinkHit>& hits);

// anomalies_neighbours.cpp: two slow nodes each slow to the other and to nodes the other is not
// slow to (a torus link: each end's routes toward the other's side cross it) become one slow_link
// on their ranks; the pair findings of third parties routed through it (slowed as much as its end's
// delay to the receiver, the sender nearer that end than the receiver) are folded into it. Before,
// the slow nodes of a partial uplink (node_delays.hpp, anomalies_routes.cpp).
void slow_links_between_neighbours(const AnomalyScan& scan, std::vector<Anomaly>& out);
// anomalies_slopes.cpp: where no level is above the nodes (a torus), the node pairs whose time per
// byte is alike and above the typical one are one slow link's routes; its ends send and receive the
// most of them. The pair findings on those routes are taken into it.
void slope_links(const AnomalyScan& scan, std::vector<Anomaly>& out);
// anomalies_latency.cpp: where no level is above the nodes, the node pairs slower than their
// fastest detour through a third node by min_ratio, alike in the time they add, are one link's
// routes (a link slow in latency only); its ends are the nodes on every one of them.
void latency_links(const AnomalyScan& scan, std::vector<Anomaly>& out);

// anomalies_routes.cpp: the one-way pair findings of one bottleneck (the time each adds alike) that
// form a block, pairs from a set S of two nodes or more to a set R of two or more (or one node and
// three or more), connected, filling half of S x R at least (one direction of one link the routes
// from S to R cross): one asymmetric_pair finding on the nodes the block's pairs concentrate on;
// then, among the pairs left scored `cut` or more, complete blocks alike by their ratios.
void one_way_blocks(const AnomalyScan& scan, double cut, std::vector<Anomaly>& out);

// anomalies_peers.cpp: a node whose links to every other node of its group at the first level
// above the nodes are slow (at least two of them, and they are not slow to each other) is one slow
// node, not that many slow links: its cable or port. Sequential runs show such a node in every
// class; under load its pairs beyond the group are hidden by the contention on the uplinks, and
// only its group shows it.
void slow_links_to_slow_nodes(const Topology& t, const std::vector<std::string>& hosts, std::vector<Anomaly>& out);

// anomalies_transit.cpp: the pair findings of third parties' routes through a slow switch group
// (their ends outside it, the time they add alike to the time it adds to its own pairs at every
// length) folded into its finding (its `pairs`).
void fold_transit_routes(const AnomalyScan& scan, std::vector<Anomaly>& out);

// The one-way pair findings kept until they are grouped into blocks, per max_links listed.
inline constexpr std::size_t kOneWayPairsKept = 64;

// anomalies_routes.cpp: the one-way pair findings of single pairs of node groups left after
// one_way_blocks: those scored below `cut` (the max_links-th strongest of all one-way pairs found,
// find_slow_and_asymmetric_links) left out, and beyond max_links the weakest.
void cap_one_way_pairs(const Topology& t, std::size_t max_links, double cut, std::vector<Anomaly>& out);

// The same bottleneck: every score within 25 % of the others (anomalies_routes.cpp).
bool alike(const std::vector<double>& scores);
// Two findings' added times (per length; NaN where a finding does not show) of one bottleneck:
// alike at every length both show at, one at least, each positive (anomalies_routes.cpp).
bool alike_times(const std::vector<double>& a, const std::vector<double>& b);

// The one asymmetric_pair finding of a one-way block from the nodes S to the nodes R (one home for
// both ways of finding one: one_way_blocks from the pair findings, slow_blocks from the delays):
// `pairs` its rank pairs (sender, receiver), named by the nodes its pairs concentrate on.
Anomaly one_way_block_finding(const AnomalyScan& scan, std::vector<std::pair<int, int>> pairs,
                              std::vector<std::int64_t> lengths, double score, const std::set<int>& S,
                              const std::set<int>& R);

}  // namespace nt::analysis::anomaly_parts
