// Unit tests of nt_analysis's topology, anomalies and duplex check on synthetic data
// (nt::synthesize); the fits are in test_analysis_fits.cpp, the models and exports in
// test_analysis_models.cpp.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "analysis_test_util.hpp"
#include "synth_clusters.hpp"
#include "planted_loggp.hpp"
#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/fits.hpp"
#include "nt/analysis/model_report.hpp"
#include "nt/analysis/models.hpp"
#include "nt/analysis/report.hpp"
#include "nt/analysis/topology.hpp"
#include "nt/error.hpp"
#include "nt/loggp.hpp"
#include "nt/stats.hpp"
#include "nt/synth.hpp"

namespace na = nt::analysis;
using nt::test::partition;

using namespace nt::test::synth_clusters;


// ---------------------------------------------------------------- topology

// Every anomaly kind has one name, the one the outputs print, and that name parses back.
TEST(Kinds, EveryAnomalyKindHasOneNameThatParsesBack) {
  const auto seen =
      nt::test::expect_names_round_trip(na::anomaly_kind_names(), [](const std::string& n) { return na::anomaly_kind(n); });
  EXPECT_EQ(seen.size(), 9u);
  EXPECT_EQ(na::name_of(na::AnomalyKind::asymmetric_pair), "asymmetric_pair");
  EXPECT_TRUE(na::is_slow(na::AnomalyKind::slow_switch));
  EXPECT_FALSE(na::is_slow(na::AnomalyKind::high_variance));
  EXPECT_FALSE(na::anomaly_kind("slow").has_value());
}

TEST(Topology, GroupsEqualTrueNodesWithShuffledPlacementAndSlowNode) {
  for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
    nt::SynthParams p = cluster(8, 4, 12, seed);
    p.slow_node = static_cast<int>(seed % 8);
    auto s = make(p);
    const auto t = na::find_topology(s.cube);
    ASSERT_FALSE(t.levels.empty());
    EXPECT_EQ(partition(t.levels[0].groups), partition(s.r.node_of_rank)) << "seed " << seed;
    EXPECT_EQ(t.levels.size(), 1u) << "one switch: no level above the nodes, seed " << seed;
    const auto agree = na::compare_with_hosts(t.levels[0].groups, s.r.hosts);
    EXPECT_TRUE(agree.exact) << agree.summary;
    EXPECT_NEAR(agree.adjusted_rand, 1.0, 1e-12);
  }
}

TEST(Topology, LargeShuffledClusterUsesTheSampledOffsets) {
  // More than 128 ranks: the fast distance path.
  nt::SynthParams p{.nodes = 36, .ranks_per_node = 4, .nodes_per_switch = 12, .slow_node = 17, .shuffle = true,
                    .noise = 0.03, .seed = 21, .lengths = geometric(10)};
  auto s = make(p);
  const auto t = na::find_topology(s.cube);
  EXPECT_EQ(partition(t.levels[0].groups), partition(s.r.node_of_rank));
  ASSERT_EQ(t.levels.size(), 2u);
  std::vector<int> sw;
  for (int n : s.r.node_of_rank) sw.push_back(s.r.switch_of_node[static_cast<std::size_t>(n)]);
  EXPECT_EQ(partition(t.levels[1].groups), partition(sw));
  const auto an = na::find_anomalies(s.cube, t, s.r.hosts);
  ASSERT_EQ(an.size(), 1u);
  EXPECT_EQ(name_of(an[0].kind), "slow_node");
  EXPECT_EQ(an[0].ranks, ranks_of_node(s.r, 17));
}

TEST(Topology, TwoRanksPerNodeAndNoisyData) {
  nt::SynthParams p = cluster(16, 2, 10, 11);
  p.noise = 0.05;
  auto s = make(p);
  const auto t = na::find_topology(s.cube);
  EXPECT_EQ(partition(t.levels[0].groups), partition(s.r.node_of_rank));
}

