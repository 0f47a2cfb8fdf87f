// What the unit tests of network_cluster share (test_cluster.cpp, test_cluster_files.cpp): scratch
// directories, random block-structured data, the layout of a clustered file and the check of every
// rule of the clustered result against its input.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <unistd.h>

#include "nt/cluster/cluster.hpp"
#include "nt/clustered.hpp"
#include "nt/clustered_writer.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"
#include "nt/synth.hpp"
#include "nt/text_format.hpp"
#include "scenarios.hpp"

#include <nlohmann/json.hpp>

namespace fs = std::filesystem;

namespace nt::cluster::test {

inline fs::path temp_root() { return fs::temp_directory_path() / ("nt_cluster_test_" + std::to_string(::getpid())); }

// Removes this process's scratch files when the tests end.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(temp_root(), ec);
  }
};
inline const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

inline fs::path temp_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d = temp_root() / (std::string(info->test_suite_name()) + "_" + info->name() + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

inline FileInfo make_info(int P, const std::vector<std::int64_t>& lengths) {
  FileInfo fi;
  fi.params.proc_num = P;
  fi.params.mode = Mode::one_to_one;
  fi.params.statistic = Statistic::median;
  fi.params.begin_length = static_cast<int>(lengths.front());
  fi.params.end_length = static_cast<int>(lengths.back());
  fi.params.num_repeats = 4;
  fi.meta.sweep = "list";
  return fi;
}

// Random block-structured data: ranks in groups, one base delay per pair of groups growing with
// the length, relative noise, occasional spikes, regime changes for some blocks at some lengths.
inline std::unique_ptr<MemoryDataset> block_data(std::mt19937_64& rng, int P, int N, bool zero_diagonal, bool signed_blocks = false) {
  std::uniform_real_distribution<double> U(0, 1);
  std::vector<std::int64_t> lengths;
  for (int k = 0; k < N; ++k) lengths.push_back(k * 512);
  auto ds = std::make_unique<MemoryDataset>(make_info(P, lengths), "memory", "block");
  const int G = 1 + static_cast<int>(rng() % 4);
  std::vector<int> group(static_cast<std::size_t>(P));
  for (auto& g : group) g = static_cast<int>(rng() % static_cast<unsigned>(G));
  std::vector<double> base(static_cast<std::size_t>(G * G)), slope(base.size());
  for (std::size_t q = 0; q < base.size(); ++q) {
    base[q] = 1e-6 * (1 + 9 * U(rng));
    slope[q] = 1e-9 * (1 + 4 * U(rng));
    if (signed_blocks && U(rng) < 0.4) {  // differences of two files can be negative
      base[q] = -base[q];
      slope[q] = -slope[q];
    }
  }
  const double noise = 0.03 * U(rng);
  const double spike_p = U(rng) < 0.5 ? 0.0 : 0.02 * U(rng);
  for (int k = 0; k < N; ++k) {
    if (k > 0 && U(rng) < 0.2) {  // regime change of one block
      const std::size_t q = rng() % base.size();
      base[q] *= 1.5 + U(rng);
    }
    Matrix m(P);
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        if (i == j && zero_diagonal) continue;
        const std::size_t q = static_cast<std::size_t>(group[static_cast<std::size_t>(i)] * G + group[static_cast<std::size_t>(j)]);
        double v = (base[q] + slope[q] * static_cast<double>(lengths[static_cast<std::size_t>(k)])) * (1 + noise * U(rng));
        if (U(rng) < spike_p) v *= 2 + 3 * U(rng);
        m.at(i, j) = v;
      }
    ds->append(lengths[static_cast<std::size_t>(k)], m);
  }
  return ds;
}

// The same from its own generator seeded with `seed`, zero diagonal.
inline std::unique_ptr<MemoryDataset> block_data(std::uint64_t seed, int P, int N) {
  std::mt19937_64 rng(seed);
  return block_data(rng, P, N, true);
}

struct Layout {
  std::vector<int> starts;
  std::vector<std::vector<int>> info;  // per region, P*P offsets
  std::size_t d = 0;
  std::vector<double> data;            // the cluster centres
};

inline Layout read_layout(const fs::path& p) {
  const nc::File f = nc::File::open(p);
  Layout l;
  const std::size_t n = f.dim("n").length;
  const auto P = f.dim("x").length;
  l.d = f.dim("d").length;
  l.data.resize(l.d);
  if (l.d) f.get(f.var("data").id, {0}, {l.d}, l.data.data());
  l.starts.resize(n);
  if (n) f.get(f.var("length").id, {0}, {n}, l.starts.data());
  for (std::size_t r = 0; r < n; ++r) {
    l.info.emplace_back(P * P);
    f.get(f.var("info").id, {r, 0, 0}, {1, P, P}, l.info.back().data());
  }
  return l;
}

