// Held-out cases on a two-level tree whose delays follow the paths, as a network (and SimGrid)
// makes them: a message crosses the sender's cable, its leaf's uplink, the spine, the receiver's
// leaf's uplink and cable; its delay is the sum of the links' latencies plus the length over the
// slowest link's bandwidth. A fault is one slow link, so its cost depends on the path (a node cable
// at 1/4 costs 4x inside its leaf and 2x beyond an uplink twice as slow): factors do not multiply,
// unlike the per-node factors of test_heldout.cpp. Noise 0 is a simulated cluster's data.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>

#include <fmt/format.h>

#include "nt/analysis/report.hpp"
#include "analysis_test_util.hpp"
#include "routed_cubes.hpp"
#include "path_trees.hpp"

namespace na = nt::analysis;
using namespace nt::test;
using namespace nt::test::path_trees;

// The slow node is placed in its own leaf (it reaches its leaf mates fastest), not left as a
// switch of its own or put with another odd group; the slow uplink is one finding on its leaf.
TEST(Paths, SlowNodeAndSlowUplinkOnNoiseFreeData) {
  for (std::uint64_t seed : {1, 2, 3}) {
    Tree t;
    t.seed = seed;
    t.slow_node = 5;
    t.slow_leaf = 3;
    expect_exact(t);
  }
}

TEST(Paths, SlowNodeAndSlowUplinkWithTwoPercentNoise) {
  for (std::uint64_t seed : {4, 5, 6}) {
    Tree t;
    t.seed = seed;
    t.noise = 0.02;
    t.slow_node = 21;
    t.slow_leaf = 0;
    expect_exact(t);
  }
}

// Each fault alone, and none: nothing invented.
TEST(Paths, OneFaultOrNone) {
  Tree t;
  expect_exact(t);
  t.slow_node = 9;
  expect_exact(t);
  t.slow_node = -1;
  t.slow_leaf = 6;
  expect_exact(t);
}

// A slow node in the leaf whose uplink is slow too: two findings, not merged.
TEST(Paths, SlowNodeUnderTheSlowUplink) {
  Tree t;
  t.slow_node = 13;  // leaf 3
  t.slow_leaf = 3;
  t.seed = 7;
  const Made m = make(t);
  const auto r = report(m.cube);
  ASSERT_EQ(r.topology.levels.size(), 2u);
  EXPECT_EQ(partition(r.topology.levels[1].groups), partition(m.leaf));
}

// The mates of a slow node stay in its leaf: the leaf is judged by its nearest member, not by a
// median that the slow node's slow links pull up (a small leaf of 3 nodes, one slow).
TEST(Paths, MatesOfASlowNodeStayInTheirLeaf) {
  for (std::uint64_t seed : {1, 2, 3, 4}) {
    Tree t;
    t.leaves = 2;
    t.nodes_per_leaf = 3;
    t.slow_node = 4;
    t.noise = 0.01;
    t.seed = seed;
    expect_exact(t);
  }
}

// A node whose cable is slow (1/4 bandwidth, normal latency) but still faster than the
// uplinks beyond its leaf (the bottleneck of its pairs there, as contention makes them under
// --concurrent) is slow to its leaf mates only: one slow_node, not one slow_link per mate. One
// rank per host, the hosts known (so the first level above the hosts is the leaves).
TEST(Paths, NodeSlowOnlyWithinItsLeafIsOneSlowNode) {
  for (std::uint64_t seed : {1, 2}) {
    Tree t;
    t.ranks_per_node = 1;
    t.nodes_per_leaf = 6;
    t.uplink_bw = 0.2e9;  // below the slow cable's 0.31e9: beyond the leaf every pair is alike
    t.slow_latency = 1.0;
    t.slow_node = 9;
    t.seed = seed;
    Made m = make(t);
    for (int n : m.node) m.cube.hosts.push_back("host" + std::to_string(n));
    const auto r = report(m.cube);
    ASSERT_EQ(r.topology.levels.size(), 2u) << "seed " << seed;
    EXPECT_EQ(partition(r.topology.levels[1].groups), partition(m.leaf)) << "seed " << seed;
    ASSERT_EQ(r.anomalies.size(), 1u) << "seed " << seed << ": " << name_of(r.anomalies.front().kind);
    EXPECT_EQ(name_of(r.anomalies[0].kind), "slow_node");
    EXPECT_EQ(r.anomalies[0].ranks, ranks_with(m.node, 9));
    EXPECT_NE(r.anomalies[0].detail.find("every other node of its switch group"), std::string::npos)
        << r.anomalies[0].detail;
  }
}

