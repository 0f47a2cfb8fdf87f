// The report explains the whole matrix and checks its explanation (explain.cpp): property tests on
// three-level trees and faults drawn at random (random_trees.hpp), one-way faults named with their
// direction, faults at several levels at once, a fault no detector knows left as an unexplained
// region, and structure that is not a fault.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <cstdlib>
#include <iostream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/analysis/report.hpp"
#include "random_trees.hpp"
#include "routed_cubes.hpp"

namespace na = nt::analysis;
using nt::test::RandomTree;

namespace {

bool explains(na::AnomalyKind k) {
  return k == na::AnomalyKind::slow_rank || k == na::AnomalyKind::slow_node || k == na::AnomalyKind::slow_switch ||
         k == na::AnomalyKind::slow_link || k == na::AnomalyKind::asymmetric_pair ||
         k == na::AnomalyKind::unexplained;
}

// What the report says of a tree, against its faults: each fault named at its level (a finding on
// exactly its ranks, of the kind of its level) with its direction; every finding about a fault.
struct Verdict {
  int faults = 0, named = 0, direction_right = 0, invented = 0, extra = 0;
  std::string why;
};

Verdict judge(const RandomTree& t, const na::Report& r) {
  Verdict v;
  std::vector<char> used(r.anomalies.size(), 0);
  for (const auto& f : t.faults) {
    ++v.faults;
    const auto ranks = t.ranks_of(f);
    const auto kind = f.level == nt::test::LinkId::host ? na::AnomalyKind::slow_node : na::AnomalyKind::slow_switch;
    bool found = false;
    for (std::size_t a = 0; a < r.anomalies.size() && !found; ++a)
      if (!used[a] && r.anomalies[a].kind == kind && r.anomalies[a].ranks == ranks) {
        used[a] = found = true;
        ++v.named;
        if (r.anomalies[a].direction == f.direction) {
          ++v.direction_right;
        } else {
          v.why += fmt::format(" fault {} of level {} {}: direction {};", f.index, static_cast<int>(f.level),
                               f.direction, r.anomalies[a].direction);
        }
      }
    if (!found)
      v.why += fmt::format(" fault {} of level {} ({}, bw {:.2f} lat {}) not named;", f.index, static_cast<int>(f.level),
                           f.direction, f.bw, f.lat);
  }
  for (std::size_t a = 0; a < r.anomalies.size(); ++a) {
    if (used[a] || !explains(r.anomalies[a].kind)) continue;
    bool about = false;
    for (const auto& f : t.faults) {
      const auto ranks = t.ranks_of(f);
      for (int x : r.anomalies[a].ranks) about |= std::binary_search(ranks.begin(), ranks.end(), x);
    }
    ++(about ? v.extra : v.invented);
    v.why += fmt::format(" {} {} on ranks {};", about ? "extra" : "invented", na::name_of(r.anomalies[a].kind),
                         na::text_of_ranks(r.anomalies[a].ranks));
  }
  return v;
}

std::string describe(const RandomTree& t) {
  return fmt::format("{} pods x {} leaves x {} hosts x {} ranks, {} fault(s)", t.pods, t.leaves_per_pod,
                     t.hosts_per_leaf, t.rph, t.faults.size());
}

}  // namespace

// The seeds of RandomTrees... the analysis still gets wrong, each with why. A seed listed here that
// passes fails the test (remove it); a seed not listed that fails fails it.
const std::map<unsigned, const char*> kKnownWrong{
    {2, "a slow pod the topology finds no level for: under 95 % of the cells fit the levels, no search"},
    {8, "a slow leaf inside a slow pod: the leaf's own cells to its pod mates are too few to name it"},
    {18, "a slow pod the topology finds no level for, beside three other faults"},
    {20, "a slow pod one of whose leaves holds a slow host: three of its four leaves named"},
    {27, "a slow pod of three leaves, another leaf's fault beside it: the pod not named"},
    {30, "one rank per host, three slow groups nested: one host not named"},
    {38, "two slow pods' worth of faults in three pods: one pod not named"},
    {40, "a slow leaf of two hosts, one rank each: named as one of its hosts"},
};

