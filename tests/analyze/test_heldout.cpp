// Held-out cases for network_analyze: ground truth from a generator written for these
// tests only, NOT nt::synthesize (the one analyze was tuned on). Its model differs on purpose:
// three link classes with their own latency/bandwidth, a lognormal factor per cell (the "noise"),
// rare gross outliers (x2..x6), shuffled rank placement, slow nodes as a factor on every link of
// the node, one-way slow links, and optional protocol steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <tuple>

#include <unistd.h>
#include <filesystem>

#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/fits.hpp"
#include "nt/analysis/model_report.hpp"
#include "nt/analysis/report.hpp"
#include "nt/analysis/topology.hpp"
#include "analysis_test_util.hpp"

namespace na = nt::analysis;
using nt::test::partition;
using nt::test::ranks_with;

namespace {

struct Plan {
  int nodes = 16, ranks_per_node = 2, switches = 1;
  double noise = 0.10;             // lognormal sigma per cell
  double outliers = 0.002;         // fraction of cells multiplied by U(2, 6)
  std::vector<std::pair<int, double>> slow_nodes;            // node, factor on all its links
  std::vector<std::tuple<int, int, double>> one_way;         // sender node, receiver node, factor
  int own_switch = -1;             // a node on a switch of its own (a lone node at the switch level)
  std::int64_t step_at = 0;        // protocol step: + step_s from this length on (0: none)
  double step_s = 0;
  std::uint64_t seed = 1;
};

// The cluster's shape, noise and seed; the cases add their anomalies and steps.
Plan shape(int nodes, int ranks_per_node, int switches, double noise, std::uint64_t seed) {
  Plan p;
  p.nodes = nodes;
  p.ranks_per_node = ranks_per_node;
  p.switches = switches;
  p.noise = noise;
  p.seed = seed;
  return p;
}

struct Gen {
  na::Cube cube;
  std::vector<int> node, sw;  // per rank
};

Gen generate(const Plan& p) {
  Gen g;
  std::mt19937_64 rng(p.seed * 7919 + 17);
  const int P = p.nodes * p.ranks_per_node;
  std::vector<int> slot(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) slot[static_cast<std::size_t>(r)] = r;
  std::shuffle(slot.begin(), slot.end(), rng);
  const int per_switch = (p.nodes + p.switches - 1) / p.switches;
  for (int r = 0; r < P; ++r) {
    const int n = slot[static_cast<std::size_t>(r)] / p.ranks_per_node;
    g.node.push_back(n);
    g.sw.push_back(n == p.own_switch ? p.switches : n / per_switch);
  }
  na::Cube& c = g.cube;
  c.P = P;
  c.lengths = {0};
  for (int e = 0; e <= 17; ++e) c.lengths.push_back(std::int64_t{1} << e);
  c.v.assign(c.lengths.size() * static_cast<std::size_t>(P) * static_cast<std::size_t>(P), std::nan(""));
  std::normal_distribution<double> N01(0.0, 1.0);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  std::map<int, double> slow(p.slow_nodes.begin(), p.slow_nodes.end());
  for (std::size_t k = 0; k < c.count(); ++k) {
    const double m = static_cast<double>(c.lengths[k]);
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        if (i == j) continue;
        const int a = g.node[static_cast<std::size_t>(i)], b = g.node[static_cast<std::size_t>(j)];
        double ts, bw;
        if (a == b) ts = 0.35e-6, bw = 12e9;
        else if (g.sw[static_cast<std::size_t>(i)] == g.sw[static_cast<std::size_t>(j)]) ts = 1.8e-6, bw = 6e9;
        else ts = 3.2e-6, bw = 3e9;
        double t = ts + m / bw;
        if (p.step_at > 0 && c.lengths[k] >= p.step_at) t += p.step_s;
        if (slow.count(a)) t *= slow[a];
        else if (slow.count(b)) t *= slow[b];
        for (auto [s, r, f] : p.one_way)
          if (a == s && b == r) t *= f;
        t *= std::exp(p.noise * N01(rng));
        if (U(rng) < p.outliers) t *= 2.0 + 4.0 * U(rng);
        c.at(k, i, j) = t;
      }
  }
  c.source = "heldout";
  return g;
}

