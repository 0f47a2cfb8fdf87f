// Unit tests of network_test's pure parts: sweeps, schedules and noise draws (the registry,
// LogGP derivation, the loggp file, precision, progress and warm-up: test_unit_measure.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <filesystem>
#include <set>
#include <tuple>

#include "nt/loggp.hpp"
#include "nt/measure/measure.hpp"
#include "nt/measure/warmup.hpp"

using namespace nt;
using namespace nt::measure;

TEST(Sweep, LinearEndIsInclusive) {
  Settings s;
  s.begin = 0;
  s.end = 1000;
  s.step = 250;
  std::string kind;
  EXPECT_EQ(make_sweep(s, &kind), (std::vector<std::int64_t>{0, 250, 500, 750, 1000}));
  EXPECT_EQ(kind, "linear");
  s.end = 999;
  EXPECT_EQ(make_sweep(s).back(), 750);
}

TEST(Sweep, ListAndGeometric) {
  Settings s;
  s.length_list = {0, 8, 1024};
  std::string kind;
  EXPECT_EQ(make_sweep(s, &kind), (std::vector<std::int64_t>{0, 8, 1024}));
  EXPECT_EQ(kind, "list");
  Settings g;
  g.begin = 0;
  g.end = 100;
  g.geometric = 2;
  EXPECT_EQ(make_sweep(g, &kind), (std::vector<std::int64_t>{0, 1, 2, 4, 8, 16, 32, 64}));
  EXPECT_EQ(kind, "geometric");
  g.begin = 10;
  g.geometric = 1.5;
  EXPECT_EQ(make_sweep(g), (std::vector<std::int64_t>{10, 15, 23, 35, 53, 80}));
}

TEST(Sweep, BadInputIsAUsageError) {
  Settings s;
  s.step = 0;
  EXPECT_THROW(make_sweep(s), UsageError);
  s.step = -5;
  EXPECT_THROW(make_sweep(s), UsageError);
  Settings e;
  e.begin = 100;
  e.end = 10;
  EXPECT_THROW(make_sweep(e), UsageError);
  Settings l;
  l.length_list = {8, 4};
  EXPECT_THROW(make_sweep(l), UsageError);
  Settings n;
  n.length_list = {-1};
  EXPECT_THROW(make_sweep(n), UsageError);
  Settings g;
  g.geometric = 1.0;
  EXPECT_THROW(make_sweep(g), UsageError);
}

// -b 0 -e 1048576 without --geometric would plan 10,486 lengths silently; above
// kSaneSweepLengths a linear sweep needs --many-lengths, and the message names the ways out.
TEST(Sweep, TooManyLinearLengthsNeedForcing) {
  Settings s;
  s.begin = 0;
  s.end = 1048576;
  try {
    (void)make_sweep(s);
    ADD_FAILURE() << "10,486 lengths accepted without --many-lengths";
  } catch (const UsageError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("10486 lengths"), std::string::npos) << m;
    EXPECT_NE(m.find("--geometric"), std::string::npos) << m;
    EXPECT_NE(m.find("--many-lengths"), std::string::npos) << m;
  }
  s.many_lengths = true;
  EXPECT_EQ(make_sweep(s).size(), 10486u);
  Settings at;  // exactly the sane count passes, one more does not
  at.begin = 0;
  at.step = 1;
  at.end = static_cast<int>(kSaneSweepLengths) - 1;
  EXPECT_EQ(make_sweep(at).size(), static_cast<std::size_t>(kSaneSweepLengths));
  at.end += 1;
  EXPECT_THROW(make_sweep(at), UsageError);
  Settings geo;  // a geometric sweep over the same range is what the message suggests
  geo.begin = 0;
  geo.end = 1048576;
  geo.geometric = 2;
  EXPECT_EQ(make_sweep(geo).size(), 22u);
}

