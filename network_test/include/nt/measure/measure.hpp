// network_test's measurement library (nt_measure): settings, the mode registry, the per-rank
// measurement context the modes code against, and the pure helpers (sweeps, schedules, LogGP
// derivation) that the unit tests exercise without MPI.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <mpi.h>
#include <time.h>

#include "nt/error.hpp"
#include "nt/raw_file.hpp"
#include "nt/types.hpp"

namespace CLI {
class App;
}

namespace nt::measure {

// ------------------------------------------------------------------------------------------
// Settings: everything the command line decides. Identical on every rank after parsing.
struct Settings {
  std::string mode_name = "one_to_one";
  Mode mode = Mode::one_to_one;
  std::string prefix = "network";
  int begin = 0, end = 10000, step = 100;
  std::vector<std::int64_t> length_list;  // --lengths
  double geometric = 0.0;                 // --geometric FACTOR (> 1)
  int repeats = 100;                     // samples per pair and length (the maximum with --precision)
  int warmup = 10;
  double precision = 0.0;                 // --precision REL: sample until the median's 95 % CI is within REL
  int min_repeats = 10;                   // --min-repeats: first batch with --precision
  int noise_length = 1024, noise_messages = 10, noise_procs = 1;
  bool noise_procs_given = false;
  std::optional<std::uint64_t> seed;      // resolved on rank 0 when not given
  bool force = false, resume = false, raw = false, shuffle = false, concurrent = false, estimate = false;
  bool list = false, quiet = false;
  std::string progress = "auto";          // auto, bar, lines, none
  std::string yield = "auto";             // busy waits call sched_yield: auto (when oversubscribed), on, off
  double timeout = 0.0;                   // seconds, 0 = none
  int sync_rounds = 10;                   // ping-pongs for a clock-offset estimate
  std::string clock_sync = "auto";        // "auto": same host = shared clock; "pingpong": always estimate
  double idle_sleep_max = 100e-6;         // longest back-off sleep of a waiting rank
  int loggp_n = 8;                        // messages per PRTT(n, ., s) train
  double loggp_break_tol = 0.25;          // relative deviation that breaks the g + G*s fit
  std::string command_line;
  // Derived by finalize():
  std::vector<std::int64_t> lengths;      // the sweep, in order
  std::string sweep_kind;                 // "linear", "list", "geometric"
};

// Builds the sweep from begin/end/step, --lengths or --geometric. Throws UsageError.
std::vector<std::int64_t> make_sweep(const Settings& s, std::string* kind = nullptr);

// ------------------------------------------------------------------------------------------
// Modes
enum class TaskKind {
  ordered_pairs,    // every (x, y), x != y, one after the other
  exchange_pairs,   // every {x, y} x < y once (both directions measured at once), plus (i, i)
  per_root,         // one task per root with every rank (bcast)
  all_ranks,        // one task with every rank (all_to_all)
};

struct Task {
  int x = -1, y = -1;           // sender / receiver (root for per_root), -1 when not used
  int leader = 0;               // the rank that knows when the task is over and signals the next
  std::vector<int> members;     // ranks taking part (leader included), ascending
  std::vector<int> noise;       // noise ranks (noise modes)
  bool sync = false;            // a clock-offset task (leader 0 with rank y) of the common-start modes
  bool has(int r) const;
};

class Ctx;

// Validity flags of one sample (the _all file's sample_flags): what the measuring rank saw.
// kSampleLate: its common start had passed when it got it, or it woke well after it;
// kSamplePreempted: its polling stopped for longer than kSchedulerGap during the sample;
// kSampleNotTaken: --precision stopped before this sample (value NaN). The bits are the file's.
inline constexpr std::uint8_t kSampleLate = kSampleLateFlag, kSamplePreempted = kSamplePreemptedFlag,
                              kSampleNotTaken = kSampleNotTakenFlag;
// A pause longer than this in a rank's polling, or a start missed by more, is the scheduler's
// (another process ran), not the network's: a handover between two ranks sharing a core costs
// about 5 us here, a scheduler time slice is 1 ms or more.
inline constexpr double kSchedulerGap = 50e-6;

// Seconds the `lengths` still to come will take, from (length, seconds) of those done: fitted
// as a + b * length (a, b >= 0); with one length seen, latency and bandwidth are assumed to cost
// the same at 16 KiB. -1 without data. Progress's ETA.
double predict_time(const std::vector<std::pair<std::int64_t, double>>& done, const std::vector<std::int64_t>& lengths);

// The distribution-free 95 % confidence interval of the median of sorted samples (order
// statistics); {lo, hi} are indices into v. Needs v.size() >= 6 for a finite interval.
std::pair<std::size_t, std::size_t> median_ci_indices(std::size_t n);
// True when the 95 % CI of the median of v (unsorted; sorted in place) lies within rel * median.
bool median_precise(std::vector<double>& v, double rel);

struct OptionDoc {
  std::string flags, help;
};

struct ModeSpec {
  Mode mode = Mode::one_to_one;
  std::string name, description;
  TaskKind kind = TaskKind::ordered_pairs;
  bool results_in_rows = true;   // samples held by the sender x (rows) or the receiver y (columns)
  int min_ranks = 2;
  bool uses_noise = false;
  bool needs_window = false;
  bool common_start = false;     // needs clock offsets of every rank to rank 0
  bool concurrent_ok = false;
  std::string sync_method;
  std::vector<OptionDoc> options;                       // mode-specific options, for --list
  std::function<void(CLI::App&, Settings&)> add_options; // may be empty
  std::function<void(Ctx&, const Task&)> run;           // executes one task on a member rank
  // Where the leader reports the pair as stuck: "pair 0->1" etc.
  std::string describe(const Task& t) const;
};

class Registry {
 public:
  void add(ModeSpec spec);
  const ModeSpec* find(Mode m) const;
  const ModeSpec* find(const std::string& name) const;  // canonical names and aliases
  const std::vector<ModeSpec>& all() const { return modes_; }

