// The analysis' fixed numbers in one table: the choices of the method that no option sets. The
// numbers a user may change are the Options of each stage (TopologyOptions, AnomalyOptions,
// ThresholdOptions, gathered in ReportOptions); `report --json` echoes both under `thresholds_used`
// (thresholds_json) and share/doc/analyze.md lists them.
#pragma once

#include <cstddef>

namespace nt::analysis {

struct Tuning {
  // Statistics.
  double median_se_factor = 1.2533;  // sqrt(pi/2): a median of n normal values has this x sigma / sqrt(n) as its standard error
  double polish_tolerance = 2e-3;    // median polish stops once no effect moved more (log units: 0.2 %)
  int polish_sweeps = 5;             // ... or after this many sweeps
  // Topology: a level above the nodes must form a tree.
  double tree_margin = 1.02;         // a finer group is nearer its mates than any group outside by this ratio
  double tree_share = 0.25;          // a level is rejected when in every band this share of the groups with mates are not
  double first_tree_margin = 1.001;  // the first level: as near outside as inside within this ratio is a violation ...
  double first_tree_share = 0.5;     // ... and it is rejected when in every band more than this share of its members violate
  double slow_member_ratio = 1.1;    // a member whose median distance is this much beyond the typical one is no yardstick
  double filled_bias = 0.002;        // a filled cell (a bound, not a measurement) lies this far above its path (log)
  double odd_share = 0.25;           // at most this share of the items is set aside as odd before they are grouped
  double tie_log = 1e-4;             // nearer by less than this (log, per profile entry and direction) is a tie
  double node_level_ratio = 2.5;     // without host names, the finest groups are nodes when this much faster inside ...
  std::size_t node_level_lengths = 3;  // ... at the shortest lengths, this many at most
  std::size_t spread_parties = 4;    // groups above the nodes also differ by the mean difference of this many most different third parties ...
  double spread_sigmas = 3.0;        // ... when it exceeds this many noise sigmas (the second largest takes noise_factor) ...
  double spread_noise_ratio = 1.1;   // ... where in every band the nearest groups differ by at most this times the two directions of one pair
  std::size_t band_lengths = 3;      // a band of lengths holds this many at least where there are as many (a median one outlier does not move)
  // Topology: samples where comparing everything grows as n^2 or s^2 (bounds of cost).
  std::size_t offset_all_up_to = 128;  // up to this many items every cell gives a pair's median offsets ...
  std::size_t offset_cells = 64;       // ... beyond it a regular sample of about this many cells
  std::size_t set_sample = 16;         // members of a large set each member is compared with
  std::size_t large_set = 64;          // a set of more items is taken whole when every member is close to its sample
  // Anomalies.
  double alike_ratio = 1.25;         // scores within this ratio (highest / lowest) are alike: no one of them stands out
  double through_ratio = 1.25;       // a delay within this ratio of a slow node's own, either way, runs through that node
  double one_way_keep = 0.5;         // a one-way link fault adds at least this share of its time at every longer length
  std::size_t one_way_time_cells = 65536;  // cells read one by one for the one-way pairs' added times at most (more: judged by their ratios)
  std::size_t block_one_node = 3;    // slow pairs from or to one node are a block when this many (two from one node are none)
  double slope_gap = 0.005;          // time per byte of node pairs (log) further apart than this (or mad_factor sigmas) is another link's ...
  double node_cluster_share = 0.9;   // ... unless one node is with this share of the others in them: the node's
  double end_tie = 0.002;            // a link's ends tie when as many of its pairs and within this share of the nearest delay
  double hop_share = 0.5;            // a hop adds a route's latency when its own is above a typical hop's by this share of it
  double block_margin = 0.5;         // a slow node is in a block when slower to its far side than to the others by this share of min_ratio (log)
  double boundary_share = 0.5;       // a slow node is slow with the partners beyond this share of its slowdown (log), where under min_ratio
  // Transients (transients.cpp) and the explanation's leftover region (explain_search.cpp).
  double fastest_share = 0.5;        // a fault's fastest sample shows at least this share of its median's slowdown (log)
  double lone_row_share = 0.1;       // a pair is not alone when this share of its sender's row or receiver's column is slow with it
  std::size_t lone_min_nodes = 4;    // fewer nodes: a link may carry one pair's routes, no pair is alone
  double region_fill = 0.25;         // left-over slow pairs are a region when they fill this share of their senders x receivers
  double stray_share = 0.1;          // an uplink's slow pairs are no block when more than this share of its cells stray
  double alike_factor_share = 0.25;  // two claims' factors are alike when apart by no more than this share (or the tolerance)
  double overclaim_share = 0.25;      // a group is slow on its routes but this share at most: else no group finding (a link into it)
  double claim_gain_share = 0.5;     // a claim explains a length when its best class gains this share of the tolerance
  // Fits: the quality of a Hockney line from its relative rms.
  double fit_good_rms = 0.03;        // good up to this
  double fit_fair_rms = 0.10;        // fair up to this, poor above
  // Fits: protocol thresholds, the breaks of a delay curve.
  std::size_t segment_min = 3;       // lengths a segment of the curve has at least
  std::size_t break_check = 3;       // lengths after a break that must confirm it (up to)
  double break_sigmas = 3.0;         // a break stands out of both segments' scatter by this many times
  double break_hold = 0.5;           // the confirming lengths lie beyond the old line by this share of the step (or bar)
  // Files measured under load (loaded.cpp).
  std::size_t loaded_min_cells = 8;  // re-tested cells a class needs for its isolated reference
  double contention_cv = 0.10;       // a pair's samples this far apart (deviation / value) are contention, not noise
  double moved_share = 0.05;         // a class is moved by the load when this share of its pairs' samples are so ...
  double alone_ratio = 1.2;          // ... or its re-tested pairs were this many times faster alone
  double steady_spread = 0.02;       // a loaded cell's samples further apart than this are no steady value ...
  double noise_times = 3.0;          // ... or this many times the re-tested cells' own spread, when larger
  // Comparisons of two runs (compare).
  double compare_noise_floor = 1e-3; // the least noise of a log ratio (a simulator's data has none)
  double link_tolerance = 0.5;       // a link within this share of the smallest change reported is at its class's change
  double changed_share = 0.75;       // a class changed in part: fewer than this share of its links at its change ...
  double unchanged_share = 0.25;     // ... and at least this share unchanged: its change is the unchanged links'
  double moved_hosts_share = 0.25;   // hosts that moved between switches are named when at most this share of them
};

inline constexpr Tuning kTuning{};

}  // namespace nt::analysis