TEST(Schedule, RoundRobinCoversEveryPairOnceInDisjointRounds) {
  for (int P : {2, 3, 4, 5, 8, 9}) {
    const auto rounds = round_robin(P);
    EXPECT_EQ(static_cast<int>(rounds.size()), P % 2 == 0 ? P - 1 : P) << P;
    std::set<std::pair<int, int>> seen;
    for (const auto& r : rounds) {
      std::set<int> busy;
      for (auto [a, b] : r) {
        EXPECT_LT(a, b);
        EXPECT_TRUE(busy.insert(a).second && busy.insert(b).second) << "rank twice in a round, P=" << P;
        EXPECT_TRUE(seen.insert({a, b}).second);
      }
    }
    EXPECT_EQ(static_cast<int>(seen.size()), P * (P - 1) / 2);
  }
}

TEST(Schedule, NoiseDrawIsDeterministicDistinctAndExcludesThePair) {
  const auto a = draw_noise(42, 10, {2, 5}, 4, 7);
  EXPECT_EQ(a, draw_noise(42, 10, {2, 5}, 4, 7));
  EXPECT_EQ(a.size(), 4u);
  EXPECT_EQ(std::set<int>(a.begin(), a.end()).size(), 4u);
  for (int r : a) EXPECT_TRUE(r != 2 && r != 5 && r >= 0 && r < 10);
  // Different seeds give different draws somewhere.
  bool differ = false;
  for (std::uint64_t seed = 0; seed < 20 && !differ; ++seed) differ = draw_noise(seed, 10, {2, 5}, 4, 7) != a;
  EXPECT_TRUE(differ);
  EXPECT_THROW(draw_noise(1, 4, {0, 1}, 3, 0), UsageError);
}

TEST(Schedule, TasksPerKind) {
  Settings s;
  s.seed = 3;
  const int P = 5;
  const auto& reg = registry();
  const auto one = make_tasks(*reg.find(Mode::one_to_one), s, P, 0);
  EXPECT_EQ(static_cast<int>(one.size()), P * (P - 1));
  for (const auto& t : one) {
    EXPECT_NE(t.x, t.y);
    EXPECT_EQ(t.leader, t.x);
    EXPECT_EQ(t.members, (std::vector<int>{std::min(t.x, t.y), std::max(t.x, t.y)}));
  }
  const auto get = make_tasks(*reg.find(Mode::get), s, P, 0);
  for (const auto& t : get) EXPECT_EQ(t.leader, t.y);  // the origin measures
  const auto ex = make_tasks(*reg.find(Mode::async_one_to_one), s, P, 0);
  EXPECT_EQ(static_cast<int>(ex.size()), P * (P + 1) / 2);
  const auto bc = make_tasks(*reg.find(Mode::bcast), s, P, 0);
  EXPECT_EQ(static_cast<int>(bc.size()), (P - 1) + P);  // clock syncs, then one task per root
  EXPECT_TRUE(bc.front().sync);
  s.noise_procs = 2;
  const auto nz = make_tasks(*reg.find(Mode::noise_blocking), s, P, 3);
  for (const auto& t : nz) {
    EXPECT_EQ(t.noise.size(), 2u);
    EXPECT_EQ(t.members.size(), 4u);
    for (int r : t.noise) EXPECT_TRUE(r != t.x && r != t.y);
  }
  s.schedule.shuffle = true;
  auto sh = make_tasks(*reg.find(Mode::one_to_one), s, P, 0);
  auto key = [](const Task& t) { return std::make_pair(t.x, t.y); };
  std::vector<std::pair<int, int>> a, b;
  for (const auto& t : one) a.push_back(key(t));
  for (const auto& t : sh) b.push_back(key(t));
  EXPECT_NE(a, b);
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a, b);
}

