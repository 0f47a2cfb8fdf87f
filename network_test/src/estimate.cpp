// --estimate: a short calibration on the real ranks and the plan of the sweep it predicts.
//
// Model. A sweep is, per length, a list of tasks run one after the other (sequential schedule),
// or P-1 rounds of disjoint pairs at once (--concurrent). Tasks differ by where their ranks are:
// pairs on one host, pairs across hosts, the clock-offset tasks of the common-start modes and the
// collective tasks are separate classes. Calibration runs up to 16..256 tasks of each class, spread
// over the senders (computed, not a stored list: O(P) per rank, see sample_tasks), through the real schedule with the run's own warm-up and sample count (no
// extrapolation in the number of samples: differencing two short runs amplified scheduler noise
// 10-fold), timed on rank 0 between sleeping barriers minus a barrier's own cost, repeated and the
// median taken when the window is under 50 ms, each window with its pairs met as the run's. A
// length then costs the sum over classes of tasks x time per task; --concurrent costs rounds x
// the time of a round, calibrated on real rounds of each choice of concurrency (8 of every pair
// of a round at once: their times differ with the pairs they hold; 2 of --concurrent=K's lanes);
// with random rounds (one sample per repetition of the rounds) rounds of the first
// repetition (with the warm-up) and as many of the second (one warm-up round), times the samples.
// --host-pairs --switch-map costs, per round of the switches, its slowest lane (a round lasts as
// long as it) and a barrier, then the fullest switch's own host pairs, plus the pairs within the
// fullest host. A lane costs its host pairs times the time per host pair of its slower switch
// (a slow uplink's switch is in a lane of every round); a switch's time per host pair is the least
// over its lanes in two real rounds, each lane stopped after a few host pairs and timed on its
// own ranks (barriers apart: a round of the run holds tens to thousands of host pairs per lane).
// A switch's own host pairs cross no uplink: at the fastest switch's time.
// --sample-pairs costs its sampled host pairs' tasks at the time of a task across hosts, plus the
// pairs within the fullest host, as --host-pairs; with --switch-map, as the host lanes but with
// the sampled host pairs of each lane and switch (the fullest lane of a round is then often not
// its slowest).
// Per length, rank 0 also gathers and writes five synced records: timed with a real gather and a
// temporary file in the output directory (removed). Lengths are calibrated one by one up to 24 of
// them; longer sweeps calibrate 16 spread over the sweep and interpolate linearly in the length.
// With --precision the prediction is for -n samples: an upper bound.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <iostream>
#include <map>
#include <set>

#include <fmt/format.h>

#include "plan.hpp"
#include "schedules.hpp"
#include "nt/output.hpp"
#include "nt/units.hpp"

