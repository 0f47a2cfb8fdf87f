// Broken inputs: every one gives a FileError with the file name, never a crash.
#include <gtest/gtest.h>

#include <fstream>
#include <random>

#include "nt/error.hpp"
#include "nt/raw_file.hpp"
#include "test_util.hpp"

using namespace nt;

namespace {
void expect_clear_error(const std::filesystem::path& p, const std::string& fragment) {
  try {
    auto d = open_dataset(p);
    // Opening lazily may succeed; reading every matrix must then fail cleanly.
    for (std::size_t k = 0; k < d->count(); ++k) (void)d->matrix(k);
    FAIL() << p << " opened and read without error";
  } catch (const FileError& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(p.filename().string()), std::string::npos) << msg;
    EXPECT_NE(msg.find(fragment), std::string::npos) << msg;
  }
}
}  // namespace

TEST(BrokenFiles, Missing) { expect_clear_error(test::scratch_dir() / "nope.nc", "no such file"); }

TEST(BrokenFiles, Empty) {
  const auto p = test::scratch_dir() / "empty.nc";
  std::ofstream(p).close();
  expect_clear_error(p, "empty");
}

TEST(BrokenFiles, RandomBytes) {
  const auto p = test::scratch_dir() / "random.nc";
  std::mt19937 rng(42);
  std::ofstream out(p, std::ios::binary);
  for (int i = 0; i < 4096; ++i) out.put(static_cast<char>(rng() & 0xff));
  out.close();
  expect_clear_error(p, "not a result file");
}

TEST(BrokenFiles, RandomBytesBehindACdfMagic) {
  const auto p = test::scratch_dir() / "fake.nc";
  std::mt19937 rng(7);
  std::ofstream out(p, std::ios::binary);
  out.write("CDF\x02", 4);
  for (int i = 0; i < 4096; ++i) out.put(static_cast<char>(rng() & 0xff));
  out.close();
  expect_clear_error(p, "");
}

TEST(BrokenFiles, Truncated) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(16, {0, 100, 200, 300});
  write_raw(dir / "full_median.nc", *d, false);
  const auto size = std::filesystem::file_size(dir / "full_median.nc");
  for (const auto keep : {size / 2, std::uintmax_t{100}, std::uintmax_t{6}}) {
    std::filesystem::copy_file(dir / "full_median.nc", dir / "cut_median.nc",
                               std::filesystem::copy_options::overwrite_existing);
    std::filesystem::resize_file(dir / "cut_median.nc", keep);
    expect_clear_error(dir / "cut_median.nc", "");
  }
}

TEST(BrokenFiles, NetcdfWithoutOurVariables) {
  const auto p = test::scratch_dir() / "other.nc";
  auto f = nc::File::create(p, nc::Kind::cdf2, false);
  f.def_dim("time", 3);
  f.close();
  expect_clear_error(p, "proc_num");
}

TEST(BrokenFiles, Directory) { expect_clear_error(test::scratch_dir(), "directory"); }

// A run of many ranks killed (or read) before its first length is written: the file is its header
// alone, smaller than one P x P record. That is an empty result, not a corrupt file.
TEST(BrokenFiles, NoRecordYetOfALargeRun) {
  const auto dir = test::scratch_dir();
  const auto p = dir / "early_median.nc";
  write_raw(p, *test::make_dataset(256, {0, 1024}), false);
  const auto layout = nc::classic_layout(p);
  ASSERT_TRUE(layout);
  ASSERT_GT(layout->record_size, layout->records_begin);  // one record is larger than the header
  {
    std::fstream f(p, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(4);
    f.write("\0\0\0\0", 4);  // numrecs = 0
  }
  std::filesystem::resize_file(p, layout->records_begin);
  auto d = open_dataset(p);
  EXPECT_EQ(d->count(), 0U);
  EXPECT_EQ(d->ranks(), 256);
}
