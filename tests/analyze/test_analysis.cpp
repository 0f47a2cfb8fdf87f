// Unit tests of nt_analysis on synthetic data (nt::synthesize), hand-made loggp files and the
// worked examples of MODELS.md.
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

namespace {

std::vector<std::int64_t> geometric(int max_pow) {
  std::vector<std::int64_t> l{0};
  for (int e = 0; e <= max_pow; ++e) l.push_back(std::int64_t{1} << e);
  return l;
}

// A synthetic cluster of nodes x ranks_per_node; lengths 0, 1, 2, 4, ..., 2^max_pow (-1: the
// default lengths); with a seed, the ranks are placed at random (shuffled) by that seed.
nt::SynthParams cluster(int nodes, int ranks_per_node, int max_pow, std::optional<std::uint64_t> shuffle_seed = {}) {
  nt::SynthParams p;
  p.nodes = nodes;
  p.ranks_per_node = ranks_per_node;
  if (max_pow >= 0) p.lengths = geometric(max_pow);
  if (shuffle_seed) {
    p.shuffle = true;
    p.seed = *shuffle_seed;
  }
  return p;
}

struct Synth {
  nt::SynthResult r;
  na::Cube cube;
};

Synth make(nt::SynthParams p, nt::Statistic s = nt::Statistic::median) {
  Synth x;
  x.r = nt::synthesize(p);
  x.cube = na::load_cube(*x.r.stats.at(s));
  return x;
}

// The synthetic truth of a class (0: intra-node, else inter-node): latency and seconds per byte.
double true_ts(const nt::SynthParams& p, int cls) { return cls == 0 ? p.intra_latency : p.inter_latency; }
double true_tw(const nt::SynthParams& p, int cls) { return 1.0 / (cls == 0 ? p.intra_bandwidth : p.inter_bandwidth); }

// The class and pair fits of a synthetic cluster, classed by the topology found in it.
na::HockneyResult fits_of(const Synth& s) { return na::fit_classes_and_pairs(s.cube, na::find_topology(s.cube)); }

std::vector<int> ranks_of_node(const nt::SynthResult& r, int node) { return nt::test::ranks_with(r.node_of_rank, node); }

}  // namespace

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

// ---------------------------------------------------------------- fits

TEST(Hockney, FitRecoversNoiselessLine) {
  std::vector<double> m, t;
  for (int e = 0; e <= 20; ++e) {
    m.push_back(std::ldexp(1.0, e));
    t.push_back(1.7e-6 + m.back() * 3.1e-10);
  }
  const auto f = na::fit_hockney(m, t);
  EXPECT_NEAR(f.ts, 1.7e-6, 1.7e-6 * 1e-9);
  EXPECT_NEAR(f.tw, 3.1e-10, 3.1e-10 * 1e-9);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_LT(f.rel_rms, 1e-9);
}

TEST(Hockney, ClassFitsRecoverSynthParametersWithinOnePercent) {
  nt::SynthParams p = cluster(4, 3, 16, 1);
  p.noise = 0.0;
  const auto h = fits_of(make(p));
  ASSERT_EQ(h.classes.size(), 2u);
  for (const auto& c : h.classes) {
    const double ts = true_ts(p, c.cls), tw = true_tw(p, c.cls);
    EXPECT_TRUE(c.thresholds.empty()) << c.name;
    ASSERT_EQ(c.ranges.size(), 1u);
    EXPECT_NEAR(c.ranges[0].fit.ts, ts, 0.01 * ts) << c.name;
    EXPECT_NEAR(c.ranges[0].fit.tw, tw, 0.01 * tw) << c.name;
  }
  for (const auto& pf : h.pairs) {
    const double ts = true_ts(p, pf.cls);
    ASSERT_EQ(pf.ranges.size(), 1u);
    EXPECT_NEAR(pf.ranges[0].ts, ts, 0.01 * ts);
  }
  EXPECT_EQ(h.pairs.size(), 12u * 11u);
}

TEST(Hockney, ProtocolThresholdSplitsShortAndLongRanges) {
  nt::SynthParams p = cluster(4, 2, 18, 1);
  p.noise = 0.01;
  p.protocol_step = 8192;
  const auto h = fits_of(make(p));
  ASSERT_EQ(h.classes.size(), 2u);
  for (const auto& c : h.classes) {
    ASSERT_EQ(c.thresholds.size(), 1u) << c.name;
    EXPECT_EQ(c.thresholds[0].length, 8192);
    EXPECT_EQ(c.thresholds[0].previous_length, 4096);
    ASSERT_EQ(c.ranges.size(), 2u);
    const double ts = true_ts(p, c.cls), tw = true_tw(p, c.cls);
    // Noise only makes delays grow (by about 0.7% for the median of |N|): 2% bounds.
    EXPECT_NEAR(c.ranges[0].fit.ts, ts, 0.02 * ts);
    EXPECT_NEAR(c.ranges[1].fit.ts, ts + p.protocol_extra, 0.02 * (ts + p.protocol_extra));
    EXPECT_NEAR(c.ranges[1].fit.tw, tw, 0.02 * tw);
  }
}