// Over 60 trees and fault sets drawn at random: every fault named at its level, with its direction;
// nothing invented; nothing extra; and the explanation accounts for the matrix, but for the seeds
// listed above.
TEST(Explain, RandomTreesEveryFaultNamedAtItsLevelWithItsDirection) {
  int faults = 0, named = 0, direction = 0, invented = 0, extra = 0, exact = 0;
  const unsigned seeds = 60;
  for (unsigned seed = 1; seed <= seeds; ++seed) {
    const RandomTree t = nt::test::draw_tree(seed);
    const auto r = na::make_report(nt::test::tree_cube(t), {});
    const Verdict v = judge(t, r);
    faults += v.faults;
    named += v.named;
    direction += v.direction_right;
    invented += v.invented;
    extra += v.extra;
    exact += v.why.empty() ? 1 : 0;
    EXPECT_TRUE(r.explanation.checked) << seed;
    if (kKnownWrong.count(seed)) {
      EXPECT_FALSE(v.why.empty()) << "seed " << seed << " is right now: remove it from kKnownWrong";
      continue;
    }
    EXPECT_TRUE(v.why.empty()) << "seed " << seed << " (" << describe(t) << "):" << v.why;
    // Two pods are no level the clustering finds at every seed: the hops between them against those
    // within a pod then stay unexplained at the short lengths (up to 17 % of the cells here).
    if (v.why.empty()) {
      EXPECT_GE(r.explanation.explained_share, t.pods == 2 ? 0.8 : 0.95) << "seed " << seed << " " << describe(t);
    }
  }
  std::cout << fmt::format("random trees: {} of {} exact; faults {} named {} direction {}; invented {} extra {}\n",
                           exact, seeds, faults, named, direction, invented, extra);
}

// Healthy trees: no finding, and the levels alone predict every cell.
TEST(Explain, HealthyRandomTreesNothingFoundEverythingExplained) {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const RandomTree t = nt::test::draw_tree(seed, false);
    const auto r = na::make_report(nt::test::tree_cube(t), {});
    EXPECT_TRUE(r.anomalies.empty()) << "seed " << seed << " " << describe(t) << ": " << r.anomalies.front().detail;
    EXPECT_GE(r.explanation.explained_share, 0.999) << seed;
  }
}

// A host that only sends slowly is a slow_node that sends, not one that sends and receives.
TEST(Explain, HostThatOnlySendsSlowlyIsNamedSo) {
  RandomTree t{3, 3, 4, 2, {}};
  t.faults.push_back({nt::test::LinkId::host, 5, "send", 0.25, 1.0});
  const auto r = na::make_report(nt::test::tree_cube(t), {});
  ASSERT_EQ(r.anomalies.size(), 1u) << judge(t, r).why;
  EXPECT_EQ(r.anomalies[0].kind, na::AnomalyKind::slow_node);
  EXPECT_EQ(r.anomalies[0].ranks, (std::vector<int>{10, 11}));
  EXPECT_EQ(r.anomalies[0].direction, "send");
  EXPECT_NE(na::to_text(r).find("(sending only)"), std::string::npos);
  EXPECT_EQ(na::to_json(r, false)["anomalies"][0]["direction"], "send");
}

// Faults at several levels at once do not mask each other: a slow pod, a slow leaf in another pod,
// a slow host inside that leaf and two slow hosts under one leaf elsewhere.
TEST(Explain, FaultsAtSeveralLevelsDoNotMaskEachOther) {
  RandomTree t{4, 3, 4, 2, {}};
  t.faults.push_back({nt::test::LinkId::pod, 0, "both", 0.5, 1.0});
  t.faults.push_back({nt::test::LinkId::leaf, 4, "both", 0.5, 1.0});
  t.faults.push_back({nt::test::LinkId::host, 17, "both", 0.25, 2.0});  // in leaf 4
  t.faults.push_back({nt::test::LinkId::host, 40, "both", 0.25, 1.0});  // leaf 10
  t.faults.push_back({nt::test::LinkId::host, 42, "receive", 0.25, 1.0});
  const auto r = na::make_report(nt::test::tree_cube(t), {});
  const Verdict v = judge(t, r);
  EXPECT_EQ(v.named, v.faults) << v.why << "\n" << na::to_text(r);
  EXPECT_EQ(v.direction_right, v.faults) << v.why;
  EXPECT_EQ(v.invented + v.extra, 0) << v.why;
}