na::Report report(const na::Cube& c) {
  na::ReportOptions o;
  o.find_deviation_beside = false;
  o.pairs_in_json = true;
  return na::make_report(c, o);
}

// No negative ts, tw or r2 anywhere in text or JSON. Every number a user sees from this
// data must be >= 0: the report (text and JSON; the adjusted Rand index is the one signed
// quantity), the model (text and JSON) and the exports.
void expect_honest_numbers(const na::Cube& c, const na::Report& r) {
  auto j = na::to_json(r, true);
  j["hosts"]["agreement"].erase("adjusted_rand");
  nt::test::expect_no_negative(j, "report");
  nt::test::expect_no_negative_text(na::to_text(r));
  const auto m = na::make_model(c, nullptr, nullptr, "", {});
  nt::test::expect_no_negative(na::to_json(m), "model");
  nt::test::expect_no_negative_text(na::to_text(m));
  const std::string csv = na::export_csv(r);
  EXPECT_EQ(csv.find(",-"), std::string::npos) << csv.substr(0, 2000);
  // A parameter the pair's data cannot determine is flagged in the CSV as in the JSON.
  std::size_t unident = 0;
  for (const auto& pf : r.hockney.pairs)
    for (const auto& f : pf.ranges) unident += (f.ts_identifiable ? 0 : 1) + (f.tw_identifiable ? 0 : 1);
  std::size_t flagged = 0;
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);  // header
  while (std::getline(lines, line)) flagged += (line.ends_with(",0,0") ? 2 : 0) + (line.ends_with(",1,0") || line.ends_with(",0,1") ? 1 : 0);
  EXPECT_EQ(flagged, unident);
  for (auto f : {na::ExportFormat::loggopsim, na::ExportFormat::simgrid})
    EXPECT_FALSE(std::regex_search(na::export_text(r, f, &c), std::regex("[ =\"]-[0-9]"))) << na::export_text(r, f, &c);
}

}  // namespace

TEST(HeldOut, NoThresholdOn16x2WithTenPercentNoiseAndNoStep) {
  for (std::uint64_t seed = 1; seed <= 10; ++seed) {
    Plan p = shape(16, 2, 1, 0.10, seed);
    const auto g = generate(p);
    const auto r = report(g.cube);
    EXPECT_EQ(partition(r.topology.levels.front().groups), partition(g.node)) << "seed " << seed;
    for (const auto& c : r.hockney.classes) {
      if (!c.thresholds.empty()) {
        std::string curve;
        for (double x : c.curve) curve += std::to_string(x * 1e6) + " ";
        ADD_FAILURE() << c.name << " seed " << seed << " threshold at " << c.thresholds.front().length << " jump "
                      << c.thresholds.front().jump << " noise " << c.noise << " curve(us) " << curve;
      }
      ASSERT_EQ(c.ranges.size(), 1u);
      // With no made-up threshold the bandwidth comes out of the whole curve: within 10 %.
      const double tw = 1.0 / (c.cls == 0 ? 12e9 : 6e9);
      EXPECT_TRUE(c.ranges[0].fit.tw_identifiable) << c.name;
      EXPECT_NEAR(c.ranges[0].fit.tw, tw, 0.1 * tw) << c.name << " seed " << seed;
    }
    expect_honest_numbers(g.cube, r);
  }
}

TEST(HeldOut, PlantedProtocolStepIsFoundAtItsLength) {
  for (std::uint64_t seed : {1, 2, 3}) {
    Plan p = shape(8, 2, 1, 0.03, seed);
    p.step_at = 8192;
    p.step_s = 2e-6;
    const auto g = generate(p);
    const auto r = report(g.cube);
    for (const auto& c : r.hockney.classes) {
      ASSERT_EQ(c.thresholds.size(), 1u) << c.name << " seed " << seed;
      EXPECT_EQ(c.thresholds[0].length, 8192);
      EXPECT_GT(c.thresholds[0].jump, 0.0);
    }
    expect_honest_numbers(g.cube, r);
  }
}