TEST(Hockney, ThresholdsIgnoreAnOutlierButSeeStepsUpAndDown) {
  std::vector<std::int64_t> len;
  std::vector<double> t;
  for (int e = 0; e <= 16; ++e) {
    len.push_back(std::int64_t{1} << e);
    t.push_back(1e-6 + static_cast<double>(len.back()) * 1e-9);
  }
  auto u = t;
  u[8] *= 3;  // one disturbed measurement is not a protocol switch
  EXPECT_TRUE(na::find_thresholds(len, u).empty());
  auto low = t;  // nor one fast one
  low[8] /= 3;
  EXPECT_TRUE(na::find_thresholds(len, low).empty());
  auto up = t;  // a rendezvous-like extra 1 us from 4 KiB on
  for (std::size_t k = 12; k < up.size(); ++k) up[k] += 1e-6;
  const auto th = na::find_thresholds(len, up);
  ASSERT_EQ(th.size(), 1u);
  EXPECT_EQ(th[0].length, 4096);
  EXPECT_GT(th[0].jump, 0.1);
  // The same step inside the class noise is not reported.
  EXPECT_TRUE(na::find_thresholds(len, up, {}, 0.25).empty());
  // A step that does not hold (only one length up, then back) is not a threshold.
  auto blip = t;
  for (std::size_t k = 12; k < 14; ++k) blip[k] *= 1.5;
  EXPECT_TRUE(na::find_thresholds(len, blip).empty());
  // Down as well: SMPI charges its receive overhead o_r below the eager threshold only,
  // so the curve drops by o_r there; one line over both sides gets the bandwidth wrong.
  auto down = t;
  for (std::size_t k = 12; k < down.size(); ++k) down[k] -= 0.8e-6;
  const auto dn = na::find_thresholds(len, down);
  ASSERT_EQ(dn.size(), 1u);
  EXPECT_EQ(dn[0].length, 4096);
  EXPECT_EQ(dn[0].previous_length, 2048);
  EXPECT_NEAR(dn[0].jump, (down[12] - t[12]) / t[12], 0.01);  // -15.7 %: the lines' step, signed
  // ... but not inside the class noise, nor as a dip that does not hold.
  EXPECT_TRUE(na::find_thresholds(len, down, {}, 0.25).empty());
  auto dip = t;
  for (std::size_t k = 12; k < 14; ++k) dip[k] /= 1.5;
  EXPECT_TRUE(na::find_thresholds(len, dip).empty());
  for (const auto& x : th) EXPECT_FALSE(x.slope);
  for (const auto& x : dn) EXPECT_FALSE(x.slope);
}

TEST(Hockney, ThresholdsSeeAChangeOfSlopeButNotACurve) {
  // A change of the bandwidth with no step (the lines cross at the switch; SMPI's bandwidth factor
  // changes so at 64 KiB): 1 ns/B up to 8 KiB, 2 ns/B beyond, either way.
  std::vector<std::int64_t> len;
  std::vector<double> faster, slower, bent;
  for (int e = 0; e <= 18; ++e) {
    len.push_back(std::int64_t{1} << e);
    const auto m = static_cast<double>(len.back());
    faster.push_back(2e-6 + std::min(m, 8192.0) * 2e-9 + std::max(0.0, m - 8192) * 1e-9);
    slower.push_back(2e-6 + std::min(m, 8192.0) * 1e-9 + std::max(0.0, m - 8192) * 2e-9);
    // one line bent a little everywhere (a protocol does not do this; a cache may): no switch
    bent.push_back((2e-6 + m * 1e-9) * (1 + 0.01 * std::sin(static_cast<double>(e))));
  }
  for (const auto* curve : {&faster, &slower}) {
    const auto th = na::find_thresholds(len, *curve);
    ASSERT_EQ(th.size(), 1u);
    EXPECT_TRUE(th[0].slope);
    EXPECT_TRUE(th[0].length == 16384 || th[0].length == 8192) << th[0].length;
    EXPECT_NEAR(th[0].slope_change, curve == &faster ? -0.5 : 1.0, 0.1);
    EXPECT_TRUE(na::find_thresholds(len, *curve, {}, 0.9).empty());  // within the class noise: none
  }
  EXPECT_TRUE(na::find_thresholds(len, bent).empty());
}

namespace {
// The reference network of a held-out platform, as network_test measures it on SMPI:
// 2 leaves x 2 hosts x `rpn` ranks; a message of m bytes takes o_s + L + (m + 16) G, plus o_r below
// the eager threshold of 16 KiB (SMPI charges o_r there only). L 4 us within a leaf, 8 us across,
// `intra` within a host; G 0.4 ns/B; o_s 0.5 us, o_r 1.5 us; a deterministic wobble of 0.2 %.
constexpr double kOs = 0.5e-6, kOr = 1.5e-6, kG = 0.4e-9;
na::Cube overhead_step_cube(int rpn, double intra = 1e-6) {
  na::Cube c;
  const int hosts = 4;
  c.P = hosts * rpn;
  for (int e = 0; e <= 18; e += (e < 10 ? 2 : 1)) c.lengths.push_back(e == 0 ? 0 : std::int64_t{1} << e);
  for (int r = 0; r < c.P; ++r) c.hosts.push_back(fmt::format("h{}", r / rpn));
  const auto P = static_cast<std::size_t>(c.P);
  c.v.assign(c.lengths.size() * P * P, 0.0f);
  for (std::size_t k = 0; k < c.lengths.size(); ++k)
    for (int i = 0; i < c.P; ++i)
      for (int j = 0; j < c.P; ++j) {
        if (i == j) continue;
        const int hi = i / rpn, hj = j / rpn;
        const double L = hi == hj ? intra : (hi / 2 == hj / 2 ? 4e-6 : 8e-6);
        const auto m = static_cast<double>(c.lengths[k]);
        const double wobble = 1 + 0.002 * std::sin(static_cast<double>(7 * i + 3 * j) + static_cast<double>(k));
        c.at(k, i, j) = static_cast<float>(
            wobble * (kOs + L + (m + 16) * kG + (c.lengths[k] < 16384 ? kOr : 0.0)));
      }
  return c;
}

// What SMPI makes of an exported platform for one message of m bytes from rank i to j: the sender's
// overhead smpi/ois, then the route's latencies times smpi/lat-factor and the payload (m + 16)
// over its slowest link's bandwidth times smpi/bw-factor (each factor list: the entry of the
// largest size below the payload; the overheads: below m itself).
struct SimgridText {
  std::map<std::string, std::pair<double, double>> links;  // id: latency s, bandwidth B/s
  std::map<std::string, std::string> host_of_rank;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> routes;
  std::map<std::string, std::string> config;

