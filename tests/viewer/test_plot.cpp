// Pair plots: tick labels (one unit family per axis), log length axes with 0 B, several curves
// in distinct colours where the data put them, the band's legend, and the refusals.
#include <QtTest>

#include <cmath>
#include <limits>
#include <filesystem>
#include <random>

#include "nt/viewer/document.hpp"
#include "fixtures.hpp"
#include "nt/viewer/plot.hpp"
#include "nt/error.hpp"
#include "nt/raw_file.hpp"

using namespace nt::viewer;
namespace fs = std::filesystem;

namespace {
QStringList labels(const AxisTicks& t) { return t.labels; }

// Distance between two colours (max channel difference).
int colorDist(QColor a, QColor b) {
  return std::max({std::abs(a.red() - b.red()), std::abs(a.green() - b.green()), std::abs(a.blue() - b.blue())});
}
// Whether a pixel within `r` of p has colour c (anti-aliasing blurs the exact centre).
bool colorNear(const QImage& img, QPointF p, QColor c, int r = 2, int tol = 40) {
  for (int dy = -r; dy <= r; ++dy)
    for (int dx = -r; dx <= r; ++dx) {
      const QPoint q(static_cast<int>(std::lround(p.x())) + dx, static_cast<int>(std::lround(p.y())) + dy);
      if (img.rect().contains(q) && colorDist(img.pixelColor(q), c) <= tol) return true;
    }
  return false;
}
bool isNumber(const QString& s) {
  bool ok = false;
  s.toDouble(&ok);
  return ok;
}
}  // namespace