 private:
  std::vector<ModeSpec> modes_;
};

// The registry with every mode. Filled by an explicit list of registration functions (one per
// mode file), so that static linking cannot drop a mode.
const Registry& registry();
std::string list_modes_text();

// Per-mode registration functions, each defined in network_test/modes/<mode>.cpp.
void register_one_to_one(Registry&);
void register_async_one_to_one(Registry&);
void register_send_recv_and_recv_send(Registry&);
void register_all_to_all(Registry&);
void register_noise(Registry&);
void register_noise_blocking(Registry&);
void register_put(Registry&);
void register_get(Registry&);
void register_bcast(Registry&);
void register_loggp(Registry&);

// ------------------------------------------------------------------------------------------
// Schedules (pure)
std::uint64_t splitmix64(std::uint64_t& state);
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0);
// Deterministic choice of `count` distinct ranks out of [0, P) excluding `exclude`.
std::vector<int> draw_noise(std::uint64_t seed, int P, const std::vector<int>& exclude, int count,
                            std::uint64_t salt);
// Round-robin tournament (circle method): P-1 rounds (P even) or P rounds (P odd) of disjoint
// pairs {a, b} with a < b; every unordered pair appears exactly once.
std::vector<std::vector<std::pair<int, int>>> round_robin(int P);
// Tasks of one length, in execution order (steps of one task each).
std::vector<Task> make_tasks(const ModeSpec& spec, const Settings& s, int P, std::size_t length_index);

// ------------------------------------------------------------------------------------------
// LogGP derivation (pure). Inputs per size s_k: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d_k,s), o_r(s).
struct LoggpFit {
  double L = 0, o_s = 0, o_r = 0, g = 0, G = 0, residual = 0;
  int fit_break = -1;             // first size where the fit breaks, -1 none
  std::size_t fit_points = 0;     // sizes used by the fit
  std::vector<double> gap;        // (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1)
  std::vector<double> osend;      // (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d
};
LoggpFit derive_loggp(const std::vector<std::int64_t>& sizes, int n, const std::vector<double>& prtt1,
                      const std::vector<double>& prttn, const std::vector<double>& prttd,
                      const std::vector<double>& delay, const std::vector<double>& orecv, double break_tol);

// ------------------------------------------------------------------------------------------
// Timeout: thrown by the waiting helpers; main prints it and aborts the job.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Tags of the measurement protocol.
enum Tag : int {
  kTagGo = 100, kTagReady, kTagData, kTagDone, kTagSync, kTagStart, kTagResult, kTagStop, kTagNoise,
  kTagNoiseFlag, kTagExchange, kTagPrecision,
};

// ------------------------------------------------------------------------------------------
// Per-rank context of a run. Modes use only these helpers for communication, so that every wait
// honours the deadline of the task and idle ranks never spin.
class Ctx {
 public:
  Ctx(MPI_Comm comm, const Settings& s, const ModeSpec& spec);
  ~Ctx();
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;

  MPI_Comm comm;
  int rank = 0, size = 0;
  const Settings& settings;
  const ModeSpec& spec;
  int R = 0, W = 0;               // recorded samples and warm-up iterations
  std::int64_t length = 0;        // message length of the current matrix
  std::size_t length_index = 0;
  std::int64_t max_length = 0;
  std::vector<char> sbuf, rbuf;   // message buffers, sized for the mode
  MPI_Win win = MPI_WIN_NULL;
  char* win_base = nullptr;