  explicit SimgridText(const std::string& xml) {
    const std::regex prop(R"re(<prop id="([^"]+)" value="([^"]+)"/>)re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), prop), end; it != end; ++it) config[(*it)[1]] = (*it)[2];
    const std::regex host(R"re(<host id="([^"]+)"[^>]*>\s*<prop id="ranks" value="([^"]+)"/>)re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), host), end; it != end; ++it) {
      std::stringstream ranks((*it)[2]);
      for (std::string r; std::getline(ranks, r, ',');) host_of_rank[r] = (*it)[1];
    }
    const std::regex link(R"re(<link id="([^"]+)" bandwidth="([0-9.]+)MBps" latency="([0-9.]+)us")re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), link), end; it != end; ++it)
      links[(*it)[1]] = {std::stod((*it)[3]) * 1e-6, std::stod((*it)[2]) * 1e6};
    const std::regex route(R"re(<route src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)</route>)re");
    const std::regex ctn(R"re(<link_ctn id="([^"]+)")re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), route), end; it != end; ++it) {
      const std::string body = (*it)[3];
      auto& ids = routes[{(*it)[1], (*it)[2]}];
      for (std::sregex_iterator l(body.begin(), body.end(), ctn); l != end; ++l) ids.push_back((*l)[1]);
    }
  }
  // SimGrid's size-dependent lists: the values of the last entry whose size is below `size`
  // (before the first: the first).
  std::vector<double> lookup(const std::string& name, double size) const {
    const auto it = config.find(name);
    if (it == config.end()) return {0.0};
    std::vector<std::pair<double, std::vector<double>>> entries;
    std::stringstream list(it->second);
    for (std::string e; std::getline(list, e, ';');) {
      std::stringstream parts(e);
      std::string x;
      std::getline(parts, x, ':');
      entries.emplace_back(std::stod(x), std::vector<double>{});
      while (std::getline(parts, x, ':')) entries.back().second.push_back(std::stod(x));
    }
    std::sort(entries.begin(), entries.end());
    std::vector<double> v = entries.front().second;
    for (const auto& [at, values] : entries)
      if (size > at) v = values;
    return v;
  }
  double delay(int i, int j, double m) const {
    const auto& ids = routes.at({host_of_rank.at(std::to_string(i)), host_of_rank.at(std::to_string(j))});
    double lat = 0, bw = std::numeric_limits<double>::infinity();
    for (const auto& id : ids) {
      lat += links.at(id).first;
      bw = std::min(bw, links.at(id).second);
    }
    const auto o = lookup("smpi/ois", m);
    // SMPI's sleep per clock read (smpi/wtime): one falls inside every delay network_test measures.
    const auto wtime = config.find("smpi/wtime");
    return (wtime == config.end() ? 0.0 : std::stod(wtime->second)) + o[0] + (o.size() > 1 ? o[1] * m : 0.0) + lat * lookup("smpi/lat-factor", m + 16)[0] +
           (m + 16) / (bw * lookup("smpi/bw-factor", m + 16)[0]);
  }
};
}  // namespace

TEST(Hockney, AnOverheadChargedBelowTheThresholdOnlyStepsDownAndSplitsTheRanges) {
  // One Hockney range over the step got G 5-6 % low; per range it is G.
  const auto c = overhead_step_cube(2);
  const auto h = na::fit_classes_and_pairs(c, na::find_topology(c));
  ASSERT_EQ(h.classes.size(), 3u);
  for (const auto& f : h.classes) {
    ASSERT_EQ(f.thresholds.size(), 1u) << f.name;
    EXPECT_EQ(f.thresholds[0].length, 16384) << f.name;
    EXPECT_LT(f.thresholds[0].jump, 0.0) << f.name;
    ASSERT_EQ(f.ranges.size(), 2u) << f.name;
    EXPECT_NEAR(f.ranges.back().fit.tw, kG, 0.01 * kG) << f.name;
    EXPECT_NEAR(f.ranges.front().fit.tw, kG, 0.02 * kG) << f.name;
  }
  // The model without a loggp file takes that G.
  const auto m = na::make_model(c, nullptr, nullptr, "", {});
  for (const auto& p : m.params) EXPECT_NEAR(p.loggp.G, kG, 0.01 * kG) << p.name;
}

TEST(Export, SimgridGivesBackEveryClassAcrossAnAdditiveStep) {
  // One latency/bandwidth factor per length served every class, and o_r, an additive
  // step, is a different ratio for each: 2.3 % off at the threshold. The additive part is now an
  // overhead (smpi/os, smpi/ois), the rest the factors: every cell within 1 % (the wobble of the
  // cells around their class is 0.2 %), with one rank per host (two classes) and two (three).
  for (int rpn : {1, 2}) {
    const auto c = overhead_step_cube(rpn);
    na::ReportOptions o;
    o.find_deviation_beside = false;
    const auto r = na::make_report(c, o);
    const std::string xml = na::export_simgrid(r, c);
    const SimgridText sim(xml);
    EXPECT_FALSE(std::regex_search(xml, std::regex("[ =\":;]-[0-9]"))) << "a negative value: " << xml;
    double worst = 0;
    for (std::size_t k = 0; k < c.count(); ++k)
      for (int i = 0; i < c.P; ++i)
        for (int j = 0; j < c.P; ++j) {
          if (i == j) continue;
          const double want = c.at(k, i, j), got = sim.delay(i, j, static_cast<double>(c.lengths[k]));
          worst = std::max(worst, std::abs(got / want - 1));
          EXPECT_NEAR(got, want, 0.01 * want) << "rpn " << rpn << " length " << c.lengths[k] << " " << i << "->" << j;
        }
    EXPECT_LT(worst, 0.005) << "rpn " << rpn;
    // The additive part is the sender's overhead, the same for MPI_Send and MPI_Isend.
    ASSERT_TRUE(sim.config.count("smpi/os") && sim.config.count("smpi/ois")) << xml;
    EXPECT_EQ(sim.config.at("smpi/os"), sim.config.at("smpi/ois"));
  }
}

