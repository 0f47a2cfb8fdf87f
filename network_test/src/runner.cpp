// The measurement driver: task order, turn-taking without spinning, gathering and writing.
//
// Turn-taking: every rank knows the task list of a length (it is computed from the settings and
// the seed alone). The leader of task u-1 (the rank that knows when it is over) sends a "go"
// message to the members of task u; a rank waits for its go with MPI_Irecv + MPI_Test + nanosleep
// back-off, so ranks without work sleep instead of spinning in MPICH's progress engine. Rank 0
// opens every length after it has written the previous one.
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <limits>
#include <type_traits>
#include <utility>
#include <numeric>

#include <fmt/format.h>

#include "internal.hpp"
#include "nt/dataset.hpp"
#include "nt/stats.hpp"

namespace nt::measure {

// ---------------------------------------------------------------------------------------------
// Progress

namespace {
// Under mpiexec a rank's stderr is a pipe to the launcher even when the user watches a terminal,
// so "auto" also takes an interactive-looking environment (TERM set, not in a batch job).
bool looks_interactive() {
  if (isatty(STDERR_FILENO)) return true;
  const char* term = std::getenv("TERM");
  if (!term || std::string(term).empty() || std::string(term) == "dumb") return false;
  for (const char* batch : {"SLURM_JOB_ID", "PBS_JOBID", "LSB_JOBID", "JOB_ID", "FLUX_JOB_ID"})
    if (std::getenv(batch)) return false;
  return true;
}
}  // namespace

Progress::Progress(const std::string& style, const std::vector<std::int64_t>& lengths)
    : enabled_(style != "none"), tty_(style == "bar" || (style == "auto" && looks_interactive())), lengths_(lengths) {
  start_ = last_ = mark_ = MPI_Wtime();
}

double predict_time(const std::vector<std::pair<std::int64_t, double>>& done,
                    const std::vector<std::int64_t>& lengths) {
  if (done.empty()) return -1;
  // Least squares of d = c0 + c1 * L, both non-negative.
  double n = 0, sl = 0, sd = 0, sll = 0, sld = 0;
  for (const auto& [l, d] : done) {
    const auto x = static_cast<double>(l);
    n += 1;
    sl += x;
    sd += d;
    sll += x * x;
    sld += x * d;
  }
  const double var = sll - sl * sl / n;
  double c0 = 0, c1 = 0;
  if (var > 0 && n >= 2) {
    c1 = (sld - sl * sd / n) / var;
    c0 = (sd - c1 * sl) / n;
    if (c1 < 0) {
      c1 = 0;
      c0 = sd / n;
    } else if (c0 < 0) {
      c0 = 0;
      c1 = sld / sll;
    }
  } else {
    // One length (or one size) seen: assume latency and bandwidth cost the same at 16 KiB, a
    // typical crossover, until longer lengths tell.
    const double l = sl / n, d = sd / n;
    c1 = d / (l + 16384.0);
    c0 = c1 * 16384.0;
  }
  double t = 0;
  for (auto l : lengths) t += c0 + c1 * static_cast<double>(l);
  return t;
}

namespace {
std::string clock_text(double s) {
  if (!std::isfinite(s) || s < 0) return "?";
  const auto t = static_cast<long>(s + 0.5);
  return t >= 3600 ? fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60)
                   : fmt::format("{}:{:02}", t / 60, t % 60);
}
}  // namespace

void Progress::update(std::size_t k, std::int64_t length) {
  if (!enabled_) return;
  // Weighted by predicted time: the time of each length so far, fitted as a + b * length,
  // predicts the lengths still to come (a geometric sweep's last lengths dominate its time).
  const double now = MPI_Wtime();
  done_.emplace_back(length, now - mark_);
  mark_ = now;
  const std::vector<std::int64_t> rest(lengths_.begin() + static_cast<std::ptrdiff_t>(k + 1), lengths_.end());
  show(k, length, now, rest.empty() ? 0.0 : predict_time(done_, rest), k + 1 == lengths_.size());
}

void Progress::within(std::size_t k, double fraction) {
  if (!enabled_ || !(fraction > 0.0) || fraction >= 1.0) return;
  const double now = MPI_Wtime();
  if (now - last_ < (tty_ ? 0.2 : 10.0)) return;
  // This length at its pace so far, the lengths after it as update() predicts them (with this
  // length's projected time among the lengths done).
  const double so_far = now - mark_, projected = so_far / fraction;
  auto done = done_;
  done.emplace_back(lengths_[k], projected);
  const std::vector<std::int64_t> rest(lengths_.begin() + static_cast<std::ptrdiff_t>(k + 1), lengths_.end());
  show(k, lengths_[k], now, projected - so_far + (rest.empty() ? 0.0 : predict_time(done, rest)), false);
}

void Progress::show(std::size_t k, std::int64_t length, double now, double eta, bool last) {
  const double elapsed = now - start_;
  const double frac = eta >= 0 && elapsed + eta > 0 ? elapsed / (elapsed + eta) : 0.0;
  const std::size_t n = lengths_.size();
  if (tty_) {
    if (now - last_ < 0.2 && !last) return;
    const int width = 30, fill = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r[%s%s] %3d%%  length %lld (%zu/%zu)  elapsed %s  ETA %s   ",
                 std::string(static_cast<std::size_t>(fill), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - fill), '.').c_str(), static_cast<int>(frac * 100),
                 static_cast<long long>(length), k + 1, n, clock_text(elapsed).c_str(), clock_text(eta).c_str());
  } else {
    if (now - last_ < 10.0 && !last) return;
    std::fprintf(stderr, "network_test: %3d%% done, length %lld (%zu/%zu), elapsed %s, ETA %s\n",
                 static_cast<int>(frac * 100), static_cast<long long>(length), k + 1, n, clock_text(elapsed).c_str(),
                 clock_text(eta).c_str());
  }
  std::fflush(stderr);
  last_ = now;
}