// A slow pod whose boundary pairs are half of the pairs between pods sets their class median; a
// slow leaf of another pod, read against that median, looked normal. The group detector's second
// pass reads the classes without the first pass's slow groups' boundary pairs.
TEST(Explain, ASlowPodDoesNotHideASlowLeafElsewhere) {
  RandomTree t{4, 3, 4, 2, {}};
  t.faults.push_back({nt::test::LinkId::pod, 0, "both", 0.5, 1.0});
  t.faults.push_back({nt::test::LinkId::leaf, 4, "both", 0.5, 1.0});
  const auto r = na::make_report(nt::test::tree_cube(t), {});
  const Verdict v = judge(t, r);
  EXPECT_EQ(v.named, 2) << v.why << "\n" << na::to_text(r);
  EXPECT_EQ(v.invented + v.extra, 0) << v.why;
}

// Two slow leaf uplinks in two pods, one rank per host: each slow leaf is as far from its pod mates
// as from the other pods, and its mates' farthest mate is it. The pod level is judged by the normal
// leaves (a slow member is no yardstick), and is kept.
TEST(Explain, SlowLeavesInTwoPodsKeepThePodLevel) {
  RandomTree t{3, 4, 4, 1, {}};
  t.faults.push_back({nt::test::LinkId::leaf, 3, "both", 0.25, 1.0});
  t.faults.push_back({nt::test::LinkId::leaf, 9, "both", 0.25, 2.0});
  const auto r = na::make_report(nt::test::tree_cube(t), {});
  ASSERT_EQ(r.topology.levels.size(), 3u) << na::to_text(r);
  EXPECT_EQ(r.topology.levels[2].groups.size(), 3u);
  const Verdict v = judge(t, r);
  EXPECT_EQ(v.named, 2) << v.why;
  EXPECT_EQ(v.invented + v.extra, 0) << v.why;
}

// The pairs from one half of the ranks to the other half, one way, 1.4x (below the slow link line,
// and no group of the topology): no detector names it, the check's search does, as the routes
// between the two halves, one way, exactly its pairs.
TEST(Explain, AOneWayBlockNoDetectorKnowsIsNamedByTheCheck) {
  RandomTree t{3, 3, 4, 2, {}};
  auto c = nt::test::tree_cube(t);
  std::set<std::pair<int, int>> slowed;
  for (int a = 0; a < 18; ++a)
    for (int b = 18; b < 36; ++b) slowed.emplace(a, b);
  for (std::size_t k = 1; k < c.count(); ++k)
    for (auto [a, b] : slowed) c.at(k, a, b) = static_cast<float>(static_cast<double>(c.at(k, a, b)) * 1.4);
  const auto r = na::make_report(c, {});
  ASSERT_EQ(r.anomalies.size(), 1u) << na::to_text(r);
  const auto& f = r.anomalies[0];
  EXPECT_EQ(f.kind, na::AnomalyKind::slow_link) << f.detail;
  EXPECT_EQ(f.direction, "send") << f.detail;
  const std::set<std::pair<int, int>> claimed(f.pairs.begin(), f.pairs.end());
  EXPECT_EQ(claimed, slowed) << f.detail;
  EXPECT_NEAR(f.score, 1.4, 0.01);
  EXPECT_GT(r.explanation.explained_share, 0.99) << na::to_text(r);
}

// A fault of a kind no detector knows and no rectangle of groups holds (the pairs from ranks 0-17
// to those of 18-35 at most as far along, a staircase, one way, 1.4x) is left as an unexplained
// region that the report names, and the share explained says how much of the matrix it is.
TEST(Explain, AFaultNoDetectorKnowsLeavesANamedUnexplainedRegion) {
  RandomTree t{3, 3, 4, 2, {}};
  auto c = nt::test::tree_cube(t);
  const int P = c.P;
  std::size_t n = 0;
  for (std::size_t k = 1; k < c.count(); ++k)
    for (int a = 0; a < 18; ++a)
      for (int b = 18; b <= 18 + a; ++b) {
        c.at(k, a, b) = static_cast<float>(static_cast<double>(c.at(k, a, b)) * 1.4);
        n += k == 1 ? 1 : 0;
      }
  const auto r = na::make_report(c, {});
  const auto u = std::find_if(r.anomalies.begin(), r.anomalies.end(),
                              [](const na::Anomaly& a) { return a.kind == na::AnomalyKind::unexplained; });
  ASSERT_NE(u, r.anomalies.end()) << na::to_text(r);
  EXPECT_FALSE(u->pairs.empty());
  for (auto [a, b] : u->pairs) {
    EXPECT_LT(a, 18);
    EXPECT_GE(b, 18);
    EXPECT_LE(b, 18 + a);
  }
  EXPECT_LT(r.explanation.explained_share, 1.0 - 0.9 * static_cast<double>(n) * 3 / (4.0 * P * (P - 1)));
  EXPECT_GT(r.explanation.unexplained_pairs, n / 2);
  EXPECT_NE(na::to_text(r).find("explanation: the levels and the findings predict"), std::string::npos);
}