TEST(Hockney, NoThresholdOnPlainLinesWithNoise) {
  for (std::uint64_t seed : {1, 2, 3}) {
    nt::SynthParams p = cluster(3, 2, 20);
    p.seed = seed;
    p.noise = 0.05;
    auto s = make(p);
    const auto t = na::find_topology(s.cube);
    const auto h = na::fit_classes_and_pairs(s.cube, t);
    for (const auto& c : h.classes) EXPECT_TRUE(c.thresholds.empty()) << c.name << " seed " << seed;
  }
}

// ---------------------------------------------------------------- models (MODELS.md checks)

TEST(Models, OptimalBroadcastTreeT8_6_2_4) {
  EXPECT_EQ(na::optimal_broadcast_time(8, 6, 2, 4), 24);
  const auto tree = na::optimal_broadcast_tree(8, 6, 2, 4);
  ASSERT_EQ(tree.size(), 8u);
  const std::vector<std::pair<int, int>> want = {{0, 24}, {1, 14}, {2, 4}, {3, 0}, {4, 10}, {5, 0}, {6, 6}, {7, 2}};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(tree[i].proc, want[i].first);
    EXPECT_EQ(tree[i].time, want[i].second);
  }
  EXPECT_EQ(tree[0].children, (std::vector<int>{1, 4, 6, 7}));
  EXPECT_EQ(tree[1].children, (std::vector<int>{2, 3}));
  EXPECT_EQ(tree[4].children, (std::vector<int>{5}));
  for (int leaf : {2, 3, 5, 6, 7}) EXPECT_TRUE(tree[static_cast<std::size_t>(leaf)].children.empty());
  // T*(7; 6, 2, 4) drops node (7, 2).
  const auto t7 = na::optimal_broadcast_tree(7, 6, 2, 4);
  ASSERT_EQ(t7.size(), 7u);
  EXPECT_EQ(t7[0].children, (std::vector<int>{1, 4, 6}));
  // The real-valued min-heap tree has the same time.
  EXPECT_DOUBLE_EQ(na::optimal_broadcast_time_real(8, 6, 2, 4), 24.0);
}

TEST(Models, ReachCountsAndBounds) {
  const auto f = na::reach_counts(24, 6, 2, 4);
  EXPECT_EQ(f[9], 1);
  EXPECT_EQ(f[10], 2);
  EXPECT_EQ(f[14], 3);
  EXPECT_EQ(f[20], 5);
  EXPECT_EQ(f[23], 6);
  EXPECT_EQ(f[24], 8);
  // min{g, L+2o} log P <= T < max{g, L+2o} log(4P), and the real tree agrees with the integer one.
  for (auto [L, o, g] : {std::tuple{6, 2, 4}, std::tuple{1, 1, 5}, std::tuple{10, 0, 1}, std::tuple{3, 2, 2}})
    for (int P : {2, 3, 5, 8, 13, 64, 100, 1000}) {
      const int T = na::optimal_broadcast_time(P, L, o, g);
      const double lo = std::min(g, L + 2 * o) * std::log2(P), hi = std::max(g, L + 2 * o) * std::log2(4.0 * P);
      EXPECT_LE(lo, T + 1e-9);
      EXPECT_LT(T, hi);
      EXPECT_DOUBLE_EQ(na::optimal_broadcast_time_real(P, L, o, g), T) << P << " " << L << " " << o << " " << g;
    }
}

TEST(Models, Summation82OperandsOnS7_5_2_4Takes29Cycles) {
  const auto s = na::optimal_summation(82, 7, 5, 2, 4);
  EXPECT_EQ(s.T_broadcast, 24);
  EXPECT_EQ(s.operands_in_T, 47);
  EXPECT_EQ(s.time, 29);
}

TEST(Models, KChain) {
  const int P[] = {100, 200, 300, 400};
  // MODELS.md's example values are the seed's practical rule k* >= sqrt(P-1) (its Fig. 7 labels).
  const int rec[] = {10, 15, 18, 20};
  // The exact optimum of t(k) = ((P-1)/k + 1)a + (k-1)b for a=3, b=2 is near sqrt(a(P-1)/b).
  const int opt[] = {12, 17, 21, 24};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(na::kchain_recommended_k(P[i]), rec[i]);
    EXPECT_EQ(na::kchain_optimal_k(P[i], 3, 2), opt[i]);
    int brute = 1;
    for (int k = 1; k < P[i]; ++k)
      if (na::kchain_time(k, P[i], 3, 2) < na::kchain_time(brute, P[i], 3, 2)) brute = k;
    EXPECT_EQ(brute, opt[i]);
    const double ks = na::kchain_k_star(P[i], 3, 2);
    EXPECT_NEAR(na::kchain_time(1, P[i], 3, 2) * 0 + ((P[i] - 1) / ks + 1) * 3 + (ks - 1) * 2, na::kchain_optimal_time(P[i], 3, 2), 1e-9);
  }
}