// The report says the smallest slowdown each kind of finding could have shown: the
// floors (min_ratio 1.5, group_min_ratio 1.1) on a simulator's noise-free data, more for a single
// pair when every cell carries 15 % noise (5 robust sigmas of the residuals), while the rank
// effects, medians over many cells, keep their floor.
TEST(Paths, SensitivityIsTheFloorOnCleanDataAndGrowsWithNoise) {
  Tree t;
  t.slow_node = 5;
  const auto clean = report(make(t).cube).sensitivity;
  EXPECT_DOUBLE_EQ(clean.rank, 1.5);
  EXPECT_DOUBLE_EQ(clean.link, 1.5);
  EXPECT_DOUBLE_EQ(clean.one_way, 1.5);
  ASSERT_EQ(clean.group.size(), 1u);
  EXPECT_EQ(clean.group[0].first, "switch");
  EXPECT_NEAR(clean.group[0].second, 1.1, 1e-12);
  t.noise = 0.15;
  const auto noisy = report(make(t).cube).sensitivity;
  EXPECT_GT(noisy.link, 1.9);
  EXPECT_GT(noisy.one_way, 1.9);
  EXPECT_DOUBLE_EQ(noisy.rank, 1.5);
}

// 4 leaves x 4 nodes, one rank per node: the small tree of the tests of files measured under load.
Made one_rank_per_node_16() {
  Tree t;
  t.leaves = 4;
  t.nodes_per_leaf = 4;
  t.ranks_per_node = 1;
  return make(t);
}

// The rank pairs of a report's findings of one kind.
std::set<std::pair<int, int>> pairs_of(const na::Report& r, const std::string& kind) {
  std::set<std::pair<int, int>> s;
  for (const auto& x : r.anomalies)
    if (name_of(x.kind) == kind) s.insert(x.pairs.begin(), x.pairs.end());
  return s;
}

// Writes the cube as a statistic file of a --concurrent run (the median by default): `loaded` the
// delays, `isolated` the re-tested cells (NaN elsewhere; empty: no re-test), one host per node.
void write_loaded_run(const Made& m, const std::vector<float>& loaded, const std::vector<double>& isolated,
                      const std::filesystem::path& path, nt::Statistic statistic = nt::Statistic::median,
                      const std::string& order = "concurrent: per sample a random 1-factorisation (loaded network)") {
  nt::FileInfo info;
  info.params.proc_num = m.cube.P;
  info.params.mode = nt::Mode::one_to_one;
  info.params.statistic = statistic;
  info.params.num_repeats = 3;
  info.meta.sweep = "list";
  for (int n : m.node) info.meta.hosts.push_back("host" + std::to_string(n));
  info.meta.extra["pair_order"] = order;
  nt::RecordExtras extras;
  extras.isolated = !isolated.empty();
  nt::RawWriter w(path, info, true, 0, extras);
  const auto PP = static_cast<std::size_t>(m.cube.P) * static_cast<std::size_t>(m.cube.P);
  for (std::size_t k = 0; k < m.cube.count(); ++k) {
    std::vector<double> v(loaded.begin() + static_cast<std::ptrdiff_t>(k * PP),
                          loaded.begin() + static_cast<std::ptrdiff_t>((k + 1) * PP));
    const std::span<const double> iso =
        isolated.empty() ? std::span<const double>{} : std::span<const double>(isolated.data() + k * PP, PP);
    w.append(m.cube.lengths[k], v, {}, {}, iso);
  }
  w.close();
}