TEST(HeldOut, FlatAndFallingCurvesGiveNoNegativeParameters) {
  // A busy machine: delays that do not grow with the length (and fall slightly), 20 % noise.
  for (std::uint64_t seed : {1, 2, 3}) {
    Plan p = shape(4, 2, 1, 0.10, seed);
    auto g = generate(p);
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> N01(0.0, 1.0);
    for (std::size_t k = 0; k < g.cube.count(); ++k)
      for (int i = 0; i < g.cube.P; ++i)
        for (int j = 0; j < g.cube.P; ++j)
          if (i != j) g.cube.at(k, i, j) = 5e-6 * (1.0 - 0.01 * static_cast<double>(k)) * std::exp(0.2 * N01(rng));
    const auto r = report(g.cube);
    for (const auto& c : r.hockney.classes)
      for (const auto& rg : c.ranges) {
        EXPECT_GE(rg.fit.ts, 0.0);
        EXPECT_GE(rg.fit.tw, 0.0);
        EXPECT_FALSE(rg.fit.tw_identifiable) << "a flat curve does not determine a bandwidth";
      }
    expect_honest_numbers(g.cube, r);
  }
  // The constrained fit itself: a falling line gives tw = 0 (not identifiable), a line through a
  // negative intercept gives ts = 0 (not identifiable) and a positive tw.
  std::vector<double> m{1, 2, 4, 8, 16, 32, 64}, down, neg;
  for (double x : m) {
    down.push_back(1e-6 - x * 1e-9);
    neg.push_back(-1e-7 + x * 1e-8 + 1e-7 * (x > 1 ? 1 : 0.5));
  }
  const auto a = na::fit_hockney(m, down);
  EXPECT_EQ(a.tw, 0.0);
  EXPECT_FALSE(a.tw_identifiable);
  EXPECT_GT(a.ts, 0.0);
  EXPECT_GE(a.r2, 0.0);
  const auto b = na::fit_hockney(m, neg);
  EXPECT_GE(b.ts, 0.0);
  EXPECT_GE(b.tw, 0.0);
  EXPECT_GE(b.r2, 0.0);
  EXPECT_STREQ(na::fit_quality(0.0), "exact");
  EXPECT_STREQ(na::fit_quality(0.02), "good");
  EXPECT_STREQ(na::fit_quality(0.5), "poor");
}

TEST(HeldOut, OneWaySlowLinkIsAnAsymmetricPairWithItsDirection) {
  for (std::uint64_t seed : {1, 2, 3}) {
    Plan p = shape(8, 3, 2, 0.05, seed);
    p.one_way = {{1, 6, 3.0}};
    const auto g = generate(p);
    const auto t = na::find_topology(g.cube);
    EXPECT_EQ(partition(t.levels.front().groups), partition(g.node)) << "seed " << seed;
    const auto an = na::find_anomalies(g.cube, t, {});
    ASSERT_EQ(an.size(), 1u) << "seed " << seed << ": " << (an.empty() ? "" : an.front().detail);
    EXPECT_EQ(name_of(an[0].kind), "asymmetric_pair") << an[0].detail;
    const auto s = ranks_with(g.node, 1), rcv = ranks_with(g.node, 6);
    EXPECT_EQ(an[0].pairs.size(), s.size() * rcv.size());
    for (auto [x, y] : an[0].pairs) {  // sender in node 1, receiver in node 6
      EXPECT_EQ(g.node[static_cast<std::size_t>(x)], 1);
      EXPECT_EQ(g.node[static_cast<std::size_t>(y)], 6);
    }
    const auto& go = t.levels.front().group_of;  // the text names the sender's group first
    const std::string dir = "node group " + std::to_string(go[static_cast<std::size_t>(s[0])]) + " -> node group " +
                            std::to_string(go[static_cast<std::size_t>(rcv[0])]) + " (sender -> receiver";
    EXPECT_NE(an[0].detail.find(dir), std::string::npos) << an[0].detail;
    EXPECT_NE(an[0].detail.find("sigmas"), std::string::npos);
    EXPECT_NEAR(an[0].score, 3.0, 0.5);
  }
}

