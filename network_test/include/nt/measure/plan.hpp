// The cost model of a network_test sweep (pure, unit-tested): task counts per schedule, costs fitted
// from a short calibration, the predicted wall time per length and in total, the time limit to
// ask a batch system for, and the progress predictor of a running sweep. The model is stated in
// share/doc/network_test.md ("Budgeting a run").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nt/measure/measure.hpp"

namespace nt::measure {

// Seconds of one task (or one round) that runs `iterations` timed + warm-up iterations:
// fixed + iterations * per_iteration (fixed: turn-taking, clock-offset estimate, result message).
struct Cost {
  double fixed = 0, per_iteration = 0;
  double at(int iterations) const { return fixed + per_iteration * iterations; }
};
// The cost line through two timings: t1 seconds for n1 iterations, t2 for n2 > n1. Both parts are
// kept non-negative (noise can tilt a line through two points the wrong way).
Cost fit_cost(int n1, double t1, int n2, double t2);

// Tasks of one length of the sequential schedule, by class (the classes cost differently: a pair
// on one host talks through shared memory, a pair on two hosts through the network).
struct TaskCounts {
  std::int64_t same_host = 0, other_host = 0;  // pair tasks
  std::int64_t self = 0;                       // (x, x) tasks of the exchange modes
  std::int64_t collective = 0;                 // tasks with every rank (bcast roots, all_to_all)
  std::int64_t sync = 0;                       // clock-offset tasks of the common-start modes
  std::int64_t total() const { return same_host + other_host + self + collective + sync; }
};
// Counted from the hosts of the ranks (O(P)), the same tasks make_tasks lists.
TaskCounts count_tasks(const ModeSpec& spec, const std::vector<std::string>& hosts);
// Rounds of the concurrent schedule: P-1 (P even) or P (P odd).
std::int64_t concurrent_rounds(int P);

struct LengthPlan {
  std::int64_t length = 0;
  TaskCounts tasks;
  double task_seconds = 0;        // mean predicted cost of a sequential task
  double sequential = 0;          // predicted seconds of the length, sequential schedule
  std::int64_t rounds = 0;        // 0: the mode has no concurrent schedule
  double round_seconds = 0;       // predicted cost of one concurrent round
  double concurrent = 0;          // predicted seconds of the length, concurrent schedule
};

struct Plan {
  std::string mode;
  int ranks = 0, hosts = 0, repeats = 0, warmup = 0;
  bool concurrent_ok = false, concurrent_requested = false;
  bool raw = false;
  std::vector<LengthPlan> lengths;
  double calibration_seconds = 0;
  int calibration_tasks = 0, calibration_rounds = 0;  // sampled per class / per length
  int calibration_iterations[2] = {0, 0};
  double sequential() const;
  double concurrent() const;
};

// The time limit to ask for: 1.3 x predicted + 5 min (start-up, file writes, a slower node),
// rounded up to whole minutes.
double advised_time_limit(double predicted_seconds);
// 3725 -> "01:02:05" (Slurm --time, PBS walltime); days as "D-HH:MM:SS" in Slurm's form.
std::string hms(double seconds);
// Bytes rank 0 holds for the gathered results of one length: 5 statistics x P^2 doubles, the
// matrix being written (P^2), and with --raw 2 x P^2 x repeats (gathered + reordered samples).
double rank0_bytes(int P, bool raw, int repeats);

// The printed plan: a table per length, totals, advice, and key=value lines for scripts.
std::string plan_text(const Plan& p);

// Progress of a running sweep: predicted seconds of each remaining length from the seconds the
// completed lengths took. Lengths are strictly increasing. With two or more completed lengths, a
// line a + b * length through (up to) the last three, b >= 0, a >= 0; with one, scaled from it
// by (length + 16 KiB); with none, proportional to (length + 16 KiB) (a relative weight only).
std::vector<double> predict_remaining(const std::vector<std::int64_t>& done_lengths,
                                      const std::vector<double>& done_seconds,
                                      const std::vector<std::int64_t>& remaining);

}  // namespace nt::measure