// Under --concurrent a one-way pair stands only when its isolated re-test confirms it. A
// real one (rank a -> b 3x slower, loaded and alone) is kept and says so; one that only its round's
// contention made (c -> d 3x under load, normal alone) is no finding at all: the analysis reads the
// isolated value where the run made one. Without the re-test neither stands: both
// are the contention finding.
TEST(Paths, UnderLoadAOneWayPairStandsOnlyWhenItsRetestConfirmsIt) {
  const Made m = one_rank_per_node_16();
  const int P = m.cube.P;  // pairs between leaves (the placement is shuffled)
  const int a = ranks_with(m.leaf, 0).front(), b = ranks_with(m.leaf, 2).front();
  const int c = ranks_with(m.leaf, 1).front(), d = ranks_with(m.leaf, 3).front();
  const auto PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P);
  auto cell = [&](std::size_t k, int x, int y) { return k * PP + static_cast<std::size_t>(x * P + y); };
  std::vector<float> loaded = m.cube.v;
  std::vector<double> isolated(loaded.size(), std::nan(""));
  for (std::size_t k = 0; k < m.cube.count(); ++k) {
    loaded[cell(k, a, b)] *= 3.0F;  // the network's: slow alone too
    loaded[cell(k, c, d)] *= 3.0F;  // the round's: normal alone
    for (auto [x, y] : {std::pair{a, b}, std::pair{b, a}, std::pair{c, d}, std::pair{d, c}})
      isolated[cell(k, x, y)] = static_cast<double>(m.cube.v[cell(k, x, y)]) * (x == a && y == b ? 3.0 : 1.0);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("nt_paths_loaded_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  na::ReportOptions o;
  o.find_deviation_beside = false;
  write_loaded_run(m, loaded, isolated, dir / "retested_median.nc");
  const auto r = na::make_report((dir / "retested_median.nc").string(), o);
  EXPECT_EQ(pairs_of(r, "asymmetric_pair"), (std::set<std::pair<int, int>>{{a, b}}));
  for (const auto& x : r.anomalies) {
    if (name_of(x.kind) == "asymmetric_pair") {
      EXPECT_NE(x.detail.find("confirmed alone (--retest): 3.00x"), std::string::npos) << x.detail;
    }
    for (const auto& p : x.pairs) EXPECT_NE(p, std::make_pair(c, d)) << name_of(x.kind) << ": " << x.detail;
  }
  write_loaded_run(m, loaded, {}, dir / "loaded_median.nc");
  const auto l = na::make_report((dir / "loaded_median.nc").string(), o);
  EXPECT_TRUE(pairs_of(l, "asymmetric_pair").empty());
  EXPECT_EQ(pairs_of(l, "contention"), (std::set<std::pair<int, int>>{{a, b}, {c, d}}));
  std::filesystem::remove_all(dir);
}

// network_test --concurrent --switch-map: no two pairs at once crossed one switch's links. Where the
// delays show no load (samples 1 % apart), a one-way pair stands without a re-test, as in a
// sequential run; where they do (a third of the cells 30 % apart: the map is coarser than the
// network's shared links), it is contention, as in any loaded file, and the report warns.
TEST(Paths, UnderSwitchLanesAPairFindingStandsWhereTheDelaysShowNoLoad) {
  const Made m = one_rank_per_node_16();
  const int P = m.cube.P;
  const int a = ranks_with(m.leaf, 0).front(), b = ranks_with(m.leaf, 2).front();
  const auto PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P);
  std::vector<float> delays = m.cube.v, quiet(delays.size()), busy(delays.size());
  for (std::size_t k = 0; k < m.cube.count(); ++k) {
    delays[k * PP + static_cast<std::size_t>(a * P + b)] *= 3.0F;
    for (std::size_t x = 0; x < PP; ++x) {
      quiet[k * PP + x] = 0.01F * delays[k * PP + x];
      busy[k * PP + x] = (x % 3 == 0 ? 0.3F : 0.01F) * delays[k * PP + x];
    }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("nt_paths_lanes_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string order = std::string("concurrent: ...; ") + nt::kLanesBySwitch + " (--switch-map map): ...";
  write_loaded_run(m, delays, {}, dir / "run_median.nc", nt::Statistic::median, order);
  for (const bool loaded : {false, true}) {
    SCOPED_TRACE(loaded ? "the delays show load" : "the delays show no load");
    std::filesystem::remove(dir / "run_deviation.nc");
    write_loaded_run(m, loaded ? busy : quiet, {}, dir / "run_deviation.nc", nt::Statistic::deviation, order);
    const auto r = na::make_report((dir / "run_median.nc").string(), {});
    const std::set<std::pair<int, int>> one_way = loaded ? std::set<std::pair<int, int>>() : std::set{std::pair{a, b}};
    EXPECT_EQ(pairs_of(r, "asymmetric_pair"), one_way);
    EXPECT_EQ(pairs_of(r, "contention").count({a, b}), loaded ? 1u : 0u);
    const bool warned = std::any_of(r.notes.begin(), r.notes.end(), [](const std::string& n) {
      return n.find("WARNING: measured with --concurrent") != std::string::npos;
    });
    EXPECT_EQ(warned, loaded);
  }
  std::filesystem::remove_all(dir);
}

// The analysis reads the isolated values where the run re-tested; a pair that only the
// load slowed (c -> d, re-tested normal) is then no finding. The cells not re-tested whose
// samples disagree (their deviation beside the file) carried the load and are read as unknown, not
// as delays; the notes say which values were read and warn when such cells are 5 % or more.
TEST(Paths, UnderLoadTheIsolatedValuesAreReadAndCellsWhoseSamplesDisagreeAreUnknown) {
  const Made m = one_rank_per_node_16();
  const int P = m.cube.P;
  const int c = ranks_with(m.leaf, 1).front(), d = ranks_with(m.leaf, 3).front();
  const auto PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P);
  std::vector<float> loaded = m.cube.v;
  std::vector<double> isolated(loaded.size(), std::nan(""));
  std::vector<float> quiet(loaded.size(), 0.0F), busy(loaded.size(), 0.0F);
  for (std::size_t k = 0; k < m.cube.count(); ++k) {
    loaded[k * PP + static_cast<std::size_t>(c * P + d)] *= 3.0F;
    for (auto [x, y] : {std::pair{c, d}, std::pair{d, c}})
      isolated[k * PP + static_cast<std::size_t>(x * P + y)] = m.cube.v[k * PP + static_cast<std::size_t>(x * P + y)];
    for (std::size_t x = 0; x < PP; ++x) {
      quiet[k * PP + x] = 0.01F * loaded[k * PP + x];
      busy[k * PP + x] = (x % 3 == 0 ? 0.3F : 0.01F) * loaded[k * PP + x];  // a third of the cells 30 % apart
    }
  }
  const auto dir = std::filesystem::temp_directory_path() / ("nt_paths_quiet_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  auto note_with = [](const na::Report& r, const std::string& text) {
    return std::any_of(r.notes.begin(), r.notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
  };
  write_loaded_run(m, loaded, isolated, dir / "run_median.nc");
  for (const bool still_busy : {false, true}) {
    SCOPED_TRACE(still_busy ? "the cells not re-tested disagree" : "the cells not re-tested are quiet");
    std::vector<float> dev = still_busy ? busy : quiet;
    const auto devpath = dir / "run_deviation.nc";
    std::filesystem::remove(devpath);
    write_loaded_run(m, dev, {}, devpath, nt::Statistic::deviation);
    const auto r = na::make_report((dir / "run_median.nc").string(), {});
    EXPECT_EQ(pairs_of(r, "contention").count({c, d}), 0u);
    EXPECT_TRUE(note_with(r, "read each pair's isolated re-test where the run made one, its loaded delay where its "
                             "samples agree, and no delay where they disagree"));
    EXPECT_EQ(note_with(r, "read as unknown"), still_busy);
    EXPECT_EQ(note_with(r, "WARNING: measured with --concurrent"), still_busy);
  }
  std::filesystem::remove_all(dir);
}

// Under load (8 pairs at once on an 8:1 tree, one rank per host) the cells not
// re-tested are up to --retest-ratio above their own delay (SimGrid: 0-20 %), while the leaves are
// 3.7 % apart. Read as delays they blur the leaves; read as unknown where their samples disagree,
// the re-tested and steady cells give every leaf and the slow uplink as one finding. Control: the
// same cells with steady samples are read, and the leaves are lost (what the rule guards against).
TEST(Paths, UnderLoadCellsWhoseSamplesDisagreeDoNotBlurTheLeaves) {
  Tree t;
  t.nodes_per_leaf = 8;
  t.ranks_per_node = 1;
  t.slow_leaf = 3;
  t.lengths = {65536};
  const Made m = make(t);
  const int P = m.cube.P;
  const auto PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P);
  std::vector<float> loaded = m.cube.v, spread(PP, 0.0F), steady(PP, 0.0F);
  std::vector<double> isolated(PP, std::nan(""));
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> above(0.0, 0.2);
  for (int x = 0; x < P; ++x)
    for (int y = 0; y < P; ++y) {
      const auto i = static_cast<std::size_t>(x * P + y);
      const int lx = m.leaf[static_cast<std::size_t>(x)], ly = m.leaf[static_cast<std::size_t>(y)];
      if (x == y || lx == ly) continue;  // within a leaf: the load left them alone
      if (lx == t.slow_leaf || ly == t.slow_leaf || (x + 3 * y) % 4 != 0) {  // stood out: re-tested
        loaded[i] *= 1.5F;
        isolated[i] = m.cube.v[i];
        continue;
      }
      loaded[i] = static_cast<float>(static_cast<double>(loaded[i]) * (1.0 + above(rng)));
      spread[i] = 0.15F * loaded[i];
      steady[i] = 0.005F * loaded[i];
    }
  const auto dir = std::filesystem::temp_directory_path() / ("nt_paths_blur_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  write_loaded_run(m, loaded, isolated, dir / "run_median.nc");
  for (const bool samples_disagree : {true, false}) {
    SCOPED_TRACE(samples_disagree ? "the loaded cells' samples disagree" : "the loaded cells' samples agree");
    const auto devpath = dir / "run_deviation.nc";
    std::filesystem::remove(devpath);
    write_loaded_run(m, samples_disagree ? spread : steady, {}, devpath, nt::Statistic::deviation);
    const auto r = na::make_report((dir / "run_median.nc").string(), {});
    ASSERT_EQ(r.topology.levels.size(), samples_disagree ? 2u : r.topology.levels.size());
    const bool leaves = r.topology.levels.size() == 2 && partition(r.topology.levels[1].groups) == partition(m.leaf);
    EXPECT_EQ(leaves, samples_disagree);
    if (!samples_disagree) continue;
    std::set<std::pair<std::string, std::vector<int>>> got;
    for (const auto& a : r.anomalies)
      if (name_of(a.kind) != "contention") got.insert({name_of(a.kind), a.ranks});
    EXPECT_EQ(got, (std::set<std::pair<std::string, std::vector<int>>>{{"slow_switch", ranks_with(m.leaf, t.slow_leaf)}}));
  }
  std::filesystem::remove_all(dir);
}
