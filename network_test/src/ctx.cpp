// The per-rank measurement context: waiting helpers with deadlines, sleeping waits for idle
// ranks and clock-offset estimation.
#include <sched.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <utility>

#include <fmt/format.h>

#include <sys/resource.h>

#include "nt/error.hpp"
#include "nt/measure/ctx.hpp"

namespace nt::measure {

namespace {
int rank_in(MPI_Comm comm) {
  int r = 0;
  MPI_Comm_rank(comm, &r);
  return r;
}
int size_of(MPI_Comm comm) {
  int n = 0;
  MPI_Comm_size(comm, &n);
  return n;
}
}  // namespace

Ctx::Ctx(MPI_Comm c, const Settings& s, const std::vector<std::int64_t>& sweep, const ModeSpec& sp,
         std::vector<int> host_of_rank, std::vector<int> machine_of_rank, bool oversubscribed)
    : comm(c), rank(rank_in(c)), size(size_of(c)), settings(s), lengths(sweep), spec(sp),
      max_length(std::max<std::int64_t>(sweep.back(), 1)), hosts(std::move(host_of_rank)),
      machines(std::move(machine_of_rank)), yield(oversubscribed) {
  const auto P = static_cast<std::size_t>(size), L = static_cast<std::size_t>(max_length);
  sbuf_.assign(L, 'x');
  rbuf_.assign(L * (spec.kind == TaskKind::all_ranks ? P : 1), 0);
  runner_.offset_to_root.assign(P, 0.0);
  runner_.rtt_to_root.assign(P, 0.0);
  runner_.met.assign(P, 0);
  const int H = hosts.empty() ? 0 : 1 + *std::max_element(hosts.begin(), hosts.end());
  runner_.host_clocks.assign(static_cast<std::size_t>(H), HostClock{});
  runner_.store.stride = s.repeats;
  runner_.samples.R = s.repeats;
  runner_.samples.W = s.warmup;
}

int Ctx::count_of(std::int64_t n) const {
  if (n < 0 || n > std::numeric_limits<int>::max()) throw UsageError("message length " + std::to_string(n) + " too large");
  return static_cast<int>(n);
}

void Ctx::begin_task(const std::string& w, double seconds_allowed) {
  what_ = w;
  deadline_ = seconds_allowed > 0 ? now() + seconds_allowed : 0.0;
}

void Ctx::check_deadline() const {
  if (deadline_ > 0 && now() > deadline_)
    throw TimeoutError(fmt::format("timeout: {} did not finish within {} s (rank {} gave up waiting)", what_,
                                   settings.timeout, rank));
}

template <class Test>
void Ctx::poll(Test&& test) {
  int flag = 0;
  unsigned it = 0;
  double last = now();
  for (;;) {
    test(&flag);
    const double t = now();
    note_poll_gap(t - last);
    last = t;
    if (flag) return;
    // Oversubscribed: after a few microseconds of polling, let a rank that shares this core
    // (possibly the peer) run, instead of spinning until the next reschedule.
    if (yield && it > 48) sched_yield();
    if ((++it & 127U) == 0) check_deadline();
  }
}

void Ctx::wait(MPI_Request& req) {
  if (deadline_ <= 0 && !yield) {  // nothing to check while waiting: MPICH's own polling loop
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return;
  }
  poll([&](int* flag) { MPI_Test(&req, flag, MPI_STATUS_IGNORE); });
}

void Ctx::waitall(std::vector<MPI_Request>& reqs) {
  if (deadline_ <= 0 && !yield) {
    MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE);
    return;
  }
  poll([&](int* flag) { MPI_Testall(static_cast<int>(reqs.size()), reqs.data(), flag, MPI_STATUSES_IGNORE); });
}

void Ctx::send(const void* buf, int count, MPI_Datatype type, int dest, int tag) {
  MPI_Request r;
  MPI_Isend(buf, count, type, dest, tag, comm, &r);
  wait(r);
}

void Ctx::recv(void* buf, int count, MPI_Datatype type, int src, int tag) {
  MPI_Request r;
  MPI_Irecv(buf, count, type, src, tag, comm, &r);
  wait(r);
}

namespace {
// This thread's involuntary context switches so far (-1 when unknown).
// Under SMPI every rank is a thread of one simulator process: its switches are the simulator's.
long involuntary_switches() {
#ifdef NT_SMPI
  return -1;
#else
  struct rusage u {};
  return ::getrusage(RUSAGE_THREAD, &u) == 0 ? u.ru_nivcsw : -1;
#endif
}
}  // namespace

void Ctx::begin_sample() {
  poll_gap_ = 0;
  // A sched_yield that lets another rank run counts as an involuntary switch too: when yielding,
  // the poll gaps say whether the pause was long.
  switches_mark_ = yield ? -1 : involuntary_switches();
}

std::uint8_t Ctx::preempted_flag() {
  const bool switched = switches_mark_ >= 0 && involuntary_switches() > switches_mark_;
  const bool paused = poll_gap_ > kSchedulerGap;
  poll_gap_ = 0;
  switches_mark_ = -1;
  return switched || paused ? kSamplePreempted : 0;
}

std::uint8_t Ctx::sample_flags(double start, double woke, bool got_late) {
  std::uint8_t f = preempted_flag();
  if (got_late || woke - start > kSchedulerGap) f |= kSampleLate;
  return f;
}

double Ctx::spin_until(double t) const {
  // Oversubscribed: a rank spinning until the start would hold its core while a rank that
  // shares it has yet to receive its start time; yielding lets every rank reach the start.
  for (;;) {
    const double n = now();
    if (n >= t) return n;
    if (yield) sched_yield();
  }
}

