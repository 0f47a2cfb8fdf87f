// Tests of network_cluster's algorithm, clustered files and the core reader.
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
using namespace nt;
using nt::cluster::Options;
using nt::cluster::Tolerance;

namespace {

fs::path temp_root() { return fs::temp_directory_path() / ("nt_cluster_test_" + std::to_string(::getpid())); }

// Removes this process's scratch files when the tests end.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(temp_root(), ec);
  }
};
const auto* const kCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

fs::path temp_dir(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  fs::path d = temp_root() / (std::string(info->test_suite_name()) + "_" + info->name() + "_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

FileInfo make_info(int P, const std::vector<std::int64_t>& lengths) {
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
std::unique_ptr<MemoryDataset> block_data(std::mt19937_64& rng, int P, int N, bool zero_diagonal, bool signed_blocks = false) {
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
std::unique_ptr<MemoryDataset> block_data(std::uint64_t seed, int P, int N) {
  std::mt19937_64 rng(seed);
  return block_data(rng, P, N, true);
}

struct Layout {
  std::vector<int> starts;
  std::vector<std::vector<int>> info;  // per region, P*P offsets
  std::size_t d = 0;
  std::vector<double> data;            // the cluster centres
};

Layout read_layout(const fs::path& p) {
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

double att(const fs::path& p, const char* name) {
  const nc::File f = nc::File::open(p);
  const auto v = f.get_att_double(-1, name);
  EXPECT_TRUE(v.has_value()) << name;
  return v.value_or(std::numeric_limits<double>::quiet_NaN());
}

// Checks every rule of the clustered result against the original data.
void check_rules(const Dataset& orig, const fs::path& clustered, const Options& o) {
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

}  // namespace

TEST(Tolerance, FitsIsMonotoneAndSafe) {
  const Tolerance rel(0.05, true), abs(1e-6, false);
  EXPECT_TRUE(rel.fits(1.0, 1.04));
  EXPECT_FALSE(rel.fits(1.0, 1.06));
  EXPECT_TRUE(rel.fits(0.0, 0.0));
  EXPECT_FALSE(rel.fits(0.0, 1e-9));
  EXPECT_FALSE(rel.fits(-1.0, 1.0));
  EXPECT_TRUE(rel.fits(-1.04, -1.0));
  EXPECT_FALSE(rel.fits(-1.06, -1.0));
  EXPECT_TRUE(abs.fits(5e-6, 5.9e-6));
  EXPECT_FALSE(abs.fits(5e-6, 6.1e-6));
  // A fitting interval: its mean is within the tolerance of every point.
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> U(1e-7, 1e-4);
  for (int t = 0; t < 2000; ++t) {
    const double lo = U(rng);
    const double hi = lo * (1 + 0.05 * (1 - 1e-8));
    if (!rel.fits(lo, hi)) continue;
    std::vector<double> v{lo, hi, hi, hi, hi};
    double m = 0;
    for (double x : v) m += x;
    m /= 5;
    for (double x : v) EXPECT_TRUE(rel.within(x, m));
  }
}

TEST(SelectInliers, FewestExclusions) {
  const Tolerance rel(0.05, true);
  std::vector<double> v{1.0, 1.01, 1.02, 5.0, 0.1};
  auto w = cluster::select_inliers(v, 2, rel);
  EXPECT_TRUE(w.ok);
  EXPECT_EQ(w.excluded, 2);
  EXPECT_DOUBLE_EQ(w.lo, 1.0);
  EXPECT_DOUBLE_EQ(w.hi, 1.02);
  std::vector<double> v2{1.0, 1.01, 1.02, 5.0, 0.1};
  EXPECT_FALSE(cluster::select_inliers(v2, 1, rel).ok);
  std::vector<double> v3{1.0, 1.0, 2.0};
  w = cluster::select_inliers(v3, 1, rel);
  EXPECT_TRUE(w.ok);
  EXPECT_EQ(w.excluded, 1);
  std::vector<double> v4{1.0, 1.01};
  w = cluster::select_inliers(v4, 0, rel);
  EXPECT_TRUE(w.ok);
  EXPECT_EQ(w.excluded, 0);
  // Many values: only the extremes are examined.
  std::vector<double> big(1000, 2.0);
  big[10] = 100;
  big[20] = 0.5;
  big[30] = 50;
  w = cluster::select_inliers(big, 3, rel);
  EXPECT_TRUE(w.ok);
  EXPECT_EQ(w.excluded, 3);
  EXPECT_DOUBLE_EQ(w.lo, 2.0);
}

// The property test: random block-structured inputs, every rule checked on the file.
TEST(Property, RandomBlockInputsObeyTheRules) {
  const fs::path dir = temp_dir("prop");
  for (std::uint64_t seed = 1; seed <= 60; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed);
    const int P = 2 + static_cast<int>(rng() % 19);
    const int N = 1 + static_cast<int>(rng() % 12);
    const bool zero_diag = rng() % 2 == 0;
    const auto in = block_data(rng, P, N, zero_diag, seed % 5 == 0);
    Options o;
    o.relative = rng() % 3 != 0;
    o.threshold = o.relative ? std::vector<double>{0.01, 0.05, 0.1, 0.3}[rng() % 4] : 1e-7 * static_cast<double>(1 + rng() % 20);
    o.exceptions = static_cast<int>(rng() % 4);
    o.min_region = 1 + static_cast<int>(rng() % static_cast<unsigned>(std::min(N, 4)));
    const fs::path raw = dir / ("in" + std::to_string(seed) + ".nc");
    const fs::path out = dir / ("out" + std::to_string(seed) + ".nc");
    write_raw(raw, *in, true);
    const auto rep = cluster::compress_file(raw, out, o, true);
    check_rules(*in, out, o);
    EXPECT_NEAR(rep.compression_ratio, static_cast<double>(fs::file_size(raw)) / static_cast<double>(fs::file_size(out)),
                1e-9 * rep.compression_ratio);
    EXPECT_DOUBLE_EQ(att(out, "cluster_compression_ratio"), rep.compression_ratio);
    if (::testing::Test::HasFailure()) break;
  }
}

// Zero threshold: lossless.
TEST(Property, ZeroThresholdIsLossless) {
  const fs::path dir = temp_dir("zero");
  const auto in = block_data(77, 9, 6);
  Options o;
  o.relative = false;
  o.threshold = 0;
  o.min_region = 1;
  write_raw(dir / "in.nc", *in, true);
  cluster::compress_file(dir / "in.nc", dir / "out.nc", o, true);
  const auto ds = open_dataset(dir / "out.nc");
  for (std::size_t k = 0; k < in->count(); ++k) EXPECT_EQ(ds->matrix(k), in->matrix(k));
}

// The acceptance scenario (scenarios.hpp).
TEST(Acceptance, SyntheticClusterAtFivePercent) {
  const fs::path dir = temp_dir("accept");
  const SynthResult syn = synthesize(cluster::test::acceptance_scenario());
  write_synth((dir / "run").string(), syn, true);
  for (const Statistic st : {Statistic::median, Statistic::average}) {
    SCOPED_TRACE(std::string(statistic_name(st)));
    const fs::path raw = result_path(dir / "run", st);
    const fs::path out = dir / ("clustered_" + std::string(statistic_name(st)) + ".nc");
    Options o;
    o.relative = true;
    o.threshold = 0.05;
    o.exceptions = 2;
    o.min_region = 2;
    const auto rep = cluster::compress_file(raw, out, o, true);
    const double ratio = static_cast<double>(fs::file_size(raw)) / static_cast<double>(fs::file_size(out));
    std::printf("acceptance %s: raw %ju bytes, clustered %ju bytes, ratio %.1f, regions %zu, clusters %zu, "
                "beyond %ju of %ju, max rel err %.4f\n",
                std::string(statistic_name(st)).c_str(), static_cast<std::uintmax_t>(fs::file_size(raw)),
                static_cast<std::uintmax_t>(fs::file_size(out)), ratio, rep.result.regions.size(),
                rep.result.cluster_instances, static_cast<std::uintmax_t>(rep.result.errors.beyond),
                static_cast<std::uintmax_t>(rep.result.errors.cells), rep.result.errors.max_relative);
    EXPECT_GE(ratio, 20.0);
    // Values beyond the threshold, recomputed from the decompressed data.
    const auto orig = open_dataset(raw);
    const auto ds = open_dataset(out);
    const Tolerance tol(0.05, true);
    std::size_t beyond = 0, cells = 0;
    for (std::size_t k = 0; k < orig->count(); ++k) {
      const Matrix a = orig->matrix(k), b = ds->matrix(k);
      for (std::size_t q = 0; q < a.values().size(); ++q) {
        ++cells;
        beyond += !tol.within(a.values()[q], b.values()[q]);
      }
    }
    EXPECT_LE(static_cast<double>(beyond), 0.01 * static_cast<double>(cells));
    check_rules(*orig, out, o);
  }
}

// Every random-access path of the reader agrees with the whole matrices, and a decompressed raw
// file holds exactly the reconstructed values.
TEST(Reader, RandomAccessEqualsDecompressed) {
  const fs::path dir = temp_dir("reader");
  // Two regimes: ranks grouped by i%3 for the first lengths, by i%2 afterwards.
  const int P0 = 13;
  std::vector<std::int64_t> lens;
  for (int k = 0; k < 11; ++k) lens.push_back(100 * k);
  auto in = std::make_unique<MemoryDataset>(make_info(P0, lens));
  for (int k = 0; k < 11; ++k) {
    Matrix m(P0);
    for (int i = 0; i < P0; ++i)
      for (int j = 0; j < P0; ++j)
        m.at(i, j) = k < 5 ? 1e-6 * (1 + (i % 3) + 3 * (j % 3)) * (1 + 0.01 * k) : 2e-6 * (1 + (i % 2) * 2 + (j % 2)) + 1e-9 * (i * P0 + j) * k;
    in->append(lens[static_cast<std::size_t>(k)], m);
  }
  write_raw(dir / "in.nc", *in, true);
  Options o;
  o.threshold = 0.02;
  o.relative = true;
  o.exceptions = 1;
  o.min_region = 2;
  cluster::compress_file(dir / "in.nc", dir / "c.nc", o, true);
  const auto ds = open_dataset(dir / "c.nc");
  EXPECT_GE(read_layout(dir / "c.nc").starts.size(), 2u) << "want several regions for this test";
  write_raw(dir / "dec.nc", *ds, true);
  const auto dec = open_dataset(dir / "dec.nc");
  ASSERT_EQ(dec->format(), "raw");
  EXPECT_EQ(dec->meta().extra.count("cluster_threshold_mode"), 0u);
  const int P = ds->ranks();
  const std::size_t N = ds->count();
  std::vector<Matrix> full;
  for (std::size_t k = 0; k < N; ++k) {
    full.push_back(ds->matrix(k));
    EXPECT_EQ(dec->matrix(k), full.back());
  }
  for (int i = 0; i < P; ++i) {
    const auto row = ds->row(i, 1, N);
    const auto col = ds->column(i, 0, N - 1);
    for (std::size_t k = 1; k < N; ++k)
      for (int j = 0; j < P; ++j) ASSERT_EQ(row[(k - 1) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)], full[k].at(i, j));
    for (std::size_t k = 0; k + 1 < N; ++k)
      for (int j = 0; j < P; ++j) ASSERT_EQ(col[k * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)], full[k].at(j, i));
    for (int j = 0; j < P; ++j) {
      const auto pr = ds->pair(i, j);
      ASSERT_EQ(pr.size(), N);
      for (std::size_t k = 0; k < N; ++k) {
        ASSERT_EQ(pr[k], full[k].at(i, j));
        ASSERT_EQ(ds->value(i, j, k), full[k].at(i, j));
      }
    }
  }
  EXPECT_THROW(ds->value(P, 0, 0), Error);
  EXPECT_THROW((void)ds->matrix(N), Error);
}

TEST(BadInput, NanOneLengthAndOptions) {
  const fs::path dir = temp_dir("bad");
  std::mt19937_64 rng(9);
  auto in = block_data(rng, 4, 3, true);
  in->at(1).at(2, 3) = std::numeric_limits<double>::quiet_NaN();
  write_raw(dir / "nan.nc", *in, true);
  Options o;
  EXPECT_THROW(cluster::compress_file(dir / "nan.nc", dir / "o.nc", o, true), Error);
  EXPECT_FALSE(fs::exists(dir / "o.nc"));

  auto one = block_data(rng, 4, 1, true);
  write_raw(dir / "one.nc", *one, true);
  o.min_region = 2;
  EXPECT_THROW(cluster::compress_file(dir / "one.nc", dir / "o.nc", o, true), UsageError);
  o.min_region = 1;  // documented: one length is one region with --min-region 1
  EXPECT_NO_THROW(cluster::compress_file(dir / "one.nc", dir / "o.nc", o, true));
  EXPECT_EQ(open_dataset(dir / "o.nc")->count(), 1u);
  EXPECT_THROW(cluster::compress_file(dir / "one.nc", dir / "o.nc", o, false), FileError);  // exists

  Options bad;
  bad.relative = true;
  bad.threshold = 1.5;
  EXPECT_THROW(bad.validate(), UsageError);
  bad.threshold = -1;
  EXPECT_THROW(bad.validate(), UsageError);
  bad.threshold = 0.1;
  bad.exceptions = -1;
  EXPECT_THROW(bad.validate(), UsageError);

  std::ofstream(dir / "garbage.nc") << "this is not a result file\n";
  EXPECT_THROW(cluster::compress_file(dir / "garbage.nc", dir / "o2.nc", Options{}, true), Error);
  EXPECT_THROW(cluster::summarize_file(dir / "in_missing.nc"), Error);
  EXPECT_THROW(cluster::summarize_file(dir / "one.nc"), FileError);  // raw, not clustered
}

// Corrupt clustered files: clear errors, never a crash.
TEST(BadInput, CorruptClusteredFiles) {
  const fs::path dir = temp_dir("corrupt");
  const auto in = block_data(21, 6, 5);
  write_raw(dir / "in.nc", *in, true);
  Options o;
  o.min_region = 1;
  cluster::compress_file(dir / "in.nc", dir / "good.nc", o, true);
  // An offset pointing outside data.
  fs::copy_file(dir / "good.nc", dir / "off.nc");
  {
    nc::File f = nc::File::open(dir / "off.nc", true);
    const int big = 1 << 30;
    f.put(f.var("info").id, {0, 1, 2}, {1, 1, 1}, &big);
    f.close();
  }
  const auto ds = open_dataset(dir / "off.nc");
  EXPECT_THROW((void)ds->matrix(0), FileError);
  EXPECT_THROW(ds->value(1, 2, 0), FileError);
  EXPECT_NO_THROW(ds->value(0, 0, 0));
  // Region starts not increasing.
  fs::copy_file(dir / "good.nc", dir / "len.nc");
  {
    nc::File f = nc::File::open(dir / "len.nc", true);
    const int bad = 99;
    f.put(f.var("length").id, {0}, {1}, &bad);
    f.close();
  }
  EXPECT_THROW(open_dataset(dir / "len.nc"), FileError);
  // A newer layout version is refused with a message naming both versions.
  fs::copy_file(dir / "good.nc", dir / "newer.nc");
  set_clustered_attribute(dir / "newer.nc", "cluster_layout_version", kClusteredLayoutVersion + 1.0);
  try {
    (void)open_dataset(dir / "newer.nc");
    ADD_FAILURE() << "newer layout accepted";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("version " + std::to_string(kClusteredLayoutVersion + 1) + " is newer"), std::string::npos) << e.what();
  }
  // Truncated file.
  {
    const auto size = fs::file_size(dir / "good.nc");
    fs::copy_file(dir / "good.nc", dir / "trunc.nc");
    fs::resize_file(dir / "trunc.nc", size / 2);
  }
  EXPECT_THROW(
      {
        const auto t = open_dataset(dir / "trunc.nc");
        for (std::size_t k = 0; k < t->count(); ++k) (void)t->matrix(k);
      },
      Error);
}

// Topology classes: on synthetic data with random rank placement the classes are the nodes; a
// single misbehaving rank gets a class of its own and its host is reported as split.
TEST(Groups, ClassesAreTheNodes) {
  const fs::path dir = temp_dir("groups");
  SynthParams sp{.nodes = 6, .ranks_per_node = 4, .nodes_per_switch = 3, .slow_node = 2, .shuffle = true, .seed = 5,
                 .lengths = {0, 1024, 4096, 16384, 65536}};
  const SynthResult syn = synthesize(sp);
  auto& ds = *syn.stats.at(Statistic::median);
  ds.mutable_info().meta.hosts = syn.hosts;
  Options o;
  o.threshold = 0.05;
  o.relative = true;
  write_raw(dir / "in.nc", ds, true);
  cluster::compress_file(dir / "in.nc", dir / "c.nc", o, true);
  const Layout lay = read_layout(dir / "c.nc");
  const auto rc = cluster::rank_classes(lay.info, ds.ranks());
  ASSERT_EQ(rc.members.size(), 6u);
  for (int a = 0; a < ds.ranks(); ++a)
    for (int b = 0; b < ds.ranks(); ++b)
      EXPECT_EQ(rc.class_of[static_cast<std::size_t>(a)] == rc.class_of[static_cast<std::size_t>(b)],
                syn.node_of_rank[static_cast<std::size_t>(a)] == syn.node_of_rank[static_cast<std::size_t>(b)])
          << a << " " << b;
  const std::string text = cluster::groups_report(dir / "c.nc", false);
  EXPECT_NE(text.find("24 ranks in 6 topology classes"), std::string::npos) << text;
  EXPECT_EQ(text.find("is split"), std::string::npos) << text;

  // Rank 7 becomes twice as slow on every send and receive.
  for (std::size_t k = 0; k < ds.count(); ++k)
    for (int j = 0; j < ds.ranks(); ++j) {
      ds.at(k).at(7, j) *= 2;
      ds.at(k).at(j, 7) *= 2;
    }
  write_raw(dir / "in2.nc", ds, true);
  cluster::compress_file(dir / "in2.nc", dir / "c2.nc", o, true);
  const auto rc2 = cluster::rank_classes(read_layout(dir / "c2.nc").info, ds.ranks());
  EXPECT_EQ(rc2.members.size(), 7u);
  EXPECT_EQ(rc2.members[static_cast<std::size_t>(rc2.class_of[7])], std::vector<int>{7});
  const std::string text2 = cluster::groups_report(dir / "c2.nc", false);
  EXPECT_NE(text2.find("host " + syn.hosts[7] + " is split"), std::string::npos) << text2;
  const auto j = nlohmann::json::parse(cluster::groups_report(dir / "c2.nc", true));
  EXPECT_EQ(j["classes"].size(), 7u);
  EXPECT_TRUE(j["hosts_split_over_classes"].contains(syn.hosts[7]));
  EXPECT_THROW(cluster::groups_report(dir / "in.nc", false), FileError);
  // A raw file clustered in memory gives the same classes as its clustered file.
  const std::string from_raw = cluster::groups_report(dir / "in2.nc", false, &o);
  EXPECT_NE(from_raw.find("24 ranks in 7 topology classes"), std::string::npos) << from_raw;
  EXPECT_NE(from_raw.find("host " + syn.hosts[7] + " is split"), std::string::npos) << from_raw;
}

// Any file the suite reads is an input; for non-CDF inputs the ratio uses the raw payload size.
TEST(Inputs, TextFileAndMissingDirectory) {
  const fs::path dir = temp_dir("text");
  const auto in = block_data(31, 5, 4);
  write_text(dir / "in.txt", *in, true);
  Options o;
  const auto rep = cluster::compress_file(dir / "in.txt", dir / "c.nc", o, false);
  EXPECT_EQ(rep.raw_bytes, 8u * 25u * 4u + 4u * 4u);
  check_rules(*in, dir / "c.nc", o);
  // A missing output directory is created; a regular file in the way of the directory is an error.
  cluster::compress_file(dir / "in.txt", dir / "no" / "such" / "c.nc", o, false);
  EXPECT_TRUE(fs::is_regular_file(dir / "no" / "such" / "c.nc"));
  EXPECT_THROW(cluster::compress_file(dir / "in.txt", dir / "in.txt" / "c.nc", o, false), Error);
}

// Noisy data the algorithm was not shaped for: independent lognormal noise per cell, shuffled
// ranks, a slow node, both threshold kinds. Every value a reader gets is within the bound (the
// residuals guarantee it; only counted exceptions may not be), and the file is never bigger than
// the raw CDF-2 input plus a small constant, down to 2 ranks.
TEST(Property, NoisyShuffledInputsStayWithinTheBound) {
  const fs::path dir = temp_dir("noisy");
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed * 7919);
    SynthParams sp;
    sp.nodes = 1 + static_cast<int>(rng() % 6);
    sp.ranks_per_node = 1 + static_cast<int>(rng() % 6);
    if (sp.nodes * sp.ranks_per_node < 2) sp.ranks_per_node = 2;
    sp.nodes_per_switch = static_cast<int>(rng() % 3);
    sp.shuffle = true;
    sp.cell_noise = rng() % 2 ? 0.01 : 0.05;
    sp.slow_node = rng() % 3 == 0 ? 0 : -1;
    sp.seed = seed;
    sp.lengths.clear();
    const int N = 2 + static_cast<int>(rng() % 7);
    for (int k = 0; k < N; ++k) sp.lengths.push_back(1024LL * k * k);
    const SynthResult syn = synthesize(sp);
    const auto& in = *syn.stats.at(Statistic::median);
    Options o;
    o.relative = rng() % 4 != 0;
    o.threshold = o.relative ? std::vector<double>{0.01, 0.05, 0.1}[rng() % 3] : 1e-8 * static_cast<double>(1 + rng() % 30);
    o.exceptions = static_cast<int>(rng() % 3);
    const fs::path raw = dir / ("in" + std::to_string(seed) + ".nc");
    const fs::path out = dir / ("out" + std::to_string(seed) + ".nc");
    write_raw(raw, in, true);
    const auto rep = cluster::compress_file(raw, out, o, true);
    check_rules(in, out, o);
    EXPECT_EQ(rep.result.errors.beyond, 0u);
    EXPECT_LE(fs::file_size(out), fs::file_size(raw) + 1024) << sp.nodes * sp.ranks_per_node << " ranks";
    // Random access agrees with the bound too.
    const auto ds = open_dataset(out);
    const Tolerance tol(o.threshold, o.relative);
    for (int q = 0; q < 50; ++q) {
      const int i = static_cast<int>(rng() % static_cast<unsigned>(in.ranks()));
      const int j = static_cast<int>(rng() % static_cast<unsigned>(in.ranks()));
      const std::size_t k = rng() % in.count();
      EXPECT_TRUE(tol.within(in.value(i, j, k), ds->value(i, j, k))) << i << " " << j << " " << k;
      EXPECT_EQ(ds->value(i, j, k), ds->matrix(k).at(i, j));
      EXPECT_EQ(ds->value(i, j, k), ds->pair(i, j)[k]);
      EXPECT_EQ(ds->value(i, j, k), ds->row(i, 0, in.count())[k * static_cast<std::size_t>(in.ranks()) + static_cast<std::size_t>(j)]);
      EXPECT_EQ(ds->value(i, j, k), ds->column(j, 0, in.count())[k * static_cast<std::size_t>(in.ranks()) + static_cast<std::size_t>(i)]);
    }
    if (::testing::Test::HasFailure()) break;
  }
}

