// The runner: its part of a Ctx, and tasks run on the ranks one after the other (turns.cpp,
// task.cpp, precision.cpp), the host pairs' clocks (clocks.cpp), sleeping barriers and the
// test hooks (test_hooks.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nt/measure/measure.hpp"

namespace nt::measure {

// The runner's part of a Ctx (ctx.hpp, RunnerState): written here only, never by a mode.
struct RunnerAccess {
  static RunnerState& of(Ctx& c) { return c.runner_; }
  static const RunnerState& of(const Ctx& c) { return c.runner_; }
};
inline RunnerState& runner(Ctx& c) { return RunnerAccess::of(c); }
inline const RunnerState& runner(const Ctx& c) { return RunnerAccess::of(c); }

// Schedules (turns.cpp), also used by the calibration of --estimate, at messages of `length`
// bytes. run_sequential takes turns through the tasks (every rank knows the list); run_rounds
// runs rounds of disjoint pairs at once with a sleeping barrier after each (and each rank's
// exchange with itself).
// run_sequential returns the bytes of its own list of this rank's steps (O(P)).
// on_step (rank 0): the fraction of the length's steps done, at each step of rank 0.
using StepHook = std::function<void(double)>;
std::size_t run_sequential(Ctx& c, const std::vector<Task>& tasks, std::int64_t length, const StepHook& on_step = {});
std::size_t run_sequential(Ctx& c, const TaskList& tasks, std::int64_t length, const StepHook& on_step = {});
std::size_t run_sequential(Ctx& c, const HostPairList& tasks, std::int64_t length, const StepHook& on_step = {});
std::size_t run_sequential(Ctx& c, const SampledPairList& tasks, std::int64_t length, const StepHook& on_step = {});
// One task on a member rank (task.cpp: pinning on an oversubscribed machine, --precision's batches).
void run_task(Ctx& c, const Task& t, std::int64_t length);

// Pair clocks (clocks.cpp): every host pair's clock offset, estimated once by the hosts' first ranks
// in round-robin rounds and given to every rank of the host, for a mode with ModeSpec::pair_clocks
// (nothing otherwise, or when done before). Collective.
void measure_host_clocks(Ctx& c);

// Test hooks (test_hooks.cpp), set in the environment by the MPI tests.
// NT_DEBUG_STALL=rank:length: that rank stops responding at that length, as a hung node would
// (not in --estimate's calibration).
void debug_stall(const Ctx& c, std::int64_t length);
// NT_DEBUG_SYNTHETIC=1: the samples, flags and counts of this rank are replaced by a function of
// (sender, receiver, length, sample) after the measurement (fill_synthetic), so that two runs
// write the same values and their files can be compared byte for byte (parallel vs gathered
// writing).
bool synthetic_samples();
void fill_synthetic(Ctx& c, std::int64_t length);

// A barrier on every rank whose wait sleeps (its timeout message names `length`).
void idle_barrier(Ctx& c, double tasks_ahead, std::int64_t length);
// A barrier on comm whose wait is idle_wait (deadline 0: none; timeout: TimeoutError(why)).
void idle_barrier(Ctx& c, MPI_Comm comm, double deadline, const std::string& why);

// --precision: runs task t in batches of the full batch `all` (run_batch runs the mode once with
// a batch's samples) until the median of every cell it measures is precise enough; sets the
// store's used counts for those cells.
void run_adaptive(Ctx& c, const Task& t, const Batch& all, const std::function<void(const Batch&)>& run_batch);

}  // namespace nt::measure
