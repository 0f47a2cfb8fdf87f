#include <gtest/gtest.h>

#include <cmath>
#include <csignal>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/isolated.hpp"
#include "nt/raw_file.hpp"
#include "test_util.hpp"

using namespace nt;

TEST(RawFile, WriteThenReadRoundTrip) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(5, {0, 64, 128});
  d->mutable_info().meta.command_line = "network_test -t one_to_one";
  d->mutable_info().meta.seed = 18446744073709551615ull;  // survives as text
  d->mutable_info().meta.cpus = {0, 1, 0, 1, 0};
  d->mutable_info().meta.extra["site_note"] = "rack 4";
  const auto path = dir / "run_median.nc";
  write_raw(path, *d, false);

  RawReader r(path);
  EXPECT_EQ(r.format(), "raw");
  EXPECT_EQ(r.ranks(), 5);
  EXPECT_EQ(r.lengths(), (std::vector<std::int64_t>{0, 64, 128}));
  EXPECT_EQ(r.params(), d->params());
  EXPECT_EQ(r.meta().format_version, kFormatVersion);
  EXPECT_EQ(r.meta().hosts, d->meta().hosts);
  EXPECT_EQ(r.meta().command_line, "network_test -t one_to_one");
  EXPECT_EQ(r.meta().seed, 18446744073709551615ull);
  EXPECT_EQ(r.meta().cpus, (std::vector<int>{0, 1, 0, 1, 0}));
  EXPECT_EQ(r.meta().extra.at("site_note"), "rack 4");
  for (std::size_t k = 0; k < 3; ++k) EXPECT_EQ(r.matrix(k), d->at(k)) << "matrix " << k;
}

TEST(RawFile, LazyAccessorsAgreeWithMatrices) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(4, {0, 10, 20, 30});
  write_raw(dir / "a_median.nc", *d, false);
  RawReader r(dir / "a_median.nc");
  const auto row = r.row(2, 1, 3);
  const auto col = r.column(3, 0, 4);
  ASSERT_EQ(row.size(), 8u);
  ASSERT_EQ(col.size(), 16u);
  for (std::size_t k = 1; k < 3; ++k)
    for (int j = 0; j < 4; ++j) EXPECT_EQ(row[(k - 1) * 4 + j], d->at(k).at(2, j));
  for (std::size_t k = 0; k < 4; ++k)
    for (int i = 0; i < 4; ++i) EXPECT_EQ(col[k * 4 + i], d->at(k).at(i, 3));
  const auto pr = r.pair(1, 2);
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_EQ(pr[k], d->at(k).at(1, 2));
    EXPECT_EQ(r.value(1, 2, k), d->at(k).at(1, 2));
  }
  EXPECT_EQ(r.index_of_length(20), 2);
  EXPECT_EQ(r.index_of_length(25), -1);
  EXPECT_THROW(r.matrix(4), Error);
  EXPECT_THROW(r.row(4, 0, 1), Error);
  EXPECT_THROW(r.row(0, 2, 5), Error);
}

TEST(RawFile, RefusesToOverwriteWithoutForce) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(2, {0});
  write_raw(dir / "x_median.nc", *d, false);
  try {
    write_raw(dir / "x_median.nc", *d, false);
    FAIL() << "overwrote without force";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("--force"), std::string::npos) << e.what();
  }
  EXPECT_NO_THROW(write_raw(dir / "x_median.nc", *d, true));
}

TEST(RawFile, FileCutShortReadsTheRecordsItHas) {
  // A sweep of 5 lengths of which the job completed 2 before being killed with SIGKILL.
  const auto dir = test::scratch_dir();
  const auto path = dir / "killed_average.nc";
  auto d = test::make_dataset(3, {0, 100, 200, 300, 400});
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    RawWriter w(path, d->info(), false);
    w.append(0, d->at(0));
    w.append(100, d->at(1));
    raise(SIGKILL);  // no close, no destructor: as a batch system would do it
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status));
  RawReader r(path);
  EXPECT_EQ(r.params().end_length, 400);  // the sweep asked for more...
  ASSERT_EQ(r.count(), 2u);               // ...the file holds what completed
  EXPECT_EQ(r.lengths(), (std::vector<std::int64_t>{0, 100}));
  EXPECT_EQ(r.matrix(1), d->at(1));
}