TEST(Topology, SwitchLevelRecovered) {
  for (std::uint64_t seed : {1, 7}) {
    nt::SynthParams p = cluster(8, 2, 12, seed);
    p.nodes_per_switch = 4;
    auto s = make(p);
    const auto t = na::find_topology(s.cube);
    ASSERT_EQ(t.levels.size(), 2u) << "seed " << seed;
    EXPECT_EQ(partition(t.levels[0].groups), partition(s.r.node_of_rank));
    std::vector<int> sw;
    for (int n : s.r.node_of_rank) sw.push_back(s.r.switch_of_node[static_cast<std::size_t>(n)]);
    EXPECT_EQ(partition(t.levels[1].groups), partition(sw));
    EXPECT_EQ(t.levels[1].name, "switch");
    // Classes: same node, same switch, different switch.
    const auto& r = s.r.node_of_rank;
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j) {
        if (i == j) continue;
        const int want = r[static_cast<std::size_t>(i)] == r[static_cast<std::size_t>(j)] ? 0
                         : sw[static_cast<std::size_t>(i)] == sw[static_cast<std::size_t>(j)] ? 1 : 2;
        EXPECT_EQ(t.pair_class(i, j), want);
      }
  }
}

namespace {
// The cube restricted to some ranks (uneven node sizes).
na::Cube subcube(const na::Cube& c, const std::vector<int>& keep) {
  na::Cube s = c;
  s.P = static_cast<int>(keep.size());
  s.v.assign(c.count() * keep.size() * keep.size(), 0.0);
  for (std::size_t k = 0; k < c.count(); ++k)
    for (int i = 0; i < s.P; ++i)
      for (int j = 0; j < s.P; ++j) s.at(k, i, j) = c.at(k, keep[static_cast<std::size_t>(i)], keep[static_cast<std::size_t>(j)]);
  s.hosts.clear();
  return s;
}
}  // namespace

TEST(Topology, UnevenNodesIncludingASingleton) {
  for (std::uint64_t seed : {1, 2}) {
    nt::SynthParams p = cluster(5, 3, 12, seed);
    p.noise = 0.02;
    auto s = make(p);
    // Keep 1 rank of node 0, 2 of node 1, all of the others: sizes 1, 2, 3, 3, 3.
    std::map<int, int> left = {{0, 1}, {1, 2}};
    std::vector<int> keep, truth;
    for (int r = 0; r < s.cube.P; ++r) {
      const int n = s.r.node_of_rank[static_cast<std::size_t>(r)];
      if (left.count(n) && left[n]-- <= 0) continue;
      keep.push_back(r);
      truth.push_back(n);
    }
    const auto sub = subcube(s.cube, keep);
    const auto t = na::find_topology(sub);
    EXPECT_EQ(partition(t.levels[0].groups), partition(truth)) << "seed " << seed;
    EXPECT_TRUE(na::find_anomalies(sub, t, {}).empty());
  }
}

// A disturbed cell (two gross outliers among the 4 lengths of a band, so its band median moves)
// is one direction of one third party. At 8,192 ranks there were hundreds of them, and two in
// the rows and columns of two mates (a's row at x, c's column at y) split 211 ranks from their
// nodes: the distance took the second largest |difference| over both directions. A third party
// now counts at what both directions agree on; a structural difference (x a mate of one of them)
// shows in both. Every node of 4 ranks keeps its ranks with such cells at 24 random places.
TEST(Topology, DisturbedCellsInBothMatesDoNotSplitANode) {
  nt::SynthParams p = cluster(16, 4, -1, 5);
  p.lengths = {0, 64, 1024, 4096, 16384, 65536, 262144, 1048576};
  p.noise = 0.02;
  auto s = make(p);
  const int P = s.cube.P;
  std::mt19937_64 rng(11);
  std::uniform_int_distribution<int> any(0, P - 1);
  for (int d = 0; d < 24; ++d) {
    const int i = any(rng), j = any(rng);
    if (i == j) continue;
    // two of the upper band's four lengths, x3 and x5
    s.cube.at(5, i, j) *= 3.0f;
    s.cube.at(6, i, j) *= 5.0f;
  }
  // and for certain: mates a, c of node 0 with a disturbed cell each, at different third parties
  const auto mates = ranks_of_node(s.r, 0);
  const int a = mates[0], c = mates[1];
  const int x = ranks_of_node(s.r, 5)[0], y = ranks_of_node(s.r, 9)[2];
  s.cube.at(4, a, x) *= 4.0f;
  s.cube.at(7, a, x) *= 6.0f;
  s.cube.at(5, y, c) *= 5.0f;
  s.cube.at(6, y, c) *= 3.0f;
  const auto t = na::find_topology(s.cube);
  EXPECT_EQ(partition(t.levels[0].groups), partition(s.r.node_of_rank));
}

