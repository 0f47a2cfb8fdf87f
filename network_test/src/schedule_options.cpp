// The schedule's options: --shuffle, --concurrent[=K], --rounds, --host-pairs, --switch-map and the
// re-test's, made into the Schedule value and checked (the same verdict on every rank).
#include <limits>
#include <string>

#include <CLI/CLI.hpp>

#include "internal.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"

namespace nt::measure {

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
                 "--concurrent or --host-pairs: FILE lists the switch of every host (lines HOST SWITCH): the lanes "
                 "are the pairs of switches, one pair after the other in each, so one pair at a time crosses each "
                 "switch's uplinks (no contention on a two-level tree), then the pairs within each switch; with "
                 "--host-pairs its host pairs run in these lanes (the same cells, sooner); with --time-limit alone "
                 "the plan's --host-pairs does");
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

}  // namespace nt::measure
