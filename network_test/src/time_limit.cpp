// --time-limit SECONDS: the plan of a run that must fit a batch job's limit, and its guard.
//
// Plan. The choices the user left open (schedule and K, samples, re-test budget) are tried in
// order of preference, each priced by --estimate's calibration (calibrate_sweep, price_sweep) at
// its own sample count on the real ranks; the first whose prediction (the time since this
// process started, calibration included, plus every length) fits in kUsable of the limit wins
// (within a schedule, the most samples that fit, found from the fewest up):
//   1. sequential with at least kMinSequentialSamples samples (most samples first),
//   2. when hosts run several ranks, --host-pairs (one rank pair of each pair of hosts alone and the
//      pairs within the hosts: every cell its host pair's own delay, at 1/R^2 of the sequential
//      pairs), most samples first; with --switch-map in its lanes (whatever the ranks per host),
//   3. --concurrent=K, most samples first, K the most pairs at once that the network carries:
//      calibrated at K = hosts / 2, hosts / 4, ... 2 and 1, the largest K whose rounds cost
//      at most kMaxLoad times K = 1's per pair at the longest length (choose_k),
//   4. --concurrent (every pair of a round at once), most samples first,
//   5. when no schedule that measures every pair of hosts fits: --sample-pairs (K of the command
//      line, else kPlanPartners random partners per host, and its landmarks and neighbours), when
//      it has fewer host pairs than all of them, most samples first; before 3 when it has at most
//      kSampleFirst of them (the K ladder's calibration then costs more than the sampled sweep:
//      64 simulated hosts x 4 ranks, 463 of 2,016 host pairs, 0.25 s, the ladder 0.85 s),
//   6. sequential with fewer samples.
// Choices 1 and 2 (and 5 when it comes before 3) are searched first, calibrated without
// concurrency: when one fits, no lanes are timed (the K ladder's calibration is the dear part at scale). Otherwise the whole list: the
// cheapest choice (of the fewest samples, the schedule priced lowest) is priced first, and when it
// does not fit, the run ends with exit 2 before anything is measured; so does a calibration whose
// own time passes the usable part of the limit (it stops there). A concurrent plan gives
// the time left over to the serial re-test (--retest-seconds per length), when that is enough
// for a chunk of its pairs; when hosts run several ranks it also re-tests the host pairs alone
// (--retest-hosts, priced per length), unless the command line chose the re-test. Samples tried: -n (100 by default) and those of kSampleLadder below it.
//
// Guard. Before each length rank 0 compares the time since the start plus the predicted time of
// the length (scaled by how much slower the lengths so far were than predicted) with the limit;
// when it does not fit, the sweep stops there (exit 4, INCOMPLETE): the files hold every
// length measured.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <numeric>

#include <fmt/format.h>

#include "plan.hpp"
#include "runner.hpp"
#include "nt/output.hpp"
#include "nt/units.hpp"

