// The analysis on noise-free data shaped like a SimGrid (SMPI) simulation of a two-level tree:
// every delay is exactly latency sum + length / bottleneck bandwidth of the links on its route
// (node cable, leaf uplink, spine), the same for every sample. Real runs have noise that hides
// ties; here a tie (a spread of 0) or a fault that moves a whole switch must still give exactly the
// nodes, the switches and the faults. The model is written here, not taken from the
// analysis or from scripts/simulate.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <unistd.h>
#include <numeric>
#include <random>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "analysis_test_util.hpp"
#include "routed_cubes.hpp"
#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/report.hpp"
#include "nt/analysis/topology.hpp"
#include "nt/schedule.hpp"

namespace na = nt::analysis;
using nt::test::partition;

namespace {

struct Tree {
  int leaves = 8, nodes_per_leaf = 4, ranks_per_node = 2;
  double cable_bw = 10e9 / 8, cable_lat = 1e-6;         // bytes/s, s
  double uplink_bw = 4 * 10e9 / 8, uplink_lat = 1e-6;
  double loop_bw = 10e9, loop_lat = 0.0;                // two ranks of one node
  int slow_node = -1;
  double slow_node_bw = 0.25, slow_node_lat = 4.0;      // factors
  int slow_leaf = -1;
  double slow_leaf_bw = 0.125, slow_leaf_lat = 1.0;
  int shuffle_seed = -1;                                // -1: block placement
  std::vector<std::int64_t> lengths{0, 1024, 65536, 1048576};

  int nodes() const { return leaves * nodes_per_leaf; }
  int P() const { return nodes() * ranks_per_node; }
  std::vector<int> node_of() const {
    std::vector<int> n;
    for (int x = 0; x < nodes(); ++x)
      for (int r = 0; r < ranks_per_node; ++r) n.push_back(x);
    if (shuffle_seed >= 0) std::shuffle(n.begin(), n.end(), std::mt19937(static_cast<unsigned>(shuffle_seed)));
    return n;
  }
  int leaf_of(int node) const { return node / nodes_per_leaf; }