// The order of earlier versions, built the way they built it (every task stored, then a
// Fisher-Yates shuffle of the whole list), as a reference for the computed TaskList.
std::vector<std::pair<int, int>> reference_order(int P, bool exchange, std::uint64_t seed, std::size_t k) {
  std::vector<std::pair<int, int>> v;
  for (int x = 0; x < P; ++x)
    for (int y = exchange ? x : 0; y < P; ++y)
      if (exchange || x != y) v.emplace_back(x, y);
  std::uint64_t st = mix_seed(seed, k, 0x73687566ULL);
  auto below = [&](std::uint64_t n) {
    const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    for (;;) {
      const std::uint64_t r = splitmix64(st);
      if (r < limit) return r % n;
    }
  };
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(i)]);
  return v;
}

TEST(Schedule, ComputedTasksKeepTheStoredShuffleOfEarlierVersions) {
  const auto& reg = registry();
  for (int P : {2, 5, 17}) {
    for (const auto& [mode, exchange] : {std::pair{Mode::one_to_one, false}, std::pair{Mode::async_one_to_one, true}}) {
      Settings s;
      s.seed = 99;
      s.schedule.shuffle = true;
      const TaskList list(*reg.find(mode), s, P, 4);
      const auto want = reference_order(P, exchange, 99, 4);
      ASSERT_EQ(list.size(), want.size());
      for (std::size_t u = 0; u < list.size(); ++u) {
        const Task t = list[u];
        EXPECT_EQ(std::make_pair(t.x, t.y), want[u]) << "P=" << P << " task " << u;
      }
    }
  }
}

// The sequential schedule visits only the steps of a rank's own tasks: positions_of must give
// exactly the tasks the rank is a member of, for every mode, in order and shuffled.
std::vector<std::size_t> scanned_positions(const TaskList& list, int rank) {
  std::vector<std::size_t> pos;
  for (std::size_t u = 0; u < list.size(); ++u)
    if (list[u].has(rank)) pos.push_back(u);
  return pos;
}

TEST(Schedule, PositionsOfARankAreTheTasksItTakesPartIn) {
  for (const auto& spec : registry().all())
    for (int P : {2, 3, 5, 8})
      for (bool shuffle : {false, true}) {
        Settings s;
        s.seed = 5;
        s.schedule.shuffle = shuffle;
        s.noise_procs = 1;
        const TaskList list(spec, s, P, 3);
        for (int r = 0; r < P; ++r) {
          const auto pos = list.positions_of(r);
          if (spec.uses_noise) {
            EXPECT_FALSE(pos) << spec.name << ": noise ranks are drawn per task";
            continue;
          }
          ASSERT_TRUE(pos) << spec.name;
          EXPECT_EQ(*pos, scanned_positions(list, r)) << spec.name << " P=" << P << " rank " << r
                                                      << (shuffle ? " shuffled" : "");
        }
      }
}