TEST(Topology, ThreeRanks) {
  nt::SynthParams p = cluster(2, 2, 6);
  auto s = make(p);
  const auto sub = subcube(s.cube, {0, 1, 2});  // ranks 0,1 on node 0, rank 2 on node 1
  const auto t = na::find_topology(sub);
  EXPECT_EQ(t.levels[0].groups, (std::vector<std::vector<int>>{{0, 1}, {2}}));
}

TEST(Topology, HostMismatchIsReported) {
  nt::SynthParams p = cluster(4, 2, 8);
  auto s = make(p);
  const auto t = na::find_topology(s.cube);
  auto hosts = s.r.hosts;
  std::swap(hosts[0], hosts[7]);
  const auto a = na::compare_with_hosts(t.levels[0].groups, hosts);
  EXPECT_TRUE(a.known);
  EXPECT_FALSE(a.exact);
  EXPECT_FALSE(a.mismatches.empty());
  EXPECT_LT(a.adjusted_rand, 1.0);
}

TEST(Topology, TwoRanksFormOneGroupWithANote) {
  nt::SynthParams p = cluster(1, 2, -1);
  auto s = make(p);
  const auto t = na::find_topology(s.cube);
  ASSERT_EQ(t.levels.size(), 1u);
  EXPECT_EQ(t.levels[0].groups.size(), 1u);
  EXPECT_FALSE(t.notes.empty());
}

// ---------------------------------------------------------------- anomalies

TEST(Anomalies, HealthyClusterReportsNone) {
  for (std::uint64_t seed : {1, 2, 3, 4, 5, 6}) {
    nt::SynthParams p = cluster(6, 4, 12, seed);
    p.noise = seed % 2 ? 0.01 : 0.05;
    p.nodes_per_switch = seed % 3 == 0 ? 3 : 0;
    for (auto st : {nt::Statistic::median, nt::Statistic::average, nt::Statistic::min}) {
      auto s = make(p, st);
      na::ReportOptions o;
      const auto rep = na::make_report(s.cube, o);
      EXPECT_TRUE(rep.anomalies.empty()) << "seed " << seed << " " << nt::statistic_name(st) << ": "
                                         << (rep.anomalies.empty() ? "" : rep.anomalies.front().detail);
    }
  }
}

TEST(Anomalies, SlowNodeFlaggedAndNothingElse) {
  for (std::uint64_t seed : {1, 2, 3}) {
    nt::SynthParams p = cluster(6, 4, 12, seed);
    p.slow_node = static_cast<int>(seed);
    p.slow_factor = seed == 3 ? 1.8 : 3.0;
    auto s = make(p);
    const auto rep = na::make_report(s.cube, {});
    ASSERT_EQ(rep.anomalies.size(), 1u) << "seed " << seed;
    const auto& a = rep.anomalies.front();
    EXPECT_EQ(name_of(a.kind), "slow_node");
    EXPECT_EQ(a.ranks, ranks_of_node(s.r, p.slow_node));
    EXPECT_EQ(a.hosts, std::vector<std::string>{s.r.hosts[static_cast<std::size_t>(a.ranks.front())]});
    EXPECT_NEAR(a.score, p.slow_factor, 0.1 * p.slow_factor);
    EXPECT_EQ(a.lengths.size(), s.cube.lengths.size());
  }
}