TEST(Models, LogPAndHockneyCollectives) {
  na::LogGP p{6, 2, 4, 0};
  EXPECT_DOUBLE_EQ(na::logp_binomial_bcast(8, p, 1), 3 * 10.0);
  EXPECT_DOUBLE_EQ(na::logp_flat_bcast(8, p, 1), 10 + 6 * 4.0);
  EXPECT_DOUBLE_EQ(na::logp_optimal_bcast(8, p, 1), 24.0);
  na::Hockney h{2.0, 0.5};
  EXPECT_DOUBLE_EQ(na::hockney_bcast_binomial(8, h, 4), 3 * 4.0);
  EXPECT_DOUBLE_EQ(na::hockney_bcast_flat(8, h, 4), 7 * 4.0);
  EXPECT_DOUBLE_EQ(na::hockney_allgather_hypercube(16, h, 4), 2 * 4 + 0.5 * 4 * 15);
  EXPECT_DOUBLE_EQ(na::hockney_allgather_mesh(16, h, 4), 2 * 2 * 3 + 0.5 * 4 * 15);
  EXPECT_DOUBLE_EQ(na::hockney_alltoall_ring(4, h, 4), (2 + 0.5 * 4 * 2) * 3);
  // Binomial reduce at the root, P = 8 (commutative): m*lambda + 2(o+L+max(o+m*gamma, g)) + 2o + L + m*gamma.
  EXPECT_DOUBLE_EQ(na::logp_binomial_reduce_root(8, p, 10, 0.1, 0.2), 1 + 2 * (2 + 6 + 4) + 4 + 6 + 2);
}

TEST(Models, BcastPredictionsAndHierarchy) {
  na::ClassParams intra, inter;
  intra.cls = 0;
  intra.have_loggp = true;
  intra.loggp = {1.0, 0.0, 1.0, 0.0};
  inter.cls = 1;
  inter.have_loggp = true;
  inter.loggp = {10.0, 0.0, 10.0, 0.0};
  inter.hockney = {na::RangeFit{0, 0, 0, 1, na::LineFit{10.0, 0.5, 1, 0, 1}}};
  const auto rows = na::predict_bcast(8, {0, 4}, inter, nullptr, na::Hierarchy{4, 2, &intra});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].hierarchical, 2 * 10.0 + 1 * 1.0);  // binomial over 4 nodes, then inside the node pair
  EXPECT_DOUBLE_EQ(rows[0].logp_binomial, 3 * 10.0);
  EXPECT_DOUBLE_EQ(rows[0].logp_optimal, na::optimal_broadcast_time_real(8, 10.0, 0.0, 10.0));
  EXPECT_DOUBLE_EQ(rows[1].hockney_binomial, 3 * (10.0 + 4 * 0.5));
  EXPECT_DOUBLE_EQ(rows[1].hockney_flat, 7 * (10.0 + 4 * 0.5));
  EXPECT_LT(rows[0].measured, 0);  // nothing measured
  EXPECT_GE(rows[0].kchain_k, 1);
}

// ---------------------------------------------------------------- LogGP from a loggp file

