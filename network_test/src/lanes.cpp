// --concurrent=K: K lanes of pairs, each lane one pair after the other, every host in one lane at
// a time. --concurrent --switch-map FILE: the lanes are the pairs of switches (see Groups), and
// --host-pairs --switch-map FILE runs its host pairs in those lanes (run_host_lanes).
//
// The units are the hosts when some host runs several ranks, else the ranks. Each repetition (one
// per sample with --rounds random) draws a random partition of the U units into G = min(2K, U)
// groups of near-equal size and a random 1-factorisation of the groups (Factorisation over G). In
// a round every pair of groups {X, Y} is a lane: the pairs of X's ranks with Y's run one after the
// other, unit pair by unit pair, and the K lanes run at once, each at its own pace; a barrier ends
// the round. Then the pairs within each group (its units with each other: two halves of at most K
// lanes) and the pairs within each host (every host at once: they load no cable), each phase
// ended by a barrier. At most K pairs load the network at once and no unit is in two of them.
//
// Why lanes and not sub-rounds of K pairs: a sub-round lasts as long as its slowest
// pair, and on a network with a slow host or a slow uplink nearly every sub-round holds one of
// their pairs, so the schedule paid the slowest pair's time at every step. A lane carries
// (U/G)^2 unit pairs, so a slow one adds its own share to its lane, not to every step; and a
// barrier per round (2K per repetition) replaces one hand-over per sub-round.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "schedules.hpp"

namespace nt::measure {

namespace {
constexpr std::size_t kAll = static_cast<std::size_t>(-1);

// Groups of a repetition with at most `limit` lanes at once: 2 limit, at most one per unit.
int group_count(const Units& u, int limit) { return std::max(1, std::min(2 * limit, u.size())); }

// One repetition's groups: a random partition of the units (identity with --rounds fixed) into G
// parts of near-equal size, part g = positions [g U / G, (g + 1) U / G) of the order; or, with
// --switch-map, the units under each switch (part g = switch g, its units in a random order), and a
// random 1-factorisation of the G parts.
class Groups {
 public:
  Groups(const Ctx& c, const Units& u, int limit, std::size_t k, int repetition)
      : Groups(c, u, k, repetition, group_count(u, limit), {}) {}
  // switch_of: every rank's switch (numbered 0 .. G-1).
  Groups(const Ctx& c, const Units& u, std::size_t k, int repetition, const std::vector<int>& switch_of)
      : Groups(c, u, k, repetition, 1 + *std::max_element(switch_of.begin(), switch_of.end()), switch_of) {}
  int count() const { return G_; }
  const Factorisation& rounds() const { return f_; }
  int of(int unit) const {
    const int p = pos_[static_cast<std::size_t>(unit)];
    return static_cast<int>(std::upper_bound(start_.begin(), start_.end(), p) - start_.begin()) - 1;
  }
  // The units of group g.
  const int* begin(int g) const { return order_.data() + start_[static_cast<std::size_t>(g)]; }
  const int* end(int g) const { return order_.data() + start_[static_cast<std::size_t>(g) + 1]; }
  std::size_t bytes() const {
    return (order_.capacity() + pos_.capacity() + start_.capacity()) * sizeof(int) + f_.bytes();
  }

 private:
  Groups(const Ctx& c, const Units& u, std::size_t k, int repetition, int G, const std::vector<int>& switch_of)
      : U_(u.size()), G_(G), order_(static_cast<std::size_t>(U_)), start_(static_cast<std::size_t>(G) + 1),
        f_(G_, c.settings.seed.value_or(0), k, repetition, c.settings.schedule.rounds == Rounds::random,
           c.settings.schedule.shuffle) {
    std::iota(order_.begin(), order_.end(), 0);
    if (c.settings.schedule.rounds == Rounds::random)
      shuffle_ints(order_, mix_seed(c.settings.seed.value_or(0), k, static_cast<std::uint64_t>(repetition),
                                    0x6c616e6573ULL));
    if (switch_of.empty()) {
      for (int g = 0; g <= G_; ++g) start_[static_cast<std::size_t>(g)] = static_cast<int>(static_cast<long long>(g) * U_ / G_);
    } else {  // by switch (a unit's ranks share its host, so its first rank's switch), stable
      const auto sw = [&](int unit) { return switch_of[static_cast<std::size_t>(*u.begin(unit))]; };
      std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) { return sw(a) < sw(b); });
      for (int unit : order_) ++start_[static_cast<std::size_t>(sw(unit)) + 1];
      std::partial_sum(start_.begin(), start_.end(), start_.begin());
    }
    pos_.resize(order_.size());
    for (std::size_t i = 0; i < order_.size(); ++i) pos_[static_cast<std::size_t>(order_[i])] = static_cast<int>(i);
  }

