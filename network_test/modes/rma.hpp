// One-sided modes (put, get): the window of a run and the timed loop of an origin-target pair.
#pragma once

#include "common.hpp"

namespace nt::measure::kernels {

// The origin times op + MPI_Win_flush at the target; the origin is the rank that holds the
// samples: x when base.results_in_rows (put), else y (get).
enum class RmaOp { put, get };

// `base` with the shared part of a one-sided mode: one window of the largest length on every
// rank for the whole run (made at its start, freed at its end, both collective), a shared lock
// of the target per task, and the timing recorded in the files.
ModeSpec rma_mode(ModeSpec base, RmaOp op);

}  // namespace nt::measure::kernels