TEST(LogGP, ClassParametersFromAHandMadeLoggpFile) {
  // Ranks 0,2 on one node, 1,3 on another; planted parameters in planted_loggp.hpp.
  const nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  const auto dir = std::filesystem::temp_directory_path() / "nt_analyze_test_loggp";
  std::filesystem::create_directories(dir);
  const auto path = dir / "hand_loggp.nc";
  nt::write_loggp(path, d, true);
  const auto back = nt::read_loggp(path);
  const auto cube = na::cube_from_loggp(back);
  const auto t = na::find_topology(cube);
  ASSERT_EQ(t.levels[0].groups, (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  const auto h = na::fit_classes_and_pairs(cube, t);
  const auto ps = na::class_params(&cube, t, &h, &back, {});
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].name, "intra-node");
  EXPECT_TRUE(ps[0].have_loggp);
  EXPECT_DOUBLE_EQ(ps[0].loggp.L, 0.3e-6);
  EXPECT_DOUBLE_EQ(ps[0].o_s, 0.1e-6);
  EXPECT_DOUBLE_EQ(ps[0].o_r, 0.12e-6);
  // One o for LogP: L + 2o = L + o_s + o_r, the one-way delay (the "L+2o" of the text and JSON).
  EXPECT_DOUBLE_EQ(ps[0].loggp.o, 0.11e-6);
  EXPECT_NEAR(ps[0].loggp.message(0), 0.3e-6 + 0.1e-6 + 0.12e-6, 1e-18);
  EXPECT_NEAR(na::to_json(ps[1])["L_plus_2o"].get<double>(), 1.5e-6 + 0.4e-6 + 0.5e-6, 1e-18);
  EXPECT_DOUBLE_EQ(na::to_json(ps[1])["o_s"].get<double>(), 0.4e-6);
  EXPECT_DOUBLE_EQ(ps[0].loggp.g, 0.2e-6);
  EXPECT_DOUBLE_EQ(ps[0].loggp.G, 1e-10);
  EXPECT_EQ(ps[0].fit_break, 16384);
  EXPECT_DOUBLE_EQ(ps[1].loggp.L, 1.5e-6);
  EXPECT_DOUBLE_EQ(ps[1].loggp.G, 1e-9);
  EXPECT_EQ(ps[1].fit_break, 1024);
  EXPECT_EQ(ps[1].pairs, 8u);
  // LogGOPSim line of the class with most pairs (inter-node: 8 pairs vs 4): G = 1 ns/B keeps three
  // digits in units of 10 ps; one o with o + L + o = the one-way delay (2.401 us at 1 B), both
  // overheads in a comment.
  const std::string lg = na::export_loggopsim(ps);
  EXPECT_NE(lg.find("# time unit: 10 ps"), std::string::npos) << lg;
  EXPECT_NE(lg.find("-L 150000 -o 45050 -g 80000 -G 100 -S 1024"), std::string::npos) << lg;
  EXPECT_NE(lg.find("o_s = 4e-07s, o_r = 5e-07s"), std::string::npos) << lg;
  std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------- exports

// LogGOPSim takes integers: the unit is the coarsest power of ten in which G keeps three digits
// (0.82 and 1.71 ns/B were 1 and 2 in whole ns), stated in the header; -o is one overhead with
// o + L + o the measured one-way delay.
TEST(Export, LoggopsimUnitKeepsThreeDigitsOfG) {
  for (auto [G, unit, scale] : {std::tuple{0.82e-9, "1 ps", 1e-12}, std::tuple{1.71e-9, "10 ps", 1e-11},
                                std::tuple{0.04e-9, "100 fs", 1e-13}, std::tuple{6e-9, "10 ps", 1e-11}}) {
    na::ClassParams p;
    p.name = "inter-node";
    p.pairs = 2;
    p.have_loggp = true;
    p.t0 = 8.02e-6;
    p.loggp = {5e-6, 1e-6, 0.0, G};
    p.o_s = 1e-6;
    p.o_r = 2e-6;
    const std::string lg = na::export_loggopsim({p});
    EXPECT_NE(lg.find(std::string("# time unit: ") + unit + " "), std::string::npos) << lg;
    long long L = 0, o = 0, g = -1, Gi = 0, S = 0;
    const auto at = lg.find("\n-L ");
    ASSERT_NE(at, std::string::npos) << lg;
    ASSERT_EQ(std::sscanf(lg.c_str() + at + 1, "-L %lld -o %lld -g %lld -G %lld -S %lld", &L, &o, &g, &Gi, &S), 5) << lg;
    EXPECT_GE(Gi, 100) << lg;
    EXPECT_NEAR(static_cast<double>(Gi) * scale, G, 0.005 * G) << lg;
    EXPECT_NEAR(static_cast<double>(L + 2 * o) * scale, 8.02e-6, 1e-3 * 8.02e-6) << lg;
    EXPECT_NE(lg.find("o_s = 1e-06s, o_r = 2e-06s"), std::string::npos) << lg;
  }
}

TEST(Export, CsvHasOneLinePerPairAndRange) {
  nt::SynthParams p = cluster(3, 2, 14);
  p.protocol_step = 4096;
  auto s = make(p);
  const auto r = na::make_report(s.cube, {});
  const std::string csv = na::export_csv(r);
  const auto lines = std::count(csv.begin(), csv.end(), '\n');
  EXPECT_EQ(lines, 1 + 6 * 5 * 2);
  EXPECT_EQ(csv.rfind("sender,receiver,", 0), 0u);
}

// ---------------------------------------------------------------- the commands' library side

TEST(Stats, RobustSpreadIsTheScaledMadOfTheFiniteValues) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const auto r = nt::robust_spread(std::vector<double>{4, 1, 100, 3, nan, 2, inf});
  EXPECT_DOUBLE_EQ(r.median, 3.0);
  EXPECT_DOUBLE_EQ(r.sigma, 1.4826);  // |x - 3| = 1, 2, 97, 0, 1: median 1
  EXPECT_DOUBLE_EQ(nt::robust_sigma_of_deviations(std::vector<double>{0.5, 2, 1}), 1.4826);
  EXPECT_TRUE(std::isnan(nt::robust_spread(std::vector<double>{nan}).sigma));
}