  na::Cube cube() const {
    const auto nd = node_of();
    return nt::test::lengths_cube(P(), lengths, [&](int i, int j) {
      const int a = nd[static_cast<std::size_t>(i)], b = nd[static_cast<std::size_t>(j)];
      double lat = 0, bw = 1e300;
      auto hop = [&](double l, double w) {
        lat += l;
        bw = std::min(bw, w);
      };
      auto cable = [&](int n) {
        hop(cable_lat * (n == slow_node ? slow_node_lat : 1.0), cable_bw * (n == slow_node ? slow_node_bw : 1.0));
      };
      auto uplink = [&](int l) {
        hop(uplink_lat * (l == slow_leaf ? slow_leaf_lat : 1.0), uplink_bw * (l == slow_leaf ? slow_leaf_bw : 1.0));
      };
      if (a == b) {
        hop(loop_lat, loop_bw);
      } else {
        cable(a);
        cable(b);
        if (leaf_of(a) != leaf_of(b)) {
          uplink(leaf_of(a));
          uplink(leaf_of(b));
        }
      }
      return nt::test::Path{lat, bw};
    });
  }
  std::vector<std::vector<int>> node_groups() const {
    const auto nd = node_of();
    std::vector<std::vector<int>> g(static_cast<std::size_t>(nodes()));
    for (int r = 0; r < P(); ++r) g[static_cast<std::size_t>(nd[static_cast<std::size_t>(r)])].push_back(r);
    return g;
  }
  std::vector<std::vector<int>> leaf_groups() const {
    const auto nd = node_of();
    std::vector<std::vector<int>> g(static_cast<std::size_t>(leaves));
    for (int r = 0; r < P(); ++r) g[static_cast<std::size_t>(leaf_of(nd[static_cast<std::size_t>(r)]))].push_back(r);
    return g;
  }
};

// The report must be exactly the truth: the nodes, the leaves (when more than one), no other
// level, and one anomaly per fault on exactly its ranks.
void expect_report_exact(const Tree& t, const na::Report& rep, const std::string& what) {
  const auto& lv = rep.topology.levels;
  ASSERT_EQ(lv.size(), t.leaves > 1 ? 2u : 1u) << what;
  EXPECT_EQ(partition(lv[0].groups), partition(t.node_groups())) << what;
  if (t.leaves > 1) {
    EXPECT_EQ(partition(lv[1].groups), partition(t.leaf_groups())) << what;
  }
  std::set<std::vector<int>> want, got;
  if (t.slow_node >= 0) want.insert(t.node_groups()[static_cast<std::size_t>(t.slow_node)]);
  if (t.slow_leaf >= 0) want.insert(t.leaf_groups()[static_cast<std::size_t>(t.slow_leaf)]);
  std::string kinds;
  for (const auto& a : rep.anomalies) {
    got.insert(a.ranks);
    kinds += name_of(a.kind) + " " + a.detail + "\n";
  }
  EXPECT_EQ(got, want) << what << "\n" << kinds;
  EXPECT_EQ(rep.anomalies.size(), want.size()) << what << "\n" << kinds;
  for (const auto& a : rep.anomalies) {
    if (t.slow_node >= 0 && a.ranks == t.node_groups()[static_cast<std::size_t>(t.slow_node)]) {
      EXPECT_EQ(name_of(a.kind), "slow_node") << what;
    }
    if (t.slow_leaf >= 0 && a.ranks == t.leaf_groups()[static_cast<std::size_t>(t.slow_leaf)]) {
      EXPECT_EQ(name_of(a.kind), "slow_switch") << what;
    }
    // noise-free: no "nan sigmas" in what the user reads
    EXPECT_FALSE(std::regex_search(a.detail, std::regex("nan"))) << a.detail;
  }
}

void expect_exact(const Tree& t, const std::string& what) { expect_report_exact(t, na::make_report(t.cube(), {}), what); }

// The tree as network_test --sample-pairs K measures it: the cells within hosts and of the sampled
// host pairs (nt::sampled_host_pairs, the hosts numbered in order of first appearance), the rest
// missing; written with its schedule attribute and host names, read back as `report` reads it.
na::Report sampled_report(const Tree& t, int partners, const std::filesystem::path& file) {
  auto c = t.cube();
  const auto nd = t.node_of();
  std::vector<int> number(static_cast<std::size_t>(t.nodes()), -1);
  int next = 0;
  std::vector<std::string> hosts;
  for (int r = 0; r < t.P(); ++r) {
    int& x = number[static_cast<std::size_t>(nd[static_cast<std::size_t>(r)])];
    if (x < 0) x = next++;
    hosts.push_back("node" + std::to_string(nd[static_cast<std::size_t>(r)]));
  }
  nt::Sampling s;
  s.partners = partners;
  s.seed = 1;
  std::set<std::pair<int, int>> keep;
  for (const auto& hp : nt::sampled_host_pairs(t.nodes(), s)) keep.insert(hp);
  for (std::size_t k = 0; k < c.count(); ++k)
    for (int i = 0; i < c.P; ++i)
      for (int j = 0; j < c.P; ++j) {
        const int a = number[static_cast<std::size_t>(nd[static_cast<std::size_t>(i)])];
        const int b = number[static_cast<std::size_t>(nd[static_cast<std::size_t>(j)])];
        if (i != j && a != b && !keep.count({std::min(a, b), std::max(a, b)})) c.at(k, i, j) = std::nanf("");
      }
  const std::string attr = "sampled partners=" + std::to_string(partners) + " landmarks=2 neighbours=2 seed=1";
  nt::test::write_cube(c, file, {{nt::kAttrSchedule, attr}}, hosts);
  return na::make_report(na::open_delays(file.string()), {});
}

}  // namespace

TEST(Simulated, HealthyTreeIsExactlyItsNodesAndLeaves) {
  Tree t;
  expect_exact(t, "healthy");
  t.shuffle_seed = 3;
  expect_exact(t, "healthy, shuffled");
}

TEST(Simulated, SlowNodeOfATwoLeafTreeStaysInItsLeaf) {
  // The slow node stays in its leaf: no switch of its own, no invented third level
  Tree t;
  t.leaves = 2;
  t.slow_node = 5;
  expect_exact(t, "2 leaves, slow node");
  t.shuffle_seed = 1;
  expect_exact(t, "2 leaves, slow node, shuffled");
  // short lengths only (a quick run): alone in a switch group of its own, it must still move
  t.lengths = {0, 1024};
  t.nodes_per_leaf = 4;
  t.ranks_per_node = 2;
  t.uplink_bw = 4 * t.cable_bw;
  expect_exact(t, "2 leaves, slow node, lengths 0 and 1024");
}

TEST(Simulated, SlowUplinkIsOneFindingOnItsLeafNotSlowNodes) {
  Tree t;
  t.slow_leaf = 3;
  expect_exact(t, "slow uplink");
  t.shuffle_seed = 3;
  expect_exact(t, "slow uplink, shuffled");
}

TEST(Simulated, SlowNodeAndSlowUplinkTogether) {
  for (int seed : {-1, 3, 7}) {
    Tree t;
    t.slow_node = 5;
    t.slow_leaf = 3;
    t.shuffle_seed = seed;
    expect_exact(t, "slow node and uplink, seed " + std::to_string(seed));
  }
  Tree big;  // the ctest's platform: 64 nodes x 4 under 8 leaves
  big.nodes_per_leaf = 8;
  big.ranks_per_node = 4;
  big.slow_node = 5;
  big.slow_leaf = 3;
  big.shuffle_seed = 11;
  expect_exact(big, "256 ranks");
}

