// The per-rank context of a run: what every mode needs (its rank, the run's settings, message
// buffers, the sample store, clock offsets) and the communication helpers the modes code
// against, so that every wait honours the deadline of the task and idle ranks never spin. What
// a task takes (message length, warm-ups, samples and where they go) is the Batch argument of the
// mode's run (mode.hpp), not part of the context; the runner's state is private (RunnerState).
// Mode-specific state (RMA windows, noise buffers, loggp's rows) lives in the mode's ModeRun.
#pragma once

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <mpi.h>
#include <time.h>
#ifdef NT_SMPI
#include <smpi/smpi_helpers_internal.h>  // simulated time under SimGrid's SMPI
#endif

#include "nt/raw_file.hpp"
#include "nt/measure/mode.hpp"
#include "nt/measure/settings.hpp"

namespace nt::measure {

// Timeout: thrown by the waiting helpers; main prints it and aborts the job.
class TimeoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Built against SimGrid's SMPI (preset smpi): ranks are simulated, time is the simulator's.
#ifdef NT_SMPI
inline constexpr bool kSimulated = true;
#else
inline constexpr bool kSimulated = false;
#endif

// A check of a pair's clock offset (Ctx::pair_offset) stops at the first ping-pong whose round trip
// is within this share (plus the slack) of the host pair's fastest.
inline constexpr double kCleanTolerance = 0.05;
inline constexpr double kCleanSlack = 0.05e-6;  // seconds

// Tags of the measurement protocol.
enum Tag : int {
  kTagGo = 100, kTagReady, kTagData, kTagDone, kTagSync, kTagStart, kTagResult, kTagStop, kTagNoise,
  kTagNoiseFlag, kTagExchange, kTagPrecision, kTagRows, kTagChain,
};

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

// The samples a rank holds for the current length: [slot * stride + k] (its row or its column),
// stride = the maximum repeats; flags alike; used = samples taken per slot. Every peer has a slot
// (slot = peer) unless `peers` lists the ones that do (sorted): the schedules of sampled or host
// pairs measure O(K) peers per rank, and a slot per peer was 31 bytes per pair of ranks at -n 3
// (1.2 GB of a 10,000-rank simulation's ranks).
struct SampleStore {
  std::vector<double> values;
  std::vector<std::uint8_t> flags;
  std::vector<int> used;
  int stride = 0;
  std::vector<int> peers;  // the peers with a slot, ascending; empty: every peer
  static constexpr std::size_t kNoSlot = static_cast<std::size_t>(-1);
  // Peer's slot, kNoSlot when it has none.
  std::size_t slot(std::size_t peer) const {
    if (peers.empty()) return peer;
    const auto it = std::lower_bound(peers.begin(), peers.end(), static_cast<int>(peer));
    return it != peers.end() && *it == static_cast<int>(peer) ? static_cast<std::size_t>(it - peers.begin()) : kNoSlot;
  }
  // Where sample k of peer's cell is; the samples of peer's cell (a peer with a slot).
  std::size_t offset(int peer, int k) const {
    return held(static_cast<std::size_t>(peer)) * static_cast<std::size_t>(stride) + static_cast<std::size_t>(k);
  }
  const double* cell(std::size_t peer) const { return values.data() + held(peer) * static_cast<std::size_t>(stride); }
  // Peer's slot; a peer without one is a schedule's bug (it measures a peer it did not list).
  std::size_t held(std::size_t peer) const {
    const std::size_t s = slot(peer);
    if (s == kNoSlot) throw std::logic_error("a sample of a peer this rank's schedule did not list");
    return s;
  }
};

// The clock of another host as this rank knows it (pair clocks, ctx.cpp): its offset to this
// rank's clock (clock(that host) - clock(this host)), the fastest ping-pong round trip seen to it
// (0: none yet) and when the offset was last estimated (Ctx::now()).
struct HostClock {
  double offset = 0, rtt = 0, when = 0;
};

// What the fixed part of the tasks cost on this rank (the summary's "fixed part" line; tests).
struct FixedPart {
  long host_offsets = 0;    // host-pair offsets estimated before the sweep (as the pair's leader)
  long checks = 0;          // tasks whose offset was checked (as the leader)
  long check_rounds = 0;    // the ping-pongs of those checks
  long long_checks = 0;     // checks that needed more than one ping-pong
  long full_estimates = 0;  // checks of a host pair without a round trip to compare with (all K)
  long moved = 0;           // checks whose offset had moved beyond their bound since the last one
  double max_change = 0;    // the largest change of an offset between two checks (seconds)
  long warm_tasks = 0, warm_iterations = 0, warm_capped = 0;  // the warm-up rule (receivers)
};

// What the runner owns in a Ctx (sweep.cpp, task.cpp, precision.cpp, concurrent.cpp, estimate.cpp,
// ...), reached through runner(c) of the runner's runner.hpp; modes see none of it but through
// Ctx's sample_row, flag_row, offset_to_root, rtt_to_root and add_timed.
struct RunnerState {
  ModeRun* mode = nullptr;        // the mode's state for this run
  SampleStore store;              // the samples this rank holds for the current length
  bool calibrating = false;       // --estimate's calibration: fixed sample counts, no --precision
  // The counts the current schedule gives each task (length unset): the run's -n and -w, or a
  // repetition's share of them (concurrent.cpp); run_task makes each task's Batch from it.
  Batch samples;
  // Clock offsets of every rank to rank 0 (clock(r) - clock(0)) and the fastest round trips,
  // held by rank 0 for the common-start modes (measured by the runner's clock-offset tasks).
  std::vector<double> offset_to_root, rtt_to_root;
  double timed_seconds = 0;       // sum of timed intervals on this rank (instrumentation)
  // Pair clocks (ModeSpec::pair_clocks): every host's clock as this rank knows it, by host number,
  // filled for every host pair before the sweep (clocks.cpp) and kept up by each task's check.
  std::vector<HostClock> host_clocks;
  bool host_clocks_measured = false;
  std::vector<char> met;          // peers whose messages this rank has received in a task before
  FixedPart fixed;
};

class Ctx {
 public:
  // Sizes the message buffers for the mode and the sweep's largest length, and the clock
  // offsets and sample store for the ranks of comm. sweep: the message lengths (validated, not
  // empty; kept by reference); host_of_rank: every rank's host (numbered); machine_of_rank: every rank's
  // machine (ranks that share cores); oversubscribed: busy waits yield (more ranks than cores on
  // this machine).
  Ctx(MPI_Comm comm, const Settings& s, const std::vector<std::int64_t>& sweep, const ModeSpec& spec,
      std::vector<int> host_of_rank, std::vector<int> machine_of_rank, bool oversubscribed);
  Ctx(const Ctx&) = delete;
  Ctx& operator=(const Ctx&) = delete;

