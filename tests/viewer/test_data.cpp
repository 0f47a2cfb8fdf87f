// The viewer's data layer on its own: this program links nt_viewer_data and no Qt GUI
// module, creates no QGuiApplication (nor any application object), opens real NetCDF result
// files and computes views. Each check compares what the view holds (grey pixels, values,
// levels, curves) with the values written to the file.
#include <gtest/gtest.h>

#include <QCoreApplication>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "exact_raw.hpp"
#include "nt/viewer/document.hpp"
#include "nt/viewer/pyramid.hpp"

namespace fs = std::filesystem;
using namespace nt::viewer;

namespace {

constexpr int P = 6;
const std::vector<std::int64_t> kLengths{0, 1024, 65536};

// Distinct delays: sender, receiver and length each change the value; the diagonal is 0.
double delay(int i, int j, std::size_t k) {
  return i == j ? 0.0 : 1e-6 * (1.0 + i + 0.25 * j) * static_cast<double>(k + 1);
}

class DataLayer : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("nt_viewer_data_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    path_ = fixtures::exact_raw(dir_ / "exact_average.nc", P, kLengths, delay);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static inline fs::path dir_, path_;
};

// Whether a shared library whose name contains `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line))
    if (line.find(name) != std::string::npos) return true;
  return false;
}

TEST_F(DataLayer, RunsWithoutQtGui) {
  // Opening and rendering first, so that anything they loaded would show in the maps.
  auto doc = Document::open(path_);
  ViewSpec s;
  (void)doc->render(s);
  EXPECT_TRUE(mapped("libQt6Core")) << "the data layer uses Qt Core (QString)";
  EXPECT_FALSE(mapped("libQt6Gui"));
  EXPECT_FALSE(mapped("libQt6Widgets"));
  EXPECT_EQ(QCoreApplication::instance(), nullptr);
}

TEST_F(DataLayer, TheFileIsNetCdf) {
  std::ifstream f(path_, std::ios::binary);
  std::string magic(4, '\0');
  f.read(magic.data(), 4);
  EXPECT_TRUE(magic.rfind("CDF", 0) == 0 || magic == "\x89HDF") << "magic " << magic;
}

// The matrix view: one grey pixel per cell, the largest off-diagonal delay black, the smallest
// white, every pixel the levels' grey of the file's value, and the values behind the pixels.
TEST_F(DataLayer, MatrixViewPixelsAndValuesAreTheFiles) {
  auto doc = Document::open(path_);
  ASSERT_EQ(doc->ranks(), P);
  ASSERT_EQ(doc->lengths(), kLengths);
  for (std::size_t k = 0; k < kLengths.size(); ++k) {
    ViewSpec s;
    s.k = k;
    const ViewResult r = doc->render(s);
    ASSERT_FALSE(r.plot);
    ASSERT_EQ(r.cells.width, P);
    ASSERT_EQ(r.cells.height, P);
    ASSERT_TRUE(r.values);
    // Levels over the off-diagonal values: (0, 1) is the smallest delay, (P-1, P-2) the largest.
    EXPECT_DOUBLE_EQ(r.levels.white, delay(0, 1, k));
    EXPECT_DOUBLE_EQ(r.levels.black, delay(P - 1, P - 2, k));
    EXPECT_EQ(r.cells.at(1, 0), 255);
    EXPECT_EQ(r.cells.at(P - 2, P - 1), 0);
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        EXPECT_DOUBLE_EQ(r.value_at(i, j), delay(i, j, k)) << i << "," << j;
        if (i != j) {
          EXPECT_EQ(r.cells.at(j, i), r.levels.gray(delay(i, j, k))) << i << "," << j;
        }
      }
    // A slower sender is darker down a column: rank i+1 sends slower than rank i.
    EXPECT_LT(r.cells.at(0, 3), r.cells.at(0, 2));
  }
}

// Row view: message lengths down, receivers across, the sender's delays.
TEST_F(DataLayer, RowViewHoldsTheSendersDelays) {
  auto doc = Document::open(path_);
  ViewSpec s;
  s.view = ViewKind::row;
  s.rank = 2;
  const ViewResult r = doc->render(s);
  ASSERT_EQ(r.rows, static_cast<int>(kLengths.size()));
  ASSERT_EQ(r.cols, P);
  EXPECT_EQ(r.row_lengths, kLengths);
  for (int k = 0; k < r.rows; ++k)
    for (int j = 0; j < P; ++j) EXPECT_DOUBLE_EQ(r.value_at(k, j), delay(2, j, static_cast<std::size_t>(k)));
}

// Streamed and reduced (no values kept): each pixel is the darkest grey of its block, and the
// probe reads the exact values from the file.
TEST_F(DataLayer, StreamedReducedViewMatchesTheFullOne) {
  auto full = Document::open(path_);
  auto streamed = Document::open(path_);
  ViewSpec s;
  s.k = 2;
  const ViewResult a = full->render(s);
  s.fit = 3;
  const ViewResult b = streamed->render(s);
  ASSERT_EQ(b.pool, 2);
  ASSERT_FALSE(b.values);
  ASSERT_TRUE(b.probe);
  ASSERT_EQ(b.cells.width, 3);
  for (int by = 0; by < 3; ++by)
    for (int bx = 0; bx < 3; ++bx) {
      int darkest = 255;
      for (int y = 2 * by; y < 2 * by + 2; ++y)
        for (int x = 2 * bx; x < 2 * bx + 2; ++x) darkest = std::min<int>(darkest, a.cells.at(x, y));
      EXPECT_EQ(b.cells.at(bx, by), darkest) << bx << "," << by;
    }
  EXPECT_EQ(reduce_cells(a.cells, 2, Reduce::max, nullptr, a.values.get()).first, b.cells);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) EXPECT_DOUBLE_EQ(b.value_at(i, j), delay(i, j, 2));
}

// The pair view is data here: curves of the file's delays and the plot's words, no picture.
TEST_F(DataLayer, PairViewHoldsCurvesNotAPicture) {
  auto doc = Document::open(path_);
  doc->set_plot_size(640, 400);
  ViewSpec s;
  s.view = ViewKind::pair;
  std::tie(s.sender, s.receiver) = std::pair{4, 1};
  s.more_pairs = {{0, 5}};
  const ViewResult r = doc->render(s);
  ASSERT_TRUE(r.plot);
  EXPECT_TRUE(r.cells.empty());
  EXPECT_EQ(r.plot_width, 640);
  EXPECT_EQ(r.plot_height, 400);
  EXPECT_FALSE(r.plot_style.title.isEmpty());
  ASSERT_EQ(r.curves.size(), 2u);
  const std::pair<int, int> pairs[] = {{4, 1}, {0, 5}};
  for (std::size_t c = 0; c < 2; ++c) {
    EXPECT_EQ(r.curves[c].sender, pairs[c].first);
    EXPECT_EQ(r.curves[c].receiver, pairs[c].second);
    EXPECT_EQ(r.curves[c].color, c);
    EXPECT_EQ(r.curves[c].lengths, kLengths);
    for (std::size_t k = 0; k < kLengths.size(); ++k)
      EXPECT_DOUBLE_EQ(r.curves[c].y[k], delay(pairs[c].first, pairs[c].second, k));
  }
}

}  // namespace