  int U_, G_;
  std::vector<int> order_, pos_, start_;  // start_: G + 1 positions, part g = [start_[g], start_[g + 1])
  Factorisation f_;
};

// Runs this rank's part of a chain of pairs, given as a generator: gen(emit) calls emit(a, b) for
// each pair in order and stops when emit returns false; at most `cap` pairs. The first rank of a
// pair leads it: when it is over, the leader tells the ranks of the next pair that were not in it
// that their turn has come (one byte, tag kTagChain); a rank entering the chain waits for that.
template <class Gen>
void run_chain(Ctx& c, const Gen& gen, std::size_t cap, std::int64_t length) {
  using Pair = std::pair<int, int>;
  const auto in = [&](const Pair& p) { return p.first == c.rank || p.second == c.rank; };
  std::size_t n = 0;
  Pair prev{-1, -1}, cur{-1, -1};
  const auto step = [&](const Pair* next) {
    if (!in(cur)) return;
    if (prev.first >= 0 && !in(prev)) {
      char token = 0;
      MPI_Request req;
      MPI_Irecv(&token, 1, MPI_CHAR, prev.first, kTagChain, c.comm, &req);
      c.idle_wait(req, idle_deadline(c, 2.0 + static_cast<double>(n)),
                  fmt::format("timeout: rank {} waited too long for its turn in its lane at length {}", c.rank,
                              length));
    }
    run_pair_of_round(c, std::min(cur.first, cur.second), std::max(cur.first, cur.second), length);
    if (next == nullptr || cur.first != c.rank) return;
    char go = 1;
    for (int m : {next->first, next->second})
      if (m != cur.first && m != cur.second) c.send(&go, 1, MPI_CHAR, m, kTagChain);
  };
  gen([&](int a, int b) {
    if (n == cap) return false;
    const Pair next{a, b};
    if (n++ > 0) step(&next);
    prev = cur;
    cur = next;
    return true;
  });
  if (n > 0) step(nullptr);
}

// The pairs of unit x's ranks with unit y's.
template <class Emit>
bool emit_units(const Units& u, int x, int y, const Emit& emit) {
  for (const int* a = u.begin(x); a != u.end(x); ++a)
    for (const int* b = u.begin(y); b != u.end(y); ++b)
      if (!emit(*a, *b)) return false;
  return true;
}

// Lane {X, Y} of a round: every unit of X with every unit of Y.
void run_lane(Ctx& c, const Units& u, const Groups& g, int X, int Y, std::size_t cap, std::int64_t length) {
  run_chain(c, [&](const auto& emit) {
    for (const int* x = g.begin(X); x != g.end(X); ++x)
      for (const int* y = g.begin(Y); y != g.end(Y); ++y)
        if (!emit_units(u, *x, *y, emit)) return;
  }, cap, length);
}

// The pairs within group X: its units with each other.
void run_within_group(Ctx& c, const Units& u, const Groups& g, int X, std::int64_t length) {
  run_chain(c, [&](const auto& emit) {
    for (const int* x = g.begin(X); x != g.end(X); ++x)
      for (const int* y = x + 1; y != g.end(X); ++y)
        if (!emit_units(u, *x, *y, emit)) return;
  }, kAll, length);
}

// The pairs within this rank's host (at most `cap`).
void run_within_host_upto(Ctx& c, const Units& u, std::size_t cap, std::int64_t length) {
  const int h = u.of(c.rank);
  run_chain(c, [&](const auto& emit) {
    for (const int* a = u.begin(h); a != u.end(h); ++a)
      for (const int* b = a + 1; b != u.end(h); ++b)
        if (!emit(*a, *b)) return;
  }, cap, length);
}