TEST(HeldOut, SlowNodeAtExactlyTheThresholdIsOneNode) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    Plan p = shape(12, 4, 1, 0.03, seed);
    p.slow_nodes = {{5, 1.5}};
    const auto g = generate(p);
    const auto t = na::find_topology(g.cube);
    const auto an = na::find_anomalies(g.cube, t, {});
    std::map<std::string, int> kinds;
    for (const auto& a : an) ++kinds[name_of(a.kind)];
    EXPECT_EQ(kinds["slow_rank"], 0) << "seed " << seed;
    ASSERT_EQ(kinds["slow_node"], 1) << "seed " << seed;
    for (const auto& a : an) {
      if (name_of(a.kind) == "slow_node") {
        EXPECT_EQ(a.ranks, ranks_with(g.node, 5));
      }
    }
  }
}

// ... and the slack that allows (two standard errors of the node's median effect) does not turn a
// node clearly below the threshold into an anomaly.
TEST(HeldOut, NodeClearlyBelowTheThresholdIsNotReported) {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    Plan p = shape(12, 4, 1, 0.03, seed);
    p.slow_nodes = {{5, 1.4}};
    const auto g = generate(p);
    const auto an = na::find_anomalies(g.cube, na::find_topology(g.cube), {});
    EXPECT_TRUE(an.empty()) << "seed " << seed << ": " << an.front().detail;
  }
}

// Two slow nodes (3x and 2x) under 3 or 4 switches, in different switches or in the same one:
// nodes, switches and the two slow_node anomalies exact (no slow node a switch of its
// own). The link between the two slow nodes is slowed by the sender's factor only (3x one
// way, 2x the other): not a one-way link of its own.
void expect_slow_nodes_under_switches(Plan p, const std::vector<int>& slow_nodes) {
  const std::string what = "seed " + std::to_string(p.seed) + ", " + std::to_string(p.nodes) + " nodes x " +
                           std::to_string(p.ranks_per_node) + ", " + std::to_string(p.switches) + " switches";
  p.slow_nodes = {{slow_nodes[0], 3.0}, {slow_nodes[1], 2.0}};
  const auto g = generate(p);
  const auto r = report(g.cube);
  ASSERT_EQ(r.topology.levels.size(), 2u) << what;
  EXPECT_EQ(partition(r.topology.levels[0].groups), partition(g.node)) << what;
  EXPECT_EQ(partition(r.topology.levels[1].groups), partition(g.sw)) << what;
  std::set<std::vector<int>> slow;
  for (const auto& a : r.anomalies) {
    EXPECT_EQ(name_of(a.kind), "slow_node") << what << ": " << a.detail;
    slow.insert(a.ranks);
  }
  EXPECT_EQ(slow, (std::set<std::vector<int>>{ranks_with(g.node, slow_nodes[0]), ranks_with(g.node, slow_nodes[1])})) << what;
  expect_honest_numbers(g.cube, r);
}

TEST(HeldOut, SeveralSlowNodesUnderSwitches) {
  for (int switches : {3, 4})
    for (std::uint64_t seed : {1, 2, 3, 4})
      for (const auto& slow : std::vector<std::vector<int>>{{3, 13}, {3, 5}})
        expect_slow_nodes_under_switches(shape(24, 4, switches, 0.05, seed), slow);
}

// The same at 512 ranks (64 nodes x 8): more items than the topology's candidates, so most pairs of
// ranks are never compared (the clustering's sparse path).
TEST(HeldOut, SeveralSlowNodesUnderSwitches512Ranks) {
  for (auto [switches, seed] : {std::pair{3, 1}, std::pair{4, 2}})
    expect_slow_nodes_under_switches(shape(64, 8, switches, 0.05, static_cast<std::uint64_t>(seed)), {3, 40});
}