  // The run as a mode reads it: fixed for the run.
  const MPI_Comm comm;
  const int rank, size;
  const Settings& settings;
  const std::vector<std::int64_t>& lengths;  // the sweep, in order (SweepPlan::lengths)
  const ModeSpec& spec;
  const std::int64_t max_length;         // the sweep's largest length (at least 1)
  const std::vector<int> hosts;          // host of every rank (ranks with one number share a host name)
  const std::vector<int> machines;       // machine of every rank (ranks with one number share cores)
  const bool yield;                      // busy waits call sched_yield (more ranks than cores here)

  // What a mode uses per task (its Batch says how many samples and where they go).
  char* sbuf() { return sbuf_.data(); }  // message buffers, sized for the mode
  char* rbuf() { return rbuf_.data(); }
  // Sample b.base of peer's cell and the ones after it (R of them); flags alike.
  double* sample_row(const Batch& b, int peer) { return runner_.store.values.data() + runner_.store.offset(peer, b.base); }
  std::uint8_t* flag_row(const Batch& b, int peer) { return runner_.store.flags.data() + runner_.store.offset(peer, b.base); }
  // Marks the start of a sample: resets the longest pause between two polls and notes this
  // thread's involuntary context switches, so that sample_flags can tell whether another process
  // took the core meanwhile (MPI_Wait polls inside the MPI library, where no poll gap is seen).
  void begin_sample();
  // A pause of `gap` seconds between two polls of a mode's own polling loop (the waits here note theirs).
  void note_poll_gap(double gap) { poll_gap_ = std::max(poll_gap_, gap); }
  // Flags of the sample that started at `start` (late by the caller's own rule or by waking
  // more than kSchedulerGap after it; preempted when its polling paused for more than
  // kSchedulerGap or the thread was switched out involuntarily since begin_sample).
  std::uint8_t sample_flags(double start, double woke, bool got_late);
  // Only the preempted flag, for a sample without a common start (one-way messages).
  std::uint8_t preempted_flag();
  // Rank 0, common-start modes: every rank's clock offset to rank 0 and fastest round trip.
  const std::vector<double>& offset_to_root() const { return runner_.offset_to_root; }
  const std::vector<double>& rtt_to_root() const { return runner_.rtt_to_root; }
  void add_timed(double seconds) { runner_.timed_seconds += seconds; }  // a timed interval (instrumentation)
  // Deadline handling: the task being run (for messages) and when it must be over.
  void begin_task(const std::string& what, double seconds_allowed);

