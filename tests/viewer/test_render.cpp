// Renderer building blocks: grey mapping, scaling, decorations, group overlays.
#include <QtTest>

#include <cmath>
#include <limits>

#include <algorithm>
#include <random>

#include "nt/viewer/pyramid.hpp"
#include "nt/viewer/render.hpp"

using namespace nt::viewer;

class TestRender : public QObject {
  Q_OBJECT
 private slots:
  void levelsMapLargerToDarker() {
    Levels lv{1.0, 3.0, false};
    QCOMPARE(lv.gray(1.0), static_cast<unsigned char>(255));
    QCOMPARE(lv.gray(3.0), static_cast<unsigned char>(0));
    QCOMPARE(lv.gray(2.0), static_cast<unsigned char>(127));
    QCOMPARE(lv.gray(0.0), static_cast<unsigned char>(255));  // clamped
    QCOMPARE(lv.gray(9.0), static_cast<unsigned char>(0));
    QCOMPARE(lv.gray(std::numeric_limits<double>::quiet_NaN()), static_cast<unsigned char>(255));
    Levels lg{1e-6, 1e-4, true};
    QVERIFY(std::abs(int(lg.gray(1e-5)) - 127) <= 1);  // half way in log10
    QCOMPARE(lg.gray(0.0), static_cast<unsigned char>(255));
    Levels flat{2.0, 2.0, false};
    QCOMPARE(flat.gray(2.0), static_cast<unsigned char>(127));
    QCOMPARE(flat.gray(2.5), static_cast<unsigned char>(0));
  }

  void rangeSkipsDiagonalAndNonFinite() {
    const std::vector<double> v{100, 1, 2, 3, 100, std::numeric_limits<double>::quiet_NaN(), 4, 5, 100};
    const Range r = range_of(v, 3, 3, ViewResult::kDiagIsRow);
    QCOMPARE(r.lo, 1.0);
    QCOMPARE(r.hi, 5.0);
    const Range c = range_of(v, 3, 3, 0);  // fixed diagonal column 0
    QCOMPARE(c.hi, 100.0);
    QCOMPARE(c.lo, 1.0);
    const Levels s = levels_from(Range{-1.0, 3.0, 3.0}, false, true);
    QCOMPARE(s.white, -3.0);
    QCOMPARE(s.black, 3.0);
    const Levels e = levels_from(Range{}, false, false);
    QCOMPARE(e.white, 0.0);
    QCOMPARE(e.black, 1.0);
  }

  void composeScalesAndDecorates() {
    ViewResult r;
    r.rows = r.cols = 4;
    std::vector<double> v(16);
    for (int i = 0; i < 16; ++i) v[static_cast<std::size_t>(i)] = i;
    r.levels = Levels{0, 15, false};
    r.cells = cells_image(v, 4, 4, r.levels);
    r.title = QStringLiteral("title");
    const QImage plain = compose(r, {});
    QCOMPARE(plain.size(), QSize(4, 4));
    QCOMPARE(qGray(plain.pixel(0, 0)), 255);
    QCOMPARE(qGray(plain.pixel(3, 3)), 0);
    // The fast linear path and Levels::gray agree on every cell.
    for (int i = 0; i < 16; ++i) QCOMPARE(qGray(plain.pixel(i % 4, i / 4)), int(r.levels.gray(v[static_cast<std::size_t>(i)])));
    const QImage big = compose(r, {64, false, nullptr});
    QCOMPARE(big.size(), QSize(64, 64));
    // Nearest-neighbour scaling keeps every cell a flat block.
    QCOMPARE(big.pixel(0, 0), big.pixel(15, 15));
    QCOMPARE(big.pixel(63, 63), plain.pixel(3, 3));
    const QImage deco = compose(r, {0, true, nullptr});
    QVERIFY(deco.width() > 512 && deco.height() > 512);
    // Non-square grids keep their aspect ratio.
    ViewResult w = r;
    w.rows = 2;
    w.cells = cells_image(v, 2, 8, r.levels);
    w.cols = 8;
    QCOMPARE(compose(w, {80, false, nullptr}).size(), QSize(80, 20));
  }