// --retest-hosts: every pair of hosts exactly once (ordered, or unordered for an exchange mode),
// measured by a rank of each of its two hosts; each rank's positions are the tasks it is in; the
// ranks of a host share its pairs, and another length picks other ranks.
TEST(Schedule, HostPairsMeetEveryPairOfHostsOnceAndShareTheRanks) {
  const std::vector<int> host_of = {2, 0, 1, 1, 2, 2, 0, 3};  // hosts of 2, 2, 3 and 1 ranks, unsorted
  for (const char* name : {"one_to_one", "send_recv_and_recv_send"}) {
    const ModeSpec& spec = *registry().find(std::string(name));
    const bool exchange = spec.kind == TaskKind::exchange_pairs;
    Settings s;
    s.seed = 5;
    s.schedule.shuffle = true;  // the host pairs keep their own order
    std::map<int, std::set<int>> measuring;  // host -> its ranks that measured a pair, over lengths
    std::set<std::pair<int, int>> first_length;
    for (std::size_t k = 0; k < 3; ++k) {
      const HostPairList list(spec, s, host_of, k);
      ASSERT_EQ(list.size(), exchange ? 6u : 12u) << name;
      std::set<std::pair<int, int>> seen;
      for (std::size_t u = 0; u < list.size(); ++u) {
        const Task t = list[u];
        const int a = host_of[static_cast<std::size_t>(t.x)], b = host_of[static_cast<std::size_t>(t.y)];
        EXPECT_NE(a, b) << name << ": a pair within one host";
        EXPECT_TRUE(seen.insert(exchange ? std::make_pair(std::min(a, b), std::max(a, b)) : std::make_pair(a, b)).second)
            << name << ": hosts " << a << ", " << b << " twice";
        measuring[a].insert(t.x);
        measuring[b].insert(t.y);
        if (k == 0) first_length.insert({t.x, t.y});
      }
      for (int r = 0; r < static_cast<int>(host_of.size()); ++r) {
        std::vector<std::size_t> scanned;
        for (std::size_t u = 0; u < list.size(); ++u)
          if (list[u].has(r)) scanned.push_back(u);
        EXPECT_EQ(*list.positions_of(r), scanned) << name << " rank " << r << " length " << k;
      }
      if (k == 1) {
        std::set<std::pair<int, int>> now;
        for (std::size_t u = 0; u < list.size(); ++u) now.insert({list[u].x, list[u].y});
        EXPECT_NE(now, first_length) << name << ": the next length measures with the same ranks";
      }
    }
    for (const auto& [h, ranks] : measuring)  // every rank of every host took part over three lengths
      EXPECT_EQ(static_cast<int>(ranks.size()), static_cast<int>(std::count(host_of.begin(), host_of.end(), h)))
          << name << " host " << h;
  }
  // One rank per host: the host pairs are the rank pairs, the sequential schedule's pairs.
  const HostPairList ranks(*registry().find(std::string("one_to_one")), Settings{}, {0, 1, 2, 3}, 0);
  EXPECT_EQ(ranks.size(), 12u);
}

// --estimate counts the tasks of each class and samples them from the list without building it:
// the counts must be those of the whole list, every sample a task of the list in its class, and
// every class present sampled.
TEST(Schedule, ClassCountsAndSamplesAgreeWithTheWholeList) {
  auto key = [](const Task& t) { return std::make_tuple(t.x, t.y, t.members, t.noise, t.sync); };
  for (const auto& spec : registry().all())
    for (int P : {2, 5, 9, 24})
      for (int per_host : {1, 3, 4}) {
        if (spec.uses_noise && P < 3) continue;  // no rank left to draw (refused by validation)
        std::vector<int> host_of;
        for (int r = 0; r < P; ++r) host_of.push_back((r * 7 % P) / per_host);  // hosts interleaved
        Settings s;
        s.seed = 3;
        s.schedule.shuffle = P % 2 == 1;
        s.noise_procs = 1;
        const TaskList list(spec, s, P, 1);
        const std::string what = spec.name + " P=" + std::to_string(P) + " per host " + std::to_string(per_host);
        std::map<std::string, std::size_t> want;
        std::set<decltype(key(Task{}))> all;
        for (std::size_t u = 0; u < list.size(); ++u) {
          const Task t = list[u];
          ++want[task_class(t, spec, host_of)];
          all.insert(key(t));
        }
        EXPECT_EQ(class_counts(list, spec, host_of), want) << what;
        const auto samples = sample_tasks(list, spec, host_of, 16);
        for (const auto& [name, count] : want) {
          ASSERT_TRUE(samples.count(name)) << what << ": no sample of " << name;
          EXPECT_LE(samples.at(name).size(), std::max<std::size_t>(16, count)) << what;
        }
        for (const auto& [name, tasks] : samples)
          for (const Task& t : tasks) {
            EXPECT_EQ(task_class(t, spec, host_of), name) << what;
            EXPECT_TRUE(all.count(key(t))) << what << ": a sample that is not in the list";
          }
      }
}