namespace nt::measure {

namespace {

constexpr double kUsable = 0.85;  // of the limit: the rest is left for start-up noise and closing
constexpr int kMinSequentialSamples = 10;
constexpr int kSampleLadder[] = {50, 20, 10, 5, 3};
constexpr int kRetestChunk = 4;  // the re-test's first chunk of pairs (retest.cpp)
// K pairs at once carried without contention: a pair of K lanes at most this much slower than
// a pair alone (K = 1) through the same rounds; beyond it the pairs share a link (an oversubscribed
// uplink) and the loaded delays are no longer the pairs' own.
constexpr double kMaxLoad = 1.2;
// The random partners per host of a sampled plan when the command line gave none.
constexpr int kPlanPartners = 4;
// A sample of at most this share of the host pairs is tried before any concurrent schedule.
constexpr double kSampleFirst = 0.25;

// A choice: the command line's schedule with its kind, K (--concurrent=K, 0: every pair of a
// round) and --retest-hosts (after each length's rounds) chosen, and the samples.
struct Candidate {
  Schedule schedule;
  int repeats = 0;
};

// The lanes by switch of the command line go to --host-pairs only: the only schedule priced in them.
Candidate candidate(const Settings& s, ScheduleKind kind, int n, int limit = 0, bool retest_hosts = false) {
  Candidate c{s.schedule, n};
  c.schedule.kind = kind;
  c.schedule.pairs_at_once = limit;
  c.schedule.retest.hosts = retest_hosts;
  if (kind != ScheduleKind::host_pairs) {
    c.schedule.by_switch = false;
    c.schedule.switch_map.clear();
    c.schedule.switches.clear();
  }
  return c;
}

// The options that give schedule s on a command line (the switch map's file besides).
std::string schedule_flag(const Schedule& s) {
  if (s.sampled()) return fmt::format("--sample-pairs {}", s.sample.partners);
  if (s.host_pairs()) return s.by_switch ? "--host-pairs --switch-map" : "--host-pairs";
  return s.sequential() ? "sequential" : "--" + s.name();
}

// The sample counts to try, most first: -n alone when the user chose it.
std::vector<int> sample_ladder(const Settings& s) {
  std::vector<int> out{s.repeats};
  if (s.given_repeats) return out;
  for (int n : kSampleLadder)
    if (n < s.repeats) out.push_back(n);
  return out;
}

bool concurrent_allowed(const Settings& s, const ModeSpec& spec) {
  return spec.concurrent_ok && !(s.precision > 0 && s.schedule.rounds == Rounds::random);
}

// The bounded concurrencies the plan calibrates when the schedule is open: hosts / 2, hosts / 4,
// ... down to 2 (each below P / 2), then 1, the reference; none when no K qualifies.
std::vector<int> k_ladder(const Settings& s, const ModeSpec& spec, int P, int hosts) {
  std::vector<int> out;
  if (s.given_schedule || !concurrent_allowed(s, spec)) return out;
  for (int k = hosts / 2; k >= 2; k /= 2)
    if (k < P / 2) out.push_back(k);
  if (!out.empty()) out.push_back(1);
  return out;
}

// The largest K of the ladder whose pairs, K at once, are at most kMaxLoad slower each than one
// pair alone through the same rounds, at the longest length (where a shared link shows most):
// (time at K - io) x K over (time at 1 - io); the smallest K when none is. A round lasts as
// long as its slowest lane, so on a network with slow pairs (a slow node, a slow uplink) the
// ratio grows with K without any sharing: the measure errs toward a smaller K, slower but never
// less right. `note` says what was measured.
int choose_k(const std::vector<LengthPrice>& prices, const std::vector<int>& ladder, std::int64_t longest,
             std::string& note) {
  const LengthPrice& lp = prices.back();
  const double one = lp.concurrent.at(1) - lp.io;
  int chosen = 0;
  std::string loads;
  for (int k : ladder) {
    if (k == 1 || one <= 0) continue;
    const double load = (lp.concurrent.at(k) - lp.io) * k / one;
    loads += fmt::format("{}K={} {:.2f}x", loads.empty() ? "" : ", ", k, load);
    if (chosen == 0 && load <= kMaxLoad) chosen = k;
  }
  const bool fallback = chosen == 0 && ladder.size() >= 2;
  if (fallback) chosen = ladder[ladder.size() - 2];  // the smallest K >= 2
  note = fmt::format("K = {}{} (per pair at {} B against one pair at a time: {}; at most {:.2f}x)", chosen,
                     fallback ? ", the smallest: none within the bound" : "", longest, loads, kMaxLoad);
  return chosen;
}

// Every choice, in order of preference (the same list on every rank); k: the bounded concurrency
// offered (0: none). shared_hosts: some host runs several ranks, so a concurrent plan re-tests the
// host pairs alone (--retest-hosts: a host pair's own delay for all its rank pairs, at 1/R^2 of
// the sequential pairs), unless the command line chose the re-test. sample: the share of the host
// pairs the sampled schedule measures.
std::vector<Candidate> candidates(const Settings& s, const ModeSpec& spec, int k, bool shared_hosts, double sample) {
  const auto ladder = sample_ladder(s);
  const bool hosts = s.schedule.retest.hosts || (shared_hosts && !s.given_retest);
  std::vector<Candidate> out;
  if (s.given_schedule) {
    const Schedule& given = s.schedule;
    for (int n : ladder) out.push_back(candidate(s, given.kind, n, given.pairs_at_once, given.concurrent() && hosts));
    return out;
  }
  const bool concurrent = concurrent_allowed(s, spec);
  for (int n : ladder)
    if (n >= std::min(kMinSequentialSamples, s.repeats)) out.push_back(candidate(s, ScheduleKind::sequential, n));
  // With a switch map the host pairs run in its lanes: with one rank per host that is every pair
  // alone, sooner than the sequential schedule.
  if (spec.concurrent_ok && (shared_hosts || s.schedule.by_switch))
    for (int n : ladder) out.push_back(candidate(s, ScheduleKind::host_pairs, n));
  const bool sampled = spec.concurrent_ok && sample < 1.0 && s.precision <= 0;
  if (sampled && sample <= kSampleFirst)
    for (int n : ladder) out.push_back(candidate(s, ScheduleKind::sampled, n));
  if (concurrent && k >= 2)
    for (int n : ladder) out.push_back(candidate(s, ScheduleKind::concurrent, n, k, hosts));
  if (concurrent)
    for (int n : ladder) out.push_back(candidate(s, ScheduleKind::concurrent, n, 0, hosts));
  if (sampled && sample > kSampleFirst)
    for (int n : ladder) out.push_back(candidate(s, ScheduleKind::sampled, n));
  for (int n : ladder)
    if (n < std::min(kMinSequentialSamples, s.repeats)) out.push_back(candidate(s, ScheduleKind::sequential, n));
  return out;
}

// The fewest samples with the most concurrency on offer: the count calibrated first (one calibration
// prices every schedule at that count; plan_time_limit then takes the lowest priced of them).
std::size_t cheapest(const std::vector<Candidate>& list) {
  std::size_t best = 0;
  auto rank = [](const Candidate& c) {
    const Schedule& s = c.schedule;
    return s.sampled() ? -1 : s.host_pairs() ? 2 : !s.concurrent() ? 3 : (s.pairs_at_once > 0 ? 1 : 0);
  };
  for (std::size_t i = 1; i < list.size(); ++i) {
    const Candidate &a = list[i], &b = list[best];
    if (a.repeats < b.repeats || (a.repeats == b.repeats && rank(a) < rank(b))) best = i;
  }
  return best;
}

// Calibrates and prices the sweep with n samples (collective): once per n, and again only for the
// concurrencies a later list asks for that n's calibration lacks (its tasks are not timed again).
class Pricer {
 public:
  // deadline: rank 0's Ctx::now() past which no plan fits (every calibration stops there).
  Pricer(MPI_Comm comm, const Settings& s, const std::vector<std::int64_t>& lengths, const ModeSpec& spec,
         const Placement& pl, std::vector<int> limits, double deadline)
      : comm_(comm), s_(s), lengths_(lengths), spec_(spec), pl_(pl), limits_(std::move(limits)), deadline_(deadline) {}

