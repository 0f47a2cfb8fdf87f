// network_test --estimate: a short calibration on the real ranks and the printed plan.
//
// Per length, a few tasks of every class (pairs on one host, pairs across hosts, (x, x) tasks,
// collective tasks) run through the real sequential schedule, and a few rounds through the real
// concurrent one, each twice: with 1 and with n2 iterations (no warm-up). The two timings give
// the cost line fixed + iterations * per_iteration of the class, evaluated at the run's
// warm-up + repeats; times the task counts (and rounds) of the class it gives the length's wall
// time. The gather of the length's results and the building of its task list are timed as they
// run. Nothing is written: the samples stay in memory and are dropped.
#include <algorithm>
#include <iostream>
#include <set>

#include <fmt/format.h>

#include "internal.hpp"
#include "nt/measure/plan.hpp"
#include "nt/units.hpp"

namespace nt::measure {

namespace {

void set_iterations(Ctx& c, int n) {
  c.W = 0;
  c.R = n;
  c.samples.assign(static_cast<std::size_t>(c.size) * static_cast<std::size_t>(n), 0.0);
}

// Seconds (meaningful on rank 0) that f takes on every rank, between two sleeping barriers.
template <class F>
double timed_once(Ctx& c, F&& f) {
  idle_barrier(c, 1);
  const double t0 = Ctx::now();
  f();
  idle_barrier(c, 1);
  return Ctx::now() - t0;
}
// The faster of two timings (noise on a shared machine only ever adds time), less the cost of
// the two barriers themselves (the real schedule has none between its tasks).
double barrier_cost = 0;
template <class F>
double timed(Ctx& c, F&& f) {
  const double a = timed_once(c, f);
  return std::max(0.0, std::min(a, timed_once(c, f)) - barrier_cost);
}

// Up to k elements spread evenly over v (first, ..., last), in order.
template <class T>
std::vector<T> spread(const std::vector<T>& v, int k) {
  std::vector<T> out;
  if (v.empty() || k <= 0) return out;
  const std::size_t n = std::min(v.size(), static_cast<std::size_t>(k));
  std::set<std::size_t> idx;
  for (std::size_t i = 0; i < n; ++i) idx.insert(n == 1 ? 0 : i * (v.size() - 1) / (n - 1));
  for (auto i : idx) out.push_back(v[i]);
  return out;
}

}  // namespace

void run_estimate(Ctx& c, const std::vector<std::string>& hosts, bool show) {
  const Settings& s = c.settings;
  const ModeSpec& spec = c.spec;
  const int P = c.size;
  const int full = s.warmup + s.repeats;  // iterations of every task of the real run
  const int n2 = std::max(1, std::min(full, s.estimate_iterations));
  const int n1 = std::max(1, n2 / 3);
  const double start = Ctx::now();

  Plan plan;
  plan.mode = spec.name;
  plan.ranks = P;
  plan.hosts = static_cast<int>(std::set<std::string>(hosts.begin(), hosts.end()).size());
  plan.repeats = s.repeats;
  plan.warmup = s.warmup;
  plan.concurrent_ok = spec.concurrent_ok;
  plan.concurrent_requested = s.concurrent;
  plan.raw = s.raw;
  plan.calibration_tasks = s.estimate_tasks;
  plan.calibration_iterations[0] = n1;
  plan.calibration_iterations[1] = n2;
  const TaskCounts counts = count_tasks(spec, hosts);
  const auto all_rounds = round_robin(P);
  const auto picked_rounds = spread(all_rounds, std::min(2, s.estimate_tasks));
  plan.calibration_rounds = spec.concurrent_ok ? static_cast<int>(picked_rounds.size()) : 0;

  std::vector<double> local(5 * static_cast<std::size_t>(P)), gathered(c.rank == 0 ? local.size() * P : 0);
  for (std::size_t k = 0; k < s.lengths.size(); ++k) {
    c.length = s.lengths[k];
    c.length_index = k;
    if (show)
      std::cerr << fmt::format("network_test: calibrating length {} ({}/{})\n", format_bytes(c.length), k + 1,
                               s.lengths.size());
    // Per-length work of the real run outside the tasks: its task list and the gather.
    barrier_cost = 0;
    barrier_cost = timed(c, [] {});
    std::vector<Task> tasks;
    const double list_cost = timed_once(c, [&] { tasks = make_tasks(spec, s, P, k); });  // sequential only
    const double overhead = timed(c, [&] {
      MPI_Request req;
      MPI_Igather(local.data(), 5 * P, MPI_DOUBLE, gathered.data(), 5 * P, MPI_DOUBLE, 0, c.comm, &req);
      c.idle_wait(req, 0, "");
    });

    std::vector<Task> sync, same, other, self, coll;
    for (auto& t : tasks) {
      if (t.sync)
        sync.push_back(std::move(t));
      else if (spec.kind == TaskKind::per_root || spec.kind == TaskKind::all_ranks)
        coll.push_back(std::move(t));
      else if (t.x == t.y)
        self.push_back(std::move(t));
      else if (hosts[static_cast<std::size_t>(t.x)] == hosts[static_cast<std::size_t>(t.y)])
        same.push_back(std::move(t));
      else
        other.push_back(std::move(t));
    }
    tasks.clear();
    tasks.shrink_to_fit();

    LengthPlan lp;
    lp.length = c.length;
    lp.tasks = counts;
    lp.sequential = list_cost + overhead;
    if (!sync.empty()) {  // every offset: the collective tasks need them; cost independent of -n
      set_iterations(c, 1);
      lp.sequential += timed_once(c, [&] { run_sequential(c, sync); });
    }
    Cost self_cost;
    auto measure = [&](const std::vector<Task>& cls, std::int64_t count) -> Cost {
      if (cls.empty() || count == 0) return {};
      const auto sel = spread(cls, s.estimate_tasks);
      const double per = 1.0 / static_cast<double>(sel.size());
      set_iterations(c, n1);
      const double t1 = timed(c, [&] { run_sequential(c, sel); }) * per;
      double t2 = t1;
      if (n2 != n1) {
        set_iterations(c, n2);
        t2 = timed(c, [&] { run_sequential(c, sel); }) * per;
      }
      const Cost cost = fit_cost(n1, t1, n2, t2);
      lp.sequential += static_cast<double>(count) * cost.at(full);
      return cost;
    };
    measure(same, counts.same_host);
    measure(other, counts.other_host);
    self_cost = measure(self, counts.self);
    measure(coll, counts.collective);
    const auto work = counts.total() - counts.sync;
    lp.task_seconds = work > 0 ? (lp.sequential - overhead - list_cost) / static_cast<double>(counts.total()) : 0.0;

    if (spec.concurrent_ok && !picked_rounds.empty()) {
      const double per = 1.0 / static_cast<double>(picked_rounds.size());
      set_iterations(c, n1);
      const double t1 = timed(c, [&] { run_rounds(c, picked_rounds); }) * per;
      double t2 = t1;
      if (n2 != n1) {
        set_iterations(c, n2);
        t2 = timed(c, [&] { run_rounds(c, picked_rounds); }) * per;
      }
      const Cost round = fit_cost(n1, t1, n2, t2);
      lp.rounds = concurrent_rounds(P);
      lp.round_seconds = round.at(full);
      // The (x, x) tasks run on every rank at once after the rounds.
      lp.concurrent = overhead + static_cast<double>(lp.rounds) * lp.round_seconds + self_cost.at(full);
    }
    plan.lengths.push_back(lp);
  }
  plan.calibration_seconds = Ctx::now() - start;
  if (c.rank == 0) std::cout << plan_text(plan) << std::flush;
}

}  // namespace nt::measure