// A clustered file of layout 1, written by network_cluster before residuals existed (checked in:
// data/layout1_clustered.nc from data/layout1_input.nc at 5 %, --exceptions 1), still reads.
TEST(OldFormat, Layout1FileReads) {
  const fs::path data = NT_CLUSTER_TEST_DATA;
  const auto old = open_dataset(data / "layout1_clustered.nc");
  const auto in = open_dataset(data / "layout1_input.nc");
  ASSERT_EQ(old->format(), "clustered");
  ASSERT_EQ(old->ranks(), in->ranks());
  ASSERT_EQ(old->lengths(), in->lengths());
  const Tolerance tol(0.05, true);
  for (std::size_t k = 0; k < in->count(); ++k) {
    const Matrix a = in->matrix(k), b = old->matrix(k);
    for (int i = 0; i < in->ranks(); ++i)
      for (int j = 0; j < in->ranks(); ++j) {
        EXPECT_TRUE(tol.within(a.at(i, j), b.at(i, j))) << i << " " << j << " " << k;
        EXPECT_EQ(old->value(i, j, k), b.at(i, j));
      }
  }
  const auto s = cluster::summarize_file(data / "layout1_clustered.nc");
  EXPECT_EQ(s.ranks, 12);
  EXPECT_NE(cluster::groups_report(data / "layout1_clustered.nc", false).find("12 ranks"), std::string::npos);
}