TEST(RawFile, ResumeAppendsAfterLastRecordAndChecksParameters) {
  const auto dir = test::scratch_dir();
  const auto path = dir / "r_median.nc";
  auto d = test::make_dataset(3, {0, 100, 200});
  {
    RawWriter w(path, d->info(), false);
    w.append(0, d->at(0));
  }
  {
    auto w = RawWriter::resume(path, d->info());
    EXPECT_EQ(w.records(), 1u);
    w.append(100, d->at(1));
    w.append(200, d->at(2));
  }
  RawReader r(path);
  ASSERT_EQ(r.count(), 3u);
  EXPECT_EQ(r.matrix(2), d->at(2));
  FileInfo other = d->info();
  other.params.num_repeats = 99;
  try {
    RawWriter::resume(path, other);
    FAIL() << "resumed with different parameters";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("num_repeates"), std::string::npos) << e.what();
  }
}

TEST(RawFile, AllSamplesFile) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(2, {8});
  RawWriter w(dir / "s_all.nc", d->info(), false, 3);
  // (x*P + y)*S + s
  std::vector<double> v{0, 0, 0, 1, 5, 3, 2, 9, 4, 0, 0, 0};
  w.append(8, v);
  w.close();
  RawReader r(dir / "s_all.nc");
  EXPECT_EQ(r.samples(), 3);
  EXPECT_EQ(r.params().statistic, Statistic::all);
  EXPECT_EQ(r.samples_of(0, 1, 0), (std::vector<double>{1, 5, 3}));
  EXPECT_DOUBLE_EQ(r.value(0, 1, 0), 3.0);  // the median of the samples
  EXPECT_DOUBLE_EQ(r.value(1, 0, 0), 4.0);
}

TEST(RawFile, HostsFromFileBesideWhenNotInside) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(2, {0});
  d->mutable_info().meta.hosts.clear();
  write_raw(dir / "h_min.nc", *d, false);
  write_hosts(hosts_path(dir / "h"), {"alpha", "beta"}, false);
  RawReader r(dir / "h_min.nc");
  EXPECT_EQ(r.meta().hosts, (std::vector<std::string>{"alpha", "beta"}));
}

TEST(RawFile, NewerFormatVersionIsRefusedNamingBothVersions) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(2, {0});
  d->mutable_info().meta.format_version = kFormatVersion + 1;
  write_raw(dir / "future_median.nc", *d, false);
  try {
    open_dataset(dir / "future_median.nc");
    FAIL() << "opened a file from the future";
  } catch (const FileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("version " + std::to_string(kFormatVersion + 1)), std::string::npos) << msg;
    EXPECT_NE(msg.find("version " + std::to_string(kFormatVersion) + ")"), std::string::npos) << msg;
  }
}

TEST(RawFile, PartlyWrittenLastRecordIsDropped) {
  // A job killed while the OS was still writing its last record: the earlier records stay readable.
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(8, {0, 100, 200});
  write_raw(dir / "p_median.nc", *d, false);
  const auto size = std::filesystem::file_size(dir / "p_median.nc");
  std::filesystem::resize_file(dir / "p_median.nc", size - 100);
  RawReader r(dir / "p_median.nc");
  ASSERT_EQ(r.count(), 2u);
  EXPECT_EQ(r.matrix(1), d->at(1));
}