void Progress::finish() {
  if (enabled_ && tty_) std::fprintf(stderr, "\n");
}

// ---------------------------------------------------------------------------------------------
// Task execution

namespace {

void run_sync_task(Ctx& c, const Task& t) {
  if (c.rank == 0) {
    const auto [off, rtt] = c.estimate_offset(t.y, true);
    c.offset_to_root[static_cast<std::size_t>(t.y)] = off;
    c.rtt_to_root[static_cast<std::size_t>(t.y)] = rtt;
  } else if (c.rank == t.y) {
    c.estimate_offset(0, false);
  }
}

// Test hook (NT_DEBUG_STALL=rank:length): this rank stops responding, as a hung node would.
struct DebugStall {
  int rank = -1;
  std::int64_t length = -1;
  DebugStall() {
    long long r = -1, l = -1;
    if (const char* e = std::getenv("NT_DEBUG_STALL"); e && std::sscanf(e, "%lld:%lld", &r, &l) == 2) {
      rank = static_cast<int>(r);
      length = l;
    }
  }
};

}  // namespace

void run_task(Ctx& c, const Task& t, std::int64_t length) {
  static const DebugStall stall;
  if (c.rank == stall.rank && length == stall.length && !c.calibrating)
    for (;;) sleep(1);
  c.begin_task(c.spec.describe(t) + " at length " + std::to_string(length), c.settings.timeout);
  // Oversubscribed machine: put the two measured ranks on different cores for the task, so that
  // they never take turns on one core while the other is busy elsewhere.
  cpu_set_t saved;
  bool pinned = false;
  if (c.yield && !t.sync && t.x >= 0 && t.y >= 0 && t.x != t.y && (c.rank == t.x || c.rank == t.y) &&
      c.machines[static_cast<std::size_t>(t.x)] == c.machines[static_cast<std::size_t>(t.y)] &&
      sched_getaffinity(0, sizeof saved, &saved) == 0 && CPU_COUNT(&saved) >= 2) {
    int want = c.rank == t.x ? 0 : 1, seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &saved) && seen++ == want) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pinned = sched_setaffinity(0, sizeof one, &one) == 0;
        break;
      }
  }
  if (t.sync)
    run_sync_task(c, t);
  else if (c.settings.precision > 0 && !c.calibrating)
    run_adaptive(c, t, [&] { c.mode->run(c, t, length); });
  else
    c.mode->run(c, t, length);
  if (pinned) sched_setaffinity(0, sizeof saved, &saved);
  c.begin_task({}, 0);
}

double idle_deadline(const Ctx& c, double tasks_ahead) {
  if (c.settings.timeout <= 0) return 0;
  return Ctx::now() + c.settings.timeout * std::max(1.0, tasks_ahead) + 30.0;
}

namespace {
#ifdef NT_SMPI
constexpr bool kSimulatedClock = true;
#else
constexpr bool kSimulatedClock = false;
#endif
// Waits for a "go" that is due soon (this rank was told it is next): no sleeping back-off, whose
// pauses of up to --idle-sleep-max would be paid at every hand-over. Under SMPI a blocking wait
// is exact and costs no host time.
void ready_wait([[maybe_unused]] Ctx& c, MPI_Request& req, double deadline, const std::string& why) {
#ifdef NT_SMPI
  (void)deadline;
  (void)why;
  MPI_Wait(&req, MPI_STATUS_IGNORE);
#else
  int flag = 0;
  for (unsigned i = 0;; ++i) {
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    if ((i & 1023) == 1023 && deadline > 0 && Ctx::now() > deadline) throw TimeoutError(why);
  }
#endif
}
}  // namespace

// The positions of the tasks `rank` takes part in, ascending (every task computed only when the
// list cannot tell).
template <class List>
std::vector<std::size_t> member_positions(const List& tasks, int rank) {
  if constexpr (std::is_same_v<List, TaskList>)
    if (auto pos = tasks.positions_of(rank)) return std::move(*pos);
  std::vector<std::size_t> pos;
  for (std::size_t u = 0; u < tasks.size(); ++u)
    if (tasks[u].has(rank)) pos.push_back(u);
  return pos;
}