// 32 nodes under 4 switches, and 256 under 2 switches of 128 (a large set: the clustering takes a
// switch whole when its members are close on average to a sample of it).
TEST(HeldOut, OneRankPerNodeWarnsThatNodesAreNotIdentified) {
  for (auto [nodes, switches, seed] : {std::tuple{32, 4, 1}, std::tuple{32, 4, 2}, std::tuple{32, 4, 3},
                                       std::tuple{256, 2, 1}, std::tuple{256, 2, 2}}) {
    Plan p = shape(nodes, 1, switches, 0.05, static_cast<std::uint64_t>(seed));
    const auto g = generate(p);
    const auto r = report(g.cube);
    // The finest groups found are the switches (nothing in the delays tells nodes apart).
    EXPECT_EQ(partition(r.topology.levels.front().groups), partition(g.sw)) << "seed " << seed;
    bool warned = false;
    for (const auto& n : r.notes) warned = warned || n.find("node level cannot be identified") != std::string::npos;
    EXPECT_TRUE(warned) << "seed " << seed;
    // The class names say what the classes are, in every output.
    const auto text = na::to_text(r);
    EXPECT_EQ(text.find("intra-node"), std::string::npos) << text;
    EXPECT_NE(text.find("within-group"), std::string::npos) << text;
    const auto j = na::to_json(r, false);
    EXPECT_FALSE(j["node_level_identified"].get<bool>());
    EXPECT_EQ(j["hierarchy"][0]["level"], "group");
    for (const auto& c : j["hockney"]["classes"]) EXPECT_NE(c["class"].get<std::string>().find("group"), std::string::npos);
    EXPECT_EQ(na::export_csv(r).find("-node"), std::string::npos);
    EXPECT_EQ(na::export_text(r, na::ExportFormat::loggopsim).find("-node"), std::string::npos);
    const auto m = na::make_model(g.cube, nullptr, nullptr, "", {});
    EXPECT_FALSE(m.topology.node_level_identified);
    for (const auto& c : m.params) EXPECT_NE(c.name.find("group"), std::string::npos) << c.name;
    EXPECT_NE(na::to_text(m).find("node level cannot be identified"), std::string::npos);
    expect_honest_numbers(g.cube, r);
  }
}

TEST(HeldOut, LoneNodeAtTheSwitchLevelCarriesTheCaveatEverywhere) {
  for (std::uint64_t seed : {1, 2, 3}) {
    Plan p = shape(9, 2, 2, 0.03, seed);
    p.own_switch = 8;
    const auto g = generate(p);
    const auto r = report(g.cube);
    ASSERT_EQ(r.topology.levels.size(), 2u) << "seed " << seed;
    EXPECT_EQ(partition(r.topology.levels[1].groups), partition(g.sw)) << "seed " << seed;
    const auto lone = na::lone_node_groups(r.topology, 1);
    ASSERT_EQ(lone.size(), 1u);
    EXPECT_EQ(r.topology.levels[1].groups[lone[0]], ranks_with(g.node, 8));
    const std::string caveat = na::kLoneNodeCaveat;
    EXPECT_EQ(caveat, "may be a node behind its own switch, or a slow node");
    const auto text = na::to_text(r);
    EXPECT_NE(text.find("(lone node: " + caveat + ")"), std::string::npos) << text;
    const auto j = na::to_json(r, false);
    EXPECT_EQ(j["hierarchy"][1]["lone_nodes"], nlohmann::json::array({lone[0]}));
    EXPECT_EQ(j["hierarchy"][1]["lone_node_caveat"], caveat);
    EXPECT_FALSE(j["hierarchy"][0].contains("lone_nodes"));
    bool noted = false;
    for (const auto& n : r.notes) noted = noted || n.find(caveat) != std::string::npos;
    EXPECT_TRUE(noted);
    EXPECT_NE(na::export_simgrid(r, g.cube).find(caveat), std::string::npos);
    EXPECT_EQ(na::to_json(na::make_model(g.cube, nullptr, nullptr, "", {}))["hierarchy"][1]["lone_node_caveat"], caveat);
    // Slowed 3x, the same lone node is a slow_node whose detail says the same.
    p.slow_nodes = {{8, 3.0}};
    const auto s = report(generate(p).cube);
    ASSERT_EQ(s.anomalies.size(), 1u) << "seed " << seed;
    EXPECT_EQ(name_of(s.anomalies[0].kind), "slow_node");
    EXPECT_NE(s.anomalies[0].detail.find(caveat), std::string::npos) << s.anomalies[0].detail;
  }
}