  void colorbarTicksAreRoundAndInside() {
    const auto t = colorbar_ticks(Levels{3e-6, 47e-6, false}, 6);
    QVERIFY(t.size() >= 3);
    for (double v : t) {
      QVERIFY(v >= 3e-6 && v <= 47e-6);
      const double m = v / std::pow(10.0, std::floor(std::log10(v)));  // mantissa 1, 2 or 5 steps
      QVERIFY2(std::abs(m - std::round(m)) < 1e-9, qPrintable(QString::number(v)));
    }
    QCOMPARE(t[1] - t[0], t[2] - t[1]);
    // Log: decades inside the range.
    const auto l = colorbar_ticks(Levels{2e-6, 3e-3, true}, 6);
    QCOMPARE(l.size(), std::size_t(3));
    QCOMPARE(l[0], 1e-5);
    QCOMPARE(l[2], 1e-3);
    // Short log range: 1-2-5 inside one decade.
    const auto s = colorbar_ticks(Levels{1.5e-6, 9e-6, true}, 6);
    QCOMPARE(s.size(), std::size_t(2));
    QCOMPARE(s[0], 2e-6);
    QCOMPARE(s[1], 5e-6);
  }

  // The ratio view (A / B): levels log-symmetric around 1, the diverging map white at 1, and a
  // bar whose ticks pair each factor f with 1/f.
  void ratioBarIsCentredOnOne() {
    for (double m : {1.3, 4.0, 37.0, 5000.0}) {
      const Levels lv = ratio_levels(Range{1.0 / m, m, 1.0 / m});
      QVERIFY(lv.log);
      QVERIFY(std::abs(lv.white * lv.black - 1.0) < 1e-12);
      QCOMPARE(lv.darkness(1.0), 0.5);
      const auto t = factor_ticks(lv, 9);
      QVERIFY2(t.size() >= 3 && t.size() <= 9, qPrintable(QString::number(t.size())));
      QVERIFY(std::find(t.begin(), t.end(), 1.0) != t.end());
      for (double v : t) {
        QVERIFY(v >= lv.white * (1 - 1e-9) && v <= lv.black * (1 + 1e-9));
        // Every factor above 1 has its reciprocal below, at the mirrored height of the bar.
        QVERIFY(std::any_of(t.begin(), t.end(), [&](double u) { return std::abs(u * v - 1.0) < 1e-9; }));
        QVERIFY(std::abs(lv.darkness(v) + lv.darkness(1.0 / v) - 1.0) < 1e-9);
      }
    }
    QCOMPARE(factor_ticks(ratio_levels(Range{0.25, 4, 0.25}), 9), (std::vector<double>{0.25, 0.5, 1.0, 2.0, 4.0}));
    QCOMPARE(format_factor(2.0), QString::fromUtf8("×2"));
    QCOMPARE(format_factor(0.5), QString::fromUtf8("×0.5"));
    // Decorated: the cells of ratio 1 are the map's white, faster (< 1) blue, slower red.
    ViewResult r;
    r.spec.view = ViewKind::ratio;
    r.rows = r.cols = 3;
    std::vector<double> v{0, 0.5, 1.0, 2.0, 0, 1.0, 1.0, 1.0, 0};
    r.levels = ratio_levels(range_of(v, 3, 3, ViewResult::kDiagIsRow));
    r.cells = cells_image(v, 3, 3, r.levels);
    r.values = std::make_shared<const std::vector<double>>(v);
    QVERIFY(r.symmetric());
    QCOMPARE(r.unit(), ValueUnit::factor);
    const QImage img = compose(r, {3, false, nullptr, nullptr, Colormap::automatic, false});
    for (int ch : {qRed(img.pixel(2, 0)), qGreen(img.pixel(2, 0)), qBlue(img.pixel(2, 0))}) QVERIFY(std::abs(ch - 0xf7) <= 3);
    QVERIFY(qBlue(img.pixel(1, 0)) > qRed(img.pixel(1, 0)) + 40);
    QVERIFY(qRed(img.pixel(0, 1)) > qBlue(img.pixel(0, 1)) + 40);
  }

