// Topology discovery from delays alone (share/doc/design.md §7).
//
// Ranks are grouped when their rows (what they send) AND their columns (what they receive) look
// alike, the diagonal and the pair's own cells left out. Per band of message lengths (short, middle,
// long) a profile log(delay / median delay of that length) is taken (median over the band's
// lengths); the distance of ranks a and b is the second largest, over third parties, of the
// |difference| both their row and column cells agree on, after removing the median difference (so
// a uniformly slow rank still matches its node mates, and one odd cell does not split a node). Distances are scaled by a
// threshold max(log(min_ratio), noise_factor * noise) per band, and ranks are joined by average
// linkage while the scaled distance is below 1, computed only inside the sets that close pairs among
// each rank's `candidates` nearest ranks by the direct link join (O(B P^2 candidates), not
// O(B P^3)). The same procedure is applied to the groups (profile = median over the group's cells),
// leaving out groups offset by a factor on every link (slow nodes), to find switch levels above,
// while it still merges some but not all groups. Bands hold at least 3 lengths
// (above the nodes, where there are no more lengths than bands, one each).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nt/analysis/cube.hpp"

namespace nt::analysis {

struct TopologyOptions {
  double min_ratio = 1.2;      // offset of an odd item (a slow node), margin of a move to a nearer group
  // Smallest delay ratio that separates two groups above the nodes (the ranks keep min_ratio), or
  // noise_factor robust noise sigmas when larger: on clean data the noise term is 0, and a 2-hop
  // path beside a 4-hop one differs by a few per cent at long lengths (leaves of one rank per
  // host were 3.7 % apart at 64 KiB).
  double floor_ratio = 1.02;
  double noise_factor = 6.0;
  int bands = 3;               // length bands
  int max_levels = 4;          // levels above the node level
  int candidates = 24;         // items each item is compared with first (nearest by the direct link)
};

struct Level {
  std::string name;                       // "node", "switch", "switch-2", ...
  std::vector<std::vector<int>> groups;   // ranks, ascending; groups ordered by first rank
  std::vector<int> group_of;              // per rank
};

struct Topology {
  int P = 0;
  std::vector<Level> levels;              // levels[0]: the finest (node) level
  std::vector<std::string> notes;
  // False when the finest groups may not be nodes (one rank per node and no host names: the groups
  // found are then switches or other sets of nodes); classes are then named "within-group" and
  // "between-groups" instead of intra-/inter-node. Set by the report (check_node_level).
  bool node_level_identified = true;
  bool nodes_from_hosts = false;          // the node level is the hosts (find_topology was given them)
  std::vector<std::vector<int>> delay_groups;  // the finest groups the delays alone find (compared with the hosts)
  // Above the top level the distances form no tree (a dragonfly's or torus's distance classes): its
  // groups' effects differ by where they sit, not only by faults (group_faults.cpp).
  bool no_tree_above = false;
  // 0: same node; 1: different node, same group at level 1; ...; levels.size(): differ everywhere.
  int pair_class(int i, int j) const;
  int class_count() const { return static_cast<int>(levels.size()) + 1; }
  std::string class_name(int c) const;  // "intra-node", "inter-node", "inter-switch", ...
};

// With a host name per rank (`hosts`, as network_test records them) the node level is the hosts
// when the groups the delays find hold whole hosts (equal to them, or unions of them: one rank per
// host), and only the levels above are found from the delays; without hosts, or when the delays'
// groups split hosts (sockets) or disagree with them (a wrong hosts file), the delays' groups.
Topology find_topology(const Cube& c, const TopologyOptions& opt = {}, const std::vector<std::string>& hosts = {});

// The heading of a topology section: where its node level comes from (the hosts, or the delays).
std::string topology_title(const Topology& t);

// pair_class of every ordered pair, [i*P + j] (-1 on the diagonal): P^2 bytes.
std::vector<std::int8_t> pair_classes(const Topology& t);

// Without host names the finest groups are nodes only if their internal links are clearly faster
// than the links between them (shared memory against a network: kTuning.node_level_ratio at the
// shortest kTuning.node_level_lengths). When they are not (one rank per node, so the groups are switches), clears
// node_level_identified, renames the finest level "group" and adds a warning to the notes.
// Returns the ratio found (NaN when there is nothing to compare).
double check_node_level(const Cube& c, Topology& t, bool hosts_known);

// A lone node: a group of an upper level (l >= 1) that holds a single group of the finest level.
// All of its links then differ alike from the others', which the delays cannot tell from a slow
// node; every place that reports one says so (kLoneNodeCaveat). Indices into levels[l].groups.
std::vector<std::size_t> lone_node_groups(const Topology& t, std::size_t l);
inline constexpr const char* kLoneNodeCaveat = "may be a node behind its own switch, or a slow node";

// Comparison of the finest groups with the partition given by host names.
struct HostAgreement {
  bool known = false;
  bool exact = false;
  double adjusted_rand = 0.0;
  std::vector<std::vector<int>> host_groups;        // partition by host name
  std::vector<std::string> host_names;              // one per host group
  std::vector<std::string> mismatches;              // human-readable differences
  std::string summary;
};
HostAgreement compare_with_hosts(const std::vector<std::vector<int>>& groups, const std::vector<std::string>& hosts);

// Adjusted Rand index of two partitions given as label per element.
double adjusted_rand_index(const std::vector<int>& a, const std::vector<int>& b);

}  // namespace nt::analysis
