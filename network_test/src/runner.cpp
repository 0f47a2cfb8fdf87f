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
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <limits>

#include <fmt/format.h>

#include "internal.hpp"
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

void run_sequential(Ctx& c, const std::vector<Task>& tasks) {
  char go = 1;
  long last = -1;
  for (std::size_t u = 0; u < tasks.size(); ++u) {
    const Task& t = tasks[u];
    const int prev_leader = u == 0 ? 0 : tasks[u - 1].leader;
    if (c.rank == prev_leader)
      for (int m : t.members)
        if (m != c.rank) c.send(&go, 1, MPI_CHAR, m, kTagGo);
    if (!t.has(c.rank)) continue;
    if (c.rank != prev_leader) {
      MPI_Request req;
      MPI_Irecv(&go, 1, MPI_CHAR, prev_leader, kTagGo, c.comm, &req);
      const std::string why =
          u == 0 ? fmt::format("timeout: rank {} got no start signal for length {} from rank 0", c.rank, c.length)
                 : fmt::format("timeout: rank {} waited for its turn too long: {} at length {} did not finish",
                               c.rank, c.spec.describe(tasks[u - 1]), c.length);
      c.idle_wait(req, idle_deadline(c, static_cast<double>(static_cast<long>(u) - last)), why);
    }
    run_task(c, t);
    last = static_cast<long>(u);
  }
}

void idle_barrier(Ctx& c, double tasks_ahead) {
  MPI_Request req;
  MPI_Ibarrier(c.comm, &req);
  c.idle_wait(req, idle_deadline(c, tasks_ahead),
              fmt::format("timeout: rank {} waited too long for the other pairs at length {}", c.rank, c.length));
}

void run_rounds(Ctx& c, const std::vector<std::vector<std::pair<int, int>>>& rounds, bool self_exchange) {
  auto pair_task = [&](int x, int y) {
    Task t;
    t.x = x;
    t.y = y;
    t.leader = c.spec.results_in_rows ? x : y;
    t.members = {std::min(x, y), std::max(x, y)};
    return t;
  };
  for (const auto& round : rounds) {
    for (const auto& [a, b] : round) {
      if (c.rank != a && c.rank != b) continue;
      if (c.spec.kind == TaskKind::ordered_pairs) {
        run_task(c, pair_task(a, b));
        run_task(c, pair_task(b, a));
      } else {
        Task t = pair_task(a, b);
        t.leader = a;
        run_task(c, t);
      }
    }
    idle_barrier(c, 2);
  }
  if (self_exchange && c.spec.kind == TaskKind::exchange_pairs) {
    Task t = pair_task(c.rank, c.rank);
    t.members = {c.rank};
    t.leader = c.rank;
    run_task(c, t);
  }
}