  void colormapsAndNoData() {
    // Reversed viridis: high = dark purple, low = yellow; diverging: blue, white, red.
    QCOMPARE(QColor(colormap_rgb(Colormap::viridis, 1.0)), QColor(0x44, 0x01, 0x54));
    QCOMPARE(QColor(colormap_rgb(Colormap::viridis, 0.0)), QColor(0xfd, 0xe7, 0x25));
    QCOMPARE(QColor(colormap_rgb(Colormap::diverging, 0.5)), QColor(0xf7, 0xf7, 0xf7));
    QVERIFY(qBlue(colormap_rgb(Colormap::diverging, 0.0)) > qRed(colormap_rgb(Colormap::diverging, 0.0)));
    QCOMPARE(resolve_colormap(Colormap::automatic, true), Colormap::diverging);
    // Lightness falls monotonically along the reversed viridis (perceptual order kept).
    double prev = 1e9;
    for (int i = 0; i <= 16; ++i) {
      const double l = qGray(colormap_rgb(Colormap::viridis, i / 16.0));  // luma
      QVERIFY(l <= prev + 1e-9);
      prev = l;
    }
    // A NaN cell gets the no-data colour, which no level of the map has.
    std::vector<double> v{1, std::nan(""), 3, 4};
    const Levels lv{1, 4, false};
    const QImage c = colorize(cells_image(v, 2, 2, lv), Colormap::viridis, &v);
    QCOMPARE(c.pixel(1, 0), no_data_rgb(Colormap::viridis));
    for (int g = 0; g < 256; ++g) QVERIFY(colormap_rgb(Colormap::viridis, g / 255.0) != no_data_rgb(Colormap::viridis));
  }

  void darkestPoolKeepsSingleSlowCells() {
    std::vector<double> v(100 * 100, 1.0);
    v[37 * 100 + 62] = 9.0;  // one slow link
    const GreyImage cells = cells_image(v, 100, 100, Levels{1.0, 9.0, false});
    const QImage small = to_qimage(darkest_pool(cells, 8));
    QCOMPARE(small.size(), QSize(13, 13));
    QCOMPARE(qGray(small.pixel(62 / 8, 37 / 8)), 0);
    QCOMPARE(qGray(small.pixel(0, 0)), 255);
    QCOMPARE(qGray(small.pixel(12, 12)), 255);  // partial edge block
    // Plain nearest-neighbour scaling loses it.
    const QImage nn = to_qimage(cells).scaled(13, 13, Qt::IgnoreAspectRatio, Qt::FastTransformation);
    int dark = 0;
    for (int y = 0; y < 13; ++y)
      for (int x = 0; x < 13; ++x) dark += qGray(nn.pixel(x, y)) < 128;
    QCOMPARE(dark, 0);
    // compose() shrinks the same way for --render --size.
    ViewResult r;
    r.rows = r.cols = 100;
    r.cells = cells;
    const QImage c = compose(r, {25, false, nullptr});
    QCOMPARE(c.size(), QSize(25, 25));
    QCOMPARE(qGray(c.pixel(62 / 4, 37 / 4)), 0);
  }

  void groupOverlayOutlinesBlocks() {
    ViewResult r;
    r.rows = r.cols = 8;
    std::vector<double> v(64, 0.0);
    r.levels = Levels{0, 1, false};
    r.cells = cells_image(v, 8, 8, r.levels);  // all white
    const std::vector<std::vector<int>> groups{{0, 1, 2, 3}, {4, 5, 6, 7}};
    const QImage img = compose(r, {80, false, &groups});
    QCOMPARE(img.size(), QSize(80, 80));
    // Block borders are coloured, block interiors and off-group cells stay white.
    const QColor edge = img.pixelColor(0, 20);
    QVERIFY(edge != QColor(Qt::white));
    QCOMPARE(edge, img.pixelColor(20, 0));
    QCOMPARE(img.pixelColor(20, 20), QColor(Qt::white));
    QCOMPARE(img.pixelColor(60, 20), QColor(Qt::white));  // (row 2, col 6): no group spans it
    QVERIFY(img.pixelColor(79, 60) != QColor(Qt::white));
    QVERIFY(group_color(0) != group_color(1));
  }