TEST(Simulated, SampledTreeOfMoreThanAThousandHostsFindsItsLeaves) {
  // --sample-pairs 4 on 1,100 hosts of one rank under 22 leaves of 50: each host measured with a few
  // of its own leaf's hosts only; the levels come from the paths of measured links, which must
  // reach every host however many there are (the leaves were lost above 1,024 hosts).
  const auto dir = std::filesystem::temp_directory_path() / ("nt_simulated_sampled_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Tree t;
  t.leaves = 22;
  t.nodes_per_leaf = 50;
  t.ranks_per_node = 1;
  t.uplink_bw = 10 * t.cable_bw;
  t.lengths = {65536};
  t.slow_node = 37;
  t.slow_leaf = 17;
  t.slow_leaf_bw = 1.0 / 16;
  expect_report_exact(t, sampled_report(t, 4, dir / "sampled.nc"), "1,100 hosts sampled");
  std::filesystem::remove_all(dir);
}

namespace {

// A dragonfly as SimGrid routes it, noise-free: `groups` groups of `routers` routers of `hosts`
// hosts each (ranks_per_host ranks per host, shuffled), every delay the latency of its hops plus
// length / bandwidth (one bandwidth for every link). Hops: the two host cables, then 1 router hop
// within a group, 3 between groups (to the global link's router, across, from it), one more for
// each end that is not the global link's router (the first of its group). At 1 KiB a router's hosts
// are 0.7x the next router's delay; from 64 KiB on every pair is within 2 %, so the profiles
// (medians over the lengths' band) see no router at all.
struct Dragonfly {
  int groups = 2, routers = 4, hosts = 2, ranks_per_host = 2;
  double lat = 1e-6, bw = 1.25e9;
  std::vector<std::int64_t> lengths{1024, 65536, 1048576};
  int shuffle_seed = 5;

  int P() const { return groups * routers * hosts * ranks_per_host; }
  std::vector<int> host_of() const {
    std::vector<int> h;
    for (int x = 0; x < groups * routers * hosts; ++x)
      for (int r = 0; r < ranks_per_host; ++r) h.push_back(x);
    std::shuffle(h.begin(), h.end(), std::mt19937(static_cast<unsigned>(shuffle_seed)));
    return h;
  }
  int hops(int ra, int rb) const {
    if (ra == rb) return 0;
    const int ga = ra / routers, gb = rb / routers;
    if (ga == gb) return 1;
    return 1 + (ra % routers != 0) + (rb % routers != 0);
  }
  na::Cube cube() const {
    const auto hs = host_of();
    return nt::test::lengths_cube(P(), lengths, [&](int i, int j) {
      const int a = hs[static_cast<std::size_t>(i)], b = hs[static_cast<std::size_t>(j)];
      const double n = a == b ? 0.0 : 2.0 + hops(a / hosts, b / hosts);
      return nt::test::Path{n * lat, a == b ? 10 * bw : bw};
    });
  }
  std::vector<std::vector<int>> groups_of(int per) const {
    const auto hs = host_of();
    std::vector<std::vector<int>> g(static_cast<std::size_t>(groups * routers * hosts / per));
    for (int r = 0; r < P(); ++r) g[static_cast<std::size_t>(hs[static_cast<std::size_t>(r)] / per)].push_back(r);
    return g;
  }
};

}  // namespace

TEST(Simulated, DragonflyRoutersAreFoundThoughTheirProfilesLookAlike) {
  // Each router's hosts are each other's nearest by far at 1 KiB: the first level above the nodes
  // must be the routers, not the groups (the profiles joined a group's routers, or routers of two
  // groups, and the tree check then rejected the level).
  for (int seed : {5, 9}) {
    Dragonfly d;
    d.shuffle_seed = seed;
    const auto rep = na::make_report(d.cube(), {});
    const auto& lv = rep.topology.levels;
    const std::string what = "2 groups of 4 routers, seed " + std::to_string(seed);
    ASSERT_GE(lv.size(), 2u) << what;
    EXPECT_EQ(partition(lv[0].groups), partition(d.groups_of(1))) << what;
    EXPECT_EQ(partition(lv[1].groups), partition(d.groups_of(d.hosts))) << what;
    EXPECT_TRUE(rep.anomalies.empty()) << what;
  }
  Dragonfly wide;  // 4 groups of 4 routers of 2 hosts, one rank per host: the hosts from their names
  wide.groups = 4;
  wide.ranks_per_host = 1;
  auto c = wide.cube();
  for (int h : wide.host_of()) c.hosts.push_back("host" + std::to_string(h));
  const auto rep = na::make_report(c, {});
  ASSERT_GE(rep.topology.levels.size(), 2u);
  EXPECT_EQ(partition(rep.topology.levels[1].groups), partition(wide.groups_of(wide.hosts))) << "one rank per host";
}
