// Random access into clustered files (core/src/clustered.cpp) without expanding them: blocks of
// rows, whole matrices, rows, columns, pairs and cells against the values the content encodes,
// with and without residuals, over several regions, and above the size where a region's offsets
// are cached (P > 4096), where every accessor must read only the offsets it needs.
#include <gtest/gtest.h>

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "nt/clustered.hpp"
#include "nt/clustered_writer.hpp"
#include "nt/dataset.hpp"
#include "nt/error.hpp"
#include "test_util.hpp"

namespace nt {
namespace {

// A clustered file of P ranks in G groups (a shuffled placement: rank order does not follow the
// groups), lengths 0, 64, 128, ... split into the given regions. The pair (i, j) belongs to the
// cluster (group(i), group(j)); its centre at matrix k is centre(c, k), a formula the test knows
// independently of the file's layout. With `residual`, every cell carries a small quantised
// correction q(i, j, k) in -2..2.
struct Synthetic {
  int P = 0, G = 0;
  std::vector<int> group;
  bool residual = false;
  double step = 0.01;
  static double centre(int c, std::size_t k) { return (1.0 + 0.37 * c) * 1e-6 * (1.0 + 0.25 * static_cast<double>(k)); }
  int q(int i, int j, std::size_t k) const {
    return residual ? static_cast<int>((static_cast<std::size_t>(i) * 7 + static_cast<std::size_t>(j) * 3 + k) % 5) - 2 : 0;
  }
  double value(int i, int j, std::size_t k) const {
    const int c = group[static_cast<std::size_t>(i)] * G + group[static_cast<std::size_t>(j)];
    return apply_residual(centre(c, k), q(i, j, k), step, true);
  }
};

Synthetic write_synthetic(const std::filesystem::path& path, int P, int G, std::size_t N,
                          const std::vector<int>& region_start, bool residual) {
  Synthetic s;
  s.P = P;
  s.G = G;
  s.residual = residual;
  s.group.resize(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) s.group[static_cast<std::size_t>(i)] = i % G;
  std::mt19937 rng(42);
  std::shuffle(s.group.begin(), s.group.end(), rng);

  ClusteredContent c;
  c.info.params.proc_num = P;
  c.info.params.statistic = Statistic::median;
  c.info.params.begin_length = 0;
  c.info.params.step_length = 64;
  c.info.params.end_length = static_cast<int>(64 * (N - 1));
  c.info.params.num_repeats = 5;
  for (std::size_t k = 0; k < N; ++k) c.lengths.push_back(static_cast<std::int64_t>(64 * k));
  c.region_start = region_start;
  const auto PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P);
  c.offsets = Slabs<int>(PP);
  std::vector<int> offsets(PP);
  for (std::size_t r = 0; r < region_start.size(); ++r) {
    const auto s0 = static_cast<std::size_t>(region_start[r]);
    const std::size_t s1 = r + 1 < region_start.size() ? static_cast<std::size_t>(region_start[r + 1]) : N;
    // Clusters stored in reverse order in each region, so that offsets are not the cluster index.
    std::vector<int> base(static_cast<std::size_t>(G * G));
    for (int cl = G * G - 1; cl >= 0; --cl) {
      base[static_cast<std::size_t>(cl)] = static_cast<int>(c.data.size());
      for (std::size_t k = s0; k < s1; ++k) c.data.push_back(Synthetic::centre(cl, k));
    }
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j)
        offsets[static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)] =
            base[static_cast<std::size_t>(s.group[static_cast<std::size_t>(i)] * G + s.group[static_cast<std::size_t>(j)])];
    c.offsets.append(offsets.data());
  }
  if (residual) {
    c.residual = Slabs<std::int16_t>(PP);
    std::vector<std::int16_t> slab(PP);
    for (std::size_t k = 0; k < N; ++k) {
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j)
          slab[static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)] =
              static_cast<std::int16_t>(s.q(i, j, k));
      c.residual.append(slab.data());
    }
    c.residual_step = s.step;
    c.residual_relative = true;
  }
  write_clustered(path, c, true);
  return s;
}

void expect_block(const Synthetic& s, const std::vector<double>& got, std::size_t k, int r0, int r1) {
  ASSERT_EQ(got.size(), static_cast<std::size_t>(r1 - r0) * static_cast<std::size_t>(s.P));
  for (int i = r0; i < r1; ++i)
    for (int j = 0; j < s.P; ++j) {
      const double v = got[static_cast<std::size_t>(i - r0) * static_cast<std::size_t>(s.P) + static_cast<std::size_t>(j)];
      ASSERT_DOUBLE_EQ(v, s.value(i, j, k)) << "k " << k << " cell " << i << "," << j;
    }
}