// Hand-over: the leader of task u-1 sends "go" to the members of task u when u-1 is over. The
// same rank, when it sends the go of u-1, also tells the members of task u that are not in u-1
// that they are next ("ready"): they stop sleeping and poll for their go, so the hand-over costs
// a message latency instead of a sleep of up to --idle-sleep-max. Both sides derive who sends
// what from the task list alone, so the messages from one rank arrive in the order expected.
//
// A rank acts at step u only when it takes part in task u or led task u-1 (rank 0 also sends the
// go of task 0); it visits those steps alone, O(P) of the P(P-1) (computing every task on every
// rank was O(P^2) per rank and length: O(P^3) host time in a simulation, a third of the host
// time at 1,024 simulated ranks).
template <class List>
std::size_t run_sequential_list(Ctx& c, const List& tasks, std::int64_t length, const StepHook& on_step) {
  char go = 1;
  long last = -1;
  const std::size_t n = tasks.size();
  const std::vector<std::size_t> mine = member_positions(tasks, c.rank);
  // Tasks u-1, u and u+1 of the current step, and the leader of u-2 (it sent the go of u-1 and
  // the ready of u); moved along when the steps are consecutive.
  Task prev, cur, next;
  int prev_prev_leader = 0;
  std::size_t at = n;
  auto load = [&](std::size_t u) {
    if (at < n && u == at + 1) {
      prev_prev_leader = at >= 1 ? prev.leader : 0;
      prev = std::move(cur);
      cur = std::move(next);
    } else {
      prev_prev_leader = u >= 2 ? tasks[u - 2].leader : 0;
      prev = u >= 1 ? tasks[u - 1] : Task{};
      cur = tasks[u];
    }
    next = u + 1 < n ? tasks[u + 1] : Task{};
    at = u;
  };
  std::size_t q = 0;
  std::size_t led = c.rank == 0 && n > 0 ? 0 : n;  // a step where this rank sends a go only
  for (;;) {
    std::size_t u;
    if (led < n && (q >= mine.size() || led <= mine[q])) {
      u = led;
      if (q < mine.size() && mine[q] == u) ++q;
    } else if (q < mine.size()) {
      u = mine[q++];
    } else {
      break;
    }
    led = n;
    if (on_step) on_step(static_cast<double>(u) / static_cast<double>(n));
    load(u);
    const Task& t = cur;
    const int prev_leader = u == 0 ? 0 : prev.leader;
    if (c.rank == prev_leader) {
      for (int m : t.members)
        if (m != c.rank) c.send(&go, 1, MPI_CHAR, m, kTagGo);
      if (u + 1 < n) {
        char ready = 2;
        for (int m : next.members)
          if (m != c.rank && !t.has(m)) c.send(&ready, 1, MPI_CHAR, m, kTagGo);
      }
    }
    if (t.has(c.rank)) {
      if (c.rank != prev_leader) {
        const std::string why =
            u == 0 ? fmt::format("timeout: rank {} got no start signal for length {} from rank 0", c.rank, length)
                   : fmt::format("timeout: rank {} waited for its turn too long: {} at length {} did not finish",
                                 c.rank, c.spec.describe(prev), length);
        const double deadline = idle_deadline(c, static_cast<double>(static_cast<long>(u) - last));
        // Told it is next (a ready from the sender of the go of task u-1)?
        const bool told = u >= 1 && !prev.has(c.rank) && c.rank != prev_prev_leader;
        if (told) {
          char ready = 0;
          MPI_Request req;
          MPI_Irecv(&ready, 1, MPI_CHAR, prev_prev_leader, kTagGo, c.comm, &req);
#ifdef NT_SMPI
          MPI_Wait(&req, MPI_STATUS_IGNORE);  // each MPI_Test of a poll costs simulated time
#else
          c.idle_wait(req, deadline, why);
#endif
        }
        MPI_Request req;
        MPI_Irecv(&go, 1, MPI_CHAR, prev_leader, kTagGo, c.comm, &req);
        // Told, or in task u-1, or the sender of the readies: the go is near. On an oversubscribed
        // host polling would take the core from the measuring pair: sleep as before there.
        if ((u >= 1 && !c.yield) || kSimulatedClock)
          ready_wait(c, req, deadline, why);
        else  // the first task waits for rank 0 to write the previous length
          c.idle_wait(req, deadline, why);
      }
      run_task(c, t, length);
      last = static_cast<long>(u);
      if (t.leader == c.rank && u + 1 < n) led = u + 1;  // it sends the go of task u+1
    }
  }
  return mine.capacity() * sizeof mine[0];
}

std::size_t run_sequential(Ctx& c, const std::vector<Task>& tasks, std::int64_t length, const StepHook& on_step) {
  return run_sequential_list(c, tasks, length, on_step);
}
std::size_t run_sequential(Ctx& c, const TaskList& tasks, std::int64_t length, const StepHook& on_step) {
  return run_sequential_list(c, tasks, length, on_step);
}

void idle_barrier(Ctx& c, MPI_Comm comm, double deadline, const std::string& why) {
#ifdef NT_SMPI
  // SMPI 3.32: an MPI_Ibarrier on a node's communicator between two on the world's deadlocked the
  // simulation (every rank in a wait, found by SimGrid) whenever several ranks shared a simulated
  // host; a blocking barrier is what the blocking wait below amounts to there anyway.
  (void)c;
  (void)deadline;
  (void)why;
  MPI_Barrier(comm);
#else
  MPI_Request req;
  MPI_Ibarrier(comm, &req);
  c.idle_wait(req, deadline, why);
#endif
}

void idle_barrier(Ctx& c, double tasks_ahead, std::int64_t length) {
  idle_barrier(c, c.comm, idle_deadline(c, tasks_ahead),
               fmt::format("timeout: rank {} waited too long for the other pairs at length {}", c.rank, length));
}


// ---------------------------------------------------------------------------------------------
// The sweep