// Slow pairs scattered over the matrix, one per sender (transients of a noisy run: a stall while a
// pair's samples ran), fill no block: no `unexplained` finding, though the share says they are slow.
TEST(Explain, ScatteredSlowPairsAreNoUnexplainedRegion) {
  RandomTree t{3, 3, 4, 1, {}};
  auto c = nt::test::tree_cube(t);
  const int P = c.P;
  for (int i = 0; i < 24; ++i) {
    const int j = (i * 7 + 5) % P;
    if (j == i) continue;
    for (std::size_t k = 1; k < c.count(); ++k) c.at(k, i, j) = static_cast<float>(static_cast<double>(c.at(k, i, j)) * 1.4);
  }
  const auto r = na::make_report(c, {});
  EXPECT_TRUE(std::none_of(r.anomalies.begin(), r.anomalies.end(),
                           [](const na::Anomaly& a) { return a.kind == na::AnomalyKind::unexplained; }))
      << na::to_text(r);
  EXPECT_GT(r.explanation.slow_share, 0.0);
  EXPECT_GE(r.explanation.unexplained_pairs, 20u);
}

// A finding that explains nothing is dropped: on a healthy tree the check removes a slow_link that
// claims cells equal to their class.
TEST(Explain, AFindingThatExplainsNothingIsDropped) {
  RandomTree t{3, 3, 4, 4, {}};
  const auto c = nt::test::tree_cube(t);
  const auto topo = na::find_topology(c, {}, c.hosts);
  std::vector<na::Anomaly> found(1);
  found[0].kind = na::AnomalyKind::slow_link;
  found[0].ranks = {0, 1};
  found[0].pairs = {{0, 1}};
  found[0].score = 1.6;
  const auto e = na::explain_and_check(c, topo, c.hosts, {}, found);
  EXPECT_TRUE(found.empty());
  ASSERT_EQ(e.dropped.size(), 1u);
  EXPECT_NE(e.dropped[0].find("slow_link"), std::string::npos);
}

// Structure is not a fault: a dragonfly's routers differ by their distances (no tree), hosts with 4
// ranks each; nothing found.
TEST(Explain, DragonflyDistancesAreNotFaults) {
  nt::test::Routed n;
  n.hosts_per_router = 2;
  auto c = nt::test::routed_cube(n);
  const auto r = na::make_report(c, {});
  for (const auto& a : r.anomalies) ADD_FAILURE() << na::name_of(a.kind) << " " << a.detail;
}

// Where no tree is above the nodes, distance adds latency and not time per byte: a link that only
// the routes between two groups cross (a dragonfly's global link at 1/4 bandwidth) leaves their
// cells slow at the long lengths, however far the groups are. With no detector's finding to start
// from, the check names it itself: the routes between exactly those two groups, both directions.
TEST(Explain, ASlowGlobalLinkNoDetectorNamedIsNamedByTheCheck) {
  for (const bool both : {true, false}) {
    nt::test::Routed n;
    n.slow_a = 1;
    n.slow_b = 2;
    n.both = both;
    std::set<std::pair<int, int>> slowed;
    const auto c = nt::test::routed_cube(n, &slowed);
    const auto topo = na::find_topology(c, {}, c.hosts);
    ASSERT_TRUE(topo.no_tree_above);
    std::vector<na::Anomaly> found;
    const auto e = na::explain_and_check(c, topo, c.hosts, {}, found);
    ASSERT_EQ(found.size(), 1u) << "both " << both << ": " << e.note << " " << e.warning;
    const auto& f = found[0];
    EXPECT_EQ(f.kind, na::AnomalyKind::slow_link) << f.detail;
    EXPECT_EQ(f.ranks, nt::test::fault_core(slowed, c.P)) << f.detail;
    EXPECT_EQ(f.direction, both ? "both" : "send") << f.detail;
    std::set<std::pair<int, int>> claimed(f.pairs.begin(), f.pairs.end());
    EXPECT_EQ(claimed, slowed) << f.detail;
    EXPECT_EQ(e.unexplained_pairs, 0u);
  }
}