// Layout 2: a residual variable that is not what the format says is refused with a FileError.
TEST(BadInput, CorruptResiduals) {
  const fs::path dir = temp_dir("corrupt_res");
  SynthParams sp{.nodes = 20, .ranks_per_node = 4, .shuffle = true, .cell_noise = 0.05, .lengths = {0, 1024, 4096}};
  const SynthResult syn = synthesize(sp);
  write_raw(dir / "in.nc", *syn.stats.at(Statistic::median), true);
  Options o;
  o.threshold = 0.01;
  o.relative = true;
  cluster::compress_file(dir / "in.nc", dir / "good.nc", o, true);
  {
    const nc::File f = nc::File::open(dir / "good.nc");
    ASSERT_TRUE(f.find_var("residual").has_value()) << "5 % noise at a 1 % bound must need residuals";
  }
  const auto broken = [&](const std::string& name, const std::function<void(nc::File&, int)>& edit) {
    fs::copy_file(dir / "good.nc", dir / name, fs::copy_options::overwrite_existing);
    {
      nc::File f = nc::File::open(dir / name, true);
      f.redef();
      edit(f, f.var("residual").id);
      f.enddef();
      f.close();
    }
    try {
      (void)open_dataset(dir / name);
      ADD_FAILURE() << name << " accepted";
    } catch (const FileError& e) {
      EXPECT_NE(std::string(e.what()).find("corrupt clustered file"), std::string::npos) << e.what();
    }
  };
  broken("step0.nc", [](nc::File& f, int v) { f.put_att(v, "residual_step", 0.0); });
  broken("stepnan.nc", [](nc::File& f, int v) { f.put_att(v, "residual_step", std::nan("")); });
  broken("mode.nc", [](nc::File& f, int v) { f.put_att(v, "residual_mode", std::string("sideways")); });
}