// Pairs per lane step of the calibration: a few unit pairs' worth.
std::size_t calibration_cap(const Units& u) {
  const auto r = static_cast<std::size_t>(u.most_ranks());
  return std::max<std::size_t>(4, 2 * r * r);
}

// Rounds [0, rounds) of the lanes, each lane at most `cap` pairs; on_round(q) before round q.
template <class OnRound>
void run_lane_rounds(Ctx& c, const Units& u, const Groups& g, int rounds, std::size_t cap, std::int64_t length,
                     const OnRound& on_round) {
  const int mine = g.of(u.of(c.rank));
  for (int q = 0; q < rounds; ++q) {
    on_round(q);
    const int other = g.rounds().partner(q, mine);
    if (other >= 0) run_lane(c, u, g, std::min(mine, other), std::max(mine, other), cap, length);
    idle_barrier(c, 2, length);
  }
}
// Host pair {x, y} (units) as one rank pair of list's, emitted.
template <class List, class Emit>
bool emit_host_pair(const List& list, int x, int y, const Emit& emit) {
  return emit(list.rank_of(x, y), list.rank_of(y, x));
}

// The host pairs of the lane of groups X <= Y (X == Y: the pairs within X), emitted in an order
// every rank of the lane agrees on; false when emit stopped. Every host pair of --host-pairs:
template <class Emit>
bool emit_lane(const HostPairList& list, const Groups& g, int X, int Y, const Emit& emit) {
  for (const int* x = g.begin(X); x != g.end(X); ++x)
    for (const int* y = X == Y ? x + 1 : g.begin(Y); y != g.end(Y); ++y)
      if (!emit_host_pair(list, *x, *y, emit)) return false;
  return true;
}
// of --sample-pairs, each host's sampled partners in Y (after it, within X): O(hosts x partners),
// not hosts^2, per lane.
template <class Emit>
bool emit_lane(const SampledPairList& list, const Groups& g, int X, int Y, const Emit& emit) {
  for (const int* x = g.begin(X); x != g.end(X); ++x) {
    const bool all = list.each_partner(*x, [&](int y) {
      return g.of(y) != Y || (X == Y && y < *x) || emit_host_pair(list, *x, y, emit);
    });
    if (!all) return false;
  }
  return true;
}

// The sizes (in units) of the groups of g.
std::vector<std::size_t> group_sizes(const Groups& g) {
  std::vector<std::size_t> n;
  for (int X = 0; X < g.count(); ++X) n.push_back(static_cast<std::size_t>(g.end(X) - g.begin(X)));
  return n;
}
}  // namespace

void run_within_host(Ctx& c, const Units& u, std::int64_t length) { run_within_host_upto(c, u, kAll, length); }

namespace {
// Rounds [0, rounds) of the host pairs in lanes by switch, each lane at most `cap` host pairs;
// on_round(q) before round q.
template <class List, class OnRound>
void run_host_lane_rounds(Ctx& c, const List& list, const Units& u, const Groups& g, int rounds, std::size_t cap,
                          std::int64_t length, const OnRound& on_round) {
  const int mine = g.of(u.of(c.rank));
  for (int q = 0; q < rounds; ++q) {
    on_round(q);
    const int other = g.rounds().partner(q, mine);
    if (other >= 0) {
      const int X = std::min(mine, other), Y = std::max(mine, other);
      run_chain(c, [&](const auto& emit) { emit_lane(list, g, X, Y, emit); }, cap, length);
    }
    idle_barrier(c, 2, length);
  }
}

// Host pairs per lane in a round of the calibration.
constexpr std::size_t kHostLaneCap = 4;
}  // namespace