// The same slow routes, slow in the medians only: the run's fastest samples (its min file) do not
// show them, which a stall does and a fault does not. The check leaves the region out and says so;
// where the fastest samples show it too, it is named.
TEST(Explain, ARegionTheFastestSamplesDoNotShowIsATransient) {
  nt::test::Routed n;
  n.slow_a = 1;
  n.slow_b = 2;
  const auto c = nt::test::routed_cube(n);
  const auto healthy = nt::test::routed_cube(nt::test::Routed{});
  const auto topo = na::find_topology(c, {}, c.hosts);
  std::vector<na::Anomaly> found;
  const auto e = na::explain_and_check(c, topo, c.hosts, {}, found, true, {}, &healthy);
  EXPECT_TRUE(found.empty()) << found.front().detail;
  EXPECT_NE(e.note.find("slow region(s) of 512 pairs left out: slow in the medians only"), std::string::npos) << e.note;
  EXPECT_EQ(e.unexplained_pairs, 0u) << "the transient's pairs are excused, not unexplained";
  EXPECT_LT(e.explained_share, 1.0) << "but they count as cells the explanation leaves slow";
  std::vector<na::Anomaly> named;
  const auto shown = na::explain_and_check(c, topo, c.hosts, {}, named, true, {}, &c);
  ASSERT_EQ(named.size(), 1u) << shown.note;
  EXPECT_EQ(named[0].kind, na::AnomalyKind::slow_link);
  EXPECT_EQ(shown.note.find("left out"), std::string::npos) << shown.note;
}

// A leaf with two uplinks, one slow (rnd44 of the random set): the routes of its hosts to the
// even hosts elsewhere and of every host to its even hosts cross it, half of the group's cells. A
// detector reads the leaf as slow both ways; most of the cells it claims as slow are not, so the
// check drops that finding and the search names the routes that are slow.
TEST(Explain, AGroupFindingWhoseCellsAreMostlyNotSlowGoes) {
  const int leaves = 5, per_leaf = 6, P = leaves * per_leaf;
  const auto leaf = [&](int h) { return h / per_leaf; };
  const auto slowed = [&](int a, int b) {
    return leaf(a) != leaf(b) && ((leaf(a) == 1 && b % 2 == 0) || (leaf(b) == 1 && b % 2 == 0)) && a != 9;
  };
  const auto c = nt::test::path_cube(P, 1, 0.0, 3, [&](int a, int b) {
    const int links = a == b ? 0 : leaf(a) == leaf(b) ? 2 : 4;
    // and host 9, in that leaf, sends slowly (its own cable): a finding inside the leaf's, which
    // keeps the leaf's from going as a finding that explains nothing
    const double bw = a == 9 ? 1.25e9 / 6 : slowed(a, b) ? 1.25e9 / 5 : 1.25e9;
    return nt::test::Path{links * 1e-6, bw};
  });
  const auto r = na::make_report(c, {});
  ASSERT_EQ(r.topology.levels.size(), 2u) << na::to_text(r);
  for (const auto& a : r.anomalies)
    EXPECT_FALSE(a.kind == na::AnomalyKind::slow_switch && a.ranks.size() == static_cast<std::size_t>(per_leaf))
        << "the leaf as a whole is not slow: " << a.detail;
  ASSERT_EQ(r.explanation.dropped.size(), 1u) << na::to_text(r);
  EXPECT_NE(r.explanation.dropped[0].find("most of its cells are not slow"), std::string::npos) << r.explanation.dropped[0];
  std::set<std::pair<int, int>> named;
  for (const auto& a : r.anomalies)
    if (a.kind == na::AnomalyKind::slow_link) named.insert(a.pairs.begin(), a.pairs.end());
  std::size_t slow = 0, in_named = 0;
  for (int a = 0; a < P; ++a)
    for (int b = 0; b < P; ++b)
      if (slowed(a, b)) {
        ++slow;
        in_named += named.count({a, b});
      }
  EXPECT_GE(2 * in_named, slow) << "the search names the slow routes: " << na::to_text(r);
}