  const std::vector<LengthPrice>& at(int n) {
    const auto missing = missing_limits(n);
    if (calibrations_.count(n) && missing.empty()) return prices_.at(n);
    Settings cal = s_;
    cal.repeats = n;
    Ctx c(comm_, cal, lengths_, spec_, pl_.host_of, pl_.machine_of, pl_.oversubscribed);
    const std::unique_ptr<ModeRun> mode = spec_.begin_run(c);
    runner(c).mode = mode.get();
    if (auto it = calibrations_.find(n); it != calibrations_.end())
      calibrate_concurrency(c, it->second, missing, deadline_);
    else
      calibrations_.emplace(n, calibrate_sweep(c, limits_, deadline_));
    return prices_[n] = price_sweep(c, calibrations_.at(n));
  }
  // n calibrated with every concurrency asked for now.
  bool has(int n) const { return calibrations_.count(n) && missing_limits(n).empty(); }
  // The concurrencies asked for from now on: a new count calibrates them, a count calibrated
  // before adds those it lacks at its next price.
  void calibrate_only(std::vector<int> limits) { limits_ = std::move(limits); }
  double calibration_seconds(int n) const { return calibrations_.at(n).seconds; }

 private:
  std::vector<int> missing_limits(int n) const {
    const auto it = calibrations_.find(n);
    if (it == calibrations_.end()) return limits_;
    std::vector<int> out;
    if (!spec_.concurrent_ok) return out;
    const auto& timed = it->second.cost.begin()->second.concurrent;  // the same at every length
    for (int k : limits_)
      if (!timed.count(k)) out.push_back(k);
    return out;
  }