TEST(ModelReport, PredictionsAreTheFormulasWithTheChosenClass) {
  nt::SynthParams p = cluster(4, 2, 10);
  auto s = make(p);
  const auto m = na::make_model(s.cube, nullptr, nullptr, "", {});
  EXPECT_EQ(m.prediction_class, "inter-node");  // the coarsest class present
  EXPECT_EQ(m.processes, 8);
  ASSERT_EQ(m.bcast.size(), s.cube.lengths.size());
  ASSERT_EQ(m.collectives.size(), s.cube.lengths.size());
  const auto& cp = na::pick_class(m.params, "inter-node");
  const double lambda = na::pick_class(m.params, "intra-node").hockney_for(1e18).tw;
  for (std::size_t k = 0; k < m.collectives.size(); ++k) {
    const auto x = static_cast<double>(s.cube.lengths[k]);
    const auto h = cp.hockney_for(x);
    const auto& c = m.collectives[k];
    EXPECT_DOUBLE_EQ(c.allgather_ring, na::hockney_allgather_ring(8, h, x));
    EXPECT_DOUBLE_EQ(c.alltoall_mesh, na::hockney_alltoall_mesh(8, h, x));
    EXPECT_DOUBLE_EQ(c.scatter_gather, na::hockney_scatter(8, h, x));
    EXPECT_DOUBLE_EQ(c.reduce_binomial_logp_root, na::logp_binomial_reduce_root(8, cp.loggp, x, lambda, lambda));
    EXPECT_GE(c.reduce_kchain_k, 1);
    EXPECT_DOUBLE_EQ(m.bcast[k].hockney_binomial, na::hockney_bcast_binomial(8, h, x));
    EXPECT_LT(m.bcast[k].measured, 0);  // no bcast file
  }
  const auto j = na::to_json(m);
  EXPECT_EQ(j["processes"], 8);
  EXPECT_EQ(j["prediction_class"], "inter-node");
  EXPECT_EQ(j["classes"].size(), 2u);
  EXPECT_TRUE(j["bcast"][0]["measured"].is_null());
  EXPECT_DOUBLE_EQ(j["collectives"][3]["allgather_ring"].get<double>(), m.collectives[3].allgather_ring);
  EXPECT_EQ(j["groups"].size(), 4u);
  const auto text = na::to_text(m);
  EXPECT_NE(text.find("Broadcast on 8 processes, inter-node parameters"), std::string::npos) << text;
  EXPECT_NE(text.find("(o, g assumed;"), std::string::npos);
  // One G: without a loggp file the model's G is the long-range Hockney tw, the G of the LogGOPSim
  // export (it printed 0 while the export used the fitted tw).
  for (const auto& c : m.params) {
    EXPECT_GT(c.loggp.G, 0) << c.name;
    EXPECT_DOUBLE_EQ(c.loggp.G, c.hockney_for(1e18).tw) << c.name;
    EXPECT_NE(text.find(fmt::format("G {:.4g} s/B", c.loggp.G)), std::string::npos) << text;
  }
  const auto lgs = na::export_loggopsim(m.params);
  EXPECT_NE(lgs.find(fmt::format("G={:.6g}s/B", m.params.back().loggp.G)), std::string::npos) << lgs;
  // --class and the overrides of o and g.
  na::ModelOptions mo;
  mo.o = 1e-7;
  mo.g = 3e-6;
  const auto intra = na::make_model(s.cube, nullptr, nullptr, "intra-node", mo);
  EXPECT_EQ(intra.prediction_class, "intra-node");
  for (const auto& c : intra.params) {
    EXPECT_DOUBLE_EQ(c.loggp.o, 1e-7);
    EXPECT_DOUBLE_EQ(c.loggp.g, 3e-6);
  }
  try {
    (void)na::make_model(s.cube, nullptr, nullptr, "inter-galactic", {});
    ADD_FAILURE() << "no such class";
  } catch (const nt::UsageError& e) {
    EXPECT_STREQ(e.what(), "--class inter-galactic: no such class in the data (have: intra-node inter-node)");
  }
  na::ModelRequest q;
  EXPECT_THROW((void)na::make_model(q), nt::UsageError);  // neither a delay file nor a loggp file
  q.options.g = -1.0;
  EXPECT_THROW((void)na::make_model(q), nt::UsageError);
}

TEST(Export, FormatsByNameGiveTheirExports) {
  std::vector<std::string> names;
  for (const auto& [n, f] : na::export_formats()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"json", "loggopsim", "simgrid", "csv"}));
  nt::SynthParams p = cluster(3, 2, 8);
  auto s = make(p);
  const auto r = na::make_report(s.cube, {});
  EXPECT_EQ(na::export_text(r, na::ExportFormat::csv), na::export_csv(r));
  EXPECT_EQ(na::export_text(r, na::ExportFormat::simgrid, &s.cube), na::export_simgrid(r, s.cube));
  EXPECT_THROW((void)na::export_text(r, na::ExportFormat::simgrid), nt::Error);
  EXPECT_EQ(na::export_text(r, na::ExportFormat::loggopsim), na::export_loggopsim(r.params));
  const auto j = nlohmann::json::parse(na::export_text(r, na::ExportFormat::json));
  EXPECT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["hockney"]["pairs"].size(), 30u);  // every pair in the JSON export
}

TEST(ModelReport, NegativeLoggpMediansAreShownAsZeroWithANote) {
  nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  for (auto& g : d.g) g = -std::fabs(g);  // a gap line whose intercept fell below 0
  const auto cube = na::cube_from_loggp(d);
  const auto m = na::make_model(cube, &d, nullptr, "", {});
  for (const auto& c : m.params) EXPECT_EQ(c.loggp.g, 0.0) << c.name;
  ASSERT_EQ(m.notes.size(), 2u);
  EXPECT_NE(m.notes[0].find("median g is negative"), std::string::npos) << m.notes[0];
  nt::test::expect_no_negative(na::to_json(m), "model");
  nt::test::expect_no_negative_text(na::to_text(m));
  const auto lg = na::export_loggopsim(m.params);  // the export says so too, and has -g 0
  EXPECT_NE(lg.find("# note: inter-node: the loggp file's median g is negative"), std::string::npos) << lg;
  EXPECT_NE(lg.find(" -g 0 "), std::string::npos) << lg;
}