// Two global links into one group, slowed by different factors (rnd134 of the random set): one
// link slows its routes by one factor, so they are two rectangles, each named with exactly its
// routes, not one over both groups (nor, as a group's row, the group they share).
TEST(Explain, TwoLinksIntoOneGroupSlowedUnalikeAreTwoFindings) {
  const int groups = 4, routers = 8, hpr = 2;
  std::set<std::pair<int, int>> slow[2];
  const auto c = nt::test::path_cube(groups * routers * hpr, 1, 0.0, 7, [&](int a, int b) {
    const int ra = a / hpr, rb = b / hpr, ga = ra / routers, gb = rb / routers, xa = ra % routers, xb = rb % routers;
    const int links = ra == rb ? 2 : ga == gb ? 3 : 3 + (xa != gb ? 1 : 0) + (xb != ga ? 1 : 0);
    const auto pair_of = [&](int x, int y) { return (ga == x && gb == y) || (ga == y && gb == x); };
    const int link = pair_of(2, 0) ? 0 : pair_of(2, 3) ? 1 : -1;
    if (link >= 0) slow[link].emplace(a, b);
    const double bw = link == 0 ? 1.25e9 / 3 : link == 1 ? 1.25e9 / 6 : 1.25e9;
    return nt::test::Path{(links + (link >= 0 ? 3 : 0)) * 1e-6, bw};
  });
  const auto topo = na::find_topology(c, {}, c.hosts);
  std::vector<na::Anomaly> found;
  const auto e = na::explain_and_check(c, topo, c.hosts, {}, found);
  ASSERT_EQ(found.size(), 2u) << e.note << " " << e.warning;
  std::set<std::set<std::pair<int, int>>> got;
  for (const auto& f : found) {
    EXPECT_EQ(f.kind, na::AnomalyKind::slow_link) << f.detail;
    EXPECT_EQ(f.direction, "both") << f.detail;
    got.emplace(f.pairs.begin(), f.pairs.end());
  }
  EXPECT_EQ(got, (std::set<std::set<std::pair<int, int>>>{slow[0], slow[1]}));
}

// Two hosts of one leaf that send slowly by their own cables, 2x and 4x (rnd200 of the random
// set): both are slow by the pairs inside the leaf, which a slow switch would slow alike; by unalike
// factors they are two cables, named as such, and no slow leaf.
TEST(Explain, TwoSlowCablesUnderOneLeafAreNotTheLeaf) {
  RandomTree t{2, 3, 2, 3, {}};
  t.faults.push_back({nt::test::LinkId::host, 6, "send", 0.46, 1.0});
  t.faults.push_back({nt::test::LinkId::host, 7, "send", 0.23, 1.0});
  const auto r = na::make_report(nt::test::tree_cube(t), {});
  std::map<std::vector<int>, std::string> nodes;
  for (const auto& a : r.anomalies) {
    EXPECT_NE(a.kind, na::AnomalyKind::slow_switch) << a.detail;
    if (a.kind == na::AnomalyKind::slow_node) nodes[a.ranks] = a.direction;
  }
  EXPECT_EQ(nodes, (std::map<std::vector<int>, std::string>{{t.ranks_of(t.faults[0]), "send"},
                                                            {t.ranks_of(t.faults[1]), "send"}}))
      << na::to_text(r);
}

// A pair finding whose cells are as fast as their class (rnd181 of the random set: six 2.5x "slow
// links" between hosts of one leaf, every cell at the leaf's delay) explains nothing and goes; one
// whose cells are slow stays.
TEST(Explain, APairFindingItsCellsDoNotShowGoes) {
  RandomTree t{2, 3, 3, 2, {}};
  t.faults.push_back({nt::test::LinkId::host, 10, "both", 0.4, 1.0});
  const auto c = nt::test::tree_cube(t);
  const auto topo = na::find_topology(c, {}, c.hosts);
  const auto pair_finding = [&](int a, int b) {  // hosts a and b, both directions
    na::Anomaly f;
    f.kind = na::AnomalyKind::slow_link;
    f.score = 2.5;
    for (int x = 0; x < c.P; ++x)
      for (int y = 0; y < c.P; ++y)
        if ((x / t.rph == a && y / t.rph == b) || (x / t.rph == b && y / t.rph == a)) f.pairs.emplace_back(x, y);
    for (const auto& [x, y] : f.pairs) f.ranks.push_back(x);
    std::sort(f.ranks.begin(), f.ranks.end());
    f.ranks.erase(std::unique(f.ranks.begin(), f.ranks.end()), f.ranks.end());
    for (std::size_t k = 0; k < c.count(); ++k) f.lengths.push_back(c.lengths[k]);
    return f;
  };
  std::vector<na::Anomaly> found{pair_finding(0, 2), pair_finding(9, 10)};  // healthy; through the slow host 10
  const auto e = na::explain_and_check(c, topo, c.hosts, {}, found);
  ASSERT_EQ(e.dropped.size(), 1u) << fmt::format("{}", fmt::join(e.dropped, "; "));
  EXPECT_NE(e.dropped[0].find("(its cells are as fast as their class)"), std::string::npos) << e.dropped[0];
  EXPECT_NE(e.dropped[0].find("ranks 0-1,4-5"), std::string::npos) << e.dropped[0];
}