  MPI_Comm comm_;
  const Settings& s_;
  const std::vector<std::int64_t>& lengths_;
  const ModeSpec& spec_;
  const Placement& pl_;
  std::vector<int> limits_;
  double deadline_;
  std::map<int, Calibration> calibrations_;
  std::map<int, std::vector<LengthPrice>> prices_;
};

// The plan of one candidate (rank 0): per length its time, the re-test's budget.
TimePlan price(const Candidate& cand, const std::vector<LengthPrice>& prices, const Settings& s, int P,
               double elapsed) {
  TimePlan p;
  p.schedule = cand.schedule;
  Retest& retest = p.schedule.retest;
  retest.pairs = 0;
  retest.seconds = 0;
  p.repeats = cand.repeats;
  p.limit_s = s.time_limit;
  p.elapsed_s = elapsed;
  double slowest = 0, dearest_retest = 0;
  for (const LengthPrice& lp : prices) {
    p.per_length.push_back(schedule_price(lp, p.schedule));
    slowest = std::max(slowest, lp.slowest_task);
    dearest_retest = std::max(dearest_retest, static_cast<double>(P) * kRetestChunk * lp.slowest_task);
  }
  const double L = static_cast<double>(prices.size());
  const double measure = std::accumulate(p.per_length.begin(), p.per_length.end(), 0.0);
  const Retest& given = s.schedule.retest;
  if (p.schedule.concurrent() && s.given_retest) {
    retest.pairs = given.pairs;
    retest.seconds = given.seconds;
    double per = given.pairs > 0 ? given.pairs * slowest : given.seconds;
    if (given.pairs > 0 && given.seconds > 0) per = std::min(per, given.seconds);
    p.retest_cost = per;
  } else if (p.schedule.concurrent()) {  // the time left over, up to what re-testing every stand-out cell takes
    const double left = (kUsable * s.time_limit - elapsed - measure) / L;
    const double budget = std::min(left, dearest_retest);
    if (budget >= kRetestChunk * slowest) retest.seconds = p.retest_cost = budget;
  }
  for (double& t : p.per_length) t += p.retest_cost;
  p.predicted_s = elapsed + measure + L * p.retest_cost;
  return p;
}

// The concurrencies a list calibrates, after `extra`.
std::vector<int> limits_of(const std::vector<Candidate>& list, std::vector<int> extra) {
  for (const auto& c : list)
    if (c.schedule.concurrent() && std::find(extra.begin(), extra.end(), c.schedule.pairs_at_once) == extra.end())
      extra.push_back(c.schedule.pairs_at_once);
  return extra;
}

// With a K ladder: the cheapest count's calibration (collective; it times every K at once), K
// chosen from it on rank 0 and broadcast, the list rebuilt with that K, and the later counts
// calibrating it alone. Rank 0 gets the note of what was measured.
std::string calibrate_k(MPI_Comm comm, const Settings& s, const ModeSpec& spec, const std::vector<int>& ladder,
                        std::int64_t longest, bool shared_hosts, double sample, Pricer& pricer,
                        std::vector<Candidate>& list) {
  if (ladder.empty()) return {};
  int rank = 0;
  MPI_Comm_rank(comm, &rank);
  const auto& prices = pricer.at(list[cheapest(list)].repeats);
  std::string note;
  int k = rank == 0 ? choose_k(prices, ladder, longest, note) : 0;
  MPI_Bcast(&k, 1, MPI_INT, 0, comm);
  list = candidates(s, spec, k, shared_hosts, sample);
  pricer.calibrate_only(limits_of(list, {}));
  return note;
}

// NT_DEBUG_OVERRUN=K:S (a testing hook): from length index K on, the guard sees S seconds more
// elapsed, as if the lengths had been slower than predicted.
double debug_overrun(std::size_t k) {
  const char* v = std::getenv("NT_DEBUG_OVERRUN");
  unsigned long from = 0;
  double extra = 0;
  if (!v || std::sscanf(v, "%lu:%lf", &from, &extra) != 2) return 0;
  return k >= from ? extra : 0;
}

bool fits(const TimePlan& p) { return p.predicted_s <= kUsable * p.limit_s; }

// What the user fixed, for the message when nothing fits.
std::string given_options(const Settings& s) {
  std::vector<std::string> g;
  if (s.given_repeats) g.push_back(fmt::format("-n {}", s.repeats));
  if (s.given_schedule) g.push_back(schedule_flag(s.schedule));
  if (s.given_retest) g.push_back("the re-test budget");
  std::string out;
  for (const auto& x : g) out += (out.empty() ? "" : ", ") + x;
  return out.empty() ? std::string() : " with the options given (" + out + ")";
}

}  // namespace

std::string TimePlan::options(const Settings& given) const {
  std::string out;
  auto add = [&](const std::string& o) { out += (out.empty() ? "" : " ") + o; };
  if (!schedule.sequential() && !given.given_schedule)
    add(schedule.host_pairs() || schedule.sampled() ? schedule_flag(schedule) : "--" + schedule.name());
  if (!given.given_repeats) add(fmt::format("-n {}", repeats));
  if (schedule.retest.hosts && !given.schedule.retest.hosts) add("--retest-hosts");
  if (schedule.retest.seconds > 0 && !given.given_retest)
    add(fmt::format("--retest-seconds {:.6g}", schedule.retest.seconds));
  return out;
}

std::string TimePlan::text() const {
  const Retest& retest = schedule.retest;
  std::string budget = "none";
  if (retest.pairs > 0) budget = fmt::format("up to {} pairs per length", retest.pairs);
  if (retest.seconds > 0)
    budget = fmt::format("{}up to {} per length", retest.pairs > 0 ? budget + " and " : "",
                         format_seconds(retest.seconds));
  if (retest.hosts)
    budget = fmt::format("every pair of hosts once alone (--retest-hosts){}",
                         budget == "none" ? std::string() : "; the cells that look loaded " + budget);
  const double usable = kUsable * limit_s;
  return fmt::format(
      "time plan for --time-limit {} s:\n"
      "  schedule: {}{}\n{}"
      "  samples: {} per pair and length\n"
      "  re-test: {}\n"
      "  predicted: {:.1f} s ({:.1f} s before the sweep, calibration included; {:.1f} s the sweep) of the {:.1f} s "
      "usable ({:.0f} % of {} s)\n"
      "  options: {}",
      limit_s, schedule.name(),
      schedule.concurrent() && schedule.pairs_at_once > 0 ? fmt::format(" (K = {})", schedule.pairs_at_once)
      : schedule.sampled() ? fmt::format(" (K = {} partners, {} landmarks, {} neighbours per host)", schedule.sample.partners,
                                         schedule.sample.landmarks, schedule.sample.neighbours)
                           : "",
      k_note.empty() ? std::string() : fmt::format("  concurrency calibrated: {}\n", k_note), repeats, budget, predicted_s, elapsed_s, predicted_s - elapsed_s, usable, 100 * kUsable, limit_s,
      added.empty() ? std::string("(none besides the command line's)") : added);
}

void TimePlan::apply(Settings& s) const {
  s.schedule = schedule;
  s.repeats = repeats;
}

namespace {

// The search over one candidate list (collective): per schedule (a run of the list, most samples
// first), the fewest samples first; the first count that does not fit ends the run's search (more
// samples cost more), so counts far beyond the limit are never calibrated. The winner is priced
// again with the time the search took. nullopt: nothing in the list fits.
class Search {
 public:
  Search(MPI_Comm comm, const Settings& s, int P, double t_origin, Pricer& pricer, std::string k_note)
      : comm_(comm), s_(s), P_(P), t_origin_(t_origin), pricer_(pricer), k_note_(std::move(k_note)) {
    MPI_Comm_rank(comm, &rank_);
  }