namespace {

// Time spent writing is host time (under SMPI, Ctx::now is the simulated clock, which file I/O
// does not advance).
double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Test hook (NT_DEBUG_SYNTHETIC=1): the samples, flags and counts of this rank are replaced by a
// function of (sender, receiver, length, sample) after the measurement, so that two runs write
// the same values and their files can be compared byte for byte (parallel vs gathered writing).
bool synthetic_samples() {
  static const bool on = std::getenv("NT_DEBUG_SYNTHETIC") != nullptr;
  return on;
}

void fill_synthetic(Ctx& c, std::int64_t length) {
  const auto RU = static_cast<std::size_t>(c.store.stride);
  for (std::size_t q = 0; q < static_cast<std::size_t>(c.size); ++q) {
    const auto r = static_cast<std::size_t>(c.rank);
    const std::size_t x = c.spec.results_in_rows ? r : q, y = c.spec.results_in_rows ? q : r;
    if (c.settings.precision > 0)
      c.store.used[q] = c.settings.min_repeats + static_cast<int>((x + 2 * y) % (RU - static_cast<std::size_t>(c.settings.min_repeats) + 1));
    for (std::size_t i = 0; i < RU; ++i) {
      c.store.values[q * RU + i] = 1e-6 * (1.0 + 0.25 * static_cast<double>(x) + 0.0625 * static_cast<double>(y) +
                                           1e-3 * static_cast<double>(length) + 0.01 * static_cast<double>((i * 7) % 5));
      c.store.flags[q * RU + i] = static_cast<std::uint8_t>((x + y + i) % 4 == 0 ? kSampleLate : 0);
    }
  }
}

// The parallel writers: one rank per node (node rank 0) holds one RawRowWriter per result file,
// open on the files rank 0 created (or reopened for --resume), in the order of out->stats, then
// the _all file, and writes the rows of every rank of its node; with NT_WRITE=ranks every rank
// holds them and writes its own rows. One writer per node keeps the open files at 5 per node
// instead of 5 per rank (a node of 128 ranks opened 640; the 4,096 ranks of a simulation, all in
// one process, passed its limit of 20,000 and fell back to gathering on rank 0) and the writers
// of a file at one per node.
struct RowFiles {
  std::vector<RawRowWriter> stats;
  std::optional<RawRowWriter> all;
  // The ranks of this node: node rank 0 syncs each file for all of them (fsync flushes every
  // dirty page of the file in the node's cache, whoever wrote it).
  MPI_Comm node = MPI_COMM_NULL;
  int node_rank = 0;
  bool writer = false;        // this rank has the files open and writes rows
  bool per_rank = false;      // NT_WRITE=ranks: every rank writes its own rows
  std::vector<int> members;   // node writer: the world ranks of the node, in node rank order
  RowFiles() = default;
  RowFiles(RowFiles&& o) noexcept
      : stats(std::move(o.stats)), all(std::move(o.all)), node(std::exchange(o.node, MPI_COMM_NULL)),
        node_rank(o.node_rank), writer(o.writer), per_rank(o.per_rank), members(std::move(o.members)) {}
  RowFiles& operator=(RowFiles&&) = delete;
  ~RowFiles() {
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  }
};

// Collective. Every writer opens the files rank 0 has open, by the absolute paths rank 0 sends,
// and proves it sees the same file (digest of the header). Anything else (a writer that cannot
// open them, a node-local directory, NT_WRITE=gather): nullopt, and rank 0 gathers and writes as
// before (refused when P x P matrices on rank 0 exceed the memory limit).
// The absolute paths of the files rank 0 has open (out->stats, then the _all file), on every rank.
std::vector<std::string> result_paths(const Ctx& c, const Output* out) {
  std::vector<std::string> paths;
  int n = 0;
  if (c.rank == 0) {
    for (const auto& [st, w] : out->stats) paths.push_back(std::filesystem::absolute(w.path()).string());
    if (out->all) paths.push_back(std::filesystem::absolute(out->all->path()).string());
    n = static_cast<int>(paths.size());
  }
  MPI_Bcast(&n, 1, MPI_INT, 0, c.comm);
  paths.resize(static_cast<std::size_t>(n));
  for (auto& p : paths) {
    int len = static_cast<int>(p.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, c.comm);
    p.resize(static_cast<std::size_t>(len));
    MPI_Bcast(p.data(), len, MPI_CHAR, 0, c.comm);
  }
  return paths;
}

std::optional<RowFiles> open_row_files(Ctx& c, Output* out) {
  const bool raw = c.settings.raw;
  RecordExtras stat_extras, all_extras;
  stat_extras.sample_count = c.settings.precision > 0;
  stat_extras.isolated = retest_enabled(c.settings);
  all_extras.sample_flags = true;
  const std::vector<std::string> paths = result_paths(c, out);
  const char* mode = std::getenv("NT_WRITE");
  int ok = mode && std::string(mode) == "gather" ? 0 : 1;
  RowFiles files;
  int per_rank = mode && std::string(mode) == "ranks" ? 1 : 0;
  MPI_Bcast(&per_rank, 1, MPI_INT, 0, c.comm);  // rank 0's choice: ranks must agree on the writers
  files.per_rank = per_rank != 0;
  // Rank 0 is node rank 0 of its node (key: world rank), so it is a writer and can commit.
  MPI_Comm_split_type(c.comm, MPI_COMM_TYPE_SHARED, c.rank, MPI_INFO_NULL, &files.node);
  MPI_Comm_rank(files.node, &files.node_rank);
  files.writer = files.per_rank || files.node_rank == 0;
  if (!files.per_rank) {
    int n = 0;
    MPI_Comm_size(files.node, &n);
    if (files.writer) files.members.resize(static_cast<std::size_t>(n));
    MPI_Gather(&c.rank, 1, MPI_INT, files.members.data(), 1, MPI_INT, 0, files.node);
  }
  std::vector<std::uint64_t> digests;
  std::string why = mode ? "NT_WRITE=gather" : "";
  if (ok && files.writer) {
    try {
      const std::size_t nstats = raw ? paths.size() - 1 : paths.size();
      for (std::size_t i = 0; i < paths.size(); ++i) {
        if (i < nstats)
          files.stats.emplace_back(paths[i], c.size, 0, stat_extras);
        else
          files.all.emplace(paths[i], c.size, c.store.stride, all_extras);
      }
      for (const auto& f : files.stats) digests.push_back(f.header_digest());
      if (files.all) digests.push_back(files.all->header_digest());
    } catch (const Error& e) {
      ok = 0;
      why = fmt::format("rank {}: {}", c.rank, e.what());
    }
  }
  std::vector<std::uint64_t> root(paths.size());
  if (c.rank == 0 && ok) root = digests;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_UINT64_T, 0, c.comm);
  if (ok && files.writer && digests != root) {
    ok = 0;
    why = fmt::format("rank {} sees other files under the same names (a node-local directory?)", c.rank);
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c.comm);
  // Rank 0's libnetcdf handles stay open, unused, until the end (closing a resumed file early
  // would let libnetcdf pad a cut last record with zeros before it is written again).
  if (all_ok) return files;
  // Tell rank 0 why (the first rank that failed), for its note.
  int first_bad = ok ? c.size : c.rank, bad = 0;
  MPI_Allreduce(&first_bad, &bad, 1, MPI_INT, MPI_MIN, c.comm);
  if (bad > 0 && bad < c.size) {
    if (c.rank == bad) {
      int len = static_cast<int>(why.size());
      MPI_Send(&len, 1, MPI_INT, 0, kTagGo, c.comm);
      MPI_Send(why.data(), len, MPI_CHAR, 0, kTagGo, c.comm);
    } else if (c.rank == 0) {
      int len = 0;
      MPI_Recv(&len, 1, MPI_INT, bad, kTagGo, c.comm, MPI_STATUS_IGNORE);
      why.resize(static_cast<std::size_t>(len));
      MPI_Recv(why.data(), len, MPI_CHAR, bad, kTagGo, c.comm, MPI_STATUS_IGNORE);
    }
  }
  if (c.rank == 0) {
    const auto PU = static_cast<long double>(c.size);
    const long double bytes = PU * PU * (16.0L + (raw ? 18.0L * static_cast<long double>(c.store.stride) : 0.0L));
    if (bytes > static_cast<long double>(memory_limit()))
      throw UsageError(fmt::format("the ranks cannot write the result files in parallel ({}), and gathering {} ranks{} "
                                   "on rank 0 needs {:.3g} GB per length, more than the memory limit of {:.3g} GB "
                                   "(NT_MEMORY_LIMIT changes it)",
                                   why, c.size, raw ? " with --raw" : "", static_cast<double>(bytes) / 1e9,
                                   static_cast<double>(memory_limit()) / 1e9));
    if (!mode && !c.settings.quiet)
      std::fprintf(stderr, "network_test: note: rank 0 gathers and writes every result (%s)\n", why.c_str());
  }
  return std::nullopt;
}

