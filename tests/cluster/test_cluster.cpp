// Tests of network_cluster's algorithm: its tolerance and inlier rules, and every rule of the clustered
// result on random, noisy and acceptance inputs, in memory or on the low-memory paths (the files, the
// reader and the commands: test_cluster_files.cpp).
#include "cluster_helpers.hpp"

using namespace nt;
using namespace nt::cluster::test;
using nt::cluster::Options;
using nt::cluster::Tolerance;

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
