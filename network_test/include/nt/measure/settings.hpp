// network_test's common settings: what the command line decides for every mode (Settings) and
// what validate() derives from it (SweepPlan). A mode's own options live in its mode file (see
// mode.hpp). Identical on every rank after parsing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "nt/cli.hpp"
#include "nt/schedule.hpp"
#include "nt/types.hpp"

namespace nt::measure {

// The option values that are one of a few names (nt::add_enum_option over the tables below;
// nt::name_of gives the name a file or message says). `automatic` is the name "auto".
enum class ProgressStyle { automatic, bar, lines, none };  // --progress
enum class Oversubscribed { automatic, on, off };    // --oversubscribed
enum class ClockSync { automatic, pingpong };        // --clock-sync
// Their names, in the order --help lists them (network_test/src/settings.cpp).
const nt::Names<ProgressStyle>& progress_names();
const nt::Names<Oversubscribed>& oversubscribed_names();
const nt::Names<ClockSync>& clock_sync_names();

struct Settings {
  Mode mode = Mode::one_to_one;          // -t: a registered mode (nt::add_enum_option refuses the rest)
  std::string prefix = "network";
  int begin = 0, end = 10000, step = 100;
  std::vector<std::int64_t> length_list;  // --lengths
  double geometric = 0.0;                 // --geometric FACTOR (> 1)
  int repeats = 100;                     // samples per pair and length (the maximum with --precision)
  int warmup = 10;
  double precision = 0.0;                 // --precision REL: sample until the median's 95 % CI is within REL
  int min_repeats = 10;                   // --min-repeats: first batch with --precision
  // Noise traffic of the noise modes (their options are registered by those modes); every file
  // records the length and count in its legacy header, whatever its mode.
  int noise_length = 1024, noise_messages = 10, noise_procs = 1;
  std::optional<std::uint64_t> seed;      // resolved on rank 0 when not given
  bool many_lengths = false;              // --many-lengths: a linear sweep above kSaneSweepLengths
  bool force = false, resume = false, raw = false, estimate = false;
  bool list = false, quiet = false;
  // The order of the pairs and their re-test (--shuffle, --concurrent[=K], --rounds, --switch-map,
  // --host-pairs, --retest*): what every part of the run dispatches on. Its switches are read
  // (gather_switches) before the run's Ctx is made.
  nt::Schedule schedule;
  // The command line's words for the schedule's kind, made into `schedule` by resolve_options
  // (app.cpp) and read nowhere else: --concurrent[=K] ("all" or K), --host-pairs, --sample-pairs K.
  struct ScheduleWords {
    std::string concurrent;
    bool host_pairs = false;
    std::optional<int> sample_pairs;  // --sample-pairs K
  } schedule_words;
  double time_limit = 0.0;                // --time-limit SECONDS: plan the open choices to fit (0: no limit)
  bool given_repeats = false, given_schedule = false, given_retest = false;  // on the command line (--time-limit)
  ProgressStyle progress = ProgressStyle::automatic;  // --progress: auto, bar, lines, none
  Oversubscribed yield = Oversubscribed::automatic;  // --oversubscribed: busy waits call sched_yield: auto, on, off
  double timeout = 0.0;                   // seconds, 0 = none
  int sync_rounds = 10;                   // ping-pongs for a clock-offset estimate
  ClockSync clock_sync = ClockSync::automatic;  // auto: same host = shared clock; pingpong: always estimate
  double idle_sleep_max = 100e-6;         // longest back-off sleep of a waiting rank
  std::string command_line;
};

// Derived by validate() (network_test/src/app.cpp) from the Settings: the message lengths.
struct SweepPlan {
  std::vector<std::int64_t> lengths;  // the sweep, in order
  std::string kind;                   // "linear", "list", "geometric"
};

// A linear sweep of more lengths than this is refused without --many-lengths: -b 0 -e 1048576 and the
// default step of 100 plan 10,486 lengths (hours per pair), which --geometric was meant for.
inline constexpr std::int64_t kSaneSweepLengths = 1000;

// Builds the sweep from begin/end/step, --lengths or --geometric. Throws UsageError.
std::vector<std::int64_t> make_sweep(const Settings& s, std::string* kind = nullptr);

// Seconds the `lengths` still to come will take, from (length, seconds) of those done: fitted
// as a + b * length (a, b >= 0); with one length seen, latency and bandwidth are assumed to cost
// the same at 16 KiB. -1 without data. Progress's ETA.
double predict_time(const std::vector<std::pair<std::int64_t, double>>& done, const std::vector<std::int64_t>& lengths);

// The distribution-free 95 % confidence interval of the median of sorted samples (order
// statistics); {lo, hi} are indices into v. Needs v.size() >= 6 for a finite interval.
std::pair<std::size_t, std::size_t> median_ci_indices(std::size_t n);
// True when the 95 % CI of the median of v (unsorted; sorted in place) lies within rel * median.
bool median_precise(std::vector<double>& v, double rel);
// --precision: the size of the next batch after `taken` samples whose worst interval is `worst`
// times the asked precision (0: done, when worst <= 1 or -n = max_n is reached): about the count
// that would reach the target, at least taken/4 and at most taken (share/doc/network_test.md).
int next_batch(int taken, double worst, int max_n);

}  // namespace nt::measure