  TimePlan priced(const Candidate& cand) {
    TimePlan p = price(cand, pricer_.at(cand.repeats), s_, P_, Ctx::now() - t_origin_);  // collective when new
    p.k_note = k_note_;
    return p;
  }

  bool fits_all(const TimePlan& p) {
    int f = rank_ == 0 && fits(p) ? 1 : 0;
    MPI_Bcast(&f, 1, MPI_INT, 0, comm_);
    return f != 0;
  }

  std::optional<TimePlan> first_fit(const std::vector<Candidate>& list) {
    for (std::size_t begin = 0, end = 0; begin < list.size(); begin = end) {
      const Schedule& run = list[begin].schedule;
      for (end = begin + 1; end < list.size() && list[end].schedule.kind == run.kind &&
                            list[end].schedule.pairs_at_once == run.pairs_at_once;)
        ++end;
      std::size_t best = end;  // none
      for (std::size_t i = end; i-- > begin;) {
        if (best < end && !pricer_.has(list[i].repeats) && !worth_calibrating(list[i].repeats, priced(list[best]))) break;
        if (!fits_all(priced(list[i]))) break;
        best = i;
      }
      for (; best < end; ++best) {  // again with the time spent since (prices are kept)
        TimePlan p = priced(list[best]);
        if (!fits_all(p)) continue;
        MPI_Bcast(&p.schedule.retest.seconds, 1, MPI_DOUBLE, 0, comm_);  // rank 0's clock decided it
        p.added = p.options(s_);
        return p;
      }
    }
    return std::nullopt;
  }