// One rank's sweep: the buffers it keeps from length to length (at their largest, what the rank
// holds besides MPI's own) and the steps of one length: measure, summarise, write.
class Sweep {
 public:
  Sweep(Ctx& c, Output* out, Progress* progress, FlagCounts* counts, double& write_seconds, double& data_bytes)
      : c_(c), out_(out), progress_(progress), counts_(counts), write_seconds_(write_seconds), data_bytes_(data_bytes),
        PU_(static_cast<std::size_t>(c.size)), RU_(static_cast<std::size_t>(c.store.stride)), raw_(c.settings.raw),
        adaptive_(c.settings.precision > 0), retest_(retest_enabled(c.settings)), local_(NS_ * PU_),
        rows_(init_store_and_open(c, out)),
        raw_gathered_(!rows_ && c.rank == 0 && raw_ ? PU_ * PU_ * RU_ : 0),
        flags_gathered_(!rows_ && c.rank == 0 && raw_ ? PU_ * PU_ * RU_ : 0),
        used_gathered_(!rows_ && c.rank == 0 && adaptive_ ? PU_ * PU_ : 0) {}

  // Measures length k of the sweep and writes it.
  void run_length(std::size_t k);

 private:
  static std::optional<RowFiles> init_store_and_open(Ctx& c, Output* out) {
    const auto n = static_cast<std::size_t>(c.size) * static_cast<std::size_t>(c.store.stride);
    c.store.values.assign(n, 0.0);
    c.store.flags.assign(n, 0);
    return open_row_files(c, out);
  }
  // Summaries of every peer's samples into local_ ([statistic * P + peer]); samples not taken
  // (--precision) become NaN with kSampleNotTaken. Returns this rank's late and preempted counts.
  std::array<long, 2> summarize_samples();
  void wait(MPI_Request& req, const char* what);
  void gather(const void* send, int count, MPI_Datatype type, void* recv, const char* what);
  // Parallel writing: this rank's row of every file, written by its node's writer (or itself with
  // NT_WRITE=ranks), then the records committed by rank 0.
  void rows_of_this_rank();
  void put_rows(std::size_t k, int x);  // the row buffers as row x of record k of every file
  void row_to_writer();
  void rows_of_the_node(std::size_t k);
  void write_rows(std::size_t k, const long* flagged_all, std::size_t task_bytes);
  // Fallback: rank 0 gathers every statistic (and the samples with --raw) and writes them.
  void gather_and_write(std::size_t k, const long* flagged_all, std::size_t task_bytes);
  void write_raw_record();
  // Where rank r's cell for peer q goes: r held its row (sender) or its column (receiver).
  std::pair<std::size_t, std::size_t> cell(std::size_t r, std::size_t q) const {
    return c_.spec.results_in_rows ? std::make_pair(r, q) : std::make_pair(q, r);
  }
  void count_data(std::size_t task_bytes);

