#include <cmath>
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/raw_file.hpp"
#include "nt/synth.hpp"
#include "test_util.hpp"

using namespace nt;

TEST(Synth, NoiselessValuesFollowTheModel) {
  SynthParams p;
  p.nodes = 2;
  p.ranks_per_node = 2;
  p.noise = 0;
  p.cell_noise = 0;  // the model itself, without the per-cell variation of the default
  p.lengths = {0, 1000, 5000};
  p.protocol_step = 4096;
  const auto r = synthesize(p);
  const auto& med = *r.stats.at(Statistic::median);
  ASSERT_EQ(med.ranks(), 4);
  ASSERT_EQ(med.count(), 3u);
  // Block placement: ranks 0,1 on node 0; 2,3 on node 1.
  EXPECT_DOUBLE_EQ(med.value(0, 1, 1), p.intra_latency + 1000 / p.intra_bandwidth);
  EXPECT_DOUBLE_EQ(med.value(1, 2, 1), p.inter_latency + 1000 / p.inter_bandwidth);
  EXPECT_DOUBLE_EQ(med.value(1, 2, 2), p.inter_latency + 5000 / p.inter_bandwidth + p.protocol_extra);
  EXPECT_DOUBLE_EQ(med.value(2, 2, 2), 0.0);  // one_to_one diagonal
  EXPECT_DOUBLE_EQ(r.stats.at(Statistic::deviation)->value(0, 1, 0), 0.0);
  EXPECT_EQ(r.hosts, (std::vector<std::string>{"node0", "node0", "node1", "node1"}));
}

TEST(Synth, StatisticsAreOrderedAndSlowNodeIsSlower) {
  SynthParams p{.nodes = 4, .ranks_per_node = 2, .slow_node = 2, .noise = 0.05};
  const auto r = synthesize(p);
  const auto& mn = *r.stats.at(Statistic::min);
  const auto& md = *r.stats.at(Statistic::median);
  const auto& mx = *r.stats.at(Statistic::max);
  const auto& av = *r.stats.at(Statistic::average);
  for (std::size_t k = 0; k < md.count(); ++k)
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j) {
        if (i == j) continue;
        EXPECT_LE(mn.value(i, j, k), md.value(i, j, k));
        EXPECT_LE(md.value(i, j, k), mx.value(i, j, k));
        EXPECT_LE(mn.value(i, j, k), av.value(i, j, k));
        EXPECT_LE(av.value(i, j, k), mx.value(i, j, k));
      }
  // Ranks 4 and 5 live on node 2: their inter-node sends are about slow_factor times slower.
  const double slow = md.value(4, 0, 3), normal = md.value(2, 0, 3);
  EXPECT_GT(slow / normal, 2.5);
}

TEST(Synth, ShufflePlacementIsSeededAndConsistentWithHosts) {
  SynthParams p{.nodes = 4, .ranks_per_node = 3, .shuffle = true, .seed = 11};
  const auto a = synthesize(p);
  const auto b = synthesize(p);
  EXPECT_EQ(a.node_of_rank, b.node_of_rank);
  EXPECT_EQ(a.stats.at(Statistic::median)->at(0), b.stats.at(Statistic::median)->at(0));
  std::vector<int> sorted = a.node_of_rank;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (std::vector<int>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}));
  std::vector<int> block{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3};
  EXPECT_NE(a.node_of_rank, block);
  for (std::size_t r = 0; r < a.hosts.size(); ++r) EXPECT_EQ(a.hosts[r], "node" + std::to_string(a.node_of_rank[r]));
}

TEST(Synth, WritesEveryStatisticAndHosts) {
  const auto dir = test::scratch_dir();
  SynthParams p;
  p.lengths = {0, 512};
  write_synth((dir / "s").string(), synthesize(p), false);
  for (Statistic s : standard_statistics()) {
    const auto d = open_dataset(result_path(dir / "s", s));
    EXPECT_EQ(d->params().statistic, s);
    EXPECT_EQ(d->count(), 2u);
  }
  EXPECT_EQ(read_hosts(hosts_path(dir / "s")).size(), 8u);
  // A second write without force is refused before anything is touched.
  EXPECT_THROW(write_synth((dir / "s").string(), synthesize(p), false), FileError);
}

TEST(Synth, ImpossibleParametersAreUsageErrors) {
  SynthParams p;
  p.nodes = 0;
  EXPECT_THROW(synthesize(p), UsageError);
  p = SynthParams{};
  p.slow_node = 9;
  EXPECT_THROW(synthesize(p), UsageError);
  p = SynthParams{};
  p.inter_bandwidth = 0;
  EXPECT_THROW(synthesize(p), UsageError);
  p = SynthParams{};
  p.lengths.clear();
  EXPECT_THROW(synthesize(p), UsageError);
}

// The default varies every cell independently (lognormal, 1 %): cells of one class differ, by
// about 1 % in log, and the variation does not average away like per-sample noise.
TEST(Synth, CellNoiseIsIndependentPerCell) {
  SynthParams p{.nodes = 4, .ranks_per_node = 8, .noise = 0, .lengths = {1024}};
  ASSERT_EQ(p.cell_noise, 0.01);
  const auto r = synthesize(p);
  const auto& med = *r.stats.at(Statistic::median);
  std::vector<double> logs;
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j)
      if (i != j && r.node_of_rank[static_cast<std::size_t>(i)] != r.node_of_rank[static_cast<std::size_t>(j)])
        logs.push_back(std::log(med.value(i, j, 0)));
  double mean = 0, var = 0;
  for (double v : logs) mean += v / static_cast<double>(logs.size());
  for (double v : logs) var += (v - mean) * (v - mean) / static_cast<double>(logs.size() - 1);
  EXPECT_NEAR(std::sqrt(var), 0.01, 0.002);
  p.cell_noise = 0;
  const auto flat = synthesize(p);
  EXPECT_EQ(flat.stats.at(Statistic::median)->value(0, 9, 0), flat.stats.at(Statistic::median)->value(1, 10, 0));
}