TEST(Explain, HostListsCollapseToRanges) {
  RandomTree t{4, 2, 4, 1, {}};
  t.faults.push_back({nt::test::LinkId::pod, 1, "both", 0.5, 1.0});
  const auto r = na::make_report(nt::test::tree_cube(t), {});
  ASSERT_EQ(r.anomalies.size(), 1u);
  const std::string text = na::to_text(r);
  EXPECT_NE(text.find("hosts host[8-15]"), std::string::npos) << text;
  EXPECT_NE(text.find("ranks 8-15"), std::string::npos) << text;
}

// A seed's tree, faults and report, for a person reading a failure: NT_SEED=N test_explain
// --gtest_also_run_disabled_tests --gtest_filter=*Print*
TEST(Explain, DISABLED_Print) {
  const char* s = std::getenv("NT_SEED");
  const RandomTree t = nt::test::draw_tree(s ? static_cast<unsigned>(std::atoi(s)) : 1U);
  std::cout << describe(t) << "\n";
  for (const auto& f : t.faults)
    std::cout << fmt::format("  fault level {} index {} {} bw {:.2f} lat {} ranks {}\n", static_cast<int>(f.level),
                             f.index, f.direction, f.bw, f.lat, na::text_of_ranks(t.ranks_of(f)));
  std::cout << na::to_text(na::make_report(nt::test::tree_cube(t), {}));
}

// Every node of one leaf named slow one by one, alike (as where the switch groups' line is above the
// switch's effect: the routers of a dragonfly differ by their place), is one slow_switch on the leaf:
// a switch slows all of its nodes by its factor, a cable only its own. Slowed unalike (2.5x and 5x),
// they stay two nodes. Hosts 6 and 7 are the two of leaf 3, every port of it slow both ways.
TEST(Explain, EveryNodeOfALeafSlowAlikeIsTheLeaf) {
  for (const double second : {0.4, 0.2}) {
    SCOPED_TRACE(fmt::format("host 7 at {} of the bandwidth, host 6 at 0.4", second));
    RandomTree t{2, 3, 2, 2, {}};
    t.faults.push_back({nt::test::LinkId::host, 6, "both", 0.4, 1.0});
    t.faults.push_back({nt::test::LinkId::host, 7, "both", second, 1.0});
    const auto c = nt::test::tree_cube(t);
    const auto topo = na::find_topology(c, {}, c.hosts);
    ASSERT_GE(topo.levels.size(), 2u);
    std::vector<na::Anomaly> found;
    for (const auto& f : t.faults) {
      na::Anomaly a;
      a.kind = na::AnomalyKind::slow_node;
      a.ranks = t.ranks_of(f);
      a.score = 2.0;
      for (std::size_t k = 0; k < c.count(); ++k) a.lengths.push_back(c.lengths[k]);
      found.push_back(a);
    }
    na::explain_and_check(c, topo, c.hosts, {}, found);
    std::vector<int> leaf = t.ranks_of(t.faults[0]), other = t.ranks_of(t.faults[1]);
    leaf.insert(leaf.end(), other.begin(), other.end());
    std::sort(leaf.begin(), leaf.end());
    std::map<std::string, std::vector<std::vector<int>>> got;
    for (const auto& a : found) got[std::string(na::name_of(a.kind))].push_back(a.ranks);
    if (second == 0.4)
      EXPECT_EQ(got, (std::map<std::string, std::vector<std::vector<int>>>{{"slow_switch", {leaf}}}));
    else
      EXPECT_EQ(got["slow_node"].size(), 2u) << fmt::format("{}", fmt::join(got["slow_switch"], "; "));
  }
}