template <class List>
std::size_t run_host_lanes(Ctx& c, const List& list, std::size_t k, std::int64_t length, const StepHook& on_step) {
  const Units u(c.hosts);
  const Groups g(c, u, k, 0, c.settings.schedule.switches);
  const int mine = g.of(u.of(c.rank)), rounds = g.rounds().rounds();
  run_host_lane_rounds(c, list, u, g, rounds, kAll, length, [&](int q) {
    if (on_step) on_step(static_cast<double>(q) / rounds);
  });
  // every switch at once: its host pairs cross no uplink
  run_chain(c, [&](const auto& emit) { emit_lane(list, g, mine, mine, emit); }, kAll, length);
  idle_barrier(c, 2, length);
  return u.bytes() + g.bytes();
}
template std::size_t run_host_lanes(Ctx&, const HostPairList&, std::size_t, std::int64_t, const StepHook&);
template std::size_t run_host_lanes(Ctx&, const SampledPairList&, std::size_t, std::int64_t, const StepHook&);

void run_host_lane_calibration(Ctx& c, std::size_t k, std::int64_t length, int rounds, std::vector<double>& lane_time) {
  const Units u(c.hosts);
  const Groups g(c, u, k, 0, c.settings.schedule.switches);
  const HostPairList list(c.spec, c.settings, c.hosts, k);
  const int mine = g.of(u.of(c.rank));
  const auto G = static_cast<std::size_t>(g.count());
  rounds = std::min(rounds, g.rounds().rounds());
  lane_time.assign(static_cast<std::size_t>(rounds) * G, 0.0);
  for (int q = 0; q < rounds; ++q) {
    const double t0 = Ctx::now();
    if (const int other = g.rounds().partner(q, mine); other >= 0) {
      const int X = std::min(mine, other), Y = std::max(mine, other);
      run_chain(c, [&](const auto& emit) { emit_lane(list, g, X, Y, emit); }, kHostLaneCap, length);
      lane_time[static_cast<std::size_t>(q) * G + static_cast<std::size_t>(mine)] = Ctx::now() - t0;
    }
    idle_barrier(c, 2, length);
  }
}

std::vector<double> host_lane_rates(const Ctx& c, std::size_t k, const std::vector<double>& lane_time, double alone) {
  const Units u(c.hosts);
  const Groups g(c, u, k, 0, c.settings.schedule.switches);
  const std::vector<std::size_t> size = group_sizes(g);
  const auto G = static_cast<std::size_t>(g.count());
  const std::size_t rounds = G > 0 ? lane_time.size() / G : 0;
  std::vector<double> rate(G, std::numeric_limits<double>::infinity());
  for (std::size_t q = 0; q < rounds; ++q)
    for (std::size_t X = 0; X < G; ++X) {
      const int Y = g.rounds().partner(static_cast<int>(q), static_cast<int>(X));
      const std::size_t pairs = Y < 0 ? 0 : std::min(kHostLaneCap, size[X] * size[static_cast<std::size_t>(Y)]);
      if (pairs == 0) continue;  // a bye, or a switch of the map without ranks here
      const double lane = std::max(lane_time[q * G + X], lane_time[q * G + static_cast<std::size_t>(Y)]);
      rate[X] = std::min(rate[X], lane / static_cast<double>(pairs));
    }
  // a switch in no calibrated lane (one sits out each round of an odd count): the dearest rate;
  // none calibrated (a single switch): a host pair's task alone, not 0
  double dearest = 0;
  for (double r : rate)
    if (std::isfinite(r)) dearest = std::max(dearest, r);
  for (double& r : rate)
    if (!std::isfinite(r)) r = dearest > 0 ? dearest : alone;
  return rate;
}

int host_lane_rounds(const Ctx& c, std::size_t k) {
  return Groups(c, Units(c.hosts), k, 0, c.settings.schedule.switches).rounds().rounds();
}

namespace {
// The seconds of the lanes of g whose lane {X, Y} holds pairs(X, Y) host pairs: a lane at its
// slower switch's rate (each of its host pairs crosses both switches' uplinks); a switch's own
// pairs cross no uplink, at the fastest switch's rate.
template <class Pairs>
double lanes_at_rates(const Groups& g, const std::vector<double>& rate, const Pairs& pairs) {
  if (rate.size() != static_cast<std::size_t>(g.count())) return 0;
  const double fastest = *std::min_element(rate.begin(), rate.end());
  return lane_seconds(g.rounds(), g.count(), [&](int X, int Y) {
    const double r = X == Y ? fastest : std::max(rate[static_cast<std::size_t>(X)], rate[static_cast<std::size_t>(Y)]);
    return static_cast<double>(pairs(X, Y)) * r;
  });
}
}  // namespace

