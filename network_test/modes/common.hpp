// Measurement kernels shared by several modes (internal to nt_measure).
#pragma once

#include <functional>
#include <vector>

#include "nt/measure/ctx.hpp"

namespace nt::measure::kernels {

// Noise traffic of the noise ranks of a task (noise modes); holds the buffers of one run.
class NoiseTraffic {
 public:
  // A noise rank of t: all-to-all traffic among t's noise ranks until the leader stops it.
  void run(Ctx& c, const Task& t);
  // The leader of t: stops the noise ranks and waits until they are done.
  void stop(Ctx& c, const Task& t);

 private:
  std::vector<char> sbuf_, rbuf_;
};

// One-way delay x -> y with a clock offset from ping-pongs and a per-sample ready handshake
// (the receive is posted before the sender is released; the receive is never timed from its
// posting). Results at x (row). one_to_one, and noise_blocking with noise traffic.
void one_way(Ctx& c, const Task& t, const Batch& b, NoiseTraffic* noise = nullptr);
// x and y exchange at once from a common start (offset-corrected); each records its own
// completion time, stored in its column. (i, i): a message to oneself. async_one_to_one, and
// noise with noise traffic.
void exchange(Ctx& c, const Task& t, const Batch& b, NoiseTraffic* noise = nullptr);
// Samples of a task with every rank from common starts scheduled by rank 0 on the
// offset-corrected clocks. body(start_local, sample_index or -1 for warm-up) returns the time
// this rank counts as timed communication (0 on ranks that do not count). The validity flags of
// each sample go to flag_row(b, peer), or to every peer's row when peer is -1.
void group_samples(Ctx& c, const Batch& b, int peer, const std::function<double(double, int)>& body);

// The samples of a batch timed on one rank's clock: b.W warm-up calls of sample(), then b.R
// recorded ones; out[k] = scale * duration, the duration counted as timed communication.
template <class Sample>
void timed_samples(Ctx& c, const Batch& b, double* out, Sample&& sample, double scale = 1.0) {
  for (int it = 0; it < b.W + b.R; ++it) {
    const double d = sample();
    if (it >= b.W) {
      out[it - b.W] = scale * d;
      c.add_timed(d);
    }
  }
}

// A noise mode: `base` (name, id, description, shape) with the noise ranks and options (-l -m
// -p), their validation and the noise traffic's per-run state around `kernel`.
ModeSpec noise_mode(ModeSpec base, void (*kernel)(Ctx&, const Task&, const Batch&, NoiseTraffic*));

// A collective mode timed from common starts (group_samples): every rank holds its column.
ModeSpec common_start_mode(ModeSpec base, void (*run)(Ctx&, const Task&, const Batch&));

inline constexpr const char* kOffsetMethod =
    "clock offset per host pair from the fastest of K ping-pongs (midpoint method), estimated before the sweep and "
    "checked before each task with one ping-pong (up to K until one is within 5 % of the host pair's fastest round "
    "trip); ranks of one host read one clock";
inline constexpr const char* kCommonStartMethod =
    "common start: rank 0 estimates every rank's clock offset from the fastest of K ping-pongs, then sends "
    "each rank a start time in the future on its own clock; ranks wait until it (no barrier)";

}  // namespace nt::measure::kernels