namespace nt::measure {

namespace {

// Tasks calibrated per class: P / 4, at least 16 and at most 256. A class's tasks are not alike
// when some cross a slow part (a slow uplink: 12 % of the pairs of a 1,024-rank tree, 8x slower
// each): 16 tasks drew too few of them, and --time-limit planned 49 s for a --host-pairs run
// of 81 s. The calibration stays a small share of the sweep (256 of P (P - 1) pairs; at 64 ranks
// 16 of the 240 host pairs of --host-pairs).
std::size_t tasks_per_class(int P) { return std::clamp<std::size_t>(static_cast<std::size_t>(P) / 4, 16, 256); }
constexpr int kTrials = 3;
constexpr double kShortWindow = 0.05;  // below this a timing is repeated (kTrials, median)

// What a calibration window needs besides its work: the fastest sleeping barrier (taken out of
// every timing) and rank 0's deadline on Ctx::now()'s clock (--time-limit: past it no plan fits).
struct Window {
  double barrier = 0;
  double deadline = std::numeric_limits<double>::infinity();
};

// Every peer met (met) or none: the run meets each pair first at its first length, where its
// first task takes a warm-up iteration more than its later ones, and has met every pair at later
// lengths and repetitions. A calibration draws new pairs at each length (lanes and rounds are drawn
// per length) and repeats its tasks: each window starts with the peers met as the run's tasks have
// them, else at 1 MiB every calibrated task paid a sample's time more than the run's.
void meet_as_the_run(Ctx& c, bool met) {
  std::vector<char>& m = runner(c).met;
  std::fill(m.begin(), m.end(), met ? 1 : 0);
}

// Runs `run` (units tasks or rounds, with the run's own warm-up and samples) on every rank,
// timed on rank 0 between sleeping barriers minus a barrier's own cost; repeated while the
// window is short, where a scheduler hiccup would count. Rank 0 gets seconds per unit; rank 0
// decides about repeating, the others follow its broadcast. `length`: what the tasks measure;
// met: whether the run has met their pairs before them (meet_as_the_run).
// Past w.deadline every rank throws CalibrationOverrun after the same broadcast.
double calibrate(Ctx& c, std::int64_t length, double units, const Window& w, bool met,
                 const std::function<void()>& run) {
  constexpr int kStop = 2;  // the broadcast's third answer besides "again" and "done"
  std::vector<double> t;
  for (int trial = 0; trial < kTrials; ++trial) {
    meet_as_the_run(c, met);
    idle_barrier(c, 1, length);
    const double t0 = Ctx::now();
    run();
    idle_barrier(c, 1, length);
    const double now = Ctx::now(), dt = std::max(0.0, now - t0 - w.barrier);
    t.push_back(dt / units);
    int again = now > w.deadline ? kStop : dt < kShortWindow ? 1 : 0;
    MPI_Request req;
    MPI_Ibcast(&again, 1, MPI_INT, 0, c.comm, &req);
    c.idle_wait(req, idle_deadline(c, 1), "timeout: waiting for the calibration");
    if (again == kStop) throw CalibrationOverrun{length};
    if (!again) break;
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::string clock(double s) {
  const auto t = static_cast<long long>(std::ceil(s));
  return fmt::format("{}:{:02}:{:02}", t / 3600, (t / 60) % 60, t % 60);
}

// Seconds as a short human figure.
std::string span(double s) { return s < 100 ? format_seconds(s) : fmt::format("{} ({:.0f} s)", clock(s), s); }

// The concurrency choices --estimate prices: all pairs of a round at once, and K when given.
std::vector<int> concurrency_choices(const Settings& s) {
  std::vector<int> out{0};
  if (s.schedule.pairs_at_once > 0) out.push_back(s.schedule.pairs_at_once);
  return out;
}

// Real rounds calibrated of the first repetition and of the second: with every pair of a round
// at once, a round lasts as long as its slowest pair, and which pairs a random round holds moves
// its time by 13 % (sd over a repetition's 255 rounds at 64 hosts x 4 ranks, a slow node and a
// slow uplink): the mean of 2 rounds came 9 % and 18 % over its repetition's, --concurrent's price
// 1.14 of the run; the mean of 8 errs by about 5 %. The lanes' rounds stop after a few pairs: 2.
int calibrated_rounds(int limit) { return limit > 0 ? 2 : 8; }

// The concurrent schedule of length k with at most `limit` pairs at once: rounds x (a round of the
// first repetition + the later repetitions' rounds), from real rounds of each (calibrated_rounds).
double calibrate_concurrent(Ctx& c, std::size_t k, const Window& w, int limit) {
  const std::int64_t length = c.lengths[k];
  const int reps = concurrent_repetitions(c.settings), n = calibrated_rounds(limit);
  const double rounds = concurrent_rounds(c, limit), share = concurrent_round_share(c, limit, n);
  const double first =
      calibrate(c, length, share, w, k > 0, [&] { run_concurrent_rounds(c, k, length, 0, n, limit); });
  if (reps == 1) return rounds * first;
  const double later =
      calibrate(c, length, share, w, true, [&] { run_concurrent_rounds(c, k, length, 1, n, limit); });
  return rounds * (first + (reps - 1) * later);
}

double lerp(double lo, double hi, double f) { return lo + f * (hi - lo); }

// A sleeping barrier's own cost (before any length: its timeout message names length 0), each of
// seven timed alone: the fastest is what a timing window surely holds and is taken out of it (one
// slow barrier in a mean made short windows read 0 s, and a task priced at 0 on a loaded machine
// left a plan no re-test budget); the median prices the barrier ending each round of the lanes.
struct BarrierCost {
  double fastest = 0, median = 0;
};

BarrierCost barrier_cost(Ctx& c) {
  constexpr int kBarriers = 7;
  idle_barrier(c, 1, 0);
  std::vector<double> t;
  for (int i = 0; i < kBarriers; ++i) {
    const double t0 = Ctx::now();
    idle_barrier(c, 1, 0);
    t.push_back(Ctx::now() - t0);
  }
  std::sort(t.begin(), t.end());
  return {t.front(), t[t.size() / 2]};
}

// The lengths calibrated: every one up to 24, else 16 spread over the sweep and the last.
std::vector<std::size_t> calibrated_lengths(std::size_t n) {
  auto calibrated = spread_indices(n, n > 24 ? 16 : n);
  if (calibrated.back() != n - 1) calibrated.push_back(n - 1);
  return calibrated;
}

// Two rounds of length k at each concurrency of `limits` that lc lacks, when the mode has a
// concurrent schedule.
void time_concurrency(Ctx& c, std::size_t k, const Window& w, const std::vector<int>& limits, LengthCost& lc) {
  if (!c.spec.concurrent_ok) return;
  for (int limit : limits)
    if (!lc.concurrent.count(limit)) lc.concurrent[limit] = calibrate_concurrent(c, k, w, limit);
}

// Rounds of the lanes by switch timed per length.
constexpr int kHostLaneRounds = 2;

// Per switch, the seconds per host pair of its lanes at length k (host_lane_rates): two real
// rounds, each lane stopped after a few host pairs and timed on its own ranks (empty when there
// are no lanes). Not the window over the host pairs of the fullest lanes: a round lasts as long
// as its slowest lane, which in the run is not the fullest when the lanes differ in speed (the
// sampled host pairs of a slow uplink's switch are few) and the barrier ending a round is paid
// per round, not per host pair (the run's rounds hold tens to thousands of host pairs, the
// calibration's a few).
std::vector<double> calibrate_host_lane_rates(Ctx& c, std::size_t k, const Window& w, double alone) {
  const std::int64_t length = c.lengths[k];
  std::vector<double> lane_time;
  calibrate(c, length, 1.0, w, k > 0,
            [&] { run_host_lane_calibration(c, k, length, kHostLaneRounds, lane_time); });
  MPI_Allreduce(MPI_IN_PLACE, lane_time.data(), static_cast<int>(lane_time.size()), MPI_DOUBLE, MPI_MAX, c.comm);
  return host_lane_rates(c, k, lane_time, alone);
}

// The cost of each calibrated length: tasks of every class, and rounds when the mode has a
// concurrent schedule.
std::map<std::size_t, LengthCost> calibrate_lengths(Ctx& c, const std::vector<std::size_t>& calibrated, const Window& w,
                                                   const std::vector<int>& limits) {
  std::map<std::size_t, LengthCost> cost;
  for (std::size_t k : calibrated) {
    const std::int64_t length = c.lengths[k];
    const auto by_class = sample_tasks(TaskList(c.spec, c.settings, c.size, k), c.spec, c.hosts, tasks_per_class(c.size));
    LengthCost& lc = cost[k];
    for (const auto& [name, few] : by_class) {
      lc.per_class[name] =
          calibrate(c, length, static_cast<double>(few.size()), w, k > 0, [&] { run_sequential(c, few, length); });
    }
    time_concurrency(c, k, w, limits, lc);
    if (c.spec.concurrent_ok && c.settings.schedule.by_switch && !c.settings.schedule.switches.empty()) {
      // a host pair alone: its task each way (one exchange in exchange modes)
      const double tasks = c.spec.kind == TaskKind::exchange_pairs ? 1.0 : 2.0;
      lc.host_lane_rate = calibrate_host_lane_rates(
          c, k, w, lc.per_class.count(kAcrossHosts) ? tasks * lc.per_class.at(kAcrossHosts) : 0.0);
    }
  }
  return cost;
}

// Per length: one real gather of the statistics, and five synced records written by rank 0 to
// a temporary file in the output directory (the same filesystem as the results). `length`: the
// last length calibrated, which its barrier's timeout message names.
double per_length_io_cost(Ctx& c, std::int64_t length) {
  const int P = c.size;
  const auto PU = static_cast<std::size_t>(P);
  std::vector<double> local(5 * PU, 1e-6), all(c.rank == 0 ? 5 * PU * PU : 0);
  idle_barrier(c, 1, length);
  const double t0 = Ctx::now();
  MPI_Request req;
  MPI_Igather(local.data(), 5 * P, MPI_DOUBLE, all.data(), 5 * P, MPI_DOUBLE, 0, c.comm, &req);
  c.idle_wait(req, idle_deadline(c, 1), "timeout: waiting for the calibration gather");
  double write = 0;
  if (c.rank == 0) {
    namespace fs = std::filesystem;
    fs::path dir = fs::path(c.settings.prefix).parent_path();
    if (dir.empty()) dir = ".";
    if (!fs::is_directory(dir)) dir = fs::temp_directory_path();
    const fs::path tmp = dir / fmt::format(".network_test-estimate-{}.nc", getpid());
    try {
      FileInfo fi;
      fi.params.proc_num = P;
      RawWriter w(tmp, fi, true);
      Matrix m(P);
      const double w0 = Ctx::now();
      for (int i = 0; i < 5; ++i) w.append(i, m);
      write = Ctx::now() - w0;
      w.close();
    } catch (const std::exception&) {
      write = 0;  // an unwritable directory is reported by the real run, not by the plan
    }
    std::error_code ec;
    fs::remove(tmp, ec);
  }
  return Ctx::now() - t0 + write;
}

// The cost of length k: calibrated, or interpolated between the calibrated lengths around it.
LengthCost cost_at(const Calibration& cal, const std::vector<std::int64_t>& lengths, std::size_t k) {
  const auto& cost = cal.cost;
  if (cost.count(k)) return cost.at(k);
  auto hi = cost.lower_bound(k);
  auto lo = std::prev(hi);
  const double f = static_cast<double>(lengths[k] - lengths[lo->first]) /
                   static_cast<double>(std::max<std::int64_t>(1, lengths[hi->first] - lengths[lo->first]));
  LengthCost out;
  for (const auto& [name, a] : lo->second.per_class)
    out.per_class[name] = hi->second.per_class.count(name) ? lerp(a, hi->second.per_class.at(name), f) : a;
  for (const auto& [limit, a] : lo->second.concurrent) out.concurrent[limit] = lerp(a, hi->second.concurrent.at(limit), f);
  out.host_lane_rate = lo->second.host_lane_rate;
  for (std::size_t X = 0; X < out.host_lane_rate.size() && X < hi->second.host_lane_rate.size(); ++X)
    out.host_lane_rate[X] = lerp(out.host_lane_rate[X], hi->second.host_lane_rate[X], f);
  return out;
}

// The sweep's predicted time per schedule (--estimate).
struct PlanTotals {
  double sequential = 0, host_pairs = 0, host_lanes = 0, sampled = 0;
  std::map<int, double> concurrent;  // by K (0: every pair of a round)
  double chosen = 0;                 // the command line's schedule
};

// What the plan calls the command line's schedule.
std::string plan_name(const Schedule& s) {
  if (s.host_pairs()) return s.by_switch ? "host pairs in switch lanes" : "host pairs";
  if (s.sampled()) return s.by_switch ? "sampled host pairs in switch lanes" : "sampled host pairs";
  return s.concurrent() ? "concurrent" : "sequential";
}

// The totals, the time limit to ask for (of the command line's schedule), the line for scripts and
// the model (concurrent: the mode has a concurrent schedule).
void print_totals(const Schedule& sched, bool concurrent, const PlanTotals& total, double startup_s) {
  std::string totals;
  for (const auto& [limit, t] : total.concurrent)
    totals += fmt::format(", concurrent{} {}", limit == 0 ? std::string() : fmt::format("={}", limit), span(t));
  const bool lanes = concurrent && sched.by_switch;
  const bool sampled = sched.sampled();
  std::cout << fmt::format("total: sequential {}{}{}{}{}; plus MPI start-up and setup, {} here\n", span(total.sequential),
                           concurrent ? ", host pairs " + span(total.host_pairs) : std::string(),
                           lanes ? ", host lanes " + span(total.host_lanes) : std::string(),
                           sampled ? ", sampled " + span(total.sampled) : std::string(), totals,
                           format_seconds(startup_s));
  // What to ask for: 1.5 times the prediction plus 5 minutes (start-up on a large allocation, a
  // slower node), rounded up to whole minutes.
  auto limit = [&](double t) { return clock(60.0 * std::ceil((1.5 * (t + startup_s) + 300.0) / 60.0)); };
  const double chosen = total.chosen;
  std::cout << fmt::format("time limit to ask for ({}, 1.5 x + 5 min): {}   (#SBATCH --time={} / #PBS -l walltime={})\n",
                           plan_name(sched), limit(chosen), limit(chosen), limit(chosen));
  // One line for scripts (the batch templates read it).
  std::cout << fmt::format("plan: sequential_s={:.6g} host_pairs_s={}{} concurrent_s={}{} startup_s={:.3g} time_limit={}\n",
                           total.sequential, concurrent ? fmt::format("{:.6g}", total.host_pairs) : std::string("-"),
                           (lanes ? fmt::format(" host_lanes_s={:.6g}", total.host_lanes) : std::string()) +
                               (sampled ? fmt::format(" sampled_s={:.6g}", total.sampled) : std::string()),
                           concurrent ? fmt::format("{:.6g}", total.concurrent.at(0)) : std::string("-"),
                           sched.pairs_at_once > 0 && concurrent
                               ? fmt::format(" concurrent_k_s={:.6g}", total.concurrent.at(sched.pairs_at_once))
                               : std::string(),
                           startup_s, limit(chosen));
  std::cout << "model: per length, the number of tasks of each class (pairs on one host, across hosts, clock "
               "offsets, collectives) times the time of such a task measured now, or rounds times the time of a "
               "round for --concurrent, plus the gather and five synced records (share/doc/network_test.md); "
               "host pairs: --host-pairs, every pair of hosts once and the pairs within the fullest host"
            << (lanes ? "; host lanes: --host-pairs --switch-map, per round of the switches its slowest lane (its "
                        "host pairs at its slower switch's time per host pair, from two real rounds) and a barrier, "
                        "then the host pairs of the fullest switch, and the pairs within the fullest host"
                      : "")
            << (sampled && sched.by_switch
                    ? "; sampled: --sample-pairs --switch-map, as the host lanes with the sampled host pairs of each "
                      "lane and switch, and the pairs within the fullest host"
                : sampled ? "; sampled: --sample-pairs, the sampled pairs of hosts once (priced as pairs across hosts) "
                            "and the pairs within the fullest host"
                          : "")
            << (sched.retest.hosts ? "; the concurrent columns include --retest-hosts: every pair of hosts once alone, "
                                 "priced as pairs across hosts"
                               : "")
            << "\n";
  std::cout.flush();
}

// The plan on stdout (rank 0): per length and in total, sequential and --concurrent, and the
// batch time limit to ask for.
void print_plan(const Ctx& c, const Calibration& cal, double startup_s) {
  const Settings& s = c.settings;
  const auto& lengths = c.lengths;
  const bool concurrent = c.spec.concurrent_ok;
  const int stride = runner(c).store.stride, warmup = runner(c).samples.W, samples = warmup + stride;
  const std::set<int> hosts(c.hosts.begin(), c.hosts.end());
  std::cout << fmt::format(
      "network_test --estimate: {}, {} ranks on {} host{}, {} lengths ({} B .. {} B), {} samples per task "
      "({} + {} warm-up){}\n",
      c.spec.name, c.size, hosts.size(), hosts.size() == 1 ? "" : "s", lengths.size(), lengths.front(), lengths.back(),
      samples, stride, warmup,
      s.precision > 0 ? fmt::format("; --precision stops earlier, so this is the upper bound") : "");
  const std::string rounds = concurrent ? fmt::format(" and {} rounds", calibrated_rounds(0)) : "";
  std::cout << fmt::format("calibration: {} of {} lengths, up to {} tasks of each class{} with every sample, {:.2f} s\n",
                           cal.lengths.size(), lengths.size(), tasks_per_class(c.size), rounds, cal.seconds);
  const std::vector<int> choices = concurrent ? concurrency_choices(s) : std::vector<int>{};
  std::string head;
  for (int limit : choices) head += fmt::format("  {:>12}", limit == 0 ? "concurrent" : fmt::format("K={}", limit));
  const bool lanes = concurrent && s.schedule.by_switch;
  if (lanes) head = fmt::format("  {:>12}", "host lanes") + head;
  const bool sampled = s.schedule.sampled();
  if (sampled) head = fmt::format("  {:>12}", "sampled") + head;
  std::cout << fmt::format("  {:>10}  {:>7}  {:>12}  {:>12}{}{}{}\n", "length", "tasks", "per task", "sequential",
                           concurrent ? fmt::format("  {:>12}", "host pairs") : "", head,
                           concurrent ? fmt::format("  {:>7}", "rounds") : "");
  PlanTotals total;
  const std::size_t n_tasks = TaskList(c.spec, s, c.size, 0).size();
  const std::vector<LengthPrice> prices = price_sweep(c, cal);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    const LengthPrice& lp = prices[k];
    total.sequential += lp.sequential;
    total.chosen += schedule_price(lp, s.schedule);
    std::string row = sampled ? fmt::format("  {:>12}", format_seconds(lp.sampled)) : "";
    if (lanes) row += fmt::format("  {:>12}", format_seconds(lp.host_lanes));
    total.host_lanes += lp.host_lanes;
    total.sampled += lp.sampled;
    for (int limit : choices) {
      const double t = lp.concurrent.at(limit) + (s.schedule.retest.hosts ? lp.host_pairs : 0.0);
      total.concurrent[limit] += t;
      row += fmt::format("  {:>12}", format_seconds(t));
    }
    total.host_pairs += lp.host_schedule;
    std::cout << fmt::format("  {:>10}  {:>7}  {:>12}  {:>12}{}{}{}\n", lengths[k], n_tasks,
                             format_seconds((lp.sequential - cal.per_length_io) / static_cast<double>(n_tasks)),
                             format_seconds(lp.sequential),
                             concurrent ? fmt::format("  {:>12}", format_seconds(lp.host_schedule)) : "", row,
                             concurrent ? fmt::format("  {:>7}", cal.rounds) : "");
  }
  print_totals(s.schedule, concurrent, total, startup_s);
}

// The sample store a calibration writes into, and the runner told that samples are not kept.
void begin_calibration(Ctx& c) {
  const auto PU = static_cast<std::size_t>(c.size);
  SampleStore& store = runner(c).store;
  store.peers.clear();
  store.values.assign(PU * static_cast<std::size_t>(store.stride), 0.0);
  store.flags.assign(PU * static_cast<std::size_t>(store.stride), 0);
  store.used.assign(PU, store.stride);
  runner(c).calibrating = true;
}

}  // namespace

Calibration calibrate_sweep(Ctx& c, const std::vector<int>& limits, double deadline) {
  measure_host_clocks(c);  // as the run will have them: a task checks its host pair's offset
  begin_calibration(c);
  const std::vector<char> met = runner(c).met;  // the run's own, not the calibration's (see calibrate)
  const double t_start = Ctx::now();
  const BarrierCost barrier = barrier_cost(c);
  const Window w{barrier.fastest, deadline};
  Calibration cal;
  cal.barrier = barrier.median;
  cal.lengths = calibrated_lengths(c.lengths.size());
  cal.rounds = static_cast<std::size_t>(concurrent_rounds(c, c.settings.schedule.pairs_at_once)) *
               static_cast<std::size_t>(concurrent_repetitions(c.settings));
  cal.cost = calibrate_lengths(c, cal.lengths, w, limits);
  cal.per_length_io = per_length_io_cost(c, c.lengths[cal.lengths.back()]);
  runner(c).calibrating = false;
  runner(c).met = met;
  cal.seconds = Ctx::now() - t_start;
  return cal;
}

void calibrate_concurrency(Ctx& c, Calibration& cal, const std::vector<int>& limits, double deadline) {
  if (!c.spec.concurrent_ok || limits.empty()) return;
  begin_calibration(c);
  const std::vector<char> met = runner(c).met;
  const double t_start = Ctx::now();
  const Window w{barrier_cost(c).fastest, deadline};
  for (std::size_t k : cal.lengths) time_concurrency(c, k, w, limits, cal.cost[k]);
  runner(c).calibrating = false;
  runner(c).met = met;
  cal.seconds += Ctx::now() - t_start;
}

std::vector<LengthPrice> price_sweep(const Ctx& c, const Calibration& cal) {
  // Tasks per class: the same at every length (only their order and noise ranks change).
  const auto n = class_counts(TaskList(c.spec, c.settings, c.size, 0), c.spec, c.hosts);
  const std::size_t host_pairs = HostPairList(c.spec, c.settings, c.hosts, 0).size();
  // --host-pairs runs every host's pairs at once: the most ranks on a host decide (self exchanges included).
  const auto r = static_cast<double>(Units(c.hosts).most_ranks());
  const double within_host = c.spec.kind == TaskKind::exchange_pairs ? r * (r + 1) / 2 : r * (r - 1);
  const bool lanes = c.settings.schedule.by_switch && !c.settings.schedule.switches.empty();
  const std::size_t sampled = c.settings.schedule.sample.partners > 0 && c.spec.concurrent_ok ? sampled_tasks(c) : 0;
  std::vector<LengthPrice> out(c.lengths.size());
  for (std::size_t k = 0; k < c.lengths.size(); ++k) {
    const LengthCost lc = cost_at(cal, c.lengths, k);
    LengthPrice& lp = out[k];
    lp.sequential = lp.io = cal.per_length_io;
    for (const auto& [name, count] : n)
      if (lc.per_class.count(name)) {
        lp.sequential += static_cast<double>(count) * lc.per_class.at(name);
        lp.slowest_task = std::max(lp.slowest_task, lc.per_class.at(name));
      }
    for (const auto& [limit, t] : lc.concurrent) lp.concurrent[limit] = cal.per_length_io + t;
    if (lc.per_class.count(kAcrossHosts))
      lp.host_pairs = static_cast<double>(host_pairs) * lc.per_class.at(kAcrossHosts);
    const double on_host = lc.per_class.count(kOnOneHost) ? within_host * lc.per_class.at(kOnOneHost) : 0.0;
    lp.host_schedule = cal.per_length_io + lp.host_pairs + on_host;
    lp.sampled = cal.per_length_io + on_host +
                 (lc.per_class.count(kAcrossHosts) ? static_cast<double>(sampled) * lc.per_class.at(kAcrossHosts) : 0.0);
    if (lanes) {  // the lanes' host pairs one after the other, and a barrier per round
      const double barriers = host_lane_rounds(c, k) * cal.barrier;
      lp.host_lanes = cal.per_length_io + on_host + barriers + host_lane_seconds(c, k, lc.host_lane_rate);
      if (sampled > 0)
        lp.sampled = cal.per_length_io + on_host + barriers + sampled_lane_seconds(c, k, lc.host_lane_rate);
    }
  }
  return out;
}

double schedule_price(const LengthPrice& lp, const Schedule& s) {
  if (s.concurrent()) return lp.concurrent.at(s.pairs_at_once) + (s.retest.hosts ? lp.host_pairs : 0.0);
  if (s.host_pairs()) return s.by_switch ? lp.host_lanes : lp.host_schedule;
  if (s.sampled()) return lp.sampled;
  return lp.sequential;
}

void run_estimate(Ctx& c, double startup_s) {
  const std::vector<int> limits = c.spec.concurrent_ok ? concurrency_choices(c.settings) : std::vector<int>{};
  const Calibration cal = calibrate_sweep(c, limits);
  if (c.rank == 0) print_plan(c, cal, startup_s);
}

}  // namespace nt::measure