// "No negative ts, tw or r2 anywhere in text or JSON", on noisy cases of every shape:
// 10-30 % noise per cell, 1 % gross outliers, a lone node, a slow node, one rank per node.
TEST(HeldOut, NoNegativeNumberInAnyOutputOfNoisyCases) {
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    std::vector<Plan> plans{shape(16, 2, 1, 0.10, seed), shape(8, 2, 2, 0.30, seed), shape(32, 1, 4, 0.20, seed),
                            shape(6, 3, 1, 0.20, seed)};
    plans[1].outliers = 0.01;
    plans[1].own_switch = 7;
    plans[3].slow_nodes = {{2, 2.0}};
    for (const auto& p : plans) {
      const auto g = generate(p);
      expect_honest_numbers(g.cube, report(g.cube));
    }
  }
}

// Every anomaly with its evidence: the ratio, the robust z-score and the lengths.
TEST(HeldOut, EveryAnomalyCarriesItsEvidence) {
  Plan p = shape(8, 3, 1, 0.05, 4);
  p.slow_nodes = {{2, 3.0}};
  p.one_way = {{4, 5, 3.0}, {5, 4, 3.0}, {6, 1, 2.5}};
  auto g = generate(p);
  const int lone_rank = ranks_with(g.node, 7).front();  // one slow rank of node 7 (sends slowly)
  for (std::size_t k = 0; k < g.cube.count(); ++k)
    for (int j = 0; j < g.cube.P; ++j)
      if (j != lone_rank) g.cube.at(k, lone_rank, j) *= 2.5F;
  const auto an = na::find_anomalies(g.cube, na::find_topology(g.cube), {});
  std::set<std::string> kinds;
  for (const auto& a : an) {
    kinds.insert(name_of(a.kind));
    EXPECT_NE(a.detail.find("sigmas"), std::string::npos) << a.detail;
    EXPECT_TRUE(std::regex_search(a.detail, std::regex("[0-9.]+x.* at [0-9]+ of (the|[0-9]+) lengths"))) << a.detail;
    EXPECT_FALSE(a.lengths.empty());
    EXPECT_GT(a.score, 1.0);
  }
  EXPECT_EQ(kinds, (std::set<std::string>{"slow_node", "slow_rank", "slow_link", "asymmetric_pair"}));
}

// The same report whether the delays are held in memory or read from the file one length
// (or one block of senders) at a time: slow nodes under switches, a one-way link, a lone node, a
// protocol step, bad cells (NaN), 10 % noise with outliers. ~5 s.
TEST(HeldOut, StreamedReportEqualsTheReportOfTheCubeInMemory) {
  const auto dir = std::filesystem::temp_directory_path() / ("nt_heldout_stream_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::vector<std::pair<std::string, Plan>> plans;
  {
    Plan p = shape(16, 4, 4, 0.05, 3);
    p.slow_nodes = {{2, 2.0}, {9, 3.0}};
    plans.emplace_back("two slow nodes under 4 switches", p);
  }
  {
    Plan p = shape(12, 2, 1, 0.05, 4);
    p.one_way = {{1, 5, 3.0}};
    p.step_at = 4096;
    p.step_s = 5e-6;
    plans.emplace_back("one-way link and a protocol step", p);
  }
  {
    // each direction 1.4x off its class, the other way: an asymmetry that no slow link explains
    Plan p = shape(12, 2, 1, 0.03, 7);
    p.one_way = {{1, 5, 1.4}, {5, 1, 1 / 1.4}};
    plans.emplace_back("asymmetric pair without a slow link", p);
  }
  {
    Plan p = shape(9, 2, 2, 0.05, 5);
    p.own_switch = 8;
    plans.emplace_back("lone node", p);
  }
  plans.emplace_back("10 % noise", shape(32, 2, 2, 0.10, 6));
  for (auto& [what, p] : plans) {
    Gen g = generate(p);
    // a few bad cells: missing delays are excluded alike
    for (std::size_t x = 5; x < g.cube.v.size(); x += 997) g.cube.v[x] = std::nanf("");
    nt::test::expect_streamed_report_equal(g.cube, dir / "streamed.nc", {}, what);
  }
  std::filesystem::remove_all(dir);
}