inline double att(const fs::path& p, const char* name) {
  const nc::File f = nc::File::open(p);
  const auto v = f.get_att_double(-1, name);
  EXPECT_TRUE(v.has_value()) << name;
  return v.value_or(std::numeric_limits<double>::quiet_NaN());
}

// Checks every rule of the clustered result against the original data.
inline void check_rules(const Dataset& orig, const fs::path& clustered, const Options& o) {
  const auto ds = open_dataset(clustered);
  ASSERT_EQ(ds->format(), "clustered");
  ASSERT_EQ(ds->ranks(), orig.ranks());
  ASSERT_EQ(ds->lengths(), orig.lengths());
  EXPECT_EQ(ds->params(), orig.params());
  const Layout lay = read_layout(clustered);
  const Tolerance tol(o.threshold, o.relative);
  const Tolerance ctol(o.cluster_threshold(), o.relative);  // what the cluster centres keep
  const int P = orig.ranks();
  const std::size_t N = orig.count();
  ASSERT_FALSE(lay.starts.empty());
  EXPECT_EQ(lay.starts[0], 0);
  double max_rel = 0, sum_rel = 0, max_abs = 0, sum_abs = 0;
  std::uint64_t nonzero = 0, beyond = 0, cells = 0;
  for (std::size_t r = 0; r < lay.starts.size(); ++r) {
    const auto s = static_cast<std::size_t>(lay.starts[r]);
    const std::size_t e = r + 1 < lay.starts.size() ? static_cast<std::size_t>(lay.starts[r + 1]) : N;
    EXPECT_GE(e - s, static_cast<std::size_t>(o.min_region)) << "region " << r << " shorter than min-region";
    for (std::size_t k = s; k < e; ++k) {
      const Matrix a = orig.matrix(k), b = ds->matrix(k);
      std::map<int, int> bad_per_cluster;
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j) {
          const int off = lay.info[r][static_cast<std::size_t>(i * P + j)];
          const double v = a.at(i, j), rec = b.at(i, j);
          // The cluster's centre (one per cluster and length) keeps the clustering rules.
          ASSERT_LT(static_cast<std::size_t>(off) + (k - s), lay.data.size());
          if (!ctol.within(v, lay.data[static_cast<std::size_t>(off) + (k - s)])) ++bad_per_cluster[off];
          // Every value a reader gets is within the bound, except the counted ones.
          if (!tol.within(v, rec)) ++beyond;
          const double err = std::fabs(rec - v);
          ++cells;
          sum_abs += err;
          max_abs = std::max(max_abs, err);
          if (v != 0) {
            ++nonzero;
            sum_rel += err / std::fabs(v);
            max_rel = std::max(max_rel, err / std::fabs(v));
          }
        }
      for (const auto& [off, bad] : bad_per_cluster) {
        if (k == s) {
          EXPECT_EQ(bad, 0) << "value beyond threshold at the first length of region " << r;
        } else {
          EXPECT_LE(bad, o.exceptions) << "cluster " << off << " at matrix " << k;
        }
      }
    }
  }
  // The reported errors are the real ones.
  EXPECT_DOUBLE_EQ(att(clustered, "cluster_max_relative_error"), max_rel);
  EXPECT_DOUBLE_EQ(att(clustered, "cluster_max_absolute_error"), max_abs);
  EXPECT_NEAR(att(clustered, "cluster_mean_relative_error"), nonzero ? sum_rel / static_cast<double>(nonzero) : 0.0,
              1e-9 * (1 + max_rel));
  EXPECT_NEAR(att(clustered, "cluster_mean_absolute_error"), sum_abs / static_cast<double>(cells), 1e-9 * (1e-9 + max_abs));
  EXPECT_EQ(att(clustered, "cluster_values_beyond_threshold"), static_cast<double>(beyond));
  // Residuals bring every value within the bound; only an outlier of a cluster whose centre
  // cannot express it (relative: a centre of 0 or of the other sign) may stay beyond.
  if (o.exceptions == 0) {
    EXPECT_EQ(beyond, 0u);
  }
  if (beyond == 0 && o.relative) {
    EXPECT_LE(max_rel, o.threshold);
  }
}

}  // namespace nt::cluster::test