  Ctx& c_;
  Output* out_;
  Progress* progress_;
  FlagCounts* counts_;
  double& write_seconds_;
  double& data_bytes_;
  const std::vector<Statistic>& gather_order_ = standard_statistics();  // the statistics gathered, in this order
  const std::size_t NS_ = standard_statistics().size();
  const std::size_t PU_, RU_;
  const bool raw_, adaptive_, retest_;
  std::int64_t length_ = 0;  // the length being measured
  double ahead_ = 0;         // tasks ahead of a waiting rank (its timeout)
  std::vector<double> local_;
  std::vector<double> isolated_;  // --retest: this rank's line of each statistic measured alone, like local_
  RetestResult retested_;
  std::optional<RowFiles> rows_;
  // Fallback: rank 0 gathers one statistic at a time (P x P doubles, plus the matrix it writes
  // when the orientation needs a transposition); with --raw every sample.
  std::vector<double> gathered_;
  std::vector<double> raw_gathered_, raw_record_;
  std::vector<std::uint8_t> flags_gathered_, flags_record_;
  std::vector<int> used_gathered_, used_record_;
  // Parallel: this rank's row of every file. A rank holding a column (results_in_rows false)
  // exchanges it with one MPI_Alltoall: O(P x samples) per rank, never P x P.
  std::vector<double> row_stats_, row_raw_, xfer_, row_isolated_;
  std::vector<std::uint8_t> row_flags_;
  std::vector<int> row_used_;
};

void Sweep::run_length(std::size_t k) {
  length_ = c_.lengths[k];
  std::fill(c_.store.values.begin(), c_.store.values.end(), 0.0);
  std::fill(c_.store.flags.begin(), c_.store.flags.end(), std::uint8_t{0});
  c_.store.used.assign(PU_, c_.store.stride);
  const TaskList tasks(c_.spec, c_.settings, c_.size, k);
  std::size_t task_bytes = tasks.bytes();
  StepHook on_step;
  if (progress_) on_step = [this, k](double fraction) { progress_->within(k, fraction); };
  if (c_.settings.concurrent)
    task_bytes += run_concurrent(c_, k, length_, on_step);
  else
    task_bytes += run_sequential(c_, tasks, length_, on_step);

  if (synthetic_samples()) fill_synthetic(c_, length_);
  const std::array<long, 2> flagged = summarize_samples();  // this rank's late / preempted samples
  if (retest_) {
    const auto at = static_cast<std::ptrdiff_t>(
        std::find(gather_order_.begin(), gather_order_.end(), Statistic::median) - gather_order_.begin());
    const std::vector<double> medians(local_.begin() + at * static_cast<std::ptrdiff_t>(PU_),
                                      local_.begin() + (at + 1) * static_cast<std::ptrdiff_t>(PU_));
    retested_ = run_retest(c_, k, length_, medians, isolated_);
  }
  ahead_ = c_.settings.concurrent ? static_cast<double>(c_.size) : static_cast<double>(tasks.size());
  long flagged_all[2] = {0, 0};
  {
    MPI_Request req;
    MPI_Ireduce(flagged.data(), flagged_all, 2, MPI_LONG, MPI_SUM, 0, c_.comm, &req);
    wait(req, "flag counts");
  }
  if (rows_)
    write_rows(k, flagged_all, task_bytes);
  else
    gather_and_write(k, flagged_all, task_bytes);
}

std::array<long, 2> Sweep::summarize_samples() {
  std::array<long, 2> flagged{0, 0};
  for (std::size_t q = 0; q < PU_; ++q) {
    const auto n = static_cast<std::size_t>(c_.store.used[q]);
    double* row = c_.store.values.data() + q * RU_;
    std::uint8_t* fl = c_.store.flags.data() + q * RU_;
    for (std::size_t i = 0; i < n; ++i) {
      flagged[0] += (fl[i] & kSampleLate) ? 1 : 0;
      flagged[1] += (fl[i] & kSamplePreempted) ? 1 : 0;
    }
    const Summary s = summarize(std::span<const double>(row, n));
    for (std::size_t i = n; i < RU_; ++i) {  // not taken (--precision): missing in the _all file
      row[i] = std::numeric_limits<double>::quiet_NaN();
      fl[i] = kSampleNotTaken;
    }
    for (std::size_t i = 0; i < NS_; ++i)  // [statistic * P + peer]
      local_[i * PU_ + q] = summary_value(s, gather_order_[i]);
  }
  return flagged;
}

void Sweep::wait(MPI_Request& req, const char* what) {
  c_.idle_wait(req, idle_deadline(c_, ahead_),
               fmt::format("timeout: rank {} waited too long for the {} of length {}", c_.rank, what, length_));
}

void Sweep::gather(const void* send, int count, MPI_Datatype type, void* recv, const char* what) {
  MPI_Request req;
  MPI_Igather(send, count, type, recv, count, type, 0, c_.comm, &req);
  wait(req, what);
}

void Sweep::count_data(std::size_t task_bytes) {
  auto bytes = [](const auto& v) { return static_cast<double>(v.capacity() * sizeof(v[0])); };
  double b = bytes(c_.store.values) + bytes(c_.store.flags) + bytes(c_.store.used) + bytes(local_) + bytes(gathered_) +
             bytes(raw_gathered_) + bytes(raw_record_) + bytes(flags_gathered_) + bytes(flags_record_) +
             bytes(used_gathered_) + bytes(used_record_) + bytes(row_stats_) + bytes(row_raw_) + bytes(xfer_) +
             bytes(row_flags_) + bytes(row_used_) + bytes(c_.machines) + bytes(c_.hosts) +
             static_cast<double>(task_bytes);
  data_bytes_ = std::max(data_bytes_, b);
}

