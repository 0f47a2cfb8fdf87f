// A legacy network_test2 file, built here from the published layout: the ten int scalars,
// data(n, x, y) with n unlimited, no format_version, no message_length, and row = the rank
// that measured (the receiver for one_to_one, the origin for put).
#include <gtest/gtest.h>

#include "legacy_fixture.hpp"
#include "nt/raw_file.hpp"
#include "test_util.hpp"

using namespace nt;

namespace {

// file value at [k][row][col] = 1e-6 * (100*k + 10*row + col), stored as network_test2 did (CDF-1,
// rows are the measuring rank, end_mes_length past the last record).
void make_legacy(const std::filesystem::path& path, int type, int P, int begin, int step, int records) {
  fixtures::LegacySpec s;
  s.ranks = P;
  s.test_type = type;
  s.begin = begin;
  s.step = step;
  s.count = records;
  s.end = begin + step * (records + 3);
  s.num_repeats = 100;
  s.classic = true;
  s.value = [](int sender, int receiver, int k) { return 1e-6 * (100 * k + 10 * receiver + sender); };
  fixtures::write_legacy_file(path, s);
}

}  // namespace

TEST(Legacy, OneToOneIsTransposedAndLengthsDerived) {
  const auto dir = test::scratch_dir();
  make_legacy(dir / "old.nc", 1, 3, 100, 50, 4);
  const auto d = open_dataset(dir / "old.nc");
  EXPECT_EQ(d->format(), "legacy");
  EXPECT_EQ(d->meta().format_version, 0);
  EXPECT_EQ(d->params().mode, Mode::one_to_one);
  EXPECT_EQ(d->lengths(), (std::vector<std::int64_t>{100, 150, 200, 250}));
  // File row 2 = receiver 2; column 0 = sender 0. So our (0 -> 2) at k=1 is file[1][2][0].
  EXPECT_DOUBLE_EQ(d->value(0, 2, 1), 1e-6 * (100 + 20 + 0));
  EXPECT_DOUBLE_EQ(d->matrix(3).at(0, 2), 1e-6 * (300 + 20));
  const auto row = d->row(0, 0, 1);  // what rank 0 sends = column 0 of the file
  EXPECT_DOUBLE_EQ(row[1], 1e-6 * 10);
  EXPECT_DOUBLE_EQ(row[2], 1e-6 * 20);
  const auto col = d->column(1, 2, 3);  // what rank 1 receives = row 1 of the file
  EXPECT_DOUBLE_EQ(col[0], 1e-6 * (200 + 10 + 0));
  EXPECT_DOUBLE_EQ(col[2], 1e-6 * (200 + 10 + 2));
  EXPECT_DOUBLE_EQ(d->pair(2, 1)[3], 1e-6 * (300 + 10 + 2));
}

TEST(Legacy, PutIsNotTransposed) {
  const auto dir = test::scratch_dir();
  make_legacy(dir / "put.nc", 8, 2, 0, 10, 2);
  const auto d = open_dataset(dir / "put.nc");
  EXPECT_EQ(d->params().mode, Mode::put);
  EXPECT_DOUBLE_EQ(d->value(0, 1, 1), 1e-6 * (100 + 0 + 1));  // origin row 0
}

TEST(Legacy, UpgradedCopyKeepsOrientationAndStoresLengths) {
  const auto dir = test::scratch_dir();
  make_legacy(dir / "old.nc", 1, 3, 0, 64, 2);
  const auto d = open_dataset(dir / "old.nc");
  write_raw(dir / "new_average.nc", *d, false);
  const auto u = open_dataset(dir / "new_average.nc");
  EXPECT_EQ(u->format(), "raw");
  EXPECT_EQ(u->meta().format_version, kFormatVersion);
  EXPECT_EQ(u->lengths(), d->lengths());
  for (std::size_t k = 0; k < 2; ++k) EXPECT_EQ(u->matrix(k), d->matrix(k));
}
