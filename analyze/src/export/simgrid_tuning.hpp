// The SimGrid export's table of fixed numbers (internal to nt_analysis). scripts/tuning-literals
// reads a *_tuning.hpp as a table: every number in it is an entry, one a line, with its meaning.
#pragma once

#include <cstddef>

namespace nt::analysis::simgrid_parts {

// The export's fixed numbers: how near the platform must come to the measured routes and how its
// solvers search and stop. They shape the SimGrid platform file only, never the report (the
// analysis' numbers are kTuning's), and no option sets them.
struct SimgridTuning {
  double additive_from = 0.001;     // one factor serves while every route is this near its median; two directions this near are one
  std::size_t max_routes = 20000;   // more measured routes than this: a regular sample of them (the factors need no more)
  double slower_partner = 1.05;     // a route tells a link's bandwidth unless another link on it is slower by this ratio
  int bandwidth_sweeps = 10;        // rounds of the link bandwidths' medians over their routes (solve_tws)
  int nic_latency_sweeps = 10;      // rounds of the NIC latencies' medians over the node-group pairs
  int latency_sweeps = 500;         // at most this many Gauss-Seidel sweeps of the link latencies ...
  double latency_settled = 1e-13;   // ... which stop once no latency moves by this much (seconds: 0.1 ps)
  double grid_step = 0.1;           // the ends' search: a share c of the largest latency share on a grid of this step ...
  int grid_first = -2;              // ... from this many steps ...
  int grid_last = 9;                // ... to this many ...
  double narrow_from = 0.05;        // ... then narrowed around the best by steps halved from this share of the largest ...
  double narrow_to = 1e-4;          // ... down to this share
};
inline constexpr SimgridTuning kSimgridTuning{};

}  // namespace nt::analysis::simgrid_parts