TEST(Schedule, LargeShuffledListsAreAPermutationWithoutStoringIt) {
  // 1,500 ranks: 2,248,500 ordered pairs, above the stored-shuffle limit.
  const int P = 1500;
  Settings s;
  s.seed = 7;
  s.schedule.shuffle = true;
  const TaskList list(*registry().find(Mode::one_to_one), s, P, 0);
  ASSERT_GT(list.size(), TaskList::kStoredShuffle);
  std::vector<bool> seen(static_cast<std::size_t>(P) * P, false);
  std::size_t in_order = 0;
  // ... and the positions of a rank's tasks come from the inverse of the keyed bijection.
  const std::vector<int> ranks{0, 777, P - 1};
  std::vector<std::vector<std::size_t>> scanned(ranks.size());
  for (std::size_t u = 0; u < list.size(); ++u) {
    const Task t = list[u];
    for (std::size_t q = 0; q < ranks.size(); ++q)
      if (t.has(ranks[q])) scanned[q].push_back(u);
    ASSERT_NE(t.x, t.y);
    const std::size_t cell = static_cast<std::size_t>(t.x) * P + static_cast<std::size_t>(t.y);
    ASSERT_FALSE(seen[cell]) << "pair twice";
    seen[cell] = true;
    in_order += (t.x == static_cast<int>(u / (P - 1))) ? 1 : 0;
  }
  EXPECT_LT(in_order, list.size() / 100);  // shuffled, not sender-major
  for (std::size_t q = 0; q < ranks.size(); ++q) {
    ASSERT_EQ(scanned[q].size(), 2u * (P - 1));
    EXPECT_EQ(list.positions_of(ranks[q]), scanned[q]) << "rank " << ranks[q];
  }
}

TEST(Schedule, PartnerInRoundMatchesTheRounds) {
  for (int P : {2, 3, 4, 7, 10, 33}) {
    const auto rounds = round_robin(P);
    ASSERT_EQ(static_cast<int>(rounds.size()), rounds_of(P));
    for (int r = 0; r < rounds_of(P); ++r) {
      std::vector<int> partner(static_cast<std::size_t>(P), -1);
      for (auto [a, b] : rounds[static_cast<std::size_t>(r)]) {
        partner[static_cast<std::size_t>(a)] = b;
        partner[static_cast<std::size_t>(b)] = a;
      }
      for (int rank = 0; rank < P; ++rank)
        EXPECT_EQ(partner_in_round(P, r, rank), partner[static_cast<std::size_t>(rank)]) << P << " " << r << " " << rank;
    }
  }
}

// Every rank's partner per round of one Factorisation, checked to be a 1-factorisation: each
// round pairs the ranks symmetrically (at most one bye, P odd), each unordered pair meets exactly
// once over the rounds. Returns partner[round][rank].
std::vector<std::vector<int>> checked_rounds(const Factorisation& f, int P) {
  std::vector<std::vector<int>> out;
  std::set<std::pair<int, int>> met;
  EXPECT_EQ(f.rounds(), rounds_of(P));
  for (int q = 0; q < f.rounds(); ++q) {
    std::vector<int> partner(static_cast<std::size_t>(P));
    int byes = 0;
    for (int r = 0; r < P; ++r) {
      const int o = partner[static_cast<std::size_t>(r)] = f.partner(q, r);
      if (o < 0) {
        ++byes;
        continue;
      }
      EXPECT_NE(o, r);
      EXPECT_EQ(f.partner(q, o), r) << "round " << q << " rank " << r;
      if (r < o) {
        EXPECT_TRUE(met.emplace(r, o).second) << "pair " << r << "," << o << " met twice";
      }
    }
    EXPECT_EQ(byes, P % 2);
    out.push_back(partner);
  }
  EXPECT_EQ(met.size(), static_cast<std::size_t>(P) * static_cast<std::size_t>(P - 1) / 2);
  return out;
}

TEST(Schedule, RandomFactorisationMeetsEveryPairOncePerRepetition) {
  for (int P : {2, 3, 4, 7, 10, 33, 64}) {
    for (int rep = 0; rep < 3; ++rep) checked_rounds(Factorisation(P, 42, 1, rep, true, false), P);
    checked_rounds(Factorisation(P, 42, 1, 0, false, true), P);
  }
}