TEST(Clustered, EveryAccessorAgreesWithTheEncodedValues) {
  const auto dir = test::scratch_dir();
  for (const bool residual : {false, true}) {
    const auto path = dir / (residual ? "res.nc" : "plain.nc");
    const Synthetic s = write_synthetic(path, 37, 5, 7, {0, 3, 4}, residual);
    const auto d = open_dataset(path);
    ASSERT_EQ(d->format(), "clustered");
    for (std::size_t k = 0; k < d->count(); ++k) {
      expect_block(s, d->matrix(k).values(), k, 0, s.P);
      // Blocks at the edges, in the middle, single rows and empty ones.
      for (const auto& [a, b] : std::vector<std::pair<int, int>>{{0, 5}, {5, 6}, {10, 37}, {36, 37}, {12, 12}})
        expect_block(s, d->rows(k, a, b), k, a, b);
      // Windows of senders x receivers (block, which the analysis reads a file through).
      for (const auto& [x0, nx, y0, ny] : std::vector<std::array<int, 4>>{{0, 37, 0, 37}, {3, 4, 30, 7}, {36, 1, 0, 1}}) {
        std::vector<double> w(static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny), -1.0);
        d->block(k, x0, nx, y0, ny, w.data());
        for (int x = 0; x < nx; ++x)
          for (int y = 0; y < ny; ++y)
            ASSERT_DOUBLE_EQ(w[static_cast<std::size_t>(x * ny + y)], s.value(x0 + x, y0 + y, k))
                << "k " << k << " block cell " << x0 + x << "," << y0 + y;
      }
    }
    // Rows and columns over a window crossing regions, pairs and cells.
    const auto row = d->row(11, 2, 6), col = d->column(29, 2, 6);
    for (std::size_t k = 2; k < 6; ++k)
      for (int q = 0; q < s.P; ++q) {
        ASSERT_DOUBLE_EQ(row[(k - 2) * 37 + static_cast<std::size_t>(q)], s.value(11, q, k));
        ASSERT_DOUBLE_EQ(col[(k - 2) * 37 + static_cast<std::size_t>(q)], s.value(q, 29, k));
      }
    const auto pr = d->pair(3, 30);
    for (std::size_t k = 0; k < 7; ++k) {
      ASSERT_DOUBLE_EQ(pr[k], s.value(3, 30, k));
      ASSERT_DOUBLE_EQ(d->value(30, 3, k), s.value(30, 3, k));
    }
    EXPECT_THROW((void)d->rows(0, 5, 38), Error);
    EXPECT_THROW((void)d->rows(0, 6, 5), Error);
    EXPECT_THROW((void)d->rows(7, 0, 1), Error);
  }
}

// The generic block of rows (Dataset::rows over row()) and the in-memory one agree with matrix().
TEST(Clustered, RowsOfOtherDatasetsAreSlicesOfTheirMatrices) {
  const auto d = test::make_dataset(9, {0, 8, 16});
  for (std::size_t k = 0; k < 3; ++k) {
    const auto m = d->matrix(k).values();
    const auto b = d->rows(k, 2, 7);
    EXPECT_EQ(b, std::vector<double>(m.begin() + 18, m.begin() + 63));
    EXPECT_EQ(d->rows(k, 0, 9), m);
    EXPECT_EQ(d->Dataset::rows(k, 2, 7), b);
  }
}

// Above 4096 ranks a region's offsets (P x P ints) are no longer cached: a block of rows reads
// its own offsets, so reading a 4,200-rank file block by block stays within a small address-space
// limit where the expansion (67 MiB of offsets + 135 MiB of values per matrix) would not fit.
// About 5 s (writing 70 MB of offsets with deflate).
TEST(Clustered, LargeFileIsReadBlockByBlockWithoutExpanding) {
  const auto dir = test::scratch_dir();
  const int P = 4200;
  const Synthetic s = write_synthetic(dir / "big.nc", P, 6, 3, {0, 2}, true);
  const auto d = open_dataset(dir / "big.nc");
  // A few blocks checked against the formula, in the parent (no limit).
  expect_block(s, d->rows(2, 0, 3), 2, 0, 3);
  expect_block(s, d->rows(1, 4100, P), 1, 4100, P);
  EXPECT_DOUBLE_EQ(d->value(4199, 17, 2), s.value(4199, 17, 2));
  const auto col = d->column(4150, 0, 3);
  for (int i = 0; i < P; i += 97) ASSERT_DOUBLE_EQ(col[2 * static_cast<std::size_t>(P) + static_cast<std::size_t>(i)], s.value(i, 4150, 2));

  // The whole of every matrix, block by block, in a child process limited to what it has mapped
  // now plus 96 MiB.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    int rc = 0;
    try {
      long pages = 0;
      if (FILE* f = std::fopen("/proc/self/statm", "r")) {
        if (std::fscanf(f, "%ld", &pages) != 1) pages = 0;
        std::fclose(f);
      }
      const rlim_t limit = static_cast<rlim_t>(pages) * static_cast<rlim_t>(sysconf(_SC_PAGE_SIZE)) + (96u << 20);
      const rlimit rl{limit, limit};
      if (setrlimit(RLIMIT_AS, &rl) != 0) _exit(3);
      const auto e = open_dataset(dir / "big.nc");
      for (std::size_t k = 0; k < e->count() && rc == 0; ++k)
        for (int a = 0; a < P && rc == 0; a += 256) {
          const int b = std::min(P, a + 256);
          const auto v = e->rows(k, a, b);
          for (int i = a; i < b && rc == 0; ++i)
            for (int j = 0; j < P; j += 13)
              if (v[static_cast<std::size_t>(i - a) * P + static_cast<std::size_t>(j)] != s.value(i, j, k)) {
                rc = 1;
                break;
              }
        }
    } catch (...) {
      rc = 2;
    }
    _exit(rc);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "1: wrong value, 2: failed (out of memory?), 3: setrlimit";
}

}  // namespace
}  // namespace nt
