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
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <limits>
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
  const double now = MPI_Wtime(), elapsed = now - start_;
  done_.emplace_back(length, now - mark_);
  mark_ = now;
  const std::vector<std::int64_t> rest(lengths_.begin() + static_cast<std::ptrdiff_t>(k + 1), lengths_.end());
  const double eta = rest.empty() ? 0.0 : predict_time(done_, rest);
  const double frac = eta >= 0 && elapsed + eta > 0 ? elapsed / (elapsed + eta) : 0.0;
  const std::size_t n = lengths_.size();
  if (tty_) {
    if (now - last_ < 0.2 && k + 1 < n) return;
    const int width = 30, fill = static_cast<int>(frac * width);
    std::fprintf(stderr, "\r[%s%s] %3d%%  length %lld (%zu/%zu)  elapsed %s  ETA %s   ",
                 std::string(static_cast<std::size_t>(fill), '#').c_str(),
                 std::string(static_cast<std::size_t>(width - fill), '.').c_str(), static_cast<int>(frac * 100),
                 static_cast<long long>(length), k + 1, n, clock_text(elapsed).c_str(), clock_text(eta).c_str());
  } else {
    if (now - last_ < 10.0 && k + 1 < n) return;
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

void run_task(Ctx& c, const Task& t) {
  static const DebugStall stall;
  if (c.rank == stall.rank && c.length == stall.length && !c.calibrating)
    for (;;) sleep(1);
  c.begin_task(c.spec.describe(t) + " at length " + std::to_string(c.length), c.settings.timeout);
  // Oversubscribed host: put the two measured ranks on different cores for the task, so that
  // they never take turns on one core while the other is busy elsewhere.
  cpu_set_t saved;
  bool pinned = false;
  if (c.yield && !t.sync && t.x >= 0 && t.y >= 0 && t.x != t.y && (c.rank == t.x || c.rank == t.y) &&
      c.hosts[static_cast<std::size_t>(t.x)] == c.hosts[static_cast<std::size_t>(t.y)] &&
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
    run_adaptive(c, t, [&] { c.mode->run(c, t); });
  else
    c.mode->run(c, t);
  if (pinned) sched_setaffinity(0, sizeof saved, &saved);
  c.begin_task({}, 0);
}

}  // namespace

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

// Hand-over: the leader of task u-1 sends "go" to the members of task u when u-1 is over. The
// same rank, when it sends the go of u-1, also tells the members of task u that are not in u-1
// that they are next ("ready"): they stop sleeping and poll for their go, so the hand-over costs
// a message latency instead of a sleep of up to --idle-sleep-max. Both sides derive who sends
// what from the task list alone, so the messages from one rank arrive in the order expected.
template <class List>
void run_sequential_list(Ctx& c, const List& tasks) {
  char go = 1;
  long last = -1;
  // tasks[u] of a TaskList is computed on every call: keep the three in use.
  Task prev, cur = tasks.size() > 0 ? tasks[0] : Task{}, next;
  int prev_prev_leader = 0;  // the rank that sent the go of task u-1 (and the ready of task u)
  for (std::size_t u = 0; u < tasks.size(); ++u) {
    if (u + 1 < tasks.size()) next = tasks[u + 1];
    const Task& t = cur;
    const int prev_leader = u == 0 ? 0 : prev.leader;
    if (c.rank == prev_leader) {
      for (int m : t.members)
        if (m != c.rank) c.send(&go, 1, MPI_CHAR, m, kTagGo);
      if (u + 1 < tasks.size()) {
        char ready = 2;
        for (int m : next.members)
          if (m != c.rank && !t.has(m)) c.send(&ready, 1, MPI_CHAR, m, kTagGo);
      }
    }
    if (t.has(c.rank)) {
      if (c.rank != prev_leader) {
        const std::string why =
            u == 0 ? fmt::format("timeout: rank {} got no start signal for length {} from rank 0", c.rank, c.length)
                   : fmt::format("timeout: rank {} waited for its turn too long: {} at length {} did not finish",
                                 c.rank, c.spec.describe(prev), c.length);
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
      run_task(c, t);
      last = static_cast<long>(u);
    }
    prev_prev_leader = prev_leader;
    prev = std::move(cur);
    cur = std::move(next);
    next = Task{};
  }
}

void run_sequential(Ctx& c, const std::vector<Task>& tasks) { run_sequential_list(c, tasks); }
void run_sequential(Ctx& c, const TaskList& tasks) { run_sequential_list(c, tasks); }

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

void idle_barrier(Ctx& c, double tasks_ahead) {
  idle_barrier(c, c.comm, idle_deadline(c, tasks_ahead),
               fmt::format("timeout: rank {} waited too long for the other pairs at length {}", c.rank, c.length));
}

namespace {
Task pair_task(const Ctx& c, int x, int y) {
  Task t;
  t.x = x;
  t.y = y;
  t.leader = c.spec.results_in_rows ? x : y;
  t.members = {std::min(x, y), std::max(x, y)};
  return t;
}

// This rank's part of one round: its pair {a, b} (a < b), both directions or one exchange.
void run_pair_of_round(Ctx& c, int a, int b) {
  if (c.spec.kind == TaskKind::ordered_pairs) {
    run_task(c, pair_task(c, a, b));
    run_task(c, pair_task(c, b, a));
  } else {
    Task t = pair_task(c, a, b);
    t.leader = a;
    run_task(c, t);
  }
}

void run_self_exchange(Ctx& c) {
  if (c.spec.kind != TaskKind::exchange_pairs) return;
  Task t = pair_task(c, c.rank, c.rank);
  t.members = {c.rank};
  t.leader = c.rank;
  run_task(c, t);
}
}  // namespace

void run_rounds(Ctx& c, const std::vector<std::vector<std::pair<int, int>>>& rounds, bool self_exchange) {
  for (const auto& round : rounds) {
    for (const auto& [a, b] : round)
      if (c.rank == a || c.rank == b) run_pair_of_round(c, a, b);
    idle_barrier(c, 2);
  }
  if (self_exchange) run_self_exchange(c);
}

namespace {

// The round-robin rounds of a length, in an order shuffled from the seed with --shuffle; each
// rank computes only its own partner per round (O(P) memory for the order of the rounds).
void run_concurrent(Ctx& c) {
  const int n = rounds_of(c.size);
  std::vector<int> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  if (c.settings.shuffle) {
    std::uint64_t st = mix_seed(c.settings.seed.value_or(0), c.length_index, 0x636f6e63ULL);
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[splitmix64(st) % i]);
  }
  idle_barrier(c, 1);  // the previous length is written
  for (int r : order) {
    const int other = partner_in_round(c.size, r, c.rank);
    if (other >= 0) run_pair_of_round(c, std::min(c.rank, other), std::max(c.rank, other));
    idle_barrier(c, 2);
  }
  run_self_exchange(c);
}

}  // namespace

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

void fill_synthetic(Ctx& c) {
  const auto RU = static_cast<std::size_t>(c.store.stride);
  for (std::size_t q = 0; q < static_cast<std::size_t>(c.size); ++q) {
    const auto r = static_cast<std::size_t>(c.rank);
    const std::size_t x = c.spec.results_in_rows ? r : q, y = c.spec.results_in_rows ? q : r;
    if (c.settings.precision > 0)
      c.store.used[q] = c.settings.min_repeats + static_cast<int>((x + 2 * y) % (RU - static_cast<std::size_t>(c.settings.min_repeats) + 1));
    for (std::size_t i = 0; i < RU; ++i) {
      c.store.values[q * RU + i] = 1e-6 * (1.0 + 0.25 * static_cast<double>(x) + 0.0625 * static_cast<double>(y) +
                                           1e-3 * static_cast<double>(c.length) + 0.01 * static_cast<double>((i * 7) % 5));
      c.store.flags[q * RU + i] = static_cast<std::uint8_t>((x + y + i) % 4 == 0 ? kSampleLate : 0);
    }
  }
}

// The parallel writers: every rank holds one RawRowWriter per result file, open on the files
// rank 0 created (or reopened for --resume), in the order of out->stats, then the _all file.
struct RowFiles {
  std::vector<RawRowWriter> stats;
  std::optional<RawRowWriter> all;
  // The ranks of this node: one of them (node rank 0) syncs each file for all of them, since
  // fsync flushes every dirty page of the file in the node's cache, whoever wrote it.
  MPI_Comm node = MPI_COMM_NULL;
  int node_rank = 0;
  RowFiles() = default;
  RowFiles(RowFiles&& o) noexcept
      : stats(std::move(o.stats)), all(std::move(o.all)), node(std::exchange(o.node, MPI_COMM_NULL)),
        node_rank(o.node_rank) {}
  RowFiles& operator=(RowFiles&&) = delete;
  ~RowFiles() {
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  }
};

// Collective. Every rank opens the files rank 0 has open, by the absolute paths rank 0 sends,
// and proves it sees the same file (digest of the header). Anything else (a rank that cannot
// open them, a node-local directory, NT_WRITE=gather): nullopt, and rank 0 gathers and writes as
// before (refused when P x P matrices on rank 0 exceed the memory limit).
std::optional<RowFiles> open_row_files(Ctx& c, Output* out) {
  const bool raw = c.settings.raw;
  RecordExtras stat_extras, all_extras;
  stat_extras.sample_count = c.settings.precision > 0;
  all_extras.sample_flags = true;
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
  const char* mode = std::getenv("NT_WRITE");
  int ok = mode && std::string(mode) == "gather" ? 0 : 1;
  RowFiles files;
  std::vector<std::uint64_t> digests;
  std::string why = mode ? "NT_WRITE=gather" : "";
  if (ok) {
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
  if (ok && digests != root) {
    ok = 0;
    why = fmt::format("rank {} sees other files under the same names (a node-local directory?)", c.rank);
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c.comm);
  // Rank 0's libnetcdf handles stay open, unused, until the end (closing a resumed file early
  // would let libnetcdf pad a cut last record with zeros before it is written again).
  if (all_ok) {
    MPI_Comm_split_type(c.comm, MPI_COMM_TYPE_SHARED, c.rank, MPI_INFO_NULL, &files.node);
    MPI_Comm_rank(files.node, &files.node_rank);
    return files;
  }
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

}  // namespace

void run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress, FlagCounts* counts,
               double& write_seconds, double& data_bytes) {
  const auto& lengths = c.settings.lengths;
  const int P = c.size;
  const auto PU = static_cast<std::size_t>(P);
  const auto RU = static_cast<std::size_t>(c.store.stride);
  const bool raw = c.settings.raw, adaptive = c.settings.precision > 0;
  const auto& kGatherOrder = standard_statistics();  // the statistics gathered, in this order
  const std::size_t NS = kGatherOrder.size();
  std::vector<double> local(NS * PU);
  c.store.values.assign(PU * RU, 0.0);
  c.store.flags.assign(PU * RU, 0);
  std::optional<RowFiles> rows = open_row_files(c, out);
  // Fallback: rank 0 gathers one statistic at a time (P x P doubles, plus the matrix it writes
  // when the orientation needs a transposition); with --raw every sample.
  std::vector<double> gathered;
  std::vector<double> raw_gathered(!rows && c.rank == 0 && raw ? PU * PU * RU : 0), raw_record;
  std::vector<std::uint8_t> flags_gathered(!rows && c.rank == 0 && raw ? PU * PU * RU : 0), flags_record;
  std::vector<int> used_gathered(!rows && c.rank == 0 && adaptive ? PU * PU : 0), used_record;
  // Parallel: this rank's row of every file. A rank holding a column (results_in_rows false)
  // exchanges it with one MPI_Alltoall: O(P x samples) per rank, never P x P.
  std::vector<double> row_stats, row_raw, xfer;
  std::vector<std::uint8_t> row_flags;
  std::vector<int> row_used;
  for (std::size_t k = first; k < lengths.size(); ++k) {
    c.length = lengths[k];
    c.length_index = k;
    std::fill(c.store.values.begin(), c.store.values.end(), 0.0);
    std::fill(c.store.flags.begin(), c.store.flags.end(), std::uint8_t{0});
    c.store.used.assign(PU, c.store.stride);
    const TaskList tasks(c.spec, c.settings, P, k);
    // This rank's own data of the sweep (the buffers below at their largest, the task list, the
    // host names): what the program holds per rank, MPI's own buffers not counted.
    auto bytes = [](const auto& v) { return static_cast<double>(v.capacity() * sizeof(v[0])); };
    auto count_data = [&] {
      double b = bytes(c.store.values) + bytes(c.store.flags) + bytes(c.store.used) + bytes(local) + bytes(gathered) +
                 bytes(raw_gathered) + bytes(raw_record) + bytes(flags_gathered) + bytes(flags_record) +
                 bytes(used_gathered) + bytes(used_record) + bytes(row_stats) + bytes(row_raw) + bytes(xfer) +
                 bytes(row_flags) + bytes(row_used) + static_cast<double>(tasks.bytes());
      for (const auto& h : c.hosts) b += static_cast<double>(sizeof h + h.capacity());
      data_bytes = std::max(data_bytes, b);
    };
    if (c.settings.concurrent)
      run_concurrent(c);
    else
      run_sequential(c, tasks);

    if (synthetic_samples()) fill_synthetic(c);
    long flagged[2] = {0, 0};  // samples this rank measured late / preempted at this length
    for (std::size_t q = 0; q < PU; ++q) {
      const auto n = static_cast<std::size_t>(c.store.used[q]);
      double* row = c.store.values.data() + q * RU;
      std::uint8_t* fl = c.store.flags.data() + q * RU;
      for (std::size_t i = 0; i < n; ++i) {
        flagged[0] += (fl[i] & kSampleLate) ? 1 : 0;
        flagged[1] += (fl[i] & kSamplePreempted) ? 1 : 0;
      }
      const Summary s = summarize(std::span<const double>(row, n));
      for (std::size_t i = n; i < RU; ++i) {  // not taken (--precision): missing in the _all file
        row[i] = std::numeric_limits<double>::quiet_NaN();
        fl[i] = kSampleNotTaken;
      }
      for (std::size_t i = 0; i < NS; ++i)  // [statistic * P + peer]
        local[i * PU + q] = summary_value(s, kGatherOrder[i]);
    }
    const double ahead = c.settings.concurrent ? static_cast<double>(P) : static_cast<double>(tasks.size());
    auto wait = [&](MPI_Request& req, const char* what) {
      c.idle_wait(req, idle_deadline(c, ahead),
                  fmt::format("timeout: rank {} waited too long for the {} of length {}", c.rank, what, c.length));
    };
    auto gather = [&](const void* send, int count, MPI_Datatype type, void* recv, const char* what) {
      MPI_Request req;
      MPI_Igather(send, count, type, recv, count, type, 0, c.comm, &req);
      wait(req, what);
    };
    long flagged_all[2] = {0, 0};
    {
      MPI_Request req;
      MPI_Ireduce(flagged, flagged_all, 2, MPI_LONG, MPI_SUM, 0, c.comm, &req);
      wait(req, "flag counts");
    }

    if (rows) {
      // This rank's row r: cell (r, q) for every q, of every statistic, its count and samples.
      row_stats.resize(NS * PU);
      row_used.resize(adaptive ? PU : 0);
      row_raw.resize(raw ? PU * RU : 0);
      row_flags.resize(raw ? PU * RU : 0);
      if (c.spec.results_in_rows) {
        std::copy(local.begin(), local.end(), row_stats.begin());
        if (adaptive) std::copy(c.store.used.begin(), c.store.used.end(), row_used.begin());
        if (raw) {
          std::copy(c.store.values.begin(), c.store.values.end(), row_raw.begin());
          std::copy(c.store.flags.begin(), c.store.flags.end(), row_flags.begin());
        }
      } else {
        // Rank r holds column r: cell (q, r) for every q. To peer q: everything of cell (q, r)
        // packed as doubles (statistics, count, samples, flags); from q: cell (r, q).
        const std::size_t per = NS + 1 + (raw ? 2 * RU : 0);
        xfer.resize(2 * per * PU);
        double* send = xfer.data();
        double* recv = xfer.data() + per * PU;
        for (std::size_t q = 0; q < PU; ++q) {
          double* o = send + q * per;
          for (std::size_t i = 0; i < NS; ++i) o[i] = local[i * PU + q];
          o[NS] = c.store.used[q];
          for (std::size_t i = 0; raw && i < RU; ++i) {
            o[NS + 1 + i] = c.store.values[q * RU + i];
            o[NS + 1 + RU + i] = c.store.flags[q * RU + i];
          }
        }
        MPI_Request req;
        MPI_Ialltoall(send, static_cast<int>(per), MPI_DOUBLE, recv, static_cast<int>(per), MPI_DOUBLE, c.comm, &req);
        wait(req, "columns exchanged into rows");
        for (std::size_t q = 0; q < PU; ++q) {
          const double* in = recv + q * per;
          for (std::size_t i = 0; i < NS; ++i) row_stats[i * PU + q] = in[i];
          if (adaptive) row_used[q] = static_cast<int>(in[NS]);
          for (std::size_t i = 0; raw && i < RU; ++i) {
            row_raw[q * RU + i] = in[NS + 1 + i];
            row_flags[q * RU + i] = static_cast<std::uint8_t>(in[NS + 1 + RU + i]);
          }
        }
      }
      // Every rank writes and syncs its rows; after a barrier rank 0 commits each record (its
      // length, then numrecs): a record counts only once all of its rows are on disk.
      const auto t0 = host_seconds();
      for (std::size_t i = 0; i < rows->stats.size(); ++i)  // open_outputs made them in this order
        rows->stats[i].put_row(k, c.rank, std::span<const double>(row_stats.data() + i * PU, PU), row_used);
      if (rows->all) rows->all->put_row(k, c.rank, row_raw, {}, row_flags);
      write_seconds += host_seconds() - t0;
      idle_barrier(c, rows->node, idle_deadline(c, ahead),
                   fmt::format("timeout: rank {} waited too long for the rows of the other ranks of this node of "
                               "length {}", c.rank, c.length));
      if (rows->node_rank == 0) {
        const auto t2 = host_seconds();
        for (auto& f : rows->stats) f.sync();
        if (rows->all) rows->all->sync();
        write_seconds += host_seconds() - t2;
      }
      idle_barrier(c, c.comm, idle_deadline(c, ahead),
                   fmt::format("timeout: rank {} waited too long for the rows of the other ranks of length {}", c.rank,
                               c.length));
      count_data();
      if (c.rank != 0) continue;
      const auto t1 = host_seconds();
      for (auto& f : rows->stats) f.commit(k, c.length);
      if (rows->all) rows->all->commit(k, c.length);
      write_seconds += host_seconds() - t1;
      if (counts) counts->push_back({c.length, flagged_all[0], flagged_all[1]});
      if (progress) progress->update(k, c.length);
      continue;
    }

    if (adaptive) gather(c.store.used.data(), P, MPI_INT, used_gathered.data(), "sample counts");
    if (raw) {
      gather(c.store.values.data(), P * c.store.stride, MPI_DOUBLE, raw_gathered.data(), "samples");
      gather(c.store.flags.data(), P * c.store.stride, MPI_UINT8_T, flags_gathered.data(), "sample flags");
    }
    // Assemble in our orientation: rank r held its row (sender) or its column (receiver).
    auto cell = [&](std::size_t r, std::size_t q) -> std::pair<std::size_t, std::size_t> {
      return c.spec.results_in_rows ? std::make_pair(r, q) : std::make_pair(q, r);
    };
    if (c.rank == 0 && adaptive) {
      used_record.assign(PU * PU, 0);
      for (std::size_t r = 0; r < PU; ++r)
        for (std::size_t q = 0; q < PU; ++q) {
          const auto [x, y] = cell(r, q);
          used_record[x * PU + y] = used_gathered[r * PU + q];
        }
    }
    for (std::size_t i = 0; i < NS; ++i) {
      if (c.rank == 0) gathered.resize(PU * PU);
      gather(local.data() + i * PU, P, MPI_DOUBLE, gathered.data(), "results");
      if (c.rank != 0) continue;
      const auto t0 = host_seconds();
      for (auto& [stat, writer] : out->stats) {
        if (stat != kGatherOrder[i] || writer.records() > k) continue;  // written by the interrupted run (--resume)
        if (c.spec.results_in_rows) {
          writer.append(c.length, gathered, used_record);
        } else {
          Matrix m(P);
          for (std::size_t r = 0; r < PU; ++r)
            for (std::size_t q = 0; q < PU; ++q)
              m.at(static_cast<int>(q), static_cast<int>(r)) = gathered[r * PU + q];
          writer.append(c.length, m.values(), used_record);
        }
      }
      write_seconds += host_seconds() - t0;
    }
    count_data();
    if (c.rank != 0) continue;
    if (counts) counts->push_back({c.length, flagged_all[0], flagged_all[1]});

    if (raw && out->all && out->all->records() <= k) {
      const auto t0 = host_seconds();
      raw_record.assign(PU * PU * RU, 0.0);
      flags_record.assign(PU * PU * RU, 0);
      for (std::size_t r = 0; r < PU; ++r)
        for (std::size_t q = 0; q < PU; ++q) {
          const auto [x, y] = cell(r, q);
          std::copy_n(raw_gathered.data() + (r * PU + q) * RU, RU, raw_record.data() + (x * PU + y) * RU);
          std::copy_n(flags_gathered.data() + (r * PU + q) * RU, RU, flags_record.data() + (x * PU + y) * RU);
        }
      out->all->append(c.length, raw_record, {}, flags_record);
      write_seconds += host_seconds() - t0;
    }
    if (progress) progress->update(k, c.length);
  }
}

// ---------------------------------------------------------------------------------------------
// One pass (a mode whose tasks cover every length, e.g. loggp): its sink writes the results.

void run_one_pass(Ctx& c) {
  c.length = c.settings.lengths.front();
  c.length_index = 0;
  run_sequential(c, TaskList(c.spec, c.settings, c.size, 0));
}

}  // namespace nt::measure