double host_lane_seconds(const Ctx& c, std::size_t k, const std::vector<double>& rate) {
  const Units u(c.hosts);
  const Groups g(c, u, k, 0, c.settings.schedule.switches);
  const std::vector<std::size_t> n = group_sizes(g);
  return lanes_at_rates(g, rate, [&](int X, int Y) {
    const std::size_t x = n[static_cast<std::size_t>(X)], y = n[static_cast<std::size_t>(Y)];
    return X == Y ? x * (x - 1) / 2 : x * y;
  });
}

double sampled_lane_seconds(const Ctx& c, std::size_t k, const std::vector<double>& rate) {
  const Units u(c.hosts);
  const Groups g(c, u, k, 0, c.settings.schedule.switches);
  const SampledPairList list(c.spec, c.settings, c.hosts, k);
  const auto G = static_cast<std::size_t>(g.count());
  std::vector<std::size_t> in_lane(G * G, 0);  // sampled host pairs between groups X <= Y
  for (int x = 0; x < u.size(); ++x)
    list.each_partner(x, [&](int y) {
      const auto X = static_cast<std::size_t>(g.of(x)), Y = static_cast<std::size_t>(g.of(y));
      if (y > x) ++in_lane[std::min(X, Y) * G + std::max(X, Y)];
      return true;
    });
  return lanes_at_rates(g, rate, [&](int X, int Y) {
    return in_lane[static_cast<std::size_t>(X) * G + static_cast<std::size_t>(Y)];
  });
}

int lane_rounds(const Ctx& c, int limit) {
  const Units u(c.hosts);
  const int G = group_count(u, limit);
  return rounds_of(G) + (G < u.size() ? 1 : 0) + (u.by_host() ? 1 : 0);
}

double lane_calibration_share(const Ctx& c, int limit, int rounds) {
  const Units u(c.hosts);
  const int G = group_count(u, limit);
  const auto cap = static_cast<double>(calibration_cap(u));
  if (rounds_of(G) == 0) {  // one unit: the calibration runs the pairs within it
    const double r = u.most_ranks(), pairs = r * (r - 1) / 2;
    return pairs > cap ? cap / pairs : 1.0;
  }
  const double per_group = static_cast<double>(c.size) / G;
  return std::min(rounds, rounds_of(G)) * std::min(1.0, cap / (per_group * per_group));
}

void run_lane_calibration(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit) {
  const Units u(c.hosts);
  const Groups g(c, u, limit, k, repetition);
  if (g.rounds().rounds() == 0) return run_within_host_upto(c, u, calibration_cap(u), length);
  run_lane_rounds(c, u, g, std::min(rounds, g.rounds().rounds()), calibration_cap(u), length, [](int) {});
}

std::size_t run_lanes(Ctx& c, std::size_t k, std::int64_t length, int repetition, const std::function<void(double)>& on_round) {
  const Units u(c.hosts);
  const Schedule& s = c.settings.schedule;
  const bool by_switch = s.by_switch;
  const Groups g = by_switch ? Groups(c, u, k, repetition, s.switches) : Groups(c, u, s.pairs_at_once, k, repetition);
  const int rounds = g.rounds().rounds();
  run_lane_rounds(c, u, g, rounds, kAll, length,
                  [&](int q) { on_round(static_cast<double>(q) / std::max(1, rounds)); });
  if (g.count() < u.size()) {  // the pairs within each group: two halves of at most K lanes
    // (by switch every switch at once: its pairs cross no uplink)
    const int mine = g.of(u.of(c.rank)), half = by_switch ? g.count() : (g.count() + 1) / 2;
    for (int part = 0; part < (by_switch ? 1 : 2); ++part) {
      if ((mine < half) == (part == 0)) run_within_group(c, u, g, mine, length);
      idle_barrier(c, 2, length);
    }
  }
  if (u.by_host()) {
    run_within_host(c, u, length);
    idle_barrier(c, 2, length);
  }
  return u.bytes() + g.bytes();
}

}  // namespace nt::measure