TEST(Schedule, RandomFactorisationIsDeterministicAndDiffersPerRepetition) {
  const int P = 64;
  const auto a = checked_rounds(Factorisation(P, 7, 2, 0, true, false), P);
  EXPECT_EQ(a, checked_rounds(Factorisation(P, 7, 2, 0, true, false), P));  // same seed, length, repetition
  // The round in which each pair meets and who else is in it: another repetition (or length, or
  // seed) puts most pairs with other partners around them.
  auto round_of_pair = [&](const std::vector<std::vector<int>>& rounds) {
    std::map<std::pair<int, int>, std::size_t> at;
    for (std::size_t q = 0; q < rounds.size(); ++q)
      for (int r = 0; r < P; ++r)
        if (rounds[q][static_cast<std::size_t>(r)] > r) at[{r, rounds[q][static_cast<std::size_t>(r)]}] = q;
    return at;
  };
  const auto at_a = round_of_pair(a);
  for (const auto& other : {Factorisation(P, 7, 2, 1, true, false), Factorisation(P, 7, 3, 0, true, false),
                            Factorisation(P, 8, 2, 0, true, false)}) {
    const auto b = checked_rounds(other, P);
    const auto at_b = round_of_pair(b);
    // Pairs {x, y} and {u, v} that share a round in a and in b too: few (1/(P-1) by chance).
    std::size_t same_company = 0, pairs = 0;
    for (const auto& [xy, q] : at_a) {
      const int u = 0 == xy.first ? 1 : 0;  // another rank than x: its partner in xy's round
      if (u == xy.second) continue;
      const int v = a[q][static_cast<std::size_t>(u)];
      const auto key = std::make_pair(std::min(u, v), std::max(u, v));
      ++pairs;
      if (at_b.at(xy) == at_b.at(key)) ++same_company;
    }
    EXPECT_LT(same_company, pairs / 10) << same_company << " of " << pairs;
  }
  // The fixed rounds are the circle method's, whatever the repetition.
  const auto fixed = checked_rounds(Factorisation(P, 7, 2, 5, false, false), P);
  for (int q = 0; q < rounds_of(P); ++q)
    for (int r = 0; r < P; ++r) EXPECT_EQ(fixed[static_cast<std::size_t>(q)][static_cast<std::size_t>(r)], partner_in_round(P, q, r));
}

// Lanes by switch that run at once, priced per round at their slowest lane, then the slowest
// switch's own pairs. 4 switches (3 rounds of 2 lanes), switch 1 behind a slow uplink (4 s per host
// pair, 1 s elsewhere). With few pairs in the slow switch's lanes (2, as the sampled pairs of a
// switch without a landmark) every round lasts as long as its other lane (10 pairs); with as many
// pairs in every lane, as long as the slow switch's.
TEST(Schedule, LaneSecondsTakeEachRoundsSlowestLaneNotItsFullest) {
  const int G = 4;
  const Factorisation f(G, 3, 0, 0, true, false);
  ASSERT_EQ(f.rounds(), 3);
  const auto rate = [](int X, int Y) { return X != Y && (X == 1 || Y == 1) ? 4.0 : 1.0; };
  const auto few = [](int X, int Y) -> std::size_t { return X == Y ? 3 : X == 1 || Y == 1 ? 2 : 10; };
  const auto alike = [](int X, int Y) -> std::size_t { return X == Y ? 3 : 10; };
  EXPECT_EQ(lane_steps(f, G, few), 3u * 10u + 3u);  // the fullest lanes: 10 pairs a round
  EXPECT_DOUBLE_EQ(lane_seconds(f, G, [&](int X, int Y) { return static_cast<double>(few(X, Y)) * rate(X, Y); }),
                   3 * 10.0 + 3);  // not 33 steps x 4 s
  EXPECT_DOUBLE_EQ(lane_seconds(f, G, [&](int X, int Y) { return static_cast<double>(alike(X, Y)) * rate(X, Y); }),
                   3 * 40.0 + 3);
}