void Ctx::idle_wait(MPI_Request& req, double deadline_abs, const std::string& on_timeout) {
#ifdef NT_SMPI
  // Simulated ranks: a blocked MPI_Wait costs the simulator nothing, where every wake of a sleeping
  // poll costs host time for every idle rank (P^3 host time for P^2 tasks); a rank that would
  // wait forever is SimGrid's deadlock, which it reports and stops.
  (void)deadline_abs;
  (void)on_timeout;
  MPI_Wait(&req, MPI_STATUS_IGNORE);
#else
  int flag = 0;
  for (int i = 0; i < 32; ++i) {  // a short spin catches a signal that is already on its way
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
  }
  double pause = 1e-6;
  for (;;) {
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    if (deadline_abs > 0 && now() > deadline_abs) throw TimeoutError(on_timeout);
    timespec ts{0, static_cast<long>(pause * 1e9)};
    nanosleep(&ts, nullptr);
    pause = std::min(pause * 2.0, settings.idle_sleep_max);
  }
#endif
}

void Ctx::ping(int peer, char token, double& best, double& offset) {
  const double t0 = now();
  send(&token, 1, MPI_CHAR, peer, kTagSync);
  const double tp = recv_double(peer, kTagSync);
  const double t1 = now();
  if (t1 - t0 < best) {
    best = t1 - t0;
    offset = tp - 0.5 * (t0 + t1);
  }
}

std::pair<double, double> Ctx::estimate_offset(int peer, bool leader) {
  const int K = std::max(1, settings.sync_rounds);
  double best = std::numeric_limits<double>::infinity(), offset = 0;
  char token = 0;
  for (int k = 0; k < K; ++k) {
    if (leader) {
      ping(peer, token, best, offset);
    } else {
      recv(&token, 1, MPI_CHAR, peer, kTagSync);
      send_double(now(), peer, kTagSync);
    }
  }
  if (!leader) return {0.0, 0.0};
  // Ranks on one host read the same system clock (Ctx::now is CLOCK_MONOTONIC): the offset is
  // exactly 0 there, and an estimate could only add error (e.g. on oversubscribed cores). Under
  // SMPI every rank reads the one simulated clock: 0 for every pair (an estimate from few rounds
  // took a late reply for an offset: +2 us on every delay into rank 0 with --sync-rounds 1).
  const bool same_clock =
      kSimulated || (!hosts.empty() && hosts[static_cast<std::size_t>(rank)] == hosts[static_cast<std::size_t>(peer)]);
  if (settings.clock_sync == ClockSync::automatic && same_clock) offset = 0.0;
  return {offset, best};
}

bool Ctx::first_meeting(int peer) {
  char& m = runner_.met[static_cast<std::size_t>(peer)];
  const bool first = m == 0;
  m = 1;
  return first;
}

void Ctx::note_warmup(int iterations, bool capped) {
  FixedPart& f = runner_.fixed;
  ++f.warm_tasks;
  f.warm_iterations += iterations;
  if (capped) ++f.warm_capped;
}

std::pair<double, double> Ctx::pair_offset(int peer, bool leader, bool need_rtt) {
  const auto me = static_cast<std::size_t>(rank), them = static_cast<std::size_t>(peer);
  const bool same_host = !hosts.empty() && hosts[me] == hosts[them];
  const bool shared_clock = same_host && settings.clock_sync == ClockSync::automatic;
  // Ranks of one host read one clock: nothing to estimate, and both members know it.
  if (shared_clock && !need_rtt) return {0.0, 0.0};
  if (!leader) {  // answer pings until the leader says stop (token 0)
    char token = 0;
    for (;;) {
      recv(&token, 1, MPI_CHAR, peer, kTagSync);
      if (token == 0) return {0.0, 0.0};
      send_double(now(), peer, kTagSync);
    }
  }
  HostClock* known = hosts.empty() ? nullptr : &runner_.host_clocks[static_cast<std::size_t>(hosts[them])];
  const double ref = known ? known->rtt : 0.0;  // the host pair's fastest round trip (0: none yet)
  const int K = std::max(1, settings.sync_rounds);
  double best = std::numeric_limits<double>::infinity(), offset = 0;
  char token = 1;
  int k = 0;
  while (k < K) {
    ping(peer, token, best, offset);
    ++k;
    // Clean: as fast as the host pair's fastest round trip (within kCleanTolerance), so its
    // midpoint is as good as the fastest of K (its error is at most half the excess).
    if (ref > 0 && best <= ref * (1.0 + kCleanTolerance) + kCleanSlack) break;
  }
  token = 0;
  send(&token, 1, MPI_CHAR, peer, kTagSync);
  FixedPart& f = runner_.fixed;
  ++f.checks;
  f.check_rounds += k;
  if (k > 1) ++f.long_checks;
  if (ref <= 0) ++f.full_estimates;
  if (shared_clock || kSimulated) offset = 0.0;  // one clock (see estimate_offset)
  if (known) {
    if (known->when > 0) {
      // Drift: the offset moved by more than both estimates' error bounds since the last check.
      const double change = std::abs(offset - known->offset);
      f.max_change = std::max(f.max_change, change);
      if (change > 0.5 * (best - ref) + kCleanTolerance * ref + kCleanSlack) ++f.moved;
    }
    known->offset = offset;
    known->rtt = ref > 0 ? std::min(ref, best) : best;
    known->when = now();
  }
  return {offset, best};
}

}  // namespace nt::measure