class TestPlot : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir_;

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path().toStdString();
  }

  void sweepFamilies() {
    const std::vector<double> bin{0, 1024, 2048, 4096}, dec{0, 1000, 2000, 3000}, dec_geo{1, 10, 100, 1000, 10000};
    std::vector<double> geo{0};
    for (int e = 0; e <= 20; ++e) geo.push_back(std::ldexp(1.0, e));
    QVERIFY(binary_lengths(bin));
    QVERIFY(!binary_lengths(dec));
    QVERIFY(!binary_lengths(dec_geo));
    QVERIFY(binary_lengths(geo));
    QVERIFY(log_length_axis(geo));
    QVERIFY(log_length_axis(dec_geo));
    std::vector<double> lin;
    for (int i = 0; i <= 64; ++i) lin.push_back(1024.0 * i);
    QVERIFY(!log_length_axis(lin));  // evenly spaced: linear even over a wide range
    QVERIFY(!log_length_axis(bin));  // less than 64x
  }

  void linearLengthTicksOneUnit() {
    // The examples: 0..16 KiB and 0..20000 B must not mix "KiB" with 1000-based values.
    AxisTicks b = length_ticks(0, 16384, false, true);
    QCOMPARE(b.unit, QStringLiteral("KiB"));
    QCOMPARE(labels(b), (QStringList{"0", "4", "8", "12", "16"}));
    AxisTicks d = length_ticks(0, 20000, false, false);
    QCOMPARE(d.unit, QStringLiteral("kB"));
    QCOMPARE(labels(d), (QStringList{"0", "5", "10", "15", "20"}));
    AxisTicks small = length_ticks(0, 2000, false, false);
    QCOMPARE(small.unit, QStringLiteral("kB"));
    QCOMPARE(labels(small), (QStringList{"0", "0.5", "1", "1.5", "2"}));
    // Random ranges: linear binary ticks are multiples of one power-of-two step, every label a
    // plain number in the axis unit, the label equal to the position in that unit.
    std::mt19937 rng(7);
    for (int trial = 0; trial < 500; ++trial) {
      // Lengths are whole bytes: ranges of at least 4 B between whole numbers.
      const double hi = std::ldexp(1.0, 2 + static_cast<int>(rng() % 28)) * (1 + rng() % 7);
      const double lo = (rng() % 3 == 0) ? 0.0 : std::floor(hi / (2 + rng() % 5));
      for (bool binary : {true, false}) {
        const AxisTicks t = length_ticks(lo, hi, false, binary);
        QVERIFY2(t.at.size() >= 2 && t.at.size() <= 12, qPrintable(QStringLiteral("%1..%2: %3").arg(lo).arg(hi).arg(t.at.size())));
        const double scale = t.unit == "B" ? 1 : t.unit == "KiB" ? 1024 : t.unit == "MiB" ? 1048576 : t.unit == "GiB" ? 1073741824.0
                           : t.unit == "kB" ? 1e3 : t.unit == "MB" ? 1e6 : 1e9;
        QVERIFY(binary ? !t.unit.endsWith(QStringLiteral("B")) || t.unit == "B" || t.unit.contains('i')
                       : !t.unit.contains('i'));
        const double step = t.at[1] - t.at[0];
        if (binary) QCOMPARE(std::exp2(std::round(std::log2(step))), step);
        for (int i = 0; i < t.labels.size(); ++i) {
          QVERIFY2(isNumber(t.labels[i]), qPrintable(t.labels[i]));
          QVERIFY(std::abs(t.labels[i].toDouble() * scale - t.at[static_cast<std::size_t>(i)]) <= step * 1e-3);
          QVERIFY(t.at[static_cast<std::size_t>(i)] >= lo - 1e-9 && t.at[static_cast<std::size_t>(i)] <= hi * (1 + 1e-9));
        }
      }
    }
  }

  void logLengthTicksPowersOfTwo() {
    const AxisTicks t = length_ticks(1, 1 << 20, true, true);
    QCOMPARE(labels(t), (QStringList{"1 B", "32 B", "1 KiB", "32 KiB", "1 MiB"}));
    const AxisTicks s = length_ticks(64, 65536, true, true);
    for (std::size_t i = 0; i < t.at.size(); ++i) QCOMPARE(std::exp2(std::round(std::log2(t.at[i]))), t.at[i]);
    QVERIFY(s.at.size() >= 4 && s.at.size() <= 8);
    for (const auto& l : s.labels) QVERIFY2(l.endsWith(QStringLiteral(" B")) || l.endsWith(QStringLiteral("iB")), qPrintable(l));
    const AxisTicks d = length_ticks(1, 1e6, true, false);
    QCOMPARE(labels(d), (QStringList{"1 B", "10 B", "100 B", "1 kB", "10 kB", "100 kB", "1 MB"}));
  }

  void delayTicksOneUnit() {
    const AxisTicks t = delay_ticks(0, 2.5e-5, false);
    QCOMPARE(t.unit, QStringLiteral("µs"));
    QCOMPARE(labels(t), (QStringList{"0", "5", "10", "15", "20", "25"}));
    // Crossing a unit boundary does not switch units mid-axis (no "500 ns" beside "1 µs").
    const AxisTicks c = delay_ticks(0, 1.2e-6, false);
    QCOMPARE(c.unit, QStringLiteral("µs"));
    for (const auto& l : c.labels) QVERIFY2(isNumber(l), qPrintable(l));
    const AxisTicks g = delay_ticks(1e-7, 1e-3, true);
    QCOMPARE(g.unit, QStringLiteral("ms"));
    QCOMPARE(labels(g), (QStringList{"0.0001", "0.001", "0.01", "0.1", "1"}));
  }

  void twoCurvesTwoColoursWhereTheDataSay() {
    // Real file: pair 0->1 (fast, intra-node) and 4->0 (slow node) on one plot.
    const auto path = fixtures::exact_raw(dir_ / "two_average.nc", 8, {0, 4096, 8192, 16384}, [](int i, int j, std::size_t k) {
      return i == j ? 0.0 : (i >= 4 && i < 6 ? 3.0 : 1.0) * 1e-6 * static_cast<double>(k + 1);
    });
    auto doc = Document::open(path);
    doc->set_plot_size(800, 500);
    ViewSpec s;
    s.view = ViewKind::pair;
    s.sender = 0;
    s.receiver = 1;
    s.more_pairs = {{4, 0}};
    const ViewResult r = doc->render(s);
    QCOMPARE(r.curves.size(), std::size_t(2));
    PlotGeometry geometry;
    const QImage picture = plot_picture(r, &geometry);
    const QColor c0 = curve_color(r.curves[0].color), c1 = curve_color(r.curves[1].color);
    QVERIFY(colorDist(c0, c1) > 100);
    for (std::size_t k = 0; k < 4; ++k) {
      const double x = geometry.x_to_px(static_cast<double>(r.curves[0].lengths[k]));
      const double y0 = geometry.y_to_px(1e-6 * static_cast<double>(k + 1));
      const double y1 = geometry.y_to_px(3e-6 * static_cast<double>(k + 1));
      QVERIFY2(colorNear(picture, {x, y0}, c0), qPrintable(QStringLiteral("k=%1").arg(k)));
      QVERIFY2(colorNear(picture, {x, y1}, c1), qPrintable(QStringLiteral("k=%1").arg(k)));
      if (k > 0) {
        // Each colour only where its curve is: the slow curve's colour is not at the fast point.
        QVERIFY(!colorNear(picture, {x, y0}, c1, 1, 30));
        QVERIFY(!colorNear(picture, {x, y1}, c0, 1, 30));
      }
    }
    // A linear binary axis: the 0 B point sits on the plot's left edge.
    QVERIFY(!geometry.x_log);
    QCOMPARE(geometry.x_to_px(0), geometry.area.left());
    // The same pair twice is one curve; more than 64 curves are refused.
    s.more_pairs = {{0, 1}, {4, 0}};
    QCOMPARE(doc->render(s).curves.size(), std::size_t(2));
    s.more_pairs.clear();
    for (int i = 0; i < 8; ++i)
      for (int j = 0; j < 8; ++j)
        if (i != j) s.more_pairs.emplace_back(i, j);
    QCOMPARE(doc->render(s).curves.size(), std::size_t(56));  // every pair of 8 ranks
    doc->add_plot_file(path);                                 // x 2 files: 112 curves
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->render(s));
  }

  void geometricSweepShowsZero() {
    std::vector<std::int64_t> lengths{0};
    for (int e = 0; e <= 16; e += 2) lengths.push_back(std::int64_t{1} << e);
    const auto path = fixtures::exact_raw(dir_ / "geo_average.nc", 4, lengths, [&](int i, int j, std::size_t k) {
      return i == j ? 0.0 : 2e-6 + static_cast<double>(lengths[k]) * 1e-9;
    });
    auto doc = Document::open(path);
    doc->set_plot_size(800, 500);
    ViewSpec s;
    s.view = ViewKind::pair;
    AxisTicks xt;
    const ViewResult r = doc->render(s);
    PlotGeometry geometry;
    const QImage picture = plot_picture(r, &geometry);
    QVERIFY(geometry.x_log);
    QVERIFY(geometry.x_zero);
    const double x0 = geometry.x_to_px(0), x1 = geometry.x_to_px(1);
    QVERIFY(x0 > geometry.area.left());
    QVERIFY2(x0 + 10 < x1, qPrintable(QStringLiteral("0 B at %1, 1 B at %2").arg(x0).arg(x1)));
    // The 0 B point is drawn (not dropped), in the curve's colour.
    QVERIFY(colorNear(picture, {x0, geometry.y_to_px(2e-6)}, curve_color(r.curves[0].color)));
    QCOMPARE(r.curves[0].lengths.front(), std::int64_t{0});
    std::vector<PlotCurve> cv = r.curves;
    PlotStyle st;
    plot_image(cv, st, 800, 500, nullptr, &xt);
    QCOMPARE(xt.labels.front(), QStringLiteral("0 B"));
    for (const auto& l : xt.labels) QVERIFY2(!l.contains(QStringLiteral("kB")), qPrintable(l));  // binary family only
  }

  void bandHasALegend() {
    PlotCurve c;
    c.lengths = {0, 1024, 2048};
    c.y = {1e-6, 2e-6, 3e-6};
    c.band = {0.2e-6, 0.2e-6, 0.2e-6};
    c.color = 0;
    PlotStyle st;
    st.band_label = QStringLiteral("±1 standard deviation (x_deviation.nc)");
    PlotGeometry g;
    const QImage with = plot_image({c}, st, 640, 400, &g);
    // The legend's patch: a block of the band colour in the top-left corner of the plot area,
    // away from any data (the curve starts at the bottom left).
    const QColor band(197, 213, 240);
    int n = 0;
    for (int y = static_cast<int>(g.area.top()); y < g.area.top() + 30; ++y)
      for (int x = static_cast<int>(g.area.left()); x < g.area.left() + 40; ++x)
        if (colorDist(with.pixelColor(x, y), band) <= 6) ++n;
    QVERIFY2(n >= 150, qPrintable(QString::number(n)));
    st.band_label.clear();
    const QImage without = plot_image({c}, st, 640, 400, &g);
    n = 0;
    for (int y = static_cast<int>(g.area.top()); y < g.area.top() + 30; ++y)
      for (int x = static_cast<int>(g.area.left()); x < g.area.left() + 40; ++x)
        if (colorDist(without.pixelColor(x, y), band) <= 6) ++n;
    QCOMPARE(n, 0);
  }

  // Whatever the data (no values, NaN, infinities, absurd or negative delays, one point, the
  // largest lengths), plotting returns an image at once and ticks stay few.
  void hostileDataNeverHangs() {
    const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
    const std::vector<std::vector<double>> ys{{}, {nan, nan}, {inf, -inf}, {1.7e308, 1e-6}, {-1e-6, 2e-6}, {5e-6}, {0, 0}};
    const std::vector<std::vector<std::int64_t>> xs{{}, {0, 0}, {0, 1}, {0, std::int64_t{1} << 62}, {1, 2}, {7}, {0, 1000}};
    for (std::size_t i = 0; i < ys.size(); ++i)
      for (bool ylog : {false, true}) {
        PlotCurve c;
        c.lengths = xs[i];
        c.y = ys[i];
        c.band.assign(ys[i].size(), i % 2 ? nan : 1e300);
        c.color = i;
        PlotStyle st;
        st.y_log = ylog;
        st.band_label = QStringLiteral("band");
        AxisTicks xt, yt;
        const QImage img = plot_image({c, c}, st, 300, 200, nullptr, &xt, &yt);
        QCOMPARE(img.size(), QSize(300, 200));
        QVERIFY(xt.at.size() <= 64 && yt.at.size() <= 64);
        QCOMPARE(xt.at.size(), static_cast<std::size_t>(xt.labels.size()));
      }
    QVERIFY(plot_image({}, PlotStyle{}, 50, 40, nullptr).width() == 50);
  }

  void diagonalPairRefused() {
    const auto path = fixtures::exact_raw(dir_ / "diag_average.nc", 4, {0, 8}, [](int i, int j, std::size_t) {
      return i == j ? 0.0 : 1e-6;
    });
    auto doc = Document::open(path);
    ViewSpec s;
    s.view = ViewKind::pair;
    s.sender = s.receiver = 2;
    const QString diagonal = fixtures::error_of([&] { doc->render(s); });
    QVERIFY2(diagonal.contains(QStringLiteral("is on the diagonal")), qPrintable(diagonal));
    s.receiver = 1;
    s.more_pairs = {{3, 3}};
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->render(s));
  }
};

QTEST_MAIN(TestPlot)
#include "test_plot.moc"
