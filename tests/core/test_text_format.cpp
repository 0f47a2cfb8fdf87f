#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>

#include "nt/error.hpp"
#include "nt/raw_file.hpp"
#include "nt/text_format.hpp"
#include "test_util.hpp"

using namespace nt;

namespace {
bool bitwise_equal(const Matrix& a, const Matrix& b) {
  return a.ranks() == b.ranks() &&
         std::memcmp(a.data(), b.data(), a.values().size() * sizeof(double)) == 0;
}
std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}
}  // namespace

TEST(TextFormat, TextToNetcdfToTextIsExact) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(4, {0, 100, 200});
  // Values the original's %f would have destroyed.
  d->at(0).at(1, 2) = 1.0 / 3.0 * 1e-7;
  d->at(1).at(2, 1) = std::numeric_limits<double>::denorm_min();
  d->at(2).at(3, 0) = 123456.789012345678;
  write_text(dir / "a.txt", *d, false);
  const auto t1 = read_text(dir / "a.txt");
  write_raw(dir / "b_median.nc", *t1, false);
  const auto n = open_dataset(dir / "b_median.nc");
  write_text(dir / "c.txt", *n, false);
  EXPECT_EQ(slurp(dir / "a.txt"), slurp(dir / "c.txt"));
  const auto t2 = read_text(dir / "c.txt");
  ASSERT_EQ(t2->count(), 3u);
  for (std::size_t k = 0; k < 3; ++k) {
    EXPECT_TRUE(bitwise_equal(t2->at(k), d->at(k))) << "matrix " << k;
    EXPECT_TRUE(bitwise_equal(n->matrix(k), d->at(k))) << "matrix " << k;
  }
  EXPECT_EQ(t2->params(), d->params());
  EXPECT_EQ(t2->meta().hosts, d->meta().hosts);
  EXPECT_EQ(t2->lengths(), d->lengths());
}

TEST(TextFormat, HeaderLayoutOfTheOriginal) {
  auto d = test::make_dataset(2, {16});
  std::ostringstream out;
  write_text(out, *d);
  const std::string s = out.str();
  for (const char* needle : {"processors 2\n", "test type \"one_to_one\"\n", "data type \"median\"\n",
                             "begin message length 16\n", "end message length 16\n", "step length 0\n",
                             "noise message length 0\n", "number of noise messages 0\n",
                             "number of noise processes 0\n", "number of repeates 7\n", "hosts:\nhost0\nhost0\n",
                             "Message length 16\n0\t"})
    EXPECT_NE(s.find(needle), std::string::npos) << "missing '" << needle << "' in\n" << s;
}

TEST(TextFormat, OriginalTextFilesAreMappedToOurOrientation) {
  // The original's text has no orientation line and rows = measuring rank (receiver here).
  std::istringstream in(
      "processors 2\ntest type \"one_to_one\"\ndata type \"average\"\nbegin message length 0\n"
      "end message length 0\nstep length 100\nnoise message length 0\nnumber of noise messages 0\n"
      "number of noise processes 0\nnumber of repeates 10\nhosts:\nn1\nn2\nMessage length 0\n"
      "0.000000\t0.000005\n0.000009\t0.000000\n");
  const auto d = read_text(in, "legacy.txt");
  EXPECT_EQ(d->meta().format_version, 0);
  // Row 0 of the file is what rank 0 received: from rank 1 it took 5 us.
  EXPECT_DOUBLE_EQ(d->value(1, 0, 0), 0.000005);
  EXPECT_DOUBLE_EQ(d->value(0, 1, 0), 0.000009);
}

TEST(TextFormat, ErrorsNameTheLine) {
  std::istringstream in("processors 2\ntest type \"one_to_one\"\nMessage length 0\n1\t2\n3\n");
  try {
    read_text(in, "bad.txt");
    FAIL();
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.txt: line 5"), std::string::npos) << e.what();
  }
  std::istringstream bogus("processors 2\ntest type \"warp_drive\"\n");
  EXPECT_THROW(read_text(bogus, "bogus.txt"), FileError);
  std::istringstream empty("");
  EXPECT_THROW(read_text(empty, "empty.txt"), FileError);
}
