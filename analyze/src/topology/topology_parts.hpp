// What the parts of find_topology share (internal to nt_analysis). topology.cpp runs them:
// topology_profiles.cpp makes the profiles of the ranks and of groups of them, topology_clustering.cpp
// clusters the items of one level by their profiles, topology_placement.cpp moves groups that their
// profile places wrongly, topology_hosts.cpp takes the node level from the host names and compares
// the groups with them, topology_levels.cpp makes the levels and names their classes.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "nt/analysis/topology.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::topology_parts {


// Median of a scratch buffer (reordered); NaN when empty.
inline double median_inplace(std::vector<double>& x) { return x.empty() ? kNaN : nt::median_inplace(x); }

// n x n profile per band, [b][a*n + c]; NaN where unknown (and on the diagonal). The ranks'
// profiles are held in single precision (B P^2 values twice, with the transposed copy: 2.4 GB
// instead of 4.8 GB for 10,000 ranks); the groups' in double.
template <class T>
double dbl(T x) { return static_cast<double>(x); }
template <class T>
using ProfilesOf = std::vector<std::vector<T>>;
using Profiles = ProfilesOf<double>;

// topology_profiles.cpp: the rank profiles, per band [b][a*P + c] (single precision), and the
// profiles of groups of ranks (the median of the rank profile cells between two groups).
ProfilesOf<float> rank_profiles(const Cube& c, std::size_t B);
Profiles group_profiles(const ProfilesOf<float>& prof, const std::vector<std::vector<int>>& groups, std::size_t N);
// Per band, the robust sigma of the difference between the two directions of one pair (a -> c
// against c -> a): links are symmetric, so this is the measurement's own noise whatever the
// structure (0 on clean data). From the lower quartile of |difference| (0.3186 sigma for normal
// noise), not the median: nodes that send or receive slowly make every pair of theirs differ by
// their fault (3 such of 10 nodes: more than half the pairs).
template <class T>
std::vector<double> direction_noise(const ProfilesOf<T>& prof, std::size_t N);

// sampled_levels.cpp: whether c's file was measured with --sample-pairs (most pairs of node groups
// unmeasured); and the unmeasured cells of profiles gp (n ranks or groups) given the minimax path
// of measured ones (the delay along a tree's path is at most its largest hop), for the clustering
// of the levels only. Returns the cells filled (none where the search would cost too much).
bool is_sampled(const Cube& c);
template <class T>
std::size_t fill_by_measured_paths(ProfilesOf<T>& gp, std::size_t n);

// topology_clustering.cpp: a label per item of n whose profiles (rows and columns) look alike
// (float: ranks, double: groups). skip_odd: groups offset on every link (slow nodes) left out of
// the comparisons, then attached to the group they reach fastest. noise_out: the largest band noise.
// spread_floor_ratio > 0: items also apart when several third parties differ beyond the noise
// (their mean, kTuning.spread_sigmas noise sigmas, at least this ratio), not only the second most.
template <class T>
std::vector<int> cluster_profiles(const ProfilesOf<T>& prof, int n, const TopologyOptions& opt, bool skip_odd,
                                  double cell_noise = 0.0, double* noise_out = nullptr,
                                  double spread_floor_ratio = 0.0);

// topology_placement.cpp: each finer group moved to the upper group its direct links reach clearly
// fastest (a slow node that its profile places in no switch, or in another odd group).
void move_to_nearest(const Cube& c, const std::vector<std::vector<int>>& finer, std::vector<std::vector<int>>& upper,
                     double min_ratio);
// An upper group splits into the sets of finer groups that are each other's nearest by a clear
// margin (the direct links, per length), with the members of none following their nearest.
void split_nearest_sets(const Cube& c, const std::vector<std::vector<int>>& finer,
                        std::vector<std::vector<int>>& upper, double min_ratio);
// Above the switches, a group of one finer group joins the group it reaches fastest.
void absorb_lone_groups(const Cube& c, const std::vector<std::vector<int>>& finer, std::vector<std::vector<int>>& upper);

// topology_levels.cpp: groups from labels (ranks ascending, groups by first member), and a level
// of groups of ranks (sorted, with the group of each of the P ranks).
std::vector<std::vector<int>> groups_from_labels(const std::vector<int>& label);

// Whether a level of `upper` groups (indices into the n finer groups whose profiles are gp) is a
// level of a tree: each finer group nearer to every other member of its upper group than to any
// group outside it (symmetric profile distance, kTuning.tree_margin apart), in some band of
// lengths. The level is rejected when in every band kTuning.tree_share or more of the finer groups
// that have mates are not (a dragonfly's routers of one group reach the router at the other end of a global link as
// fast as their own group's: 16 of 32 at the shortest lengths, all at 1 MiB; a fat tree's pods: none).
struct TreeCheck {
  bool rejected = false;
  std::size_t violating = 0, members = 0;  // in the band where the fewest violate
};
// typical_in: a member's own group at the median of its distances to the other members, not the
// farthest (the first level above the nodes: one slow node must not make its switch mates violate).
TreeCheck check_tree_level(const Profiles& gp, const std::vector<std::vector<int>>& upper, int n,
                           bool typical_in = false);
Level make_level(std::string name, std::vector<std::vector<int>> groups, int P);

// topology_hosts.cpp: the node level of t (levels[0]) from t.delay_groups and the host names.
void add_node_level(Topology& t, const std::vector<std::string>& hosts);

}  // namespace nt::analysis::topology_parts