void Sweep::rows_of_this_rank() {
  // This rank's row r: cell (r, q) for every q, of every statistic, its count and samples.
  row_stats_.resize(NS_ * PU_);
  row_used_.resize(adaptive_ ? PU_ : 0);
  row_raw_.resize(raw_ ? PU_ * RU_ : 0);
  row_flags_.resize(raw_ ? PU_ * RU_ : 0);
  row_isolated_.resize(retest_ ? NS_ * PU_ : 0);
  const auto& store = c_.store;
  if (c_.spec.results_in_rows) {
    std::copy(local_.begin(), local_.end(), row_stats_.begin());
    if (retest_) std::copy(isolated_.begin(), isolated_.end(), row_isolated_.begin());
    if (adaptive_) std::copy(store.used.begin(), store.used.end(), row_used_.begin());
    if (raw_) {
      std::copy(store.values.begin(), store.values.end(), row_raw_.begin());
      std::copy(store.flags.begin(), store.flags.end(), row_flags_.begin());
    }
    return;
  }
  // Rank r holds column r: cell (q, r) for every q. To peer q: everything of cell (q, r)
  // packed as doubles (statistics, count, samples, flags, isolated statistics); from q: cell (r, q).
  const std::size_t iso = NS_ + 1 + (raw_ ? 2 * RU_ : 0), per = iso + (retest_ ? NS_ : 0);
  xfer_.resize(2 * per * PU_);
  double* send = xfer_.data();
  double* recv = xfer_.data() + per * PU_;
  for (std::size_t q = 0; q < PU_; ++q) {
    double* o = send + q * per;
    for (std::size_t i = 0; i < NS_; ++i) o[i] = local_[i * PU_ + q];
    o[NS_] = store.used[q];
    for (std::size_t i = 0; raw_ && i < RU_; ++i) {
      o[NS_ + 1 + i] = store.values[q * RU_ + i];
      o[NS_ + 1 + RU_ + i] = store.flags[q * RU_ + i];
    }
    for (std::size_t i = 0; retest_ && i < NS_; ++i) o[iso + i] = isolated_[i * PU_ + q];
  }
  MPI_Request req;
  MPI_Ialltoall(send, static_cast<int>(per), MPI_DOUBLE, recv, static_cast<int>(per), MPI_DOUBLE, c_.comm, &req);
  wait(req, "columns exchanged into rows");
  for (std::size_t q = 0; q < PU_; ++q) {
    const double* in = recv + q * per;
    for (std::size_t i = 0; i < NS_; ++i) row_stats_[i * PU_ + q] = in[i];
    if (adaptive_) row_used_[q] = static_cast<int>(in[NS_]);
    for (std::size_t i = 0; raw_ && i < RU_; ++i) {
      row_raw_[q * RU_ + i] = in[NS_ + 1 + i];
      row_flags_[q * RU_ + i] = static_cast<std::uint8_t>(in[NS_ + 1 + RU_ + i]);
    }
    for (std::size_t i = 0; retest_ && i < NS_; ++i) row_isolated_[i * PU_ + q] = in[iso + i];
  }
}

void Sweep::put_rows(std::size_t k, int x) {
  const auto t0 = host_seconds();
  for (std::size_t i = 0; i < rows_->stats.size(); ++i)  // open_outputs made them in this order
    rows_->stats[i].put_row(k, x, std::span<const double>(row_stats_.data() + i * PU_, PU_), row_used_, {},
                            retest_ ? std::span<const double>(row_isolated_.data() + i * PU_, PU_)
                                    : std::span<const double>());
  if (rows_->all) rows_->all->put_row(k, x, row_raw_, {}, row_flags_);
  write_seconds_ += host_seconds() - t0;
}

// Node rank m > 0 hands its row to the node's writer (node rank 0), which writes the rows of its
// node one after another into the buffers of its own: no buffer beyond one row on any rank.
void Sweep::row_to_writer() {
  MPI_Comm node = rows_->node;
  MPI_Request req[5];
  int n = 0;
  MPI_Isend(row_stats_.data(), static_cast<int>(row_stats_.size()), MPI_DOUBLE, 0, kTagRows, node, &req[n++]);
  if (retest_)
    MPI_Isend(row_isolated_.data(), static_cast<int>(row_isolated_.size()), MPI_DOUBLE, 0, kTagRows, node, &req[n++]);
  if (adaptive_) MPI_Isend(row_used_.data(), static_cast<int>(PU_), MPI_INT, 0, kTagRows, node, &req[n++]);
  if (raw_) {
    MPI_Isend(row_raw_.data(), static_cast<int>(row_raw_.size()), MPI_DOUBLE, 0, kTagRows, node, &req[n++]);
    MPI_Isend(row_flags_.data(), static_cast<int>(row_flags_.size()), MPI_UINT8_T, 0, kTagRows, node, &req[n++]);
  }
  for (int i = 0; i < n; ++i) wait(req[i], "node's writer to take its row");
}

void Sweep::rows_of_the_node(std::size_t k) {
  MPI_Comm node = rows_->node;
  for (std::size_t m = 1; m < rows_->members.size(); ++m) {
    const int from = static_cast<int>(m);
    MPI_Request req;
    MPI_Irecv(row_stats_.data(), static_cast<int>(row_stats_.size()), MPI_DOUBLE, from, kTagRows, node, &req);
    wait(req, "rows of its node");
    if (retest_) {
      MPI_Irecv(row_isolated_.data(), static_cast<int>(row_isolated_.size()), MPI_DOUBLE, from, kTagRows, node, &req);
      wait(req, "rows of its node");
    }
    if (adaptive_) {
      MPI_Irecv(row_used_.data(), static_cast<int>(PU_), MPI_INT, from, kTagRows, node, &req);
      wait(req, "rows of its node");
    }
    if (raw_) {
      MPI_Irecv(row_raw_.data(), static_cast<int>(row_raw_.size()), MPI_DOUBLE, from, kTagRows, node, &req);
      wait(req, "rows of its node");
      MPI_Irecv(row_flags_.data(), static_cast<int>(row_flags_.size()), MPI_UINT8_T, from, kTagRows, node, &req);
      wait(req, "rows of its node");
    }
    put_rows(k, rows_->members[m]);
  }
}