// A loggp file whose receive overhead held the transfer (measured with a blocking receive under a
// rendezvous protocol, as network_test did before it posted the receive first): L and o_r are not
// separable for the inter-node pairs. Without a flag in the file (an older file) the analysis finds
// it from the per-size data; the model says so in its text and JSON (L null, "separable": false,
// the reason, L + o_r) instead of a clamped L = 0, and keeps L + 2o the one-way delay.
TEST(ModelReport, AReceiveThatHoldsTheTransferIsNotSeparable) {
  nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  const auto P = static_cast<std::size_t>(d.ranks), S = d.sizes.size();
  d.orecv.assign(P * P * S, std::nan(""));
  d.osend.assign(P * P * S, std::nan(""));
  for (std::size_t x = 0; x < P * P; ++x) {
    if (!std::isfinite(d.L[x])) continue;
    const bool inter = d.L[x] > 1e-6;
    for (std::size_t k = 0; k < S; ++k) {
      const double s = static_cast<double>(d.sizes[k]);
      d.osend[x * S + k] = d.o_s[x];
      d.orecv[x * S + k] = inter ? d.L[x] + d.G[x] * s + d.o_r[x] : d.o_r[x];
    }
    if (inter) d.L[x] = 0;  // what the old fit wrote: clamped
  }
  const auto cube = na::cube_from_loggp(d);
  const auto m = na::make_model(cube, &d, nullptr, "", {});
  ASSERT_EQ(m.params.size(), 2u);
  const auto& intra = m.params[0];
  const auto& inter = m.params[1];
  EXPECT_TRUE(intra.separable);
  EXPECT_DOUBLE_EQ(intra.loggp.L, 0.3e-6);
  EXPECT_FALSE(inter.separable);
  EXPECT_NE(inter.not_separable_reason.find("not separable"), std::string::npos) << inter.not_separable_reason;
  EXPECT_NEAR(inter.L_plus_o_r, 1.5e-6 + 0.5e-6, 1e-12);
  EXPECT_NEAR(inter.loggp.L + 2 * inter.loggp.o, 1.5e-6 + 0.4e-6 + 0.5e-6, 1e-12);  // the one-way delay
  const auto j = na::to_json(m);
  const auto& jc = j["classes"][1];
  EXPECT_EQ(jc["class"], "inter-node");
  EXPECT_TRUE(jc["L"].is_null());
  EXPECT_TRUE(jc["o_r"].is_null());
  EXPECT_EQ(jc["separable"], false);
  EXPECT_NE(jc["not_separable_reason"].get<std::string>().find("rendezvous"), std::string::npos) << jc;
  EXPECT_EQ(j["classes"][0]["separable"], true);
  const auto text = na::to_text(m);
  EXPECT_NE(text.find("L and o_r not separable"), std::string::npos) << text;
  // The flag written by network_test is taken as it is.
  d.separable.assign(P * P, 1);
  const auto m2 = na::make_model(cube, &d, nullptr, "", {});
  EXPECT_TRUE(m2.params[1].separable);
}

// The gap's protocol ranges of the loggp file (g2 + G2 s from the fit break on) are the class's
// second range in the model, and the overheads bound the gap of small messages.
TEST(ModelReport, GapRangesAndTheOverheadBound) {
  nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  const auto P = static_cast<std::size_t>(d.ranks);
  d.g2.assign(P * P, std::nan(""));
  d.G2.assign(P * P, std::nan(""));
  for (std::size_t x = 0; x < P * P; ++x)
    if (std::isfinite(d.L[x])) {
      d.g2[x] = d.L[x] + d.o_s[x];
      d.G2[x] = 2 * d.G[x];
      d.g[x] = 0.1e-6;  // below the overheads: the gap of small messages is max(o_s, o_r)
    }
  const auto cube = na::cube_from_loggp(d);
  const auto m = na::make_model(cube, &d, nullptr, "", {});
  const auto& inter = m.params[1];
  ASSERT_EQ(inter.gap_ranges.size(), 2u);
  EXPECT_EQ(inter.gap_ranges[0].to, 1024);
  EXPECT_EQ(inter.gap_ranges[1].from, 1024);
  EXPECT_DOUBLE_EQ(inter.gap_ranges[1].g, 1.9e-6);
  EXPECT_DOUBLE_EQ(inter.gap_ranges[1].G, 2e-9);
  EXPECT_DOUBLE_EQ(inter.overhead_bound, 0.5e-6);
  const auto j = na::to_json(m)["classes"][1];
  EXPECT_EQ(j["gap_ranges"].size(), 2u);
  EXPECT_TRUE(j["gap_ranges"][1]["to"].is_null());
  EXPECT_DOUBLE_EQ(j["gap_overhead_bound"].get<double>(), 0.5e-6);
  EXPECT_NE(na::to_text(m).find("gap max("), std::string::npos);
}

// The exact median over millions of pair fits, found in passes with a bounded number of
// values held, equals finite_median of the whole multiset: ties, zeros of both signs, negatives,
// NaN and infinities (skipped), odd and even counts, caps from 1 to above the count.
TEST(StreamedMedian, EqualsFiniteMedianOfTheWholeMultiset) {
  std::mt19937_64 rng(23);
  std::normal_distribution<double> N01(0.0, 1.0);
  std::vector<std::vector<double>> sets;
  for (std::size_t n : {1, 2, 3, 10, 101, 1000, 4097}) {
    std::vector<double> x;
    for (std::size_t q = 0; q < n; ++q) x.push_back(1e-6 * std::exp(0.05 * N01(rng)));  // a ts-like spread
    sets.push_back(x);
    std::vector<double> t;  // heavy ties, signs, non-finite values
    for (std::size_t q = 0; q < n; ++q) {
      const auto r = rng() % 7;
      t.push_back(r == 0 ? 0.0 : r == 1 ? -0.0 : r == 2 ? 2.5 : r == 3 ? -3.0 : r == 4 ? std::nan("")
                  : r == 5 ? std::numeric_limits<double>::infinity() : 2.5 + 1e-12 * static_cast<double>(q % 3));
    }
    sets.push_back(t);
    sets.push_back(std::vector<double>(n, 7.25));  // all equal: every key bit has to be resolved
  }
  sets.push_back({});
  sets.push_back({std::nan("")});
  for (const auto& x : sets)
    for (std::size_t cap : {1, 2, 16, 500, 100000}) {
      na::StreamedMedian m(cap);
      int passes = 0;
      while (!m.done()) {
        ASSERT_LT(passes++, 5) << "size " << x.size() << ", cap " << cap;
        // every pass offers the values in another order
        std::vector<double> y = x;
        std::shuffle(y.begin(), y.end(), rng);
        for (double v : y) m.offer(v);
        m.end_pass();
      }
      const double want = nt::finite_median(x);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(m.value()));
      else EXPECT_EQ(m.value(), want) << "size " << x.size() << ", cap " << cap;
    }
}