// A rank that cannot open the result file (too many open files: every simulated rank of one
// smpirun process opens them) says so, instead of calling the file "not a CDF-2 file".
TEST(RawFile, RowWriterTellsUnopenableFromNotCdf2) {
  const auto dir = test::scratch_dir();
  auto message = [](const std::filesystem::path& p) {
    try {
      RawRowWriter w(p, 4, 0, {});
    } catch (const FileError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(dir / "missing.nc").find("cannot open: No such file or directory"), std::string::npos)
      << message(dir / "missing.nc");
  { std::ofstream(dir / "text.nc") << "not netcdf\n"; }
  EXPECT_NE(message(dir / "text.nc").find("is not a CDF-2 file"), std::string::npos) << message(dir / "text.nc");
}

// A statistic file of --concurrent --retest read with its re-tested cells at their isolated values
// (nt::IsolatedWhereRetested, what the analysis reads): every access path (matrix, rows, blocks,
// single values, rows and columns over lengths, pairs) gives the same merged delays, and the file
// itself stays the loaded measurement; cells the reader marks unknown read NaN unless re-tested.
TEST(RawFile, IsolatedWhereRetestedMergesTheSameWayOnEveryAccessPath) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(5, {0, 64, 128});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  RecordExtras extras;
  extras.isolated = true;
  const auto path = dir / "retested_median.nc";
  std::vector<Matrix> merged;
  {
    RawWriter w(path, d->info(), false, 0, extras);
    for (std::size_t k = 0; k < 3; ++k) {
      std::vector<double> iso(25, nan);
      Matrix m = d->at(k);
      for (auto [x, y] : {std::pair{0, 1}, std::pair{3, 4}, std::pair{4, 0}, std::pair{2, static_cast<int>(k + 3) % 5}}) {
        iso[static_cast<std::size_t>(x * 5 + y)] = 1e-3 * (x + 1) + 1e-5 * y + 1e-7 * static_cast<double>(k);
        m.at(x, y) = iso[static_cast<std::size_t>(x * 5 + y)];
      }
      merged.push_back(m);
      w.append(d->lengths()[k], d->at(k).values(), {}, {}, iso);
    }
    w.close();
  }
  std::shared_ptr<const Dataset> file = open_dataset(path);
  ASSERT_TRUE(has_isolated_values(*file));
  const IsolatedWhereRetested v(file);
  EXPECT_EQ(v.lengths(), file->lengths());
  EXPECT_EQ(v.params(), file->params());
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(file->matrix(k), d->at(k)) << "the file stays loaded, length " << k;
    EXPECT_EQ(v.matrix(k), merged[k]) << k;
    EXPECT_EQ(v.retested(k).size(), 4u);
    const auto rows = v.rows(k, 2, 5);
    EXPECT_EQ(rows, std::vector<double>(merged[k].values().begin() + 10, merged[k].values().end())) << k;
    std::vector<double> block(6);
    v.block(k, 2, 3, 0, 2, block.data());
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 2; ++j) EXPECT_EQ(block[static_cast<std::size_t>(i * 2 + j)], merged[k].at(2 + i, j)) << k;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) EXPECT_EQ(v.value(i, j, k), merged[k].at(i, j)) << k << " " << i << " " << j;
  }
  const auto col = v.column(0, 0, 3), row = v.row(4, 0, 3), pair = v.pair(3, 4);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_EQ(col[k * 5 + 4], merged[k].at(4, 0));
    EXPECT_EQ(row[k * 5 + 0], merged[k].at(4, 0));
    EXPECT_EQ(pair[k], merged[k].at(3, 4));
  }
  // Cells marked unknown read NaN on every path unless re-tested: (1, 2) and (0, 1), re-tested.
  std::vector<std::vector<bool>> unknown(3, std::vector<bool>(25, false));
  for (auto& u : unknown) u[1 * 5 + 2] = u[0 * 5 + 1] = true;
  unknown[1].clear();  // length 1: none
  const IsolatedWhereRetested w(file, unknown);
  for (std::size_t k = 0; k < 3; ++k) {
    Matrix want = merged[k];
    if (k != 1) want.at(1, 2) = std::nan("");
    EXPECT_EQ(w.unknown(k, 1 * 5 + 2), k != 1) << k;
    EXPECT_EQ(w.unknown(k, 0 * 5 + 1), k != 1) << k;  // marked, yet re-tested: reads its isolated value
    const auto same = [](double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; };
    const Matrix got = w.matrix(k);
    const auto rows = w.rows(k, 1, 2);
    std::vector<double> block(4);
    w.block(k, 0, 2, 1, 2, block.data());
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 5; ++j) {
        EXPECT_TRUE(same(got.at(i, j), want.at(i, j))) << k << " " << i << " " << j;
        EXPECT_TRUE(same(w.value(i, j, k), want.at(i, j))) << k << " " << i << " " << j;
      }
    for (int j = 0; j < 5; ++j) EXPECT_TRUE(same(rows[static_cast<std::size_t>(j)], want.at(1, j))) << k << " " << j;
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 2; ++j)
        EXPECT_TRUE(same(block[static_cast<std::size_t>(i * 2 + j)], want.at(i, 1 + j))) << k << " " << i << " " << j;
  }
  EXPECT_FALSE(has_isolated_values(*test::make_dataset(3, {0})));
}