// ---- the commands' library side (what the thin main calls) -------------------------------

TEST(Commands, ThresholdTextUnitsAndRefusals) {
  auto parsed = [](const std::string& text, bool relative = false) {
    Options o;
    o.relative = relative;
    cluster::parse_threshold(text, o, false);
    return std::make_pair(o.threshold, o.relative);
  };
  EXPECT_DOUBLE_EQ(parsed("2e-7").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("0.2us").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("0.2\u00b5s").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("200ns").first, 2e-7);
  EXPECT_DOUBLE_EQ(parsed("0.1ms").first, 1e-4);
  EXPECT_DOUBLE_EQ(parsed("1e-6s").first, 1e-6);
  EXPECT_EQ(parsed("5%"), std::make_pair(0.05, true));  // a percentage implies relative
  EXPECT_EQ(parsed("0.05", true), std::make_pair(0.05, true));
  auto refused = [](const std::string& text, bool relative, bool absolute, const std::string& why) {
    Options o;
    o.relative = relative;
    try {
      cluster::parse_threshold(text, o, absolute);
      ADD_FAILURE() << text << " accepted";
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused("5%", false, true, "is a percentage; it cannot be --absolute");
  refused("1us", true, false, "has a time unit; it cannot be --relative");
  refused("3parsecs", false, false, "unknown unit 'parsecs'");
  refused("fast", false, false, "'fast' is not a number");
}

TEST(Commands, CompressAndDecompressCommands) {
  const fs::path dir = temp_dir("commands");
  const auto in = block_data(41, 6, 5);
  for (int r = 0; r < 6; ++r) in->mutable_info().meta.hosts.push_back("n" + std::to_string(r / 3));
  write_raw(dir / "run_median.nc", *in, true);
  cluster::CompressRequest r;
  r.o.relative = false;
  r.o.min_region = 1;
  EXPECT_THROW(cluster::compress_command(dir / "run_median.nc", dir / "c.nc", r), UsageError);  // no bound
  r.threshold = "0";
  r.absolute = true;
  r.o.relative = true;
  EXPECT_THROW(cluster::compress_command(dir / "run_median.nc", dir / "c.nc", r), UsageError);
  r.o.relative = false;
  const std::string line = cluster::compress_command(dir / "run_median.nc", dir / "c.nc", r);
  EXPECT_EQ(line.rfind((dir / "c.nc").string() + ": ", 0), 0u) << line;
  EXPECT_NE(line.find(" 0 values beyond the threshold"), std::string::npos) << line;
  EXPECT_EQ(std::count(line.begin(), line.end(), '\n'), 1);

  // Decompressed under a prefix: the statistic file and the hosts, values exact (threshold 0).
  const std::string back = cluster::decompress_file(dir / "c.nc", dir / "back", false);
  EXPECT_NE(back.find("6 ranks, 5 message lengths, hosts in"), std::string::npos) << back;
  const auto ds = open_dataset(dir / "back_median.nc");
  for (std::size_t k = 0; k < in->count(); ++k) EXPECT_EQ(ds->matrix(k), in->matrix(k));
  EXPECT_EQ(read_hosts(dir / "back_hosts.txt"), in->meta().hosts);
  // To a file name: no hosts file beside it.
  cluster::decompress_file(dir / "c.nc", dir / "one.nc", false);
  EXPECT_TRUE(fs::exists(dir / "one.nc"));
  EXPECT_FALSE(fs::exists(dir / "one.nc_hosts.txt"));
  // Refusals: an existing output, a raw input, the input itself.
  EXPECT_THROW(cluster::decompress_file(dir / "c.nc", dir / "back", false), FileError);
  EXPECT_THROW(cluster::decompress_file(dir / "run_median.nc", dir / "x", false), UsageError);
  EXPECT_FALSE(fs::exists(dir / "x_median.nc"));
  EXPECT_THROW(cluster::decompress_file(dir / "c.nc", dir / "c.nc", true), FileError);
  EXPECT_TRUE(fs::exists(dir / "c.nc"));
}

// ---- small inputs: the file is no larger than its input ---------------------------

// Two real runs of scripts/demo.sh's measurement (4 local ranks, one_to_one, 0..64 KiB step 8 KiB,
// 50 repeats; checked in: data/demo4_run*_median.nc), compressed as the demo does (5 %, relative):
// the clustered file is no larger than the raw input, keeps every rule, and reads back (it is the
// compact classic form, layout 1 when it has no residual, which every reader takes).
TEST(SmallInputs, DemoRunsAreNoLargerThanTheirInput) {
  const fs::path data = NT_CLUSTER_TEST_DATA;
  const fs::path dir = temp_dir("demo");
  for (const char* name : {"demo4_run1_median.nc", "demo4_run2_median.nc"}) {
    SCOPED_TRACE(name);
    const auto in = open_dataset(data / name);
    ASSERT_EQ(in->ranks(), 4);
    Options o;
    o.threshold = 0.05;
    o.relative = true;
    const fs::path out = dir / name;
    const auto rep = cluster::compress_file(data / name, out, o, true);
    EXPECT_LE(fs::file_size(out), fs::file_size(data / name));
    EXPECT_EQ(rep.clustered_bytes, fs::file_size(out));
    EXPECT_GE(rep.compression_ratio, 1.0);
    check_rules(*in, out, o);
    {
      const nc::File f = nc::File::open(out);
      EXPECT_EQ(f.kind(), nc::Kind::classic);
      // Without a residual the file is layout 1 and says so by having no version attribute.
      EXPECT_EQ(f.find_var("residual").has_value(), f.get_att_int(-1, "cluster_layout_version").has_value());
    }
    const auto s = cluster::summarize_file(out);
    EXPECT_EQ(s.file_bytes, fs::file_size(out));
    const std::string text = cluster::format_summary(s);
    EXPECT_EQ(text.find("nan"), std::string::npos) << text;
    EXPECT_EQ(cluster::compress_command(data / name, dir / "cmd.nc",
                                        {.o = o, .threshold = "5%", .target_ratio = 0, .absolute = false, .force = true})
                  .find("note:"),
              std::string::npos);
  }
}

// Noisy synthetic runs of 3 to 8 ranks and 9 to 17 lengths (shuffled placement, a slow node now and
// then, both threshold kinds). From 5 ranks the matrices outweigh the clustered layout's fixed
// header and the file is never larger than the input; below, noisy data at a tight bound may not
// cluster enough to pay for it, and compress then says so (never silently).
TEST(SmallInputs, NoisySmallRunsAreNoLargerThanTheirInputOrSaySo) {
  const fs::path dir = temp_dir("small");
  int larger = 0;
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed * 104729);
    SynthParams sp;
    const int P = 3 + static_cast<int>(rng() % 6);
    sp.nodes = P % 2 ? P : P / 2;
    sp.ranks_per_node = P / sp.nodes;
    sp.shuffle = rng() % 2;
    sp.cell_noise = rng() % 2 ? 0.01 : 0.05;
    sp.slow_node = rng() % 3 == 0 ? 0 : -1;
    sp.seed = seed;
    sp.lengths.clear();
    const int N = 9 + static_cast<int>(rng() % 9);
    for (int k = 0; k < N; ++k) sp.lengths.push_back(1024LL * k);
    const SynthResult syn = synthesize(sp);
    const auto& in = *syn.stats.at(Statistic::median);
    cluster::CompressRequest req;
    req.force = true;
    req.o.relative = rng() % 4 != 0;
    req.threshold = req.o.relative ? std::vector<std::string>{"1%", "5%", "10%"}[rng() % 3]
                                   : std::to_string(10 * (1 + rng() % 30)) + "ns";
    req.absolute = !req.o.relative;
    const fs::path raw = dir / ("in" + std::to_string(seed) + ".nc");
    const fs::path out = dir / ("out" + std::to_string(seed) + ".nc");
    write_raw(raw, in, true);
    const std::string line = cluster::compress_command(raw, out, req);
    const bool noted = line.find("note: ") != std::string::npos;
    EXPECT_EQ(noted, fs::file_size(out) > fs::file_size(raw)) << line;
    if (P >= 5) {
      EXPECT_LE(fs::file_size(out), fs::file_size(raw)) << P << " ranks x " << N << " lengths: " << line;
    }
    larger += noted;
    Options o = req.o;
    cluster::parse_threshold(req.threshold, o, req.absolute);
    check_rules(in, out, o);
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_LT(larger, 10);  // most small runs cluster enough
}

// The low-memory paths of compress (sorting by index alone, one-pass windows of large clusters,
// offsets and residuals in scratch files) give exactly what the fast in-memory paths give, on
// block data with spikes and regime changes and on noisy shuffled runs, with and without
// exceptions and residuals; the scratch files leave nothing behind.
TEST(Memory, LowMemoryPathsGiveTheSameResult) {
  const fs::path dir = temp_dir("lowmem");
  cluster::CompressMemory fast;
  fast.record_sort_limit = std::numeric_limits<std::size_t>::max();
  fast.copy_limit = std::numeric_limits<std::size_t>::max();
  fast.keep_cluster_of = true;
  cluster::CompressMemory low;
  low.scratch_dir = dir;
  low.spill_bytes = 0;
  low.record_sort_limit = 0;
  low.copy_limit = 0;
  low.keep_cluster_of = true;
  for (std::uint64_t seed = 1; seed <= 24; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    std::mt19937_64 rng(seed * 104729);
    std::unique_ptr<MemoryDataset> owned;
    SynthResult syn;
    const Dataset* in = nullptr;
    if (seed % 2) {
      owned = block_data(rng, 8 + static_cast<int>(rng() % 40), 3 + static_cast<int>(rng() % 6), true);
      in = owned.get();
    } else {
      SynthParams sp{.nodes = 2 + static_cast<int>(rng() % 6), .ranks_per_node = 1 + static_cast<int>(rng() % 5),
                     .slow_node = 0, .shuffle = true, .cell_noise = 0.05, .seed = seed,
                     .lengths = {0, 64, 1024, 4096, 65536}};
      syn = synthesize(sp);
      in = syn.stats.at(Statistic::median).get();
    }
    Options o;
    o.threshold = std::vector<double>{0.0, 0.01, 0.05}[seed % 3];
    o.exceptions = static_cast<int>(rng() % 3);
    o.min_region = 1 + static_cast<int>(rng() % 2);
    const cluster::Result a = cluster::compress(*in, o, fast), b = cluster::compress(*in, o, low);
    ASSERT_FALSE(a.content.offsets.on_disk());
    ASSERT_TRUE(b.content.offsets.on_disk());
    EXPECT_EQ(a.content.region_start, b.content.region_start);
    EXPECT_EQ(a.content.data, b.content.data);
    ASSERT_EQ(a.content.offsets.count(), b.content.offsets.count());
    for (std::size_t r = 0; r < a.content.offsets.count(); ++r) {
      EXPECT_EQ(a.content.offsets.slab(r), b.content.offsets.slab(r)) << "region " << r;
      EXPECT_EQ(a.regions[r].cluster_of, b.regions[r].cluster_of) << "region " << r;
    }
    ASSERT_EQ(a.content.residual.count(), b.content.residual.count());
    for (std::size_t k = 0; k < a.content.residual.count(); ++k)
      EXPECT_EQ(a.content.residual.slab(k), b.content.residual.slab(k)) << "matrix " << k;
    EXPECT_EQ(a.errors.exceptions, b.errors.exceptions);
    EXPECT_EQ(a.errors.max_relative, b.errors.max_relative);
    EXPECT_EQ(a.errors.mean_absolute, b.errors.mean_absolute);
    // Written, the two give the same values.
    write_clustered(dir / "a.nc", a.content, true);
    write_clustered(dir / "b.nc", b.content, true);
    const auto da = open_dataset(dir / "a.nc"), db = open_dataset(dir / "b.nc");
    for (std::size_t k = 0; k < in->count(); ++k) EXPECT_EQ(da->matrix(k), db->matrix(k));
    if (::testing::Test::HasFailure()) break;
  }
  std::size_t left = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++left;
  EXPECT_EQ(left, 2u);  // a.nc and b.nc: the scratch files are gone
  // A scratch directory that takes no file is one clear error.
  low.scratch_dir = dir / "missing";
  std::mt19937_64 rng(1);
  const auto in = block_data(rng, 8, 3, true);
  try {
    (void)cluster::compress(*in, Options{}, low);
    ADD_FAILURE() << "no error";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("scratch"), std::string::npos) << e.what();
  }
}
