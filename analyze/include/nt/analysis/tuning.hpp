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
  // Topology: a level above the nodes must form a tree.
  double tree_margin = 1.02;         // a finer group is nearer its mates than any group outside by this ratio
  double tree_share = 0.25;          // a level is rejected when in every band this share of the groups with mates are not
  std::size_t spread_parties = 4;    // groups above the nodes also differ by the mean difference of this many most different third parties ...
  double spread_sigmas = 3.0;        // ... when it exceeds this many noise sigmas (the second largest takes noise_factor) ...
  double spread_noise_ratio = 1.1;   // ... where in every band the nearest groups differ by at most this times the two directions of one pair
  // Anomalies.
  double alike_ratio = 1.25;         // scores within this ratio (highest / lowest) are alike: no one of them stands out
  double through_ratio = 1.25;       // a delay within this ratio of a slow node's own, either way, runs through that node
  // Transients (transients.cpp) and the explanation's leftover region (explain_search.cpp).
  double fastest_share = 0.5;        // a fault's fastest sample shows at least this share of its median's slowdown (log)
  double lone_row_share = 0.1;       // a pair is not alone when this share of its sender's row or receiver's column is slow with it
  std::size_t lone_min_nodes = 4;    // fewer nodes: a link may carry one pair's routes, no pair is alone
  double region_fill = 0.25;         // left-over slow pairs are a region when they fill this share of their senders x receivers
  // Fits: the quality of a Hockney line from its relative rms.
  double fit_good_rms = 0.03;        // good up to this
  double fit_fair_rms = 0.10;        // fair up to this, poor above
  // Files measured under load (loaded.cpp).
  std::size_t loaded_min_cells = 8;  // re-tested cells a class needs for its isolated reference
  double contention_cv = 0.10;       // a pair's samples this far apart (deviation / value) are contention, not noise
  double moved_share = 0.05;         // a class is moved by the load when this share of its pairs' samples are so ...
  double alone_ratio = 1.2;          // ... or its re-tested pairs were this many times faster alone
  double steady_spread = 0.02;       // a loaded cell's samples further apart than this are no steady value ...
  double noise_times = 3.0;          // ... or this many times the re-tested cells' own spread, when larger
};

inline constexpr Tuning kTuning{};

}  // namespace nt::analysis