TEST(Anomalies, SlowNodeAmongThreeIsFlaggedThoughItLooksLikeASwitch) {
  for (std::uint64_t seed : {1, 2, 3}) {
    // With 3 nodes a slow node and a node behind its own switch look the same.
    nt::SynthParams p{.nodes = 3, .ranks_per_node = 2, .slow_node = static_cast<int>(seed % 3), .shuffle = true,
                      .seed = seed, .lengths = geometric(12)};
    auto s = make(p);
    const auto t = na::find_topology(s.cube);
    EXPECT_EQ(partition(t.levels[0].groups), partition(s.r.node_of_rank));
    const auto an = na::find_anomalies(s.cube, t, s.r.hosts);
    ASSERT_EQ(an.size(), 1u) << "seed " << seed;
    EXPECT_EQ(name_of(an[0].kind), "slow_node");
    EXPECT_EQ(an[0].ranks, ranks_of_node(s.r, p.slow_node));
    EXPECT_NEAR(an[0].score, 3.0, 0.3);
    // A healthy 3-node cluster reports nothing, nor does a healthy node behind a switch of its own.
    nt::SynthParams q = p;
    q.slow_node = -1;
    q.nodes = 5;
    q.nodes_per_switch = 4;
    auto lone = make(q);
    const auto tl = na::find_topology(lone.cube);
    EXPECT_EQ(partition(tl.levels[0].groups), partition(lone.r.node_of_rank));
    EXPECT_TRUE(na::find_anomalies(lone.cube, tl, lone.r.hosts).empty()) << "seed " << seed;
    p.slow_node = -1;
    auto h = make(p);
    EXPECT_TRUE(na::find_anomalies(h.cube, na::find_topology(h.cube), h.r.hosts).empty());
  }
}

TEST(Anomalies, SlowRankSlowLinkAndAsymmetricPair) {
  nt::SynthParams p = cluster(6, 3, 10, 5);
  auto s = make(p);
  auto& c = s.cube;
  const auto n0 = ranks_of_node(s.r, 0), n1 = ranks_of_node(s.r, 1), n2 = ranks_of_node(s.r, 2),
             n3 = ranks_of_node(s.r, 3);
  const int slow_rank = n2[1];
  for (std::size_t k = 0; k < c.count(); ++k) {
    for (int j = 0; j < c.P; ++j)
      if (j != slow_rank) c.at(k, slow_rank, j) *= 2.5f;  // a rank that sends slowly
    for (int a : n0)
      for (int b : n1) {  // a bad cable between nodes 0 and 1, both directions
        c.at(k, a, b) *= 3;
        c.at(k, b, a) *= 3;
      }
    for (int a : n3)
      for (int b : n0) {  // asymmetric between nodes 3 and 0, neither direction much slower than its class
        c.at(k, a, b) *= 1.3f;
        c.at(k, b, a) /= 1.3f;
      }
  }
  const auto t = na::find_topology(c);
  EXPECT_EQ(partition(t.levels[0].groups), partition(s.r.node_of_rank));
  const auto an = na::find_anomalies(c, t, s.r.hosts);
  std::map<std::string, std::vector<na::Anomaly>> by;
  for (const auto& a : an) by[name_of(a.kind)].push_back(a);
  ASSERT_EQ(by["slow_rank"].size(), 1u);
  EXPECT_EQ(by["slow_rank"][0].ranks, std::vector<int>{slow_rank});
  EXPECT_NEAR(by["slow_rank"][0].score, 2.5, 0.25);
  ASSERT_EQ(by["slow_link"].size(), 1u);
  std::vector<int> link = n0;
  link.insert(link.end(), n1.begin(), n1.end());
  std::sort(link.begin(), link.end());
  EXPECT_EQ(by["slow_link"][0].ranks, link);
  EXPECT_EQ(by["slow_link"][0].pairs.size(), 18u);
  ASSERT_EQ(by["asymmetric_pair"].size(), 1u);
  ASSERT_EQ(by["asymmetric_pair"][0].pairs.size(), 9u);
  for (auto [x, y] : by["asymmetric_pair"][0].pairs) {  // the slower direction first
    EXPECT_NE(std::find(n3.begin(), n3.end(), x), n3.end());
    EXPECT_NE(std::find(n0.begin(), n0.end(), y), n0.end());
  }
  EXPECT_EQ(by.count("slow_node"), 0u);
  EXPECT_EQ(an.size(), 3u);
}

