// The cost model of a sweep (pure): see nt/measure/plan.hpp and share/doc/network_test.md.
#include "nt/measure/plan.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "nt/units.hpp"

namespace nt::measure {

Cost fit_cost(int n1, double t1, int n2, double t2) {
  Cost c;
  if (n2 <= n1) {
    c.per_iteration = n2 > 0 ? std::max(t2, 0.0) / n2 : 0.0;
    return c;
  }
  c.per_iteration = std::max(0.0, (t2 - t1) / (n2 - n1));
  c.fixed = std::max(0.0, t1 - c.per_iteration * n1);
  // A negative intercept means the line overshoots at n2: keep it through the longer timing.
  if (c.fixed == 0.0 && t1 - c.per_iteration * n1 < 0) c.per_iteration = std::max(t2, 0.0) / n2;
  return c;
}

TaskCounts count_tasks(const ModeSpec& spec, const std::vector<std::string>& hosts) {
  TaskCounts n;
  const auto P = static_cast<std::int64_t>(hosts.size());
  std::map<std::string, std::int64_t> per_host;
  for (const auto& h : hosts) ++per_host[h];
  std::int64_t same_ordered = 0;
  for (const auto& [h, m] : per_host) same_ordered += m * (m - 1);
  switch (spec.kind) {
    case TaskKind::ordered_pairs:
      n.same_host = same_ordered;
      n.other_host = P * (P - 1) - same_ordered;
      break;
    case TaskKind::exchange_pairs:
      n.same_host = same_ordered / 2;
      n.other_host = P * (P - 1) / 2 - same_ordered / 2;
      n.self = P;
      break;
    case TaskKind::per_root: n.collective = P; break;
    case TaskKind::all_ranks: n.collective = 1; break;
  }
  if (spec.common_start) n.sync = std::max<std::int64_t>(P - 1, 0);
  return n;
}

std::int64_t concurrent_rounds(int P) { return P < 2 ? 0 : (P % 2 == 0 ? P - 1 : P); }

double Plan::sequential() const {
  double t = 0;
  for (const auto& l : lengths) t += l.sequential;
  return t;
}

double Plan::concurrent() const {
  double t = 0;
  for (const auto& l : lengths) t += l.concurrent;
  return t;
}

double advised_time_limit(double predicted_seconds) {
  const double s = 1.3 * std::max(predicted_seconds, 0.0) + 300.0;
  return std::ceil(s / 60.0) * 60.0;
}

std::string hms(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  auto t = static_cast<long long>(std::ceil(seconds));
  const long long d = t / 86400;
  t %= 86400;
  const std::string clock = fmt::format("{:02}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
  return d > 0 ? fmt::format("{}-{}", d, clock) : clock;
}

double rank0_bytes(int P, bool raw, int repeats) {
  const double p2 = static_cast<double>(P) * P;
  return 8.0 * p2 * (5 + 1) + (raw ? 2.0 * 8.0 * p2 * repeats : 0.0);
}

namespace {
std::string dur(double s) { return s >= 100 ? hms(s) : format_seconds(s); }
}  // namespace

std::string plan_text(const Plan& p) {
  std::string o;
  o += fmt::format("network_test plan: {} on {} ranks ({} hosts), {} lengths, {} repeats + {} warm-up per pair\n",
                   p.mode, p.ranks, p.hosts, p.lengths.size(), p.repeats, p.warmup);
  o += fmt::format("calibration: {} tasks per class and length{}, {} and {} iterations, {} (no files written)\n",
                   p.calibration_tasks,
                   p.concurrent_ok ? fmt::format(", {} concurrent rounds per length", p.calibration_rounds) : "",
                   p.calibration_iterations[0], p.calibration_iterations[1], format_seconds(p.calibration_seconds));
  o += fmt::format("{:>10} {:>12} {:>11} {:>12} {:>8} {:>11} {:>12}\n", "length", "tasks", "per task", "sequential",
                   "rounds", "per round", "concurrent");
  std::int64_t tasks = 0, rounds = 0;
  for (const auto& l : p.lengths) {
    tasks += l.tasks.total();
    rounds += l.rounds;
    o += fmt::format("{:>10} {:>12} {:>11} {:>12}", format_bytes(l.length), l.tasks.total(), format_seconds(l.task_seconds),
                     dur(l.sequential));
    if (p.concurrent_ok)
      o += fmt::format(" {:>8} {:>11} {:>12}\n", l.rounds, format_seconds(l.round_seconds), dur(l.concurrent));
    else
      o += fmt::format(" {:>8} {:>11} {:>12}\n", "-", "-", "-");
  }
  o += fmt::format("{:>10} {:>12} {:>11} {:>12}", "total", tasks, "", dur(p.sequential()));
  if (p.concurrent_ok)
    o += fmt::format(" {:>8} {:>11} {:>12}\n", rounds, "", dur(p.concurrent()));
  else
    o += "\n";
  const double lim_seq = advised_time_limit(p.sequential());
  const double lim_conc = p.concurrent_ok ? advised_time_limit(p.concurrent()) : 0.0;
  const bool use_conc = p.concurrent_ok && p.concurrent_requested;
  const double lim = use_conc ? lim_conc : lim_seq;
  o += fmt::format("ask the batch system for {} ({} schedule; 1.3 x predicted + 5 min): sbatch --time={}, "
                   "qsub -l walltime={}\n",
                   hms(lim), use_conc ? "concurrent" : "sequential", hms(lim), hms(lim));
  if (p.concurrent_ok && !use_conc)
    o += fmt::format("with --concurrent (a loaded network, pairs measured together): {}\n", hms(lim_conc));
  const double mem = rank0_bytes(p.ranks, p.raw, p.repeats);
  o += fmt::format("rank 0 holds {:.3g} MB for the gathered results of a length (8 x P^2 x {}{})\n", mem / 1e6, 6,
                   p.raw ? " + 16 x P^2 x repeats for --raw" : "");
  // Machine-readable lines (one key=value each) for batch scripts.
  o += fmt::format("plan.mode={}\nplan.ranks={}\nplan.hosts={}\nplan.lengths={}\nplan.tasks={}\n", p.mode, p.ranks,
                   p.hosts, p.lengths.size(), tasks);
  o += fmt::format("plan.sequential_seconds={:.6g}\nplan.time_limit_sequential={}\n", p.sequential(), hms(lim_seq));
  if (p.concurrent_ok)
    o += fmt::format("plan.rounds={}\nplan.concurrent_seconds={:.6g}\nplan.time_limit_concurrent={}\n", rounds,
                     p.concurrent(), hms(lim_conc));
  o += fmt::format("plan.predicted_seconds={:.6g}\nplan.time_limit={}\nplan.time_limit_seconds={:.0f}\n",
                   use_conc ? p.concurrent() : p.sequential(), hms(lim), lim);
  o += fmt::format("plan.rank0_bytes={:.0f}\nplan.calibration_seconds={:.6g}\n", mem, p.calibration_seconds);
  return o;
}

std::vector<double> predict_remaining(const std::vector<std::int64_t>& done_lengths,
                                      const std::vector<double>& done_seconds,
                                      const std::vector<std::int64_t>& remaining) {
  constexpr double kKnee = 16384.0;  // bytes where latency and bandwidth terms are alike (prior)
  std::vector<double> out;
  out.reserve(remaining.size());
  const std::size_t n = std::min(done_lengths.size(), done_seconds.size());
  if (n == 0) {
    for (auto L : remaining) out.push_back(static_cast<double>(L) + kKnee);
    return out;
  }
  if (n == 1) {
    const double t1 = std::max(done_seconds[0], 0.0), l1 = static_cast<double>(done_lengths[0]) + kKnee;
    for (auto L : remaining) out.push_back(t1 * (static_cast<double>(L) + kKnee) / l1);
    return out;
  }
  // Least squares over the last (up to) three completed lengths: the slope of the largest
  // lengths is the one that carries on.
  const std::size_t from = n > 3 ? n - 3 : 0;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double m = static_cast<double>(n - from);
  for (std::size_t i = from; i < n; ++i) {
    const double x = static_cast<double>(done_lengths[i]), y = done_seconds[i];
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
  }
  const double den = m * sxx - sx * sx;
  double b = den > 0 ? (m * sxy - sx * sy) / den : 0.0;
  b = std::max(b, 0.0);
  const double a = std::max((sy - b * sx) / m, 0.0);
  for (auto L : remaining) out.push_back(a + b * static_cast<double>(L));
  return out;
}

}  // namespace nt::measure