namespace {

void run_concurrent(Ctx& c) {
  auto rounds = round_robin(c.size);
  if (c.settings.shuffle) {
    std::uint64_t st = mix_seed(c.settings.seed.value_or(0), c.length_index, 0x636f6e63ULL);
    for (std::size_t i = rounds.size(); i > 1; --i) std::swap(rounds[i - 1], rounds[splitmix64(st) % i]);
  }
  idle_barrier(c, 1);  // rank 0 has written the previous length
  run_rounds(c, rounds, true);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The sweep

void run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress, FlagCounts* counts) {
  const auto& lengths = c.settings.lengths;
  const int P = c.size;
  const auto PU = static_cast<std::size_t>(P);
  const auto RU = static_cast<std::size_t>(c.store.stride);
  const bool raw = c.settings.raw, adaptive = c.settings.precision > 0;
  // Rank 0 gathers one statistic at a time: P x P doubles, plus the matrix it writes when the
  // orientation needs a transposition (app.cpp's memory check counts the same).
  std::vector<double> local(5 * PU), gathered;
  std::vector<double> raw_gathered(c.rank == 0 && raw ? PU * PU * RU : 0), raw_record;
  std::vector<std::uint8_t> flags_gathered(c.rank == 0 && raw ? PU * PU * RU : 0), flags_record;
  std::vector<int> used_gathered(c.rank == 0 && adaptive ? PU * PU : 0), used_record;
  c.store.values.assign(PU * RU, 0.0);
  c.store.flags.assign(PU * RU, 0);
  for (std::size_t k = first; k < lengths.size(); ++k) {
    c.length = lengths[k];
    c.length_index = k;
    std::fill(c.store.values.begin(), c.store.values.end(), 0.0);
    std::fill(c.store.flags.begin(), c.store.flags.end(), std::uint8_t{0});
    c.store.used.assign(PU, c.store.stride);
    // The concurrent schedule needs no task list: P(P-1) tasks of ~100 bytes would be built on
    // every rank for every length (0.1 GB at 1,024 ranks, 10 GB at 10,000).
    const auto tasks = c.settings.concurrent ? std::vector<Task>{} : make_tasks(c.spec, c.settings, P, k);
    if (c.settings.concurrent)
      run_concurrent(c);
    else
      run_sequential(c, tasks);

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
      local[0 * PU + q] = s.mean;  // [statistic * P + peer], statistics in kGatherOrder
      local[1 * PU + q] = s.median;
      local[2 * PU + q] = s.min;
      local[3 * PU + q] = s.max;
      local[4 * PU + q] = s.stddev;
    }
    const double ahead = c.settings.concurrent ? static_cast<double>(P) : static_cast<double>(tasks.size());
    auto gather = [&](const void* send, int count, MPI_Datatype type, void* recv, const char* what) {
      MPI_Request req;
      MPI_Igather(send, count, type, recv, count, type, 0, c.comm, &req);
      c.idle_wait(req, idle_deadline(c, ahead),
                  fmt::format("timeout: rank {} waited too long for the {} of length {}", c.rank, what, c.length));
    };
    long flagged_all[2] = {0, 0};
    {
      MPI_Request req;
      MPI_Ireduce(flagged, flagged_all, 2, MPI_LONG, MPI_SUM, 0, c.comm, &req);
      c.idle_wait(req, idle_deadline(c, ahead),
                  fmt::format("timeout: rank {} waited too long for the flag counts of length {}", c.rank, c.length));
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
    static constexpr Statistic kGatherOrder[5] = {Statistic::average, Statistic::median, Statistic::min,
                                                  Statistic::max, Statistic::deviation};
    if (c.rank == 0 && adaptive) {
      used_record.assign(PU * PU, 0);
      for (std::size_t r = 0; r < PU; ++r)
        for (std::size_t q = 0; q < PU; ++q) {
          const auto [x, y] = cell(r, q);
          used_record[x * PU + y] = used_gathered[r * PU + q];
        }
    }
    for (std::size_t i = 0; i < 5; ++i) {
      if (c.rank == 0) gathered.resize(PU * PU);
      gather(local.data() + i * PU, P, MPI_DOUBLE, gathered.data(), "results");
      if (c.rank != 0) continue;
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
    }
    if (c.rank != 0) continue;
    if (counts) counts->push_back({c.length, flagged_all[0], flagged_all[1]});

    if (raw && out->all && out->all->records() <= k) {
      raw_record.assign(PU * PU * RU, 0.0);
      flags_record.assign(PU * PU * RU, 0);
      for (std::size_t r = 0; r < PU; ++r)
        for (std::size_t q = 0; q < PU; ++q) {
          const auto [x, y] = cell(r, q);
          std::copy_n(raw_gathered.data() + (r * PU + q) * RU, RU, raw_record.data() + (x * PU + y) * RU);
          std::copy_n(flags_gathered.data() + (r * PU + q) * RU, RU, flags_record.data() + (x * PU + y) * RU);
        }
      out->all->append(c.length, raw_record, {}, flags_record);
    }
    if (progress) progress->update(k, c.length);
  }
}

// ---------------------------------------------------------------------------------------------
// One pass (a mode whose tasks cover every length, e.g. loggp): its sink writes the results.

void run_one_pass(Ctx& c) {
  c.length = c.settings.lengths.front();
  c.length_index = 0;
  run_sequential(c, make_tasks(c.spec, c.settings, c.size, 0));
}

}  // namespace nt::measure
