// The nearest-neighbour-chain average linkage against the textbook O(n^3) loop it replaced.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "nt/analysis/linkage.hpp"

namespace {

// The loop network_analyze used before (find the closest pair, merge, repeat): the reference.
std::vector<int> reference(std::vector<double> D, std::size_t N, double cut) {
  std::vector<std::vector<int>> members(N);
  for (std::size_t a = 0; a < N; ++a) members[a] = {static_cast<int>(a)};
  std::vector<bool> alive(N, true);
  for (;;) {
    double best = cut;
    std::size_t ba = N, bc = N;
    for (std::size_t a = 0; a < N; ++a) {
      if (!alive[a]) continue;
      for (std::size_t c = a + 1; c < N; ++c)
        if (alive[c] && D[a * N + c] < best) {
          best = D[a * N + c];
          ba = a;
          bc = c;
        }
    }
    if (ba == N) break;
    const double na = static_cast<double>(members[ba].size()), nc = static_cast<double>(members[bc].size());
    for (std::size_t e = 0; e < N; ++e) {
      if (!alive[e] || e == ba || e == bc) continue;
      D[ba * N + e] = D[e * N + ba] = (na * D[ba * N + e] + nc * D[bc * N + e]) / (na + nc);
    }
    members[ba].insert(members[ba].end(), members[bc].begin(), members[bc].end());
    members[bc].clear();
    alive[bc] = false;
  }
  std::vector<int> label(N);
  for (std::size_t a = 0; a < N; ++a)
    for (int m : members[a]) label[static_cast<std::size_t>(m)] = static_cast<int>(a);
  return label;
}

// Points in groups (a planted partition blurred by noise) -> Euclidean distances / scale.
std::vector<double> clustered(std::size_t n, std::size_t groups, double spread, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0.0, 10.0);
  std::normal_distribution<double> g(0.0, spread);
  std::vector<std::array<double, 3>> centre(groups), p(n);
  for (auto& c : centre) c = {u(rng), u(rng), u(rng)};
  for (std::size_t i = 0; i < n; ++i) {
    const auto& c = centre[rng() % groups];
    p[i] = {c[0] + g(rng), c[1] + g(rng), c[2] + g(rng)};
  }
  std::vector<double> d(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      d[i * n + j] = std::hypot(p[i][0] - p[j][0], p[i][1] - p[j][1], p[i][2] - p[j][2]);
  return d;
}

TEST(Linkage, SameAsTheCubicLoopOnRandomClusteredInputs) {
  std::mt19937_64 rng(12345);
  int merged_somewhere = 0, split_somewhere = 0;
  for (int trial = 0; trial < 200; ++trial) {
    const std::size_t n = 2 + rng() % 120;
    const std::size_t groups = 1 + rng() % 12;
    const double spread = 0.05 + 0.6 * static_cast<double>(rng() % 100) / 100.0;
    auto d = clustered(n, groups, spread, rng);
    const double cut = 0.3 + 3.0 * static_cast<double>(rng() % 100) / 100.0;
    const auto want = reference(d, n, cut);
    auto work = d;
    const auto got = nt::analysis::average_linkage(work, n, cut);
    ASSERT_EQ(got, want) << "trial " << trial << " n " << n << " cut " << cut;
    std::map<int, int> sizes;
    for (int l : got) ++sizes[l];
    if (sizes.size() < n) ++merged_somewhere;
    if (sizes.size() > 1) ++split_somewhere;
  }
  // The inputs exercise both merging and stopping at the cut.
  EXPECT_GT(merged_somewhere, 100);
  EXPECT_GT(split_somewhere, 100);
}

TEST(Linkage, SameAsTheCubicLoopOnUniformRandomMatrices) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (int trial = 0; trial < 100; ++trial) {
    const std::size_t n = 2 + rng() % 80;
    std::vector<double> d(n * n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = i + 1; j < n; ++j) d[i * n + j] = d[j * n + i] = u(rng);
    for (double cut : {0.05, 0.3, 0.6, 2.0}) {
      auto work = d;
      ASSERT_EQ(nt::analysis::average_linkage(work, n, cut), reference(d, n, cut)) << trial << " " << cut;
    }
  }
}

// Ties (integer distances, identical items) and NaN (unknown) distances: the result is
// deterministic and the same as the reference's whenever the tie cannot change the partition.
TEST(Linkage, TiesAndUnknownDistances) {
  std::mt19937_64 rng(99);
  for (int trial = 0; trial < 100; ++trial) {
    // Blocks of identical items: distance 0 inside a block, an integer 1..4 between blocks.
    const std::size_t blocks = 1 + rng() % 8, per = 1 + rng() % 5, n = blocks * per;
    std::vector<std::size_t> block(n);
    for (std::size_t i = 0; i < n; ++i) block[i] = i % blocks;  // interleaved, like shuffled ranks
    std::vector<double> bd(blocks * blocks, 0.0);
    for (std::size_t a = 0; a < blocks; ++a)
      for (std::size_t b = a + 1; b < blocks; ++b) bd[a * blocks + b] = bd[b * blocks + a] = 1.0 + static_cast<double>(rng() % 4);
    std::vector<double> d(n * n);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < n; ++j) d[i * n + j] = bd[block[i] * blocks + block[j]];
    // cut 1: only the identical items merge, whatever the order of the ties.
    auto w1 = d;
    const auto got = nt::analysis::average_linkage(w1, n, 1.0);
    EXPECT_EQ(got, reference(d, n, 1.0));
    for (std::size_t i = 0; i < n; ++i) EXPECT_EQ(got[i], static_cast<int>(block[i]));
    // Any cut: deterministic.
    auto w2 = d, w3 = d;
    EXPECT_EQ(nt::analysis::average_linkage(w2, n, 2.5), nt::analysis::average_linkage(w3, n, 2.5));
  }
  // An unknown distance never merges: three items, 0-1 unknown, 1-2 close.
  std::vector<double> d{0, NAN, 5, NAN, 0, 0.1, 5, 0.1, 0};
  auto w = d;
  EXPECT_EQ(nt::analysis::average_linkage(w, 3, 1.0), (std::vector<int>{0, 1, 1}));
  EXPECT_EQ(reference(d, 3, 1.0), (std::vector<int>{0, 1, 1}));
}

TEST(Linkage, DegenerateSizes) {
  std::vector<double> none;
  EXPECT_TRUE(nt::analysis::average_linkage(none, 0, 1.0).empty());
  std::vector<double> one{0.0};
  EXPECT_EQ(nt::analysis::average_linkage(one, 1, 1.0), (std::vector<int>{0}));
}

}  // namespace