  // Scattered groups (a shuffled run in rank order: thousands of tiny blocks) are outlined pixel
  // by pixel: at one pixel per cell, every cell of a block (rank i and j in one group) is an
  // isolated block border in its group's colour, and no other cell is touched.
  void scatteredGroupsOutlinedPerPixel() {
    constexpr int P = 256;
    ViewResult r;
    r.rows = r.cols = P;
    std::vector<double> v(P * P, 0.0);
    r.levels = Levels{0, 1, false};
    r.cells = cells_image(v, P, P, r.levels);  // all white
    std::vector<std::vector<int>> groups(8);  // rank i in group i % 8: 32 runs each, 8192 blocks
    for (int i = 0; i < P; ++i) groups[static_cast<std::size_t>(i % 8)].push_back(i);
    const QImage img = compose(r, {P, false, &groups});
    QCOMPARE(img.size(), QSize(P, P));
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        const QColor want = i % 8 == j % 8 ? group_color(static_cast<std::size_t>(i % 8)) : QColor(Qt::white);
        if (img.pixel(j, i) != want.rgb())
          QFAIL(qPrintable(QStringLiteral("cell %1,%2: %3, expected %4").arg(i).arg(j).arg(img.pixelColor(j, i).name(), want.name())));
      }
    // Ordered by group, the same groups are 8 contiguous blocks, drawn as rectangles again.
    std::vector<std::vector<int>> contiguous(8);
    for (int i = 0; i < P; ++i) contiguous[static_cast<std::size_t>(i / 32)].push_back(i);
    const QImage blocks = compose(r, {P, false, &contiguous});
    QCOMPARE(blocks.pixelColor(16, 16), QColor(Qt::white));      // inside block 0
    QVERIFY(blocks.pixelColor(0, 16) != QColor(Qt::white));       // its left edge
    QCOMPARE(blocks.pixelColor(40, 16), QColor(Qt::white));      // rows of group 0, columns of group 1
  }

  // The level-of-detail pyramid on a 6 x 6 image of known grey levels (darker = larger value):
  // max = the darkest cell of a block, median = the median of the cells with data (the darker
  // middle one of an even count), a block without data white and marked; partial blocks at the
  // edges; and every block of every level against a plain sort of its cells.
  void pyramidMaxAndMedianOfBlocks() {
    constexpr int N = 6;
    const int g[N][N] = {{10, 200, 30, 90, 255, 100},  //
                         {50, 120, 250, 70, 255, 20},
                         {80, 140, 160, 180, 220, 230},
                         {90, 100, 0, 210, 240, 245},
                         {15, 25, 35, 45, 255, 255},
                         {55, 65, 75, 85, 255, 255}};
    GreyImage cells(N, N);
    auto nodata = std::make_shared<CellMask>(N, N);
    for (int y = 0; y < N; ++y)
      for (int x = 0; x < N; ++x) cells.row(y)[x] = static_cast<std::uint8_t>(g[y][x]);
    // No data: (0,4), (1,4) and the block rows 4-5 x cols 4-5 (white, 255, in the image).
    for (auto [x, y] : {std::pair{4, 0}, {4, 1}, {4, 4}, {5, 4}, {4, 5}, {5, 5}}) nodata->set(x, y);
    Pyramid pyr(cells, nodata, nullptr);
    QCOMPARE(pyr.levels(), 4);  // 6, 3, 2, 1 pixels a side
    const auto px = [](const Pyramid::Level& l, int x, int y) { return int(l.grey.at(x, y)); };
    const Pyramid::Level& m1 = pyr.level(1, Reduce::max);
    const Pyramid::Level& d1 = pyr.level(1, Reduce::median);
    QCOMPARE(QSize(m1.grey.width, m1.grey.height), QSize(3, 3));
    // Block (0,0): 10, 200, 50, 120.
    QCOMPARE(px(m1, 0, 0), 10);
    QCOMPARE(px(d1, 0, 0), 50);  // sorted 10 50 120 200: the darker middle one
    // Block rows 0-1 x cols 4-5: two cells without data, 100 and 20 with data.
    QCOMPARE(px(m1, 2, 0), 20);
    QCOMPARE(px(d1, 2, 0), 20);  // {20, 100}: not 100, which counting the empty cells as white would give
    QVERIFY(!d1.nodata.at(2, 0));
    // Block rows 4-5 x cols 4-5: no data at all.
    QCOMPARE(px(m1, 2, 2), 255);
    QCOMPARE(px(d1, 2, 2), 255);
    QVERIFY(m1.nodata.at(2, 2) && d1.nodata.at(2, 2));
    QVERIFY(!m1.nodata.at(1, 1));
    // Level 2 (4 x 4 blocks): the darkest cell of rows 0-3 x cols 0-3 is the 0 at (3, 2); the
    // partial block rows 4-5 x cols 4-5 keeps its no-data mark.
    const Pyramid::Level& m2 = pyr.level(2, Reduce::max);
    QCOMPARE(QSize(m2.grey.width, m2.grey.height), QSize(2, 2));
    QCOMPARE(px(m2, 0, 0), 0);
    QCOMPARE(px(m2, 1, 0), 20);
    QVERIFY(m2.nodata.at(1, 1));
    // Median of rows 0-3 x cols 0-3: 16 cells, sorted 0 10 30 50 70 80 90 90 | 100 ...: 90.
    QCOMPARE(px(pyr.level(2, Reduce::median), 0, 0), 90);
    // Whole image: max 0; median of the 30 cells with data.
    QCOMPARE(px(pyr.level(3, Reduce::max), 0, 0), 0);
    // Every block of every level against a sort of its cells with data.
    for (int L = 1; L < pyr.levels(); ++L)
      for (Reduce mode : {Reduce::max, Reduce::median}) {
        const Pyramid::Level& lv = pyr.level(L, mode);
        const int f = 1 << L;
        for (int by = 0; by < lv.grey.height; ++by)
          for (int bx = 0; bx < lv.grey.width; ++bx) {
            std::vector<int> v;
            for (int y = by * f; y < std::min(N, by * f + f); ++y)
              for (int x = bx * f; x < std::min(N, bx * f + f); ++x)
                if (!nodata->at(x, y)) v.push_back(g[y][x]);
            std::sort(v.begin(), v.end());
            const int want = v.empty() ? 255 : mode == Reduce::max ? v.front() : v[(v.size() - 1) / 2];
            QCOMPARE(px(lv, bx, by), want);
            QCOMPARE(lv.nodata.at(bx, by), v.empty());
          }
      }
  }

  // Big blocks (16 x 16 and more) take the median from a histogram of the levels: the same
  // order statistic as sorting, here on random levels with random holes, 40 x 37 cells by 20.
  void reduceCellsMedianOfBigBlocks() {
    std::mt19937 rng(3);
    const int W = 40, H = 37, f = 20;
    GreyImage cells(W, H);
    std::vector<double> values(static_cast<std::size_t>(W * H), 1.0);
    for (int y = 0; y < H; ++y)
      for (int x = 0; x < W; ++x) {
        cells.row(y)[x] = static_cast<std::uint8_t>(rng() % 256);
        if (rng() % 7 == 0) values[static_cast<std::size_t>(y * W + x)] = std::numeric_limits<double>::quiet_NaN();
      }
    for (Reduce mode : {Reduce::median, Reduce::max}) {
      const auto [img, mask] = reduce_cells(cells, f, mode, nullptr, &values);
      QCOMPARE(QSize(img.width, img.height), QSize(2, 2));
      for (int by = 0; by < 2; ++by)
        for (int bx = 0; bx < 2; ++bx) {
          std::vector<int> v;
          for (int y = by * f; y < std::min(H, by * f + f); ++y)
            for (int x = bx * f; x < std::min(W, bx * f + f); ++x)
              if (!std::isnan(values[static_cast<std::size_t>(y * W + x)])) v.push_back(cells.at(x, y));
          std::sort(v.begin(), v.end());
          QCOMPARE(int(img.at(bx, by)), mode == Reduce::max ? v.front() : v[(v.size() - 1) / 2]);
          QVERIFY(!mask.at(bx, by));
        }
    }
  }
};

QTEST_MAIN(TestRender)
#include "test_render.moc"