void Sweep::write_rows(std::size_t k, const long* flagged_all, std::size_t task_bytes) {
  rows_of_this_rank();
  // The writers write and their node's rank 0 syncs the rows of the node; after a barrier rank 0
  // commits each record (its length, then numrecs): a record counts only once all of its rows are
  // on disk.
  if (rows_->writer) put_rows(k, c_.rank);
  if (rows_->per_rank)
    idle_barrier(c_, rows_->node, idle_deadline(c_, ahead_),
                 fmt::format("timeout: rank {} waited too long for the rows of the other ranks of this node of "
                             "length {}", c_.rank, length_));
  else if (rows_->node_rank != 0)
    row_to_writer();
  else
    rows_of_the_node(k);
  if (rows_->node_rank == 0) {
    const auto t2 = host_seconds();
    for (auto& f : rows_->stats) f.sync();
    if (rows_->all) rows_->all->sync();
    write_seconds_ += host_seconds() - t2;
  }
  idle_barrier(c_, c_.comm, idle_deadline(c_, ahead_),
               fmt::format("timeout: rank {} waited too long for the rows of the other ranks of length {}", c_.rank,
                           length_));
  count_data(task_bytes);
  if (c_.rank != 0) return;
  const auto t1 = host_seconds();
  for (auto& f : rows_->stats) f.commit(k, length_);
  if (rows_->all) rows_->all->commit(k, length_);
  write_seconds_ += host_seconds() - t1;
  if (counts_) counts_->push_back({length_, flagged_all[0], flagged_all[1], retested_});
  if (progress_) progress_->update(k, length_);
}

void Sweep::gather_and_write(std::size_t k, const long* flagged_all, std::size_t task_bytes) {
  const int P = c_.size;
  if (adaptive_) gather(c_.store.used.data(), P, MPI_INT, used_gathered_.data(), "sample counts");
  if (raw_) {
    gather(c_.store.values.data(), P * c_.store.stride, MPI_DOUBLE, raw_gathered_.data(), "samples");
    gather(c_.store.flags.data(), P * c_.store.stride, MPI_UINT8_T, flags_gathered_.data(), "sample flags");
  }
  if (c_.rank == 0 && adaptive_) {
    used_record_.assign(PU_ * PU_, 0);
    for (std::size_t r = 0; r < PU_; ++r)
      for (std::size_t q = 0; q < PU_; ++q) {
        const auto [x, y] = cell(r, q);
        used_record_[x * PU_ + y] = used_gathered_[r * PU_ + q];
      }
  }
  // Rank 0's matrix of a gathered statistic (rows or columns of the ranks) in our orientation.
  auto oriented = [&](const std::vector<double>& g) {
    if (c_.spec.results_in_rows) return g;
    Matrix m(P);
    for (std::size_t r = 0; r < PU_; ++r)
      for (std::size_t q = 0; q < PU_; ++q) m.at(static_cast<int>(q), static_cast<int>(r)) = g[r * PU_ + q];
    return m.values();
  };
  std::vector<double> isolated;
  for (std::size_t i = 0; i < NS_; ++i) {
    if (c_.rank == 0) gathered_.resize(PU_ * PU_);
    if (retest_) {
      gather(isolated_.data() + i * PU_, P, MPI_DOUBLE, gathered_.data(), "isolated results");
      if (c_.rank == 0) isolated = oriented(gathered_);
    }
    gather(local_.data() + i * PU_, P, MPI_DOUBLE, gathered_.data(), "results");
    if (c_.rank != 0) continue;
    const auto t0 = host_seconds();
    for (auto& [stat, writer] : out_->stats) {
      if (stat != gather_order_[i] || writer.records() > k) continue;  // written by the interrupted run (--resume)
      writer.append(length_, oriented(gathered_), used_record_, {}, isolated);
    }
    write_seconds_ += host_seconds() - t0;
  }
  count_data(task_bytes);
  if (c_.rank != 0) return;
  if (counts_) counts_->push_back({length_, flagged_all[0], flagged_all[1], retested_});
  if (raw_ && out_->all && out_->all->records() <= k) write_raw_record();
  if (progress_) progress_->update(k, length_);
}

void Sweep::write_raw_record() {
  const auto t0 = host_seconds();
  raw_record_.assign(PU_ * PU_ * RU_, 0.0);
  flags_record_.assign(PU_ * PU_ * RU_, 0);
  for (std::size_t r = 0; r < PU_; ++r)
    for (std::size_t q = 0; q < PU_; ++q) {
      const auto [x, y] = cell(r, q);
      std::copy_n(raw_gathered_.data() + (r * PU_ + q) * RU_, RU_, raw_record_.data() + (x * PU_ + y) * RU_);
      std::copy_n(flags_gathered_.data() + (r * PU_ + q) * RU_, RU_, flags_record_.data() + (x * PU_ + y) * RU_);
    }
  out_->all->append(length_, raw_record_, {}, flags_record_);
  write_seconds_ += host_seconds() - t0;
}

}  // namespace

void run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress, FlagCounts* counts,
               double& write_seconds, double& data_bytes, const LengthGate& go_on) {
  Sweep sweep(c, out, progress, counts, write_seconds, data_bytes);
  for (std::size_t k = first; k < c.lengths.size(); ++k) {
    if (go_on && !go_on(k)) return;
    sweep.run_length(k);
  }
}

// ---------------------------------------------------------------------------------------------
// One pass (a mode whose tasks cover every length, e.g. loggp): its sink writes the results.

void run_one_pass(Ctx& c) {
  run_sequential(c, TaskList(c.spec, c.settings, c.size, 0), c.lengths.front());
}

}  // namespace nt::measure
