// The schedule's options: --shuffle, --concurrent[=K], --rounds, --host-pairs, --switch-map, the
// re-test's and the sampled pairs', made into the Schedule value and checked (the same verdict on
// every rank), and the seed every rank draws from.
#include <limits>
#include <random>
#include <string>

#include <CLI/CLI.hpp>

#include "setup.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"

#include <fmt/format.h>

namespace nt::measure {

namespace {

// --sample-pairs K and the choice of its host pairs.
void add_sample_options(CLI::App& app, Settings& s) {
  auto* sample = app.add_option(
      "--sample-pairs", s.schedule_words.sample_pairs,
      "measure a sample of the pairs of hosts instead of all of them, as --host-pairs measures each (one rank pair "
      "alone, the pairs within each host all measured): every host with K partners drawn from --seed, with the next "
      "--sample-neighbours hosts and with --sample-landmarks landmark hosts; O(hosts x K) pairs instead of hosts^2, "
      "the same at every length; the other cells are missing (NaN) and the file's attribute `schedule` says which "
      "were measured");
  app.add_option("--sample-landmarks", s.schedule.sample.landmarks,
                 "--sample-pairs: hosts measured against every host (spread evenly over the hosts' numbers)")
      ->capture_default_str()
      ->needs(sample);
  app.add_option("--sample-neighbours", s.schedule.sample.neighbours,
                 "--sample-pairs: each host is measured with the next N hosts (in order of first appearance over the "
                 "ranks: mostly behind its own switch)")
      ->capture_default_str()
      ->needs(sample);
}

}  // namespace

// The order of the pairs: shuffled, concurrent rounds, and their re-test.
void add_schedule_options(CLI::App& app, Settings& s) {
  app.add_flag("--shuffle", s.schedule.shuffle, "randomise the order of pairs (from --seed)");
  auto* conc = app.add_flag("--concurrent{all}", s.schedule_words.concurrent,
                            "run disjoint pairs together in rounds (measures a loaded network); --concurrent=K: at "
                            "most K pairs at once in K lanes, one per host");
  nt::add_enum_option(app, "--rounds", s.schedule.rounds, rounds_names(),
                      "--concurrent: random (a new random pairing of the ranks for every sample) or fixed (the same "
                      "circle-method rounds for every sample, as before)")
      ->needs(conc);
  app.add_option("--retest", s.schedule.retest.pairs,
                 "--concurrent: per length, re-measure alone (one after the other) up to N pairs whose loaded delay "
                 "stands out of their line; the files keep both (variable `isolated`)")
      ->needs(conc);
  app.add_option("--retest-seconds", s.schedule.retest.seconds,
                 "--concurrent: per length, re-measure alone as many standing-out pairs as fit in SECONDS")
      ->needs(conc);
  app.add_option("--switch-map", s.schedule.switch_map,
                 "--concurrent, --host-pairs or --sample-pairs: FILE lists the switch of every host (lines HOST "
                 "SWITCH): the lanes are the pairs of switches, one pair after the other in each, so one pair at a "
                 "time crosses each switch's uplinks (no contention on a two-level tree), then the pairs within each "
                 "switch; with --host-pairs or --sample-pairs their host pairs run in these lanes (the same cells, "
                 "sooner); with --time-limit alone the plan's --host-pairs does");
  app.add_flag("--host-pairs", s.schedule_words.host_pairs,
               "measure one rank pair of every pair of hosts alone, one after the other, and the pairs within each "
               "host (every host at once); every other cell between two hosts gets its host pair's values: 1/R^2 of "
               "the sequential pairs with R ranks per host, exact for faults of hosts, cables and switches, blind "
               "to one rank's own faults across hosts; with --switch-map the host pairs run in lanes by switch, "
               "one pair at a time crossing each switch's uplinks");
  app.add_flag("--retest-hosts", s.schedule.retest.hosts,
               "--concurrent: per length, re-measure alone one rank pair of every pair of hosts; every cell between "
               "two hosts gets its host pair's isolated values (variable `isolated`)")
      ->needs(conc);
  app.add_option("--retest-ratio", s.schedule.retest.ratio,
                 "a cell stands out when its median is above RATIO x the median of its line (sender's row)")
      ->capture_default_str();
  add_sample_options(app, s);
}

// The checks of the schedule (validate, in its order).
void validate_schedule(const Settings& s, const ModeSpec& spec) {
  const Schedule& sched = s.schedule;
  if (sched.concurrent() && sched.rounds == Rounds::random && s.precision > 0)
    throw UsageError("--precision does not combine with the random rounds of --concurrent (one sample per round); "
                     "add --rounds fixed");
  // The lanes by switch are priced for --host-pairs only: the concurrent ones stay unpriced.
  if (sched.by_switch && sched.concurrent() && (sched.pairs_at_once > 0 || s.estimate || s.time_limit > 0))
    throw UsageError("--switch-map sets the lanes (one per pair of switches): it does not combine with --concurrent=K, "
                     "--estimate or --time-limit");
  if (sched.by_switch && sched.sequential() && !s.estimate && s.time_limit <= 0)
    throw UsageError("--switch-map sets the lanes of --host-pairs or --concurrent: give one of them (or --time-limit "
                     "or --estimate, which price --host-pairs in those lanes)");
  if (sched.retest.pairs < 0 || sched.retest.seconds < 0)
    throw UsageError("--retest and --retest-seconds must not be negative");
  if (!(sched.retest.ratio > 1.0)) throw UsageError("--retest-ratio must be greater than 1");
  if (sched.concurrent() && !spec.concurrent_ok)
    throw UsageError("--concurrent applies to the pairwise modes, not to " + spec.name);
  if (sched.host_pairs() && !spec.concurrent_ok)
    throw UsageError("--host-pairs applies to the pairwise modes, not to " + spec.name);
  if (sched.sampled() && !spec.concurrent_ok)
    throw UsageError("--sample-pairs applies to the pairwise modes, not to " + spec.name);
  if (sched.sampled() && s.precision > 0)
    throw UsageError("--sample-pairs does not combine with --precision (a host pair's cells share one measured pair)");
  if (sched.sampled() && s.resume && !s.seed)
    throw UsageError("--sample-pairs --resume needs the interrupted run's --seed (its attribute schedule says it): "
                     "the host pairs are drawn from it");
}

// The command line's words for the schedule made into its value: --concurrent[=K], --host-pairs,
// --switch-map.
void resolve_schedule(Settings& s) {
  Schedule& sched = s.schedule;
  const std::string& arg = s.schedule_words.concurrent;
  // Host pairs are measured alone: K lanes without the topology would load them; the lanes that
  // keep them apart are --switch-map's.
  if (s.schedule_words.host_pairs && !arg.empty())
    throw UsageError("--host-pairs measures every host pair alone: it does not combine with --concurrent[=K] (pairs "
                     "under load); give --host-pairs --switch-map FILE to run its host pairs in lanes by switch");
  if (s.schedule_words.host_pairs) sched.kind = ScheduleKind::host_pairs;
  sched.by_switch = !sched.switch_map.empty();
  if (const auto& k = s.schedule_words.sample_pairs) {
    if (*k < 1) throw UsageError(fmt::format("--sample-pairs K: K must be at least 1 partner per host, got {}", *k));
    if (s.schedule_words.host_pairs || !arg.empty() || sched.retest.any())
      throw UsageError("--sample-pairs measures a sample of the host pairs alone (one after the other, or in lanes by "
                       "switch with --switch-map): it does not combine with --host-pairs, --concurrent or the re-test");
    if (sched.sample.landmarks < 0 || sched.sample.neighbours < 0)
      throw UsageError("--sample-landmarks and --sample-neighbours must not be negative");
    sched.kind = ScheduleKind::sampled;
    sched.sample.partners = *k;
  }
  if (arg.empty()) return;
  sched.kind = ScheduleKind::concurrent;
  if (arg == "all") return;
  std::size_t used = 0;
  long k = 0;
  try {
    k = std::stol(arg, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != arg.size() || k < 1 || k > std::numeric_limits<int>::max())
    throw UsageError("--concurrent=K: K must be a positive number of pairs or 'all', got '" + arg + "'");
  sched.pairs_at_once = static_cast<int>(k);
}

void share_seed(MPI_Comm comm, int rank, Settings& s) {
  std::uint64_t seed = s.seed.value_or(0);
  if (!s.seed && rank == 0) seed = (static_cast<std::uint64_t>(std::random_device{}()) << 32) ^ std::random_device{}();
  MPI_Bcast(&seed, 1, MPI_UINT64_T, 0, comm);
  s.seed = seed;
  s.schedule.sample.seed = seed;
}

}  // namespace nt::measure
