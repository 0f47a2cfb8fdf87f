// The schedule of a run: in which order, and how many at once, network_test measures the pairs,
// and which cells it measures again alone afterwards. One value: network_test dispatches on it,
// every result file records it (global attribute `schedule`, machine-readable, beside the prose
// of `pair_order` and `retest`), and readers take it from there (schedule_of).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nt/cli.hpp"

namespace nt {

struct Metadata;

// Sequential: one pair after the other (in sender-major order, or shuffled per length).
// Host pairs (--host-pairs): the pairs within each host, then one rank pair of every pair of
// hosts alone (one after the other, or with --switch-map in lanes by switch); every other cell
// between two hosts gets its host pair's values.
// Concurrent (--concurrent[=K], --switch-map): disjoint pairs together in rounds (a loaded network).
// Sampled (--sample-pairs K): as host pairs, but only the sampled host pairs (sampled_host_pairs);
// the cells of the other host pairs stay missing (NaN).
enum class ScheduleKind { sequential, host_pairs, concurrent, sampled };

// The host pairs a sampled schedule measures (--sample-pairs K, --sample-landmarks L,
// --sample-neighbours N, --seed S): every pair of a landmark host with every host, every host with
// the next N hosts (numbers modulo H), and every host with K partners drawn at random; the same
// pairs at every length.
struct Sampling {
  int partners = 0;         // K: random partners per host
  int landmarks = 2;        // L: hosts measured against every host
  int neighbours = 2;       // N: the next hosts in numbering (ranks are placed switch by switch)
  std::uint64_t seed = 0;   // the run's seed
};

// The rounds of a concurrent schedule (--rounds): a new random 1-factorisation for every sample,
// or the circle method's rounds for every sample.
enum class Rounds { random, fixed };
const Names<Rounds>& rounds_names();

// The isolated re-test after the concurrent rounds of each length (--retest N, --retest-seconds S,
// --retest-hosts, --retest-ratio F).
struct Retest {
  int pairs = 0;         // at most this many standing-out cells per length (0: no count)
  double seconds = 0.0;  // at most this long per length (0: no time budget)
  double ratio = 1.2;    // a cell stands out above ratio x the median of its line
  bool hosts = false;    // one rank pair of every pair of hosts alone, for every cell between them
  bool by_budget() const { return pairs > 0 || seconds > 0; }
  bool any() const { return by_budget() || hosts; }
};

struct Schedule {
  ScheduleKind kind = ScheduleKind::sequential;
  bool shuffle = false;            // the order of the tasks shuffled per length from the seed (--shuffle)
  Rounds rounds = Rounds::random;  // concurrent
  int pairs_at_once = 0;           // concurrent: at most K pairs at once in K lanes (--concurrent=K); 0: no bound
  bool by_switch = false;          // concurrent or host pairs: the lanes are the pairs of switches (--switch-map)
  std::string switch_map;          // by_switch: the file of the switches (empty where a file does not say)
  std::vector<int> switches;       // by_switch: every rank's switch, numbered by first appearance (once read)
  Retest retest;                   // concurrent: the isolated re-test (retested() says whether it runs)
  Sampling sample;                 // sampled: which host pairs

  bool sequential() const { return kind == ScheduleKind::sequential; }
  bool host_pairs() const { return kind == ScheduleKind::host_pairs; }
  bool concurrent() const { return kind == ScheduleKind::concurrent; }
  bool sampled() const { return kind == ScheduleKind::sampled; }
  // One rank pair per host pair, each alone: --host-pairs and --sample-pairs.
  bool by_host_pair() const { return host_pairs() || sampled(); }
  // Concurrent in lanes (K of them, or one per pair of switches) rather than whole rounds.
  bool in_lanes() const { return concurrent() && (pairs_at_once > 0 || by_switch); }
  // Concurrent with a re-test of any kind.
  bool retested() const { return concurrent() && retest.any(); }

  // "sequential", "host-pairs", "host-pairs by switch", "concurrent", "concurrent=K",
  // "concurrent by switch" or "sampled".
  std::string name() const;
  // What the files say in prose: attribute pair_order, and attribute retest (when retested()).
  std::string pair_order_text() const;
  std::string retest_text() const;
  // The machine-readable attribute `schedule`: the kind ("sequential", "host-pairs",
  // "concurrent", "concurrent=K", "sampled"), then what applies of "partners=K landmarks=L
  // neighbours=N seed=S" (sampled), "shuffle", "rounds=random|fixed"
  // (concurrent), "switch-map=PATH" (percent-encoded) and "switches=0,0,1,1" (concurrent or host
  // pairs), "retest=N", "retest-seconds=S", "retest-hosts", "retest-ratio=F" (concurrent),
  // separated by single spaces.
  std::string to_attribute() const;
  // Its inverse: throws nt::Error naming what it does not understand.
  static Schedule from_attribute(const std::string& text);
};

inline constexpr const char* kAttrSchedule = "schedule";

// The prose of pair_order that files written before attribute `schedule` are read by: the
// --host-pairs schedule's text starts with kHostPairsOrder's first words ("host pairs:"), the
// concurrent ones say "concurrent", and the lanes by switch say kLanesBySwitch (in host pairs'
// text as kHostLanesOrder says).
inline constexpr const char* kHostPairsOrder =
    "host pairs: the pairs within each host (every host at once, one pair after the other), then one rank pair of "
    "every ordered pair of hosts alone, one after the other (rank (B + k) mod n_A of host A with rank (A + k) mod "
    "n_B of host B, k the length's index); every other cell between two hosts holds the statistics of its host "
    "pair's measured cell and no samples of its own";
inline constexpr const char* kLanesBySwitch = "lanes by switch";
// --host-pairs --switch-map's text: {} the switch map's file.
inline constexpr const char* kHostLanesOrder =
    "host pairs: the pairs within each host (every host at once, one pair after the other), then one rank pair of "
    "every ordered pair of hosts (rank (B + k) mod n_A of host A with rank (A + k) mod n_B of host B, k the length's "
    "index) in lanes by switch (--switch-map {}): per length a random 1-factorisation of the switches; each pair of "
    "switches a lane whose host pairs run one after the other, the lanes at once, then the host pairs within each "
    "switch (one after the other, every switch at once): one measured pair at a time crosses each switch's uplinks; "
    "every other cell between two hosts holds the statistics of its host pair's measured cell and no samples of its "
    "own";

// The schedule a file was measured with: its attribute `schedule`, else what its pair_order says
// (files of earlier versions: the kind, rounds, K and the switch map's file; no re-test budget);
// nothing when it has neither (legacy files, other tools). Throws nt::Error on a malformed attribute.
std::optional<Schedule> schedule_of(const Metadata& m);
// Measured under load (--concurrent): pairs shared the network.
bool measured_concurrently(const Metadata& m);
// Measured with --host-pairs: every cell between two hosts holds its host pair's values.
bool filled_by_host_pair(const Metadata& m);
// Measured with --sample-pairs: only the sampled host pairs (the other cells missing).
bool sampled_pairs(const Metadata& m);

// The host pairs {a, b} (a < b) of a sampled schedule on `hosts` hosts (numbered 0 .. hosts-1 in
// order of first appearance over the ranks), ascending: the same on every rank and for every
// reader of the file (core/src/sampled_pairs.cpp). O(hosts (K + L + N)).
std::vector<std::pair<int, int>> sampled_host_pairs(int hosts, const Sampling& s);
// The landmark hosts of that draw, ascending.
std::vector<int> sampled_landmarks(int hosts, const Sampling& s);

}  // namespace nt
