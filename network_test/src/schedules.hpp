// The schedules of a length beside the sequential one: concurrent rounds (concurrent.cpp), lanes
// (lanes.cpp), the re-test (retest.cpp), one pair per host pair (host_pairs.cpp) and sampled host
// pairs (sampled.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <vector>

#include "nt/measure/measure.hpp"
#include "runner.hpp"

namespace nt::measure {

// The concurrent schedule (concurrent.cpp) of length k of the sweep: every repetition of a
// 1-factorisation (one per sample with --rounds random, one with all samples with fixed), every
// pair of a round at once and a sleeping barrier after each, or with --concurrent=K its lanes.
// Returns the bytes of the schedule's state on this rank (O(P)).
std::size_t run_concurrent(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// The first `rounds` rounds of repetition `repetition` of length k with at most `limit` pairs at
// once (0: all), as run_concurrent runs them (--estimate's calibration).
void run_concurrent_rounds(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit);
// Rounds per repetition of the concurrent schedule with at most `limit` pairs at once, as priced
// (limit 0: the ranks' rounds; else the lanes' rounds, one for the pairs within the groups and one
// for those within the hosts: upper bounds, each has fewer pairs than a lane), and the share of a
// rounds' worth that run_concurrent_rounds(..., rounds, limit) runs (the lanes of a calibration
// stop after a few pairs each; a schedule may have fewer rounds than asked).
int concurrent_rounds(const Ctx& c, int limit);
double concurrent_round_share(const Ctx& c, int limit, int rounds);
// This rank's part of one round: its pair {a, b} (a < b), both directions or one exchange.
void run_pair_of_round(Ctx& c, int a, int b, std::int64_t length);
// An exchange mode's exchange of this rank with itself (nothing for the other modes).
void run_self_exchange(Ctx& c, std::int64_t length);
// The pairs within this rank's host, one after the other (lanes.cpp): every host at once, since
// they load no cable.
void run_within_host(Ctx& c, const Units& u, std::int64_t length);
// --concurrent=K (lanes.cpp): repetition `repetition` of length k in K lanes (on_round: the
// fraction of the repetition done); returns the bytes of its state on this rank (O(P)).
std::size_t run_lanes(Ctx& c, std::size_t k, std::int64_t length, int repetition,
                      const std::function<void(double)>& on_round);
int lane_rounds(const Ctx& c, int limit);
double lane_calibration_share(const Ctx& c, int limit, int rounds);
// The first `rounds` rounds of the lanes at `limit`, each lane stopped after a few pairs.
void run_lane_calibration(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit);
// Repetitions of the 1-factorisation per length: the samples (-n), at most kMaxRepetitions, with
// --rounds random (each repetition costs every pair a clock-offset estimate and a warm-up round:
// 500 samples one per repetition took a 16-rank simulation 47x the host time), else 1.
inline constexpr int kMaxRepetitions = 16;
int concurrent_repetitions(const Settings& s);

// --retest (retest.cpp): after the concurrent rounds of length k, the cells of the lines whose
// median (medians: this rank's line, [peer]) stands out are measured again alone, within the
// budget; isolated gets this rank's line of every statistic ([statistic * P + peer], the order of
// standard_statistics()), NaN where not re-tested. Collective.
struct RetestResult {
  long pairs = 0;      // tasks re-tested (every rank)
  double seconds = 0;  // the re-test's time on this rank
};
RetestResult run_retest(Ctx& c, std::size_t k, std::int64_t length, const std::vector<double>& medians,
                        std::vector<double>& isolated);
// The settings of a re-test's pair tasks (host_pairs.cpp): the sweep's, unshuffled (a pair's own task).
Settings unshuffled(const Settings& s);
// --retest-hosts (host_pairs.cpp): each cell of this rank's line between two hosts that was not
// re-tested gets the isolated values of its host pair (of the re-tested cell with the smallest
// isolated median, over the ranks of this host: an exchange within the host); isolated:
// [statistic * P + peer] as run_retest fills it.
// Collective over c.comm.
void fill_by_host_pair(const Ctx& c, std::vector<double>& isolated);
// The first phase of a schedule of one pair per host pair (host_pairs.cpp): the pairs within each
// host (every host at once) and each rank with itself, between two idle barriers (the previous
// length is written before, no host pair starts beside them after). Collective over c.comm.
void run_host_phase(Ctx& c, const Units& u, std::int64_t length);
// The cells of this rank's line that task t measures: peers q, appended.
void add_line_peers(const Ctx& c, const Task& t, std::vector<std::size_t>& peers);
// A schedule of one pair per host pair (host_pairs.cpp): the cells of this rank's line that no pair
// measured, neither within its host nor among `peers`, keep no samples (used 0). Returns P bytes.
std::size_t keep_measured_cells(Ctx& c, const std::vector<std::size_t>& peers);
// The same for the pairs of `list` (HostPairList, SampledPairList) this rank measures.
template <class List>
std::size_t keep_measured_cells(Ctx& c, const List& list) {
  std::vector<std::size_t> peers;
  const auto mine = list.positions_of(c.rank);  // always known for these lists
  for (std::size_t pos : *mine) add_line_peers(c, list[pos], peers);
  return keep_measured_cells(c, peers);
}
// The peers whose cells this rank's line measures in `list`'s pairs and within its host, ascending.
template <class List>
std::vector<int> measured_peers(const Ctx& c, const List& list) {
  std::vector<std::size_t> peers;
  const auto mine = list.positions_of(c.rank);
  for (std::size_t pos : *mine) add_line_peers(c, list[pos], peers);
  const int h = c.hosts[static_cast<std::size_t>(c.rank)];
  for (std::size_t q = 0; q < c.hosts.size(); ++q)
    if (c.hosts[q] == h) peers.push_back(q);
  std::sort(peers.begin(), peers.end());
  peers.erase(std::unique(peers.begin(), peers.end()), peers.end());
  return std::vector<int>(peers.begin(), peers.end());
}
// A schedule of one pair per host pair at length k: the peers of the cells this rank measures
// (the SampleStore's slots) and those of its line that can hold a value (the sampled schedule's
// line_of; empty: every peer, as --host-pairs fills every host pair). Both ascending.
struct LinePeers {
  std::vector<int> measured, line;
};
LinePeers sampled_line_peers(const Ctx& c, std::size_t k);
LinePeers host_pair_line_peers(const Ctx& c, std::size_t k);
// fill_by_host_pair on a line of the peers `line` (ascending; empty: every peer), isolated:
// [statistic * line size + j] for the j-th. Every rank of a host must hold the same hosts in it.
void fill_line_by_host_pair(const Ctx& c, const std::vector<int>& line, std::vector<double>& isolated);
// --host-pairs (host_pairs.cpp), length k: the pairs within each host (every host at once), then
// one rank pair of every pair of hosts alone, one after the other (HostPairList); the cells of this
// rank's line that no pair measured keep no samples (used 0), for fill_by_host_pair to fill after
// the summary. Returns the bytes of the schedule's state on this rank (O(P)).
std::size_t run_host_pair_schedule(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// --sample-pairs (sampled.cpp), length k: the pairs within each host (every host at once), then
// one rank pair of each sampled host pair alone, one after the other (SampledPairList); the cells
// of this rank's line that no pair measured keep no samples (used 0): fill_by_host_pair fills those
// of the sampled host pairs, the others stay missing. Returns the bytes of its state on this rank.
std::size_t run_sampled_schedule(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// The tasks of the sampled schedule of c's settings at a length (their count is the same at every length).
std::size_t sampled_tasks(const Ctx& c);
// --host-pairs --switch-map (lanes.cpp): list's host pairs of length k in lanes by switch. Per
// length a random 1-factorisation of the switches (Groups by switch); in each round every pair of
// switches {X, Y} is a lane whose host pairs (one rank pair each, both ways) run one after the
// other, the lanes at once; then the host pairs within each switch, every switch at once. So one
// measured pair at a time crosses each switch's uplinks, as in --concurrent --switch-map, and each
// is its host pair's own delay. Returns the bytes of its state on this rank (O(P)).
// With --sample-pairs --switch-map the same lanes run the sampled host pairs (SampledPairList).
template <class List>
std::size_t run_host_lanes(Ctx& c, const List& list, std::size_t k, std::int64_t length, const StepHook& on_step = {});
// The seconds of run_host_lanes' host pairs at length k (its price, less the barriers) when a host
// pair of a lane of switch X takes rate[X] (of host_lane_rates): per round its slowest lane, then
// the fullest switch's own host pairs.
double host_lane_seconds(const Ctx& c, std::size_t k, const std::vector<double>& rate);
// The same for the sampled host pairs in those lanes (--sample-pairs --switch-map).
double sampled_lane_seconds(const Ctx& c, std::size_t k, const std::vector<double>& rate);
// The rounds of the switches of length k's host lanes, each ended by a barrier (the barrier after
// every switch at once is the one that ends any schedule's length, --host-pairs' too).
int host_lane_rounds(const Ctx& c, std::size_t k);
// --estimate's calibration of the lanes: the first `rounds` rounds of length k, each lane stopped
// after a few host pairs. lane_time (rounds x switches): this rank's
// time from the start of round q to its end of its lane, in slot q x switches + its switch.
void run_host_lane_calibration(Ctx& c, std::size_t k, std::int64_t length, int rounds, std::vector<double>& lane_time);
// Per switch, the seconds per host pair of its lanes from lane_time taken the largest over the
// ranks: the least over its calibrated lanes of a lane's time over its host pairs. A lane is as
// slow as its slower switch (a slow uplink's), so the least is the switch's own rate. A switch in
// no calibrated lane takes the dearest rate; where no lane was calibrated (a map of one switch,
// whose host pairs all run within it), every switch takes `alone`: a host pair's task measured alone.
std::vector<double> host_lane_rates(const Ctx& c, std::size_t k, const std::vector<double>& lane_time, double alone);

}  // namespace nt::measure
