// The two-level tree whose delays follow the paths, for the held-out cases of test_paths.cpp and
// test_paths_routes.cpp: a message crosses the sender's cable, its leaf's uplink, the spine, the
// receiver's leaf's uplink and cable; its delay is the sum of the latencies plus the length over the
// slowest link's bandwidth.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nt/analysis/report.hpp"
#include "analysis_test_util.hpp"

namespace nt::test::path_trees {

namespace na = nt::analysis;
using nt::test::partition;
using nt::test::ranks_with;

struct Tree {
  int leaves = 8, nodes_per_leaf = 4, ranks_per_node = 2;
  double cable_bw = 1.25e9, cable_lat = 1e-6;  // bytes/s, s
  double uplink_bw = 5e9, uplink_lat = 1e-6;
  int slow_node = -1;                          // its cable at 1/4 bandwidth and slow_latency x latency
  double slow_latency = 4.0;
  int slow_leaf = -1;                          // its uplink at 1/8 bandwidth
  double noise = 0.0;                          // lognormal sigma per cell
  std::uint64_t seed = 1;
  std::vector<std::int64_t> lengths = {0, 1024, 65536, 1048576};
};

struct Made {
  na::Cube cube;
  std::vector<int> node, leaf;  // per rank
};

inline Made make(const Tree& t) {
  const int nodes = t.leaves * t.nodes_per_leaf, P = nodes * t.ranks_per_node;
  std::mt19937_64 rng(t.seed);
  std::vector<int> slot(static_cast<std::size_t>(P));
  for (int r = 0; r < P; ++r) slot[static_cast<std::size_t>(r)] = r / t.ranks_per_node;
  std::shuffle(slot.begin(), slot.end(), rng);
  Made m;
  m.node = slot;
  for (int n : slot) m.leaf.push_back(n / t.nodes_per_leaf);
  m.cube.P = P;
  m.cube.lengths = t.lengths;
  m.cube.v.assign(m.cube.lengths.size() * static_cast<std::size_t>(P) * static_cast<std::size_t>(P), 0.0F);
  auto cable = [&](int n) {
    return n == t.slow_node ? std::pair{t.cable_bw / 4, t.slow_latency * t.cable_lat} : std::pair{t.cable_bw, t.cable_lat};
  };
  auto uplink = [&](int l) { return std::pair{l == t.slow_leaf ? t.uplink_bw / 8 : t.uplink_bw, t.uplink_lat}; };
  std::lognormal_distribution<double> noise(0.0, t.noise);
  for (std::size_t k = 0; k < m.cube.lengths.size(); ++k)
    for (int x = 0; x < P; ++x)
      for (int y = 0; y < P; ++y) {
        if (x == y) continue;
        const int nx = m.node[static_cast<std::size_t>(x)], ny = m.node[static_cast<std::size_t>(y)];
        std::vector<std::pair<double, double>> path;  // (bandwidth, latency)
        if (nx == ny) {
          path = {{2e10, 2e-7}};  // shared memory
        } else {
          path = {cable(nx), cable(ny)};
          const int lx = m.leaf[static_cast<std::size_t>(x)], ly = m.leaf[static_cast<std::size_t>(y)];
          if (lx != ly) {
            path.push_back(uplink(lx));
            path.push_back(uplink(ly));
          }
        }
        double lat = 0, bw = 1e300;
        for (auto [b, l] : path) {
          lat += l;
          bw = std::min(bw, b);
        }
        double d = lat + static_cast<double>(m.cube.lengths[k]) / bw;
        if (t.noise > 0) d *= noise(rng);
        m.cube.at(k, x, y) = static_cast<float>(d);
      }
  return m;
}

inline na::Report report(const na::Cube& c) {
  na::ReportOptions o;
  o.find_deviation_beside = false;
  return na::make_report(c, o);
}

inline void expect_exact(const Tree& t) {
  const std::string what = "seed " + std::to_string(t.seed) + ", noise " + std::to_string(t.noise) +
                           ", slow node " + std::to_string(t.slow_node) + ", slow leaf " + std::to_string(t.slow_leaf);
  const Made m = make(t);
  const auto r = report(m.cube);
  ASSERT_EQ(r.topology.levels.size(), 2u) << what;
  EXPECT_EQ(partition(r.topology.levels[0].groups), partition(m.node)) << what;
  EXPECT_EQ(partition(r.topology.levels[1].groups), partition(m.leaf)) << what;
  std::set<std::pair<std::string, std::vector<int>>> got, want;
  for (const auto& a : r.anomalies) got.insert({name_of(a.kind), a.ranks});
  if (t.slow_node >= 0) want.insert({"slow_node", ranks_with(m.node, t.slow_node)});
  if (t.slow_leaf >= 0) want.insert({"slow_switch", ranks_with(m.leaf, t.slow_leaf)});
  EXPECT_EQ(got, want) << what;
  for (const auto& a : r.anomalies) EXPECT_EQ(a.detail.find("nan"), std::string::npos) << a.detail;
}


}  // namespace nt::test::path_trees