 private:
  // A count not calibrated yet is worth its calibration when that and the sweep, both scaled from
  // the fitting count below it by the samples and warm-up, still fit (rank 0 decides; a re-test
  // budget the plan gave out of the time left over is not counted: it shrinks as the sweep grows).
  bool worth_calibrating(int n, const TimePlan& below) {
    const double scale = static_cast<double>(s_.warmup + n) / static_cast<double>(s_.warmup + below.repeats);
    const double retest = static_cast<double>(below.per_length.size()) * below.retest_cost;
    TimePlan guess = below;
    guess.predicted_s = Ctx::now() - t_origin_ + scale * (pricer_.calibration_seconds(below.repeats) +
                                                           below.predicted_s - below.elapsed_s - retest +
                                                           (s_.given_retest ? retest : 0.0));
    return fits_all(guess);
  }

  MPI_Comm comm_;
  const Settings& s_;
  int rank_ = 0, P_;
  double t_origin_;
  Pricer& pricer_;
  std::string k_note_;
};

// The schedules the list prefers to every concurrent one (sequential with enough samples,
// --host-pairs, a small enough sample): its candidates before the first concurrent one, when one follows.
std::vector<Candidate> before_concurrent(const std::vector<Candidate>& list) {
  std::vector<Candidate> out;
  for (const auto& c : list) {
    if (c.schedule.concurrent()) return out;
    out.push_back(c);
  }
  return {};  // no concurrent candidate: the whole list is searched once, with its floor
}

// plan_time_limit's search; a calibration past the usable time throws CalibrationOverrun.
std::optional<TimePlan> choose_plan(MPI_Comm comm, const Settings& given, const std::vector<std::int64_t>& lengths,
                                    const ModeSpec& spec, const Placement& pl, double t_origin) {
  int rank = 0, P = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  Settings s = given;  // a sampled plan's partners: the command line's, else kPlanPartners
  if (s.schedule.sample.partners < 1) s.schedule.sample.partners = kPlanPartners;
  const int hosts = 1 + *std::max_element(pl.host_of.begin(), pl.host_of.end());
  const bool shared_hosts = hosts > 1 && hosts < P;  // host pairs to re-test, each of several ranks
  const double all_host_pairs = static_cast<double>(hosts) * static_cast<double>(hosts - 1) / 2;
  const double sample =
      all_host_pairs > 0 ? static_cast<double>(sampled_host_pairs(hosts, s.schedule.sample).size()) / all_host_pairs : 1.0;
  const auto ladder = k_ladder(s, spec, P, hosts);
  auto list = candidates(s, spec, ladder.empty() ? 0 : ladder.front(), shared_hosts, sample);
  // First the schedules preferred to any concurrent one, priced without calibrating concurrency:
  // when one fits, the lanes are never timed (at 1,024 simulated ranks the K ladder's calibration,
  // K = 128 ... 1 at every length, outlasted the --host-pairs run it would have lost to).
  // Their calibrations are kept: a count calibrated here later times the concurrent rounds alone.
  Pricer pricer(comm, s, lengths, spec, pl, {}, t_origin + kUsable * s.time_limit);
  if (const auto serial = before_concurrent(list); !serial.empty())
    if (auto p = Search(comm, s, P, t_origin, pricer, {}).first_fit(serial)) return p;
  // The K ladder is calibrated with the cheapest count (every K at once), K chosen from it, and
  // the later counts calibrate the chosen K only.
  pricer.calibrate_only(limits_of(list, ladder));
  const std::string k_note = calibrate_k(comm, s, spec, ladder, lengths.back(), shared_hosts, sample, pricer, list);
  Search search(comm, s, P, t_origin, pricer, k_note);
  // The cheapest first: when even it cannot fit, nothing else is calibrated. Of the fewest samples,
  // the schedule priced lowest (rank 0's prices): the most concurrency is not always the cheapest
  // (a round lasts as long as its slowest pair; --host-pairs measures 1/R^2 of the pairs).
  const std::size_t fewest = cheapest(list);
  TimePlan floor = search.priced(list[fewest]);  // collective: calibrates the count, then every schedule is priced
  for (std::size_t i = 0; i < list.size() && rank == 0; ++i)
    if (list[i].repeats == list[fewest].repeats)
      if (TimePlan p = search.priced(list[i]); p.predicted_s < floor.predicted_s) floor = p;
  if (!search.fits_all(floor)) {
    if (rank == 0)
      std::cerr << fmt::format("network_test: error: --time-limit {} s: the cheapest plan{}, {} with {} samples, "
                               "needs about {:.1f} s, more than the {:.1f} s usable ({:.0f} % of the limit); give a "
                               "longer limit, fewer lengths or fewer samples\n",
                               s.time_limit, given_options(s),
                               floor.schedule.name(),
                               floor.repeats, floor.predicted_s, kUsable * s.time_limit, 100 * kUsable);
    return std::nullopt;
  }
  if (auto p = search.first_fit(list)) return p;
  if (rank == 0)
    std::cerr << fmt::format("network_test: error: --time-limit {} s: after {:.1f} s of start-up and calibration no "
                             "plan fits any more; give a longer limit\n",
                             s.time_limit, Ctx::now() - t_origin);
  return std::nullopt;
}

}  // namespace

// The calibration stops as soon as its own time passes the usable part of the limit: every plan
// counts it, so none can fit any more, and calibrating on only delays the same answer (by minutes
// with thousands of samples of long messages on a loaded machine).
std::optional<TimePlan> plan_time_limit(MPI_Comm comm, const Settings& s, const std::vector<std::int64_t>& lengths,
                                        const ModeSpec& spec, const Placement& pl, double t_origin) {
  try {
    return choose_plan(comm, s, lengths, spec, pl, t_origin);
  } catch (const CalibrationOverrun& stop) {
    int rank = 0;
    MPI_Comm_rank(comm, &rank);
    if (rank == 0)
      std::cerr << fmt::format("network_test: error: --time-limit {} s: the cheapest plan{} cannot fit: the "
                               "calibration passed the {:.1f} s usable ({:.0f} % of the limit) and stopped at {} B, "
                               "{:.1f} s after the start; give a longer limit, fewer lengths or fewer samples\n",
                               s.time_limit, given_options(s), kUsable * s.time_limit, 100 * kUsable, stop.length,
                               Ctx::now() - t_origin);
    return std::nullopt;
  }
}

TimeGuard::TimeGuard(const TimePlan& plan, double t_origin) : plan_(plan), t_origin_(t_origin) {}

bool TimeGuard::operator()(Ctx& c, std::size_t k) {
  int go = 1;
  if (c.rank == 0) {
    const double now = Ctx::now();
    if (!started_) {
      started_ = true;
      t_sweep_ = now;
      first_ = k;
    }
    const double predicted_so_far = std::accumulate(plan_.per_length.begin() + static_cast<std::ptrdiff_t>(first_),
                                                    plan_.per_length.begin() + static_cast<std::ptrdiff_t>(k), 0.0);
    const double slower = predicted_so_far > 0 ? std::max(1.0, (now - t_sweep_) / predicted_so_far) : 1.0;
    next_s_ = plan_.per_length[k] * slower;
    elapsed_s_ = now - t_origin_ + debug_overrun(k);
    go = elapsed_s_ + next_s_ <= plan_.limit_s ? 1 : 0;
  }
  MPI_Bcast(&go, 1, MPI_INT, 0, c.comm);
  if (!go && !stopped_at_) stopped_at_ = k;
  return go != 0;
}

std::string TimeGuard::incomplete_line(const std::vector<std::int64_t>& lengths) const {
  const std::size_t k = stopped_at_.value_or(lengths.size());
  return fmt::format("network_test: INCOMPLETE: --time-limit {} s: stopped before {} B, {} of {} lengths measured "
                     "({:.1f} s since the start, the next length needs about {:.1f} s); the files hold every "
                     "measured length",
                     plan_.limit_s, k < lengths.size() ? lengths[k] : 0, k, lengths.size(), elapsed_s_, next_s_);
}

}  // namespace nt::measure
