// Internal pieces of network_test's driver (not used by modes).
#pragma once

#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <optional>
#include <utility>
#include <vector>

#include "nt/measure/measure.hpp"
#include "nt/params.hpp"
#include "nt/raw_file.hpp"

namespace CLI {
class App;
}

namespace nt::measure {

// The schedule's options (schedule_options.cpp): the flags; their words made into s.schedule
// (resolve_schedule, before validation: --concurrent=K's K, --host-pairs, --switch-map,
// --sample-pairs); the
// checks of the value (validate_schedule). UsageError on bad input.
void add_schedule_options(CLI::App& app, Settings& s);
void resolve_schedule(Settings& s);
void validate_schedule(const Settings& s, const ModeSpec& spec);
// The seed: given, or drawn on rank 0; every rank gets it (and the sampled pairs draw from it),
// the files record it either way.
void share_seed(MPI_Comm comm, int rank, Settings& s);

// The runner's part of a Ctx (ctx.hpp, RunnerState): written here only, never by a mode.
struct RunnerAccess {
  static RunnerState& of(Ctx& c) { return c.runner_; }
  static const RunnerState& of(const Ctx& c) { return c.runner_; }
};
inline RunnerState& runner(Ctx& c) { return RunnerAccess::of(c); }
inline const RunnerState& runner(const Ctx& c) { return RunnerAccess::of(c); }

// The result files, open on rank 0 only.
struct Output {
  std::vector<std::pair<Statistic, RawWriter>> stats;
  std::optional<RawWriter> all;
  FileInfo info;
};

struct TimePlan;
// The attributes and parameters of a run's files (result_files.cpp). oversubscribed_ranks: how
// many ranks measure as oversubscribed (--oversubscribed); plan: --time-limit's (kept as
// attribute time_plan), or null.
FileInfo make_info(const Settings& s, const SweepPlan& sweep, const ModeSpec& spec, int P,
                   const std::vector<RankInfo>& ranks, int oversubscribed_ranks, const TimePlan* plan);
// Everything rank 0 prepares before the measurement (result_files.cpp): result files created,
// or reopened for --resume; returns the first length to measure.
std::size_t open_outputs(const Settings& s, const std::vector<std::int64_t>& lengths, const ModeSpec& spec,
                         const FileInfo& info, const std::vector<std::string>& hosts, Output& out);

// Progress on stderr (rank 0): a bar with ETA on a terminal, a plain line every 10 s otherwise.
class Progress {
 public:
  // style: bar, lines, none or automatic (bar on a terminal, lines otherwise).
  Progress(ProgressStyle style, const std::vector<std::int64_t>& lengths);
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

// The concurrent schedule (concurrent.cpp) of length k of the sweep: every repetition of a
// 1-factorisation (one per sample with --rounds random, one with all samples with fixed), every
// pair of a round at once and a sleeping barrier after each, or with --concurrent=K its lanes.
// Returns the bytes of the schedule's state on this rank (O(P)).
std::size_t run_concurrent(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// The first `rounds` rounds of repetition `repetition` of length k with at most `limit` pairs at
// once (0: all), as run_concurrent runs them (--estimate's calibration).
void run_concurrent_rounds(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit);
// Rounds per repetition of the concurrent schedule with at most `limit` pairs at once, as priced
// (limit 0: the ranks' rounds; else the lanes' rounds, one for the pairs within the groups and one
// for those within the hosts: upper bounds, each has fewer pairs than a lane), and the share of a
// rounds' worth that run_concurrent_rounds(..., rounds, limit) runs (the lanes of a calibration
// stop after a few pairs each; a schedule may have fewer rounds than asked).
int concurrent_rounds(const Ctx& c, int limit);
double concurrent_round_share(const Ctx& c, int limit, int rounds);
// This rank's part of one round: its pair {a, b} (a < b), both directions or one exchange.
void run_pair_of_round(Ctx& c, int a, int b, std::int64_t length);
// An exchange mode's exchange of this rank with itself (nothing for the other modes).
void run_self_exchange(Ctx& c, std::int64_t length);
// The pairs within this rank's host, one after the other (lanes.cpp): every host at once, since
// they load no cable.
void run_within_host(Ctx& c, const Units& u, std::int64_t length);
// --concurrent=K (lanes.cpp): repetition `repetition` of length k in K lanes (on_round: the
// fraction of the repetition done); returns the bytes of its state on this rank (O(P)).
std::size_t run_lanes(Ctx& c, std::size_t k, std::int64_t length, int repetition,
                      const std::function<void(double)>& on_round);
int lane_rounds(const Ctx& c, int limit);
double lane_calibration_share(const Ctx& c, int limit, int rounds);
// The first `rounds` rounds of the lanes at `limit`, each lane stopped after a few pairs.
void run_lane_calibration(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit);
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
RetestResult run_retest(Ctx& c, std::size_t k, std::int64_t length, const std::vector<double>& medians,
                        std::vector<double>& isolated);
// The settings of a re-test's pair tasks (host_pairs.cpp): the sweep's, unshuffled (a pair's own task).
Settings unshuffled(const Settings& s);
// --retest-hosts (host_pairs.cpp): each cell of this rank's line between two hosts that was not
// re-tested gets the isolated values of its host pair (of the re-tested cell with the smallest
// isolated median, over the ranks of this host: an exchange within the host); isolated:
// [statistic * P + peer] as run_retest fills it.
// Collective over c.comm.
void fill_by_host_pair(const Ctx& c, std::vector<double>& isolated);
// The first phase of a schedule of one pair per host pair (host_pairs.cpp): the pairs within each
// host (every host at once) and each rank with itself, between two idle barriers (the previous
// length is written before, no host pair starts beside them after). Collective over c.comm.
void run_host_phase(Ctx& c, const Units& u, std::int64_t length);
// The cells of this rank's line that task t measures: peers q, appended.
void add_line_peers(const Ctx& c, const Task& t, std::vector<std::size_t>& peers);
// A schedule of one pair per host pair (host_pairs.cpp): the cells of this rank's line that no pair
// measured, neither within its host nor among `peers`, keep no samples (used 0). Returns P bytes.
std::size_t keep_measured_cells(Ctx& c, const std::vector<std::size_t>& peers);
// The same for the pairs of `list` (HostPairList, SampledPairList) this rank measures.
template <class List>
std::size_t keep_measured_cells(Ctx& c, const List& list) {
  std::vector<std::size_t> peers;
  const auto mine = list.positions_of(c.rank);  // always known for these lists
  for (std::size_t pos : *mine) add_line_peers(c, list[pos], peers);
  return keep_measured_cells(c, peers);
}
// --host-pairs (host_pairs.cpp), length k: the pairs within each host (every host at once), then
// one rank pair of every pair of hosts alone, one after the other (HostPairList); the cells of this
// rank's line that no pair measured keep no samples (used 0), for fill_by_host_pair to fill after
// the summary. Returns the bytes of the schedule's state on this rank (O(P)).
std::size_t run_host_pair_schedule(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// --sample-pairs (sampled.cpp), length k: the pairs within each host (every host at once), then
// one rank pair of each sampled host pair alone, one after the other (SampledPairList); the cells
// of this rank's line that no pair measured keep no samples (used 0): fill_by_host_pair fills those
// of the sampled host pairs, the others stay missing. Returns the bytes of its state on this rank.
std::size_t run_sampled_schedule(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// The tasks of the sampled schedule of c's settings at a length (their count is the same at every length).
std::size_t sampled_tasks(const Ctx& c);
// --host-pairs --switch-map (lanes.cpp): list's host pairs of length k in lanes by switch. Per
// length a random 1-factorisation of the switches (Groups by switch); in each round every pair of
// switches {X, Y} is a lane whose host pairs (one rank pair each, both ways) run one after the
// other, the lanes at once; then the host pairs within each switch, every switch at once. So one
// measured pair at a time crosses each switch's uplinks, as in --concurrent --switch-map, and each
// is its host pair's own delay. Returns the bytes of its state on this rank (O(P)).
std::size_t run_host_lanes(Ctx& c, const HostPairList& list, std::size_t k, std::int64_t length,
                           const StepHook& on_step = {});
// The host pairs run_host_lanes measures one after the other at length k (its price): per round
// its fullest lane's, then the fullest switch's.
double host_lane_steps(const Ctx& c, std::size_t k);
// --estimate's calibration of the lanes: the first `rounds` rounds of length k, each lane stopped
// after a few host pairs (a round lasts as long as its slowest lane: a slow uplink's switch is in
// a lane of every round); and the host pairs its fullest lanes run one after the other.
void run_host_lane_calibration(Ctx& c, std::size_t k, std::int64_t length, int rounds);
double host_lane_calibration_steps(const Ctx& c, std::size_t k, int rounds);


// A barrier on every rank whose wait sleeps (its timeout message names `length`).
void idle_barrier(Ctx& c, double tasks_ahead, std::int64_t length);
// A barrier on comm whose wait is idle_wait (deadline 0: none; timeout: TimeoutError(why)).
void idle_barrier(Ctx& c, MPI_Comm comm, double deadline, const std::string& why);

// --precision: runs task t in batches of the full batch `all` (run_batch runs the mode once with
// a batch's samples) until the median of every cell it measures is precise enough; sets the
// store's used counts for those cells.
void run_adaptive(Ctx& c, const Task& t, const Batch& all, const std::function<void(const Batch&)>& run_batch);

// Samples flagged at one length, over every rank (rank 0 collects them for the summary).
struct FlagCount {
  std::int64_t length = 0;
  long late = 0, preempted = 0;
  RetestResult retest;  // --retest at this length
};
using FlagCounts = std::vector<FlagCount>;

// --estimate's calibration (estimate.cpp), also --time-limit's: what a length's tasks of each class
// and its concurrent rounds cost with c's samples and warm-up.
struct LengthCost {
  std::map<std::string, double> per_class;  // seconds per task
  std::map<int, double> concurrent;          // seconds of the length's concurrent schedule, by K (0: all)
  double host_lane_step = 0;                 // --host-pairs --switch-map: seconds per host pair of a round
};
struct Calibration {
  std::vector<std::size_t> lengths;          // indices of the lengths calibrated
  std::map<std::size_t, LengthCost> cost;    // by length index
  std::size_t rounds = 0;                    // rounds of --concurrent per length (all repetitions)
  double per_length_io = 0, seconds = 0;     // gather and writes of a length; the calibration's time
};
// Calibrates c's sweep on every rank (collective): tasks of every class, and when the mode has a
// concurrent schedule two rounds of each concurrency in `limits` (0: every pair of a round).
// deadline (rank 0's Ctx::now()): once a timing ends past it, every rank throws CalibrationOverrun
// (--time-limit: a plan's time counts its calibration, so past the usable time none can fit).
inline constexpr double kNoDeadline = std::numeric_limits<double>::infinity();
Calibration calibrate_sweep(Ctx& c, const std::vector<int>& limits, double deadline = kNoDeadline);
// Adds to `cal` (a calibration of c's sweep) two rounds of each concurrency in `limits` it lacks,
// at the lengths it calibrated (collective); its seconds grow by the time taken.
void calibrate_concurrency(Ctx& c, Calibration& cal, const std::vector<int>& limits, double deadline = kNoDeadline);
// The calibration stopped at its deadline, at messages of `length` bytes (thrown on every rank).
struct CalibrationOverrun {
  std::int64_t length = 0;
};
// The predicted seconds of each length of c's sweep (with its gather and writes): sequentially,
// and by concurrency; slowest_task: the dearest task of any class (a re-tested pair costs at most that).
struct LengthPrice {
  double sequential = 0, slowest_task = 0;
  double io = 0;                       // of both: the gather and the five records
  std::map<int, double> concurrent;    // per --concurrent=K (0: every pair of a round)
  double host_pairs = 0;               // --retest-hosts: every host pair's pair alone, what it would cost
  double host_schedule = 0;            // --host-pairs: the host pairs and the pairs within the fullest host
  double host_lanes = 0;               // --host-pairs --switch-map: in lanes by switch (host_lane_steps)
  double sampled = 0;                  // --sample-pairs (of the settings' Sampling): its host pairs and the fullest host
};
std::vector<LengthPrice> price_sweep(const Ctx& c, const Calibration& cal);
// A length's price under schedule s (its kind, K, --retest-hosts and lanes by switch).
double schedule_price(const LengthPrice& lp, const Schedule& s);
// --estimate: calibrates on every rank; rank 0 prints the plan on stdout. startup_s: what the
// run took before the measurement (shown beside the prediction).
void run_estimate(Ctx& c, double startup_s);
// Seconds since this process started (/proc), for the start-up share of a run.
double process_age_s();

// Runs lengths [first, end) of the sweep (sweep.cpp) and writes every length as soon as it is measured: one
// rank per node writes the rows of its node's ranks into every file (rank 0 commits each record),
// or, when the writers cannot open the files or NT_WRITE=gather, rank 0 gathers and writes
// everything. Rank 0 collects the flag counts. Returns what the sweep cost this rank.
// go_on (every rank, collective when given): asked before each length k; false ends the sweep there
// (--time-limit's guard).
using LengthGate = std::function<bool(std::size_t k)>;
struct SweepCost {
  double write_seconds = 0;  // this rank's host time spent writing
  double data_bytes = 0;     // the most this rank held in its own buffers of the sweep
};
SweepCost run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress, FlagCounts* counts,
                    const LengthGate& go_on = {});
// Where every rank runs (app.cpp): rank 0 gets the full description of each rank, every rank the
// numbers of every rank's host and machine (8 bytes per rank: the names were gathered to every
// rank before, 300 bytes per rank, and that allgather was P^2 messages of its own under SMPI's ring).
struct Placement {
  std::vector<RankInfo> ranks;  // rank 0 only
  // Every rank's host and machine, numbered from 0 in order of first appearance: ranks on one
  // machine share its cores even where their host names differ (RankInfo::machine).
  std::vector<int> host_of, machine_of;
  bool oversubscribed = false;  // this rank measures as oversubscribed (--oversubscribed)
  int oversubscribed_ranks = 0;  // how many ranks do
};

// --switch-map (switch_map.cpp): every rank's switch, numbered, from the file of s.schedule.switch_map (read
// on rank 0, which has pl.ranks); nothing on every rank when the file is bad (rank 0 said why).
std::optional<std::vector<int>> gather_switches(MPI_Comm comm, int rank, const Settings& s, const Placement& pl, int P);

// --time-limit (time_limit.cpp): the choices that fit the limit, their predicted time (seconds
// since the process started, t_origin on Ctx::now()'s clock) and per length.
struct TimePlan {
  // The schedule chosen: its kind and K, and its re-test (--retest, --retest-seconds, and
  // --retest-hosts priced in per_length); the rest as the command line gave it.
  Schedule schedule;
  int repeats = 0;                                     // -n
  double retest_cost = 0;                              // what the re-test adds to a length
  double limit_s = 0, elapsed_s = 0, predicted_s = 0;  // the limit; before the sweep; at its end
  std::vector<double> per_length;                      // rank 0: each length's predicted seconds
  std::string added;  // the options the plan chose (what the command line left open), e.g. to --resume
  std::string k_note;  // how the calibration chose K (empty when it did not)
  std::string options(const Settings& given) const;
  std::string text() const;                            // the block printed and kept in the files
  void apply(Settings& s) const;
};
// Calibrates on every rank (collective) and chooses; nothing (rank 0 printed the one line) when
// even the cheapest choice does not fit.
std::optional<TimePlan> plan_time_limit(MPI_Comm comm, const Settings& s, const std::vector<std::int64_t>& lengths,
                                        const ModeSpec& spec, const Placement& pl, double t_origin);
// The overrun guard: a LengthGate (collective; rank 0's clock decides) that stops the sweep
// before a length that would end beyond the limit.
class TimeGuard {
 public:
  TimeGuard(const TimePlan& plan, double t_origin);
  bool operator()(Ctx& c, std::size_t k);
  bool stopped() const { return stopped_at_.has_value(); }
  std::string incomplete_line(const std::vector<std::int64_t>& lengths) const;  // rank 0

 private:
  const TimePlan& plan_;
  double t_origin_, t_sweep_ = 0, next_s_ = 0, elapsed_s_ = 0;
  bool started_ = false;
  std::size_t first_ = 0;
  std::optional<std::size_t> stopped_at_;
};

// Runs a mode whose tasks cover every length in one pass (ModeSpec::per_length false).
void run_one_pass(Ctx& c);

}  // namespace nt::measure