  // Samples this rank holds for the current length: [peer * stride + k] (its row or its
  // column), stride = the maximum repeats; flags alike; used = samples taken per peer.
  // sample_row() starts at `base`, where --precision appends a further batch.
  std::vector<double> samples;
  std::vector<std::uint8_t> flags;
  std::vector<int> used;
  int stride = 0, base = 0;
  double poll_gap = 0;            // longest pause between two polls of the current sample
  bool calibrating = false;       // --estimate's calibration: fixed sample counts, no --precision
  // Flags of the sample that started at `start` (late by the caller's own rule or by waking
  // more than kSchedulerGap after it), from poll_gap; resets poll_gap.
  std::uint8_t sample_flags(double start, double woke, bool got_late);
  // Clock offsets of every rank to rank 0 (clock(r) - clock(0)) and the fastest round trips,
  // held by rank 0 for the common-start modes.
  std::vector<double> offset_to_root, rtt_to_root;
  std::vector<std::string> hosts;  // host of every rank
  bool yield = false;              // busy waits call sched_yield (more ranks than cores here)
  int stall_rank = -1;             // test hook NT_DEBUG_STALL=rank:length
  std::int64_t stall_length = -1;
  double timed_seconds = 0;       // sum of timed intervals on this rank (instrumentation)

  // Deadline handling: the task being run (for messages) and when it must be over.
  void begin_task(const std::string& what, double seconds_allowed);
  double deadline = 0;            // MPI_Wtime value, 0 = none
  std::string what;

  // The host's monotonic clock, which every process of a node reads alike (what clock sync
  // "auto" relies on: offset 0 between ranks of one host). Not MPI_Wtime: Open MPI 4 subtracts
  // from it an origin taken in each process's MPI_Init, so two ranks of one host would differ by
  // their start-up skew and one-way delays come out wrong (even negative).
  static double now() {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  static double now_resolution() {
    timespec ts{};
    clock_getres(CLOCK_MONOTONIC, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  void check_deadline() const;
  // Busy waiting (active ranks of a task).
  void wait(MPI_Request& req);
  void waitall(std::vector<MPI_Request>& reqs);
  void send(const void* buf, int count, MPI_Datatype type, int dest, int tag);
  void recv(void* buf, int count, MPI_Datatype type, int src, int tag);
  void send_double(double v, int dest, int tag) { send(&v, 1, MPI_DOUBLE, dest, tag); }
  double recv_double(int src, int tag) {
    double v = 0;
    recv(&v, 1, MPI_DOUBLE, src, tag);
    return v;
  }
  // Waits until clock time t (yielding when oversubscribed); returns the time it saw, >= t.
  double spin_until(double t) const;
  // Sleeping wait (idle ranks): MPI_Test + nanosleep with exponential back-off.
  void idle_wait(MPI_Request& req, double deadline_abs, const std::string& on_timeout);

  // Clock offset by the fastest of sync_rounds ping-pongs. The leader gets
  // {clock(peer) - clock(self), fastest round trip}; the peer gets {0, 0}.
  std::pair<double, double> estimate_offset(int peer, bool leader);

  // Noise traffic of the noise ranks of task t, until the leader stops it (noise modes).
  void run_noise(const Task& t);
  // Leader side: stop the noise ranks of t and wait until they are done.
  void stop_noise(const Task& t);

  int count_of(std::int64_t n) const;  // checked int for MPI counts
  std::vector<char> noise_sbuf, noise_rbuf;
  // loggp: per peer, 5 blocks of S values (prtt1, prttn, prttd, delay, orecv).
  std::vector<double> loggp_rows;
  std::vector<std::int64_t> sizes;  // the whole sweep
  double* sample_row(int peer) {
    return samples.data() + static_cast<std::size_t>(peer) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(base);
  }
  std::uint8_t* flag_row(int peer) {
    return flags.data() + static_cast<std::size_t>(peer) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(base);
  }
};

// Runs network_test with MPI initialised; returns the exit code (every rank returns the same).
int run_network_test(int argc, char** argv);

// Host information of this rank.
struct RankInfo {
  std::string host;
  int cpu = -1, numa = -1;
  std::string binding = "unknown";  // cores the rank may run on, e.g. "0-3 (4 of 8)"
  std::string node = "unknown";     // its node's CPU: model, sockets, cores, hardware threads
};
RankInfo this_rank_info();
std::string mpi_library_version();
std::string utc_now_iso();

}  // namespace nt::measure
