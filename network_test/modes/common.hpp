// Measurement kernels shared by several modes (internal to nt_measure).
#pragma once

#include <functional>

#include "nt/measure/measure.hpp"

namespace nt::measure::kernels {

bool is_noise(const Ctx& c, const Task& t);
// One-way delay x -> y with a clock offset from ping-pongs and a per-sample ready handshake
// (the receive is posted before the sender is released; the receive is never timed from its
// posting). Results at x (row). Used by one_to_one and noise_blocking.
void one_way(Ctx& c, const Task& t);
// x and y exchange at once from a common start (offset-corrected); each records its own
// completion time, stored in its column. (i, i): a message to oneself. async and noise.
void exchange(Ctx& c, const Task& t);
// Samples of a task with every rank from common starts scheduled by rank 0 on the
// offset-corrected clocks. body(start_local, sample_index or -1 for warm-up). The validity
// flags of each sample go to flag_row(peer), or to every peer's row when peer is -1.
void group_samples(Ctx& c, int peer, const std::function<void(double, int)>& body);

inline constexpr const char* kOffsetMethod =
    "clock offset per pair from the fastest of K ping-pongs (midpoint method)";
inline constexpr const char* kCommonStartMethod =
    "common start: rank 0 estimates every rank's clock offset from the fastest of K ping-pongs, then sends "
    "each rank a start time in the future on its own clock; ranks wait until it (no barrier)";

}  // namespace nt::measure::kernels