  // The host's monotonic clock, which every process of a node reads alike (what clock sync
  // "auto" relies on: offset 0 between ranks of one host). Not MPI_Wtime: Open MPI 4 subtracts
  // from it an origin taken in each process's MPI_Init, so two ranks of one host would differ by
  // their start-up skew and one-way delays come out wrong (even negative).
  // Under SMPI (preset smpi) it is the simulated clock: the host's would time the simulator.
  static double now() {
    timespec ts{};
#ifdef NT_SMPI
    smpi_clock_gettime(CLOCK_MONOTONIC, &ts);
#else
    clock_gettime(CLOCK_MONOTONIC, &ts);
#endif
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
  // The clock offset of a task's pair from the host pair's known clock (share/doc/network_test.md,
  // "Clock offsets"): ranks of one host share its clock (offset 0, no message, unless --clock-sync
  // pingpong or need_rtt); across hosts the leader checks it with one ping-pong, more (up to
  // sync_rounds) until one is as fast as the host pair's fastest, and keeps what it found. Both
  // members call it with the same need_rtt; the leader gets {clock(peer) - clock(self), round
  // trip}, the peer {0, 0}.
  std::pair<double, double> pair_offset(int peer, bool leader, bool need_rtt);
  // The warm-up rule of a receiver: true the first time this rank receives in a task from peer
  // (a pair's first task needs at least one warm-up iteration).
  bool first_meeting(int peer);
  // A task's warm-up: the iterations it took before its samples, and whether it stopped at the cap.
  void note_warmup(int iterations, bool capped);
  const FixedPart& fixed_part() const { return runner_.fixed; }

  int count_of(std::int64_t n) const;  // checked int for MPI counts

 private:
  friend struct RunnerAccess;      // the runner's way to runner_ (runner.hpp)
  RunnerState runner_;
  std::vector<char> sbuf_, rbuf_;
  double poll_gap_ = 0;            // longest pause between two polls of the current sample
  long switches_mark_ = -1;        // involuntary context switches at begin_sample (-1: not marked)
  double deadline_ = 0;            // Ctx::now() value when the current task must be over, 0 = none
  std::string what_;               // the current task, for the timeout message
  // The polling loop of wait and waitall: test() until it reports completion, tracking the
  // longest pause (poll_gap_), yielding when oversubscribed and checking the deadline.
  template <class Test>
  void poll(Test&& test);
  // One ping-pong of an offset estimate, as its leader: sends `token`, reads the peer's clock;
  // keeps the fastest round trip in best and its midpoint offset in offset.
  void ping(int peer, char token, double& best, double& offset);
};

// An absolute deadline for a sleeping wait with `tasks_ahead` tasks before it (0: none).
double idle_deadline(const Ctx& c, double tasks_ahead);

}  // namespace nt::measure