TEST(Anomalies, HighVarianceRank) {
  nt::SynthParams p = cluster(4, 4, 8, 1);
  auto r = nt::synthesize(p);
  const auto val = na::load_cube(*r.stats.at(nt::Statistic::average));
  auto dev = na::load_cube(*r.stats.at(nt::Statistic::deviation));
  EXPECT_TRUE(na::find_variance_anomalies(val, dev, r.hosts).empty());
  const int noisy = 6;
  for (std::size_t k = 0; k < dev.count(); ++k)
    for (int j = 0; j < dev.P; ++j) {
      dev.at(k, noisy, j) = 0.3 * val.at(k, noisy, j);
      dev.at(k, j, noisy) = 0.3 * val.at(k, j, noisy);
    }
  const auto an = na::find_variance_anomalies(val, dev, r.hosts);
  ASSERT_EQ(an.size(), 1u);
  EXPECT_EQ(name_of(an[0].kind), "high_variance");
  EXPECT_EQ(an[0].ranks, std::vector<int>{noisy});
}

namespace {
// An async_one_to_one cube of the same run: full duplex costs ~10% more than one message.
na::Cube async_of(const na::Cube& one) {
  na::Cube a = one;
  a.mode = nt::Mode::async_one_to_one;
  for (auto& v : a.v) v *= 1.1f;
  return a;
}
}  // namespace

TEST(Duplex, HalfDuplexLinkBetweenTwoNodes) {
  nt::SynthParams p = cluster(5, 2, 14, 9);
  auto s = make(p);
  const auto t = na::find_topology(s.cube);
  auto as = async_of(s.cube);
  {
    const auto d = na::analyze_duplex(s.cube, as, t, s.r.hosts);
    EXPECT_TRUE(d.anomalies.empty());
    for (const auto& c : d.classes) EXPECT_FALSE(c.half_duplex) << c.name;
  }
  const auto a = ranks_of_node(s.r, 1), b = ranks_of_node(s.r, 4);
  for (std::size_t k = 0; k < as.count(); ++k)
    for (int i : a)
      for (int j : b) {
        as.at(k, i, j) *= 1.9f;
        as.at(k, j, i) *= 1.9f;
      }
  const auto d = na::analyze_duplex(s.cube, as, t, s.r.hosts);
  ASSERT_EQ(d.anomalies.size(), 1u);
  EXPECT_EQ(name_of(d.anomalies[0].kind), "half_duplex");
  std::vector<int> both = a;
  both.insert(both.end(), b.begin(), b.end());
  std::sort(both.begin(), both.end());
  EXPECT_EQ(d.anomalies[0].ranks, both);
  EXPECT_NEAR(d.anomalies[0].score, 2.09, 0.05);
  EXPECT_FALSE(d.lengths.empty());
  EXPECT_GE(d.lengths.front(), 64);  // long messages only
  // The `duplex` command's JSON and text, from a report made with the async cube.
  const auto r = na::make_report(s.cube, {}, &as);
  const auto j = na::duplex_json(r, "one.nc", "async.nc");
  EXPECT_EQ(j["file"], "one.nc");
  EXPECT_EQ(j["async_file"], "async.nc");
  ASSERT_EQ(j["anomalies"].size(), 1u);
  EXPECT_EQ(j["anomalies"][0]["ranks"], both);
  EXPECT_EQ(j["classes"].size(), 2u);
  const auto text = na::duplex_text(r, "one.nc", "async.nc");
  EXPECT_EQ(text.rfind(fmt::format("Duplex check: one.nc vs async.nc at {} lengths\n", d.lengths.size()), 0), 0u) << text;
  EXPECT_NE(text.find("half_duplex score 2.0"), std::string::npos) << text;
}

TEST(Duplex, WholeClassHalfDuplex) {
  nt::SynthParams p = cluster(4, 2, 12);
  auto s = make(p);
  const auto t = na::find_topology(s.cube);
  auto as = async_of(s.cube);
  for (std::size_t k = 0; k < as.count(); ++k)
    for (int i = 0; i < as.P; ++i)
      for (int j = 0; j < as.P; ++j)
        if (t.pair_class(i, j) == 1) as.at(k, i, j) *= 1.8f;
  const auto d = na::analyze_duplex(s.cube, as, t, s.r.hosts);
  ASSERT_EQ(d.classes.size(), 2u);
  EXPECT_FALSE(d.classes[0].half_duplex);
  EXPECT_TRUE(d.classes[1].half_duplex);
  ASSERT_EQ(d.anomalies.size(), 1u);
  EXPECT_EQ(d.anomalies[0].ranks.size(), 8u);
}
