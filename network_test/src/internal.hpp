// Internal pieces of network_test's driver (not used by modes).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "nt/measure/measure.hpp"
#include "nt/params.hpp"
#include "nt/raw_file.hpp"

namespace nt::measure {

// The result files, open on rank 0 only.
struct Output {
  std::vector<std::pair<Statistic, RawWriter>> stats;
  std::optional<RawWriter> all;
  FileInfo info;
};

// Progress on stderr (rank 0): a bar with ETA on a terminal, a plain line every 10 s otherwise.
class Progress {
 public:
  // style: "bar", "lines", "none" or "auto" (bar on a terminal, lines otherwise).
  Progress(const std::string& style, const std::vector<std::int64_t>& lengths);
  void update(std::size_t done_index, std::int64_t length);
  // Within length `index`: `fraction` of its steps done (rank 0's view of the schedule), so that
  // a long length (all pairs of thousands of ranks) shows progress before it ends.
  void within(std::size_t index, double fraction);
  void finish();

 private:
  void show(std::size_t index, std::int64_t length, double now, double eta, bool last);
  bool enabled_, tty_;
  std::vector<std::int64_t> lengths_;
  std::vector<std::pair<std::int64_t, double>> done_;  // length, seconds it took
  double start_ = 0, last_ = 0, mark_ = 0;
};

// Schedules (turns.cpp), also used by the calibration of --estimate, at messages of `length`
// bytes. run_sequential takes turns through the tasks (every rank knows the list); run_rounds
// runs rounds of disjoint pairs at once with a sleeping barrier after each (and each rank's
// exchange with itself).
// run_sequential returns the bytes of its own list of this rank's steps (O(P)).
// on_step (rank 0): the fraction of the length's steps done, at each step of rank 0.
using StepHook = std::function<void(double)>;
std::size_t run_sequential(Ctx& c, const std::vector<Task>& tasks, std::int64_t length, const StepHook& on_step = {});
std::size_t run_sequential(Ctx& c, const TaskList& tasks, std::int64_t length, const StepHook& on_step = {});
// One task on a member rank (task.cpp: pinning on an oversubscribed machine, --precision's batches).
void run_task(Ctx& c, const Task& t, std::int64_t length);

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

// The concurrent schedule (concurrent.cpp) of length k of the sweep: every repetition of a
// 1-factorisation (one per sample with --rounds random, one with all samples with fixed), each
// round split into sub-rounds of at most --concurrent=K pairs, a sleeping barrier after each.
// Returns the bytes of the schedule's state on this rank (O(P)).
std::size_t run_concurrent(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// The first `rounds` rounds of repetition `repetition` of length k with at most `limit` pairs at
// once (0: all), as run_concurrent runs them (--estimate's calibration).
void run_concurrent_rounds(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit);
// Repetitions of the 1-factorisation per length: the samples (-n), at most kMaxRepetitions, with
// --rounds random (each repetition costs every pair a clock-offset estimate and a warm-up round:
// 500 samples one per repetition took a 16-rank simulation 47x the host time), else 1.
inline constexpr int kMaxRepetitions = 16;
int concurrent_repetitions(const Settings& s);

// --retest (retest.cpp): after the concurrent rounds of length k, the cells of the lines whose
// median (medians: this rank's line, [peer]) stands out are measured again alone, within the
// budget; isolated gets this rank's line of every statistic ([statistic * P + peer], the order of
// standard_statistics()), NaN where not re-tested. Collective.
struct RetestResult {
  long pairs = 0;      // tasks re-tested (every rank)
  double seconds = 0;  // the re-test's time on this rank
};
bool retest_enabled(const Settings& s);
RetestResult run_retest(Ctx& c, std::size_t k, std::int64_t length, const std::vector<double>& medians,
                        std::vector<double>& isolated);
// A barrier on every rank whose wait sleeps (its timeout message names `length`).
void idle_barrier(Ctx& c, double tasks_ahead, std::int64_t length);
// A barrier on comm whose wait is idle_wait (deadline 0: none; timeout: TimeoutError(why)).
void idle_barrier(Ctx& c, MPI_Comm comm, double deadline, const std::string& why);

// --precision: runs task t in batches (run_batch runs the mode once with c.R samples at c.store.base)
// until the median of every cell it measures is precise enough; sets c.store.used for those cells.
void run_adaptive(Ctx& c, const Task& t, const std::function<void()>& run_batch);

// Samples flagged at one length, over every rank (rank 0 collects them for the summary).
struct FlagCount {
  std::int64_t length = 0;
  long late = 0, preempted = 0;
  RetestResult retest;  // --retest at this length
};
using FlagCounts = std::vector<FlagCount>;

// --estimate: calibrates on every rank; rank 0 prints the plan on stdout. startup_s: what the
// run took before the measurement (shown beside the prediction).
void run_estimate(Ctx& c, double startup_s);
// Seconds since this process started (/proc), for the start-up share of a run.
double process_age_s();

// Runs lengths [first, end) of the sweep (sweep.cpp) and writes every length as soon as it is measured: one
// rank per node writes the rows of its node's ranks into every file (rank 0 commits each record),
// or, when the writers cannot open the files or NT_WRITE=gather, rank 0 gathers and writes
// everything. Rank 0 collects the flag counts;
// write_seconds adds this rank's host time spent writing; data_bytes is the most this rank held
// in its own buffers of the sweep.
void run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress, FlagCounts* counts,
               double& write_seconds, double& data_bytes);
// Runs a mode whose tasks cover every length in one pass (ModeSpec::per_length false).
void run_one_pass(Ctx& c);

}  // namespace nt::measure
