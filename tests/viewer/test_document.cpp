// Document and renderer on real files: every view's pixels follow the data.
#include <QtTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <filesystem>
#include <fstream>

#include "nt/viewer/document.hpp"
#include "fixtures.hpp"
#include "nt/viewer/plot.hpp"
#include "nt/viewer/render.hpp"
#include "nt/error.hpp"

using namespace nt::viewer;
namespace fs = std::filesystem;

namespace {
// Off-diagonal values 1e-6*(k+1)*(1 + 0.1*(i+j)); diagonal 0.
double smooth(int i, int j, std::size_t k) {
  return i == j ? 0.0 : 1e-6 * static_cast<double>(k + 1) * (1.0 + 0.1 * (i + j));
}
int gray(const ViewResult& r, int row, int col) { return r.cells.at(col, row); }
}  // namespace

class TestDocument : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir_;
  std::string prefix_;

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path().toStdString();
    prefix_ = fixtures::synth_run(dir_);
  }

  void matrixSlowNodeRowsAndColumnsDarker() {
    auto doc = Document::open(prefix_ + "_median.nc");
    QCOMPARE(doc->ranks(), 8);
    QCOMPARE(doc->data().meta().hosts.size(), std::size_t(8));
    for (std::size_t k = 0; k < doc->count(); ++k) {
      ViewSpec s;
      s.k = k;
      const ViewResult r = doc->render(s);
      QCOMPARE(r.cells.width, 8);
      QCOMPARE(r.cells.height, 8);
      double slowMax = 0, fastMin = 255;
      for (int row = 0; row < 8; ++row) {
        const double g = fixtures::row_gray(to_qimage(r.cells), row, row);
        if (row == 4 || row == 5) slowMax = std::max(slowMax, g);
        else fastMin = std::min(fastMin, g);
      }
      QVERIFY2(slowMax + 30 < fastMin, qPrintable(QStringLiteral("k=%1 slow %2 fast %3").arg(k).arg(slowMax).arg(fastMin)));
      // Columns too: the slow node also receives slowly.
      const QImage t = to_qimage(r.cells).transformed(QTransform().rotate(90)).mirrored(true, false);
      QVERIFY(fixtures::row_gray(t, 4, 4) + 30 < fixtures::row_gray(t, 0, 0));
      // Values behind the pixels are the file's.
      QCOMPARE((*r.values)[3 * 8 + 5], doc->data().value(3, 5, k));
    }
  }

  void normalisationModesChangeLevels() {
    const auto path = fixtures::exact_raw(dir_ / "exact.nc", 4, {8, 16, 32}, smooth);
    auto doc = Document::open(path);
    ViewSpec s;
    s.k = 0;
    s.normalize = Normalize::matrix;
    const ViewResult m = doc->render(s);
    QCOMPARE(m.levels.white, smooth(0, 1, 0));
    QCOMPARE(m.levels.black, smooth(2, 3, 0));
    QCOMPARE(gray(m, 0, 1), 255);
    QCOMPARE(gray(m, 2, 3), 0);
    s.normalize = Normalize::file;
    const ViewResult f = doc->render(s);
    QCOMPARE(f.levels.white, smooth(0, 1, 0));
    QCOMPARE(f.levels.black, smooth(2, 3, 2));
    // The same cell is much lighter against the whole file: (1.5-1.1)/(4.5-1.1) dark.
    QCOMPARE(gray(f, 2, 3), static_cast<int>(std::lround(255 * (1 - 0.4 / 3.4))));
    s.normalize = Normalize::window;
    s.k0 = 0;
    s.k1 = 2;
    const ViewResult w = doc->render(s);
    QCOMPARE(w.levels.black, smooth(2, 3, 1));
    QVERIFY(gray(m, 2, 3) < gray(w, 2, 3));
    QVERIFY(gray(w, 2, 3) < gray(f, 2, 3));
    // The last matrix against the file is the darkest; against itself it spans 0..255 too.
    s.k = 2;
    s.normalize = Normalize::file;
    QCOMPARE(gray(doc->render(s), 2, 3), 0);
    // window_of_lengths maps bytes to indices.
    QCOMPARE(doc->window_of_lengths(8, 16), (std::pair<std::size_t, std::size_t>(0, 2)));
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->window_of_lengths(100, 200));
    QCOMPARE(doc->index_of_length(32), std::size_t(2));
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->index_of_length(33));
  }

  void diagonalExcludedFromNormalisation() {
    const auto path = fixtures::exact_raw(dir_ / "diag.nc", 4, {8, 16}, [](int i, int j, std::size_t k) {
      return i == j ? 1.0 : smooth(i, j, k);  // a huge self-message time
    });
    auto doc = Document::open(path);
    for (Normalize n : {Normalize::matrix, Normalize::file}) {
      ViewSpec s;
      s.normalize = n;
      const ViewResult r = doc->render(s);
      QVERIFY(r.levels.black < 1e-5);
      QCOMPARE(gray(r, 0, 1), 255);
      if (n == Normalize::matrix) QCOMPARE(gray(r, 3, 2), 0);
      QCOMPARE(gray(r, 1, 1), 0);  // the diagonal itself is drawn, clamped
    }
    // Row view: the diagonal cell (k, rank) is excluded as well.
    ViewSpec s;
    s.view = ViewKind::row;
    s.rank = 1;
    const ViewResult r = doc->render(s);
    QCOMPARE(r.levels.black, smooth(1, 3, 1));
  }

  void logScaleAndUserLevels() {
    const auto path = fixtures::exact_raw(dir_ / "log.nc", 3, {8}, [](int i, int j, std::size_t) {
      if (i == j) return 0.0;
      return std::pow(10.0, -6.0 + (i + j - 1));  // 1e-6, 1e-5, 1e-4
    });
    auto doc = Document::open(path);
    ViewSpec s;
    const ViewResult lin = doc->render(s);
    s.log = true;
    const ViewResult lg = doc->render(s);
    QVERIFY(lg.levels.log);
    // (0,2) holds 1e-5: nearly white on a linear scale, mid grey on a log scale.
    QVERIFY(gray(lin, 0, 2) > 220);
    QVERIFY(std::abs(gray(lg, 0, 2) - 128) <= 1);
    QCOMPARE(gray(lg, 0, 1), 255);
    QCOMPARE(gray(lg, 1, 2), 0);
    s.log = false;
    s.white = 5e-6;
    s.black = 2e-5;
    const ViewResult u = doc->render(s);
    QCOMPARE(gray(u, 0, 1), 255);  // 1e-6 below white
    QCOMPARE(gray(u, 1, 2), 0);    // 1e-4 beyond black
    QCOMPARE(gray(u, 0, 2), static_cast<int>(std::lround(255 * (1 - 5.0 / 15.0))));
  }

  void rowAndColumnViews() {
    const auto path = fixtures::exact_raw(dir_ / "exact.nc", 4, {8, 16, 32}, smooth);
    auto doc = Document::open(path);
    ViewSpec s;
    s.view = ViewKind::row;
    s.rank = 1;
    ViewResult r = doc->render(s);
    QCOMPARE(r.rows, 3);
    QCOMPARE(r.cols, 4);
    QCOMPARE(QSize(r.cells.width, r.cells.height), QSize(4, 3));
    QCOMPARE(r.row_lengths, (std::vector<std::int64_t>{8, 16, 32}));
    for (int k = 0; k < 3; ++k)
      for (int j = 0; j < 4; ++j) QCOMPARE((*r.values)[static_cast<std::size_t>(k * 4 + j)], smooth(1, j, static_cast<std::size_t>(k)));
    // Longer messages are slower: lower rows darker; within a row, larger receivers darker.
    QVERIFY(fixtures::row_gray(to_qimage(r.cells), 2, 1) < fixtures::row_gray(to_qimage(r.cells), 0, 1));
    QVERIFY(gray(r, 2, 3) < gray(r, 2, 0));
    s.view = ViewKind::column;
    s.rank = 2;
    s.k0 = 1;
    s.k1 = 3;
    r = doc->render(s);
    QCOMPARE(r.rows, 2);
    QCOMPARE((*r.values)[1 * 4 + 3], smooth(3, 2, 2));
    QCOMPARE(r.diag_col, 2);

    // On the synthetic run, the slow rank's row is darker than a fast rank's, file-normalised.
    auto run = Document::open(prefix_ + "_average.nc");
    ViewSpec a;
    a.view = ViewKind::row;
    a.normalize = Normalize::file;
    a.rank = 4;
    const ViewResult slow = run->render(a);
    a.rank = 0;
    const ViewResult fast = run->render(a);
    for (int k = 1; k < slow.rows; ++k)
      QVERIFY(fixtures::row_gray(to_qimage(slow.cells), k, 4) + 10 < fixtures::row_gray(to_qimage(fast.cells), k, 0));
  }

  void pairViewWithAndWithoutBand() {
    auto countBand = [](const QImage& img) {
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
          // The band's translucent blue over white; the curve's anti-aliased edges differ.
          const QColor c = img.pixelColor(x, y);
          if (std::abs(c.red() - 197) <= 6 && std::abs(c.green() - 213) <= 6 && std::abs(c.blue() - 240) <= 6) ++n;
        }
      return n;
    };
    fs::create_directories(dir_ / "noisy");
    auto run = Document::open(fixtures::synth_run(dir_ / "noisy", 2, 0.3) + "_median.nc");
    run->set_plot_size(640, 400);
    QVERIFY(run->deviation() != nullptr);
    ViewSpec s;
    s.view = ViewKind::pair;
    s.sender = 4;
    s.receiver = 0;
    const ViewResult r = run->render(s);
    QVERIFY(r.plot);
    PlotGeometry geometry;
    const QImage picture = plot_picture(r, &geometry);
    QCOMPARE(picture.size(), QSize(640, 400));
    QVERIFY(countBand(picture) > 50);
    // The curve passes through the mapped points: longer messages plot higher.
    const auto v = run->data().pair(4, 0);
    const double y0 = geometry.y_to_px(v.front()), y3 = geometry.y_to_px(v.back());
    QVERIFY(y3 < y0 - 20);
    const QPoint p(static_cast<int>(std::lround(geometry.x_to_px(16384))), static_cast<int>(std::lround(y3)));
    QVERIFY(qGray(picture.pixel(p)) < 120);

    const auto path = fixtures::exact_raw(dir_ / "alone_average.nc", 4, {8, 16, 32}, smooth);
    auto doc = Document::open(path);
    QVERIFY(doc->deviation() == nullptr);
    s.sender = 1;
    s.receiver = 2;
    const ViewResult nb = doc->render(s);
    QCOMPARE(countBand(plot_picture(nb, &geometry)), 0);
    QVERIFY(geometry.y_to_px(smooth(1, 2, 2)) < geometry.y_to_px(smooth(1, 2, 0)));
  }

  void deviationView() {
    auto run = Document::open(prefix_ + "_average.nc");
    ViewSpec s;
    s.view = ViewKind::deviation;
    s.k = 3;
    const ViewResult r = run->render(s);
    QVERIFY(r.title.contains(QStringLiteral("deviation")));
    QCOMPARE((*r.values)[1], run->deviation()->value(0, 1, 3));
    const auto path = fixtures::exact_raw(dir_ / "solo_average.nc", 4, {8}, smooth);
    auto solo = Document::open(path);
    s.k = 0;
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, solo->render(s));
    // Relative deviation: deviation / value, a ratio.
    s.relative = true;
    s.k = 3;
    const ViewResult rel = run->render(s);
    QVERIFY(rel.ratio());
    QCOMPARE((*rel.values)[1], run->deviation()->value(0, 1, 3) / run->data().value(0, 1, 3));
    QVERIFY(rel.title.contains(QStringLiteral("relative deviation")));
    s.relative = false;
    // A deviation file opened directly is its own deviation map.
    auto dv = Document::open(prefix_ + "_deviation.nc");
    s.k = 3;
    QCOMPARE(*dv->render(s).values, run->deviation()->matrix(3).values());
  }

  void differenceView() {
    const auto a = fixtures::exact_raw(dir_ / "a.nc", 4, {8, 16}, smooth);
    const auto b = fixtures::exact_raw(dir_ / "b.nc", 4, {8, 16}, [](int i, int j, std::size_t k) {
      return (i == 1 && j == 2) ? 3 * smooth(i, j, k) : smooth(i, j, k);
    });
    auto doc = Document::open(a);
    ViewSpec s;
    s.view = ViewKind::difference;
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->render(s));
    doc->set_compare(b);
    const ViewResult r = doc->render(s);
    QCOMPARE(gray(r, 1, 2), 255);               // a - b most negative: white
    QVERIFY(std::abs(gray(r, 0, 1) - 128) <= 1); // equal: middle grey
    QVERIFY(r.levels.white < 0 && r.levels.black > 0);
    QCOMPARE((*r.values)[1 * 4 + 2], smooth(1, 2, 0) - 3 * smooth(1, 2, 0));
    // Another shape: ranks are matched by host (c's 3 ranks on node0, node0, node1 are a's 0..2);
    // a's rank 3 has no counterpart and shows no data, never a value of another rank.
    const auto c = fixtures::exact_raw(dir_ / "c.nc", 3, {8, 16}, smooth);
    doc->set_compare(c);
    const ViewResult rc = doc->render(s);
    QCOMPARE((*rc.values)[0 * 4 + 1], 0.0);
    QVERIFY(std::isnan((*rc.values)[0 * 4 + 3]));
    QVERIFY(std::isnan((*rc.values)[3 * 4 + 1]));
    // Without host names a file of another shape cannot be matched: refused.
    const auto d = fixtures::exact_raw(dir_ / "d.nc", 3, {8, 16}, smooth, nt::Statistic::average,
                                       std::vector<std::string>{});
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->set_compare(d));
  }

  void textAndLegacyFiles() {
    const auto raw = fixtures::exact_raw(dir_ / "t.nc", 4, {8, 16}, smooth);
    auto rd = nt::open_dataset(raw);
    nt::write_text(dir_ / "t.txt", *rd, true);
    auto doc = Document::open(dir_ / "t.txt");
    QCOMPARE(doc->data().format(), std::string("text"));
    ViewSpec s;
    s.k = 1;
    QCOMPARE(*doc->render(s).values, rd->matrix(1).values());

    // Legacy file: stored row = receiver; the slow SENDER 2 must still come out as a dark row.
    const auto lp = fixtures::legacy_raw(dir_ / "old.nc", 4, 100, 50, 3, [](int i, int j, std::size_t k) {
      return i == j ? 0.0 : 1e-6 * static_cast<double>(k + 1) * (i == 2 ? 5.0 : 1.0);
    });
    auto old = Document::open(lp);
    QCOMPARE(old->lengths(), (std::vector<std::int64_t>{100, 150, 200}));
    const ViewResult r = old->render(s);
    QVERIFY(fixtures::row_gray(to_qimage(r.cells), 2, 2) < 10);
    QVERIFY(fixtures::row_gray(to_qimage(r.cells), 0, 0) > 245);
    QCOMPARE(old->info().info.meta.format_version, 0);
  }

  void brokenFilesGiveErrors_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("missing") << QStringLiteral("missing.nc") << QByteArray();
    QTest::newRow("empty") << QStringLiteral("empty.nc") << QByteArray("");
    QTest::newRow("garbage") << QStringLiteral("garbage.nc") << QByteArray("this is not a result file\n\x01\x02", 28);
    QTest::newRow("fake cdf") << QStringLiteral("fake.nc") << QByteArray("CDF\x02garbagegarbagegarbage", 26);
    QTest::newRow("text header only") << QStringLiteral("t.txt") << QByteArray("processors 4\nMessage length 8\n1\t2\n");
  }
  void brokenFilesGiveErrors() {
    QFETCH(QString, name);
    QFETCH(QByteArray, content);
    const fs::path p = dir_ / "broken" / name.toStdString();
    fs::create_directories(p.parent_path());
    if (name != QLatin1String("missing.nc")) {
      std::ofstream(p, std::ios::binary).write(content.constData(), content.size());
    }
    const QString m = fixtures::error_of<nt::Error>([&] { Document::open(p)->render(ViewSpec{}); });
    QVERIFY2(m.contains(name), qPrintable(m));
  }

  void truncatedRawFile() {
    const auto src = fixtures::exact_raw(dir_ / "whole.nc", 16, {8, 16, 32, 64}, smooth);
    const auto cut = dir_ / "cut.nc";
    fs::copy_file(src, cut, fs::copy_options::overwrite_existing);
    fs::resize_file(cut, fs::file_size(src) - 16 * 16 * 8 - 100);  // lose the last record and a bit
    try {
      auto d = Document::open(cut);
      ViewSpec s;
      for (std::size_t k = 0; k < d->count(); ++k) {
        s.k = k;
        d->render(s);
      }
      QVERIFY(d->count() < 4);  // only complete records are offered
    } catch (const nt::Error& e) {
      QVERIFY(QString::fromStdString(e.what()).contains(QStringLiteral("cut.nc")));
    }
  }

  // A killed run (fewer lengths than planned) says so in the document's info, in every view's
  // note and in the decorated picture; a complete run says nothing. One rule (core's
  // nt::sweep_completeness) for linear and geometric sweeps.
  void cutShortFileSaysSo() {
    const auto linear = fixtures::killed_run(dir_ / "killed_median.nc", 4, 0, 1024, 4096, {0, 1024, 2048});
    const auto geometric = fixtures::killed_run(dir_ / "killed_geo_median.nc", 4, 0, 0, 65536, {0, 1, 4, 16});
    const auto whole = fixtures::killed_run(dir_ / "whole_median.nc", 4, 0, 1024, 2048, {0, 1024, 2048});
    const auto whole_geo = fixtures::killed_run(dir_ / "whole_geo_median.nc", 4, 0, 0, 16, {0, 1, 4, 16});
    {
      auto d = Document::open(linear);
      const nt::SweepCompleteness c = nt::sweep_completeness(d->data());
      QCOMPARE(c.stored, std::size_t(3));
      QCOMPARE(c.planned, std::size_t(5));
      QVERIFY(c.cut_short);
      QCOMPARE(d->info().cut_short, QStringLiteral("cut short: 3 of 5 message lengths stored (the run stopped early)"));
      ViewSpec s;
      s.k = 2;
      for (ViewKind v : {ViewKind::matrix, ViewKind::row, ViewKind::pair}) {
        s.view = v;
        QCOMPARE(d->render(s).note, d->info().cut_short);
      }
      s.view = ViewKind::matrix;
      const ViewResult r = d->render(s);
      const QImage deco = compose(r, {0, true, nullptr});
      // The note is drawn in dark red between the title and the cells.
      QVERIFY2(fixtures::note_pixels(deco, QRect(0, 30, deco.width(), 18)) > 40,
               qPrintable(QString::number(fixtures::note_pixels(deco, QRect(0, 30, deco.width(), 18)))));
      ViewResult plain = r;
      plain.note.clear();
      const QImage clean = compose(plain, {0, true, nullptr});
      QCOMPARE(fixtures::note_pixels(clean, QRect(0, 0, clean.width(), 60)), 0);
      QVERIFY(deco.height() > clean.height());  // room for the note, the cells not overdrawn
    }
    {
      auto d = Document::open(geometric);
      QCOMPARE(nt::sweep_completeness(d->data()).planned, std::size_t(0));
      QVERIFY(nt::sweep_completeness(d->data()).cut_short);
      QVERIFY2(d->info().cut_short.contains(QStringLiteral("stopped before 64 KiB (last stored: 16 B)")),
               qPrintable(d->info().cut_short));
    }
    for (const auto& f : {whole, whole_geo}) {
      auto d = Document::open(f);
      QVERIFY(!nt::sweep_completeness(d->data()).cut_short);
      QCOMPARE(d->info().cut_short, QString());
      QCOMPARE(d->render(ViewSpec{}).note, QString());
    }
  }

  void groupsFile() {
    const auto g = dir_ / "topo.json";
    std::ofstream(g) << R"({"groups": [[0, 1], [2, 3, 6], [4, 5], [7]], "other": 1})";
    auto doc = Document::open(prefix_ + "_median.nc");
    doc->set_groups(g);
    QCOMPARE(doc->groups().size(), std::size_t(4));
    QCOMPARE(doc->groups()[1], (std::vector<int>{2, 3, 6}));
    std::ofstream(dir_ / "bad1.json") << R"({"groups": [[0, 9]]})";
    std::ofstream(dir_ / "bad2.json") << R"({"groups": [[0, 1)";
    std::ofstream(dir_ / "bad3.json") << R"([[0, 1]])";
    for (const char* f : {"bad1.json", "bad2.json", "bad3.json", "nothere.json"})
      QVERIFY_THROWS_EXCEPTION(nt::FileError, doc->set_groups(dir_ / f));
  }

  void fileScanCanBeCancelled() {
    auto doc = Document::open(prefix_ + "_median.nc");
    ViewSpec s;
    s.normalize = Normalize::file;
    int reports = 0;
    Progress p;
    p.report = [&](std::size_t, std::size_t) { ++reports; };
    p.cancelled = [&] { return reports >= 2; };
    QVERIFY_THROWS_EXCEPTION(Cancelled, doc->render(s, p));
    QCOMPARE(reports, 2);
    p.cancelled = {};
    reports = 0;
    doc->render(s, p);  // the first two matrices come from the cache now
    QCOMPARE(reports, 4);
  }

  void impossibleSpecs() {
    auto doc = Document::open(prefix_ + "_median.nc");
    ViewSpec s;
    s.k = 4;
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->render(s));
    s.k = 0;
    s.view = ViewKind::row;
    s.rank = 8;
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->render(s));
    s.view = ViewKind::pair;
    s.sender = -1;
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, doc->render(s));
  }
  void rankOrders() {
    // Host order is natural (node10 after node9); group order nests coarse levels first and
    // does not depend on how the analysis numbered its groups.
    const std::vector<std::string> hosts{"node10", "node9", "node10", "node9", "a"};
    QCOMPARE(rank_order(Order::host, 5, hosts, {}), (std::vector<int>{4, 1, 3, 0, 2}));
    const std::vector<std::pair<std::string, std::vector<std::vector<int>>>> h{
        {"node", {{3, 1}, {0, 4}, {2}}}, {"switch", {{2, 1, 3}, {4, 0}}}};
    QCOMPARE(rank_order(Order::groups, 5, {}, h), (std::vector<int>{0, 4, 1, 3, 2}));
    QCOMPARE(rank_order(Order::rank, 3, {}, {}), (std::vector<int>{0, 1, 2}));
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, rank_order(Order::groups, 5, {}, {}));
    QVERIFY_THROWS_EXCEPTION(nt::UsageError, rank_order(Order::host, 5, {}, {}));
  }

  // A picture smaller than the matrix (spec.fit) is streamed: the matrix is read in blocks of
  // rows and each pixel reduced from its block of cells as they are read, with no P x P values or
  // image. Its pixels must be those of the full picture reduced block by block, computed here
  // from the full result (its grey cells, and its values for the cells without data), for max
  // and median, in rank and host order, for the matrix, deviation and difference views; and
  // compose() must draw the same picture from either. 53 ranks (prime: partial blocks at the
  // edges), a slow rank, missing and negative values, hosts in shuffled order.
  void streamedPictureIsTheFullOneReduced() {
    const int P = 53;
    const auto f = [](int i, int j, std::size_t k) {
      if (i == j) return 0.0;
      if ((i * j) % 41 == 5) return std::numeric_limits<double>::quiet_NaN();
      if (i == 11 && j == 40) return -1e-6;  // a bad value: no data
      const double slow = i == 7 || j == 7 ? 5.0 : 1.0;
      return 1e-6 * (1.0 + ((i * 31 + j * 17) % 23) / 10.0) * slow * static_cast<double>(k + 1);
    };
    std::vector<std::string> hosts;
    for (int i = 0; i < P; ++i) hosts.push_back("n" + std::to_string((i * 19) % P / 2));
    const fs::path sub = dir_ / "streamed";
    fs::create_directories(sub);
    fixtures::exact_raw(sub / "big_average.nc", P, {0, 1024}, f, nt::Statistic::average, hosts);
    fixtures::exact_raw(sub / "big_deviation.nc", P, {0, 1024},
                        [&](int i, int j, std::size_t k) { return 0.1 * f(j, i, k); }, nt::Statistic::deviation, hosts);
    fixtures::exact_raw(sub / "other_average.nc", P, {0, 1024},
                        [&](int i, int j, std::size_t k) { return 1.1 * f(i, j, k) + 1e-7 * ((i + 2 * j) % 5); },
                        nt::Statistic::average, hosts);
    auto full = Document::open(sub / "big_average.nc");
    auto streamed = Document::open(sub / "big_average.nc");
    full->set_compare(sub / "other_average.nc");
    streamed->set_compare(sub / "other_average.nc");
    int checked = 0;
    for (ViewKind view : {ViewKind::matrix, ViewKind::deviation, ViewKind::difference})
      for (Order order : {Order::rank, Order::host})
        for (Reduce reduce : {Reduce::max, Reduce::median})
          for (int fit : {10, 26}) {
            ViewSpec s;
            s.view = view;
            s.k = 1;
            s.order = order;
            s.reduce = reduce;
            QVERIFY(!full->streams(s));
            const ViewResult a = full->render(s);
            s.fit = fit;
            QVERIFY(streamed->streams(s));
            const ViewResult b = streamed->render(s);
            const int pool = reduction_factor(P, P, fit);
            QCOMPARE(b.pool, pool);
            QVERIFY(a.values && !b.values && b.nodata);
            QCOMPARE(b.rows, P);
            QCOMPARE(b.order, a.order);
            QCOMPARE(b.levels.white, a.levels.white);
            QCOMPARE(b.levels.black, a.levels.black);
            const int side = (P + pool - 1) / pool;
            QCOMPARE(QSize(b.cells.width, b.cells.height), QSize(side, side));
            for (int by = 0; by < side; ++by)
              for (int bx = 0; bx < side; ++bx) {
                std::vector<int> g;
                for (int y = by * pool; y < std::min(P, by * pool + pool); ++y)
                  for (int x = bx * pool; x < std::min(P, bx * pool + pool); ++x)
                    if (!std::isnan((*a.values)[static_cast<std::size_t>(y * P + x)])) g.push_back(gray(a, y, x));
                std::sort(g.begin(), g.end());
                const int want = g.empty() ? 255 : reduce == Reduce::max ? g.front() : g[(g.size() - 1) / 2];
                QCOMPARE(int(b.cells.at(bx, by)), want);
                QCOMPARE(b.nodata->at(bx, by), g.empty());
                ++checked;
              }
            // The exported picture: raw grey and decorated in colours, from either result.
            for (const bool decorate : {false, true}) {
              ComposeOptions o;
              o.size = fit;
              o.decorate = decorate;
              o.raw = !decorate;
              o.colormap = decorate ? Colormap::automatic : Colormap::grey;
              QCOMPARE(compose(b, o), compose(a, o));
            }
          }
    QVERIFY(checked > 24 * 25);
  }

  // Matrices of more ranks than the value limit are streamed at one pixel per cell: the same grey
  // cells as the full view, no data marked in a mask instead of NaN values, and the exact value
  // of every cell (in display order) read on demand through the probe.
  void streamedFullSizeHasExactValuesThroughTheProbe() {
    const fs::path sub = dir_ / "probe";
    fs::create_directories(sub);
    const int P = 12;
    const auto f = [](int i, int j, std::size_t k) {
      return i == j ? 0.0 : (i + j) % 9 == 4 ? std::numeric_limits<double>::quiet_NaN()
                                            : 1e-6 * (i + 1) * (j + 3) / 7.0 * static_cast<double>(k + 1);
    };
    std::vector<std::string> hosts;
    for (int i = 0; i < P; ++i) hosts.push_back("h" + std::to_string((i * 5) % P));
    fixtures::exact_raw(sub / "p_average.nc", P, {0, 64, 128}, f, nt::Statistic::average, hosts);
    auto full = Document::open(sub / "p_average.nc");
    auto streamed = Document::open(sub / "p_average.nc");
    streamed->set_value_limit(0);
    for (Order order : {Order::rank, Order::host}) {
      ViewSpec s;
      s.k = 2;
      s.order = order;
      const ViewResult a = full->render(s), b = streamed->render(s);
      QVERIFY(a.values && !b.values && b.probe && b.nodata);
      QCOMPARE(b.pool, 1);
      QVERIFY(b.cells == a.cells);
      for (int r = 0; r < P; ++r)
        for (int c = 0; c < P; ++c) {
          const double v = (*a.values)[static_cast<std::size_t>(r * P + c)];
          const double exact = f(b.rank_at(r), b.rank_at(c), 2);
          QCOMPARE(b.nodata->at(c, r), std::isnan(v));
          if (std::isnan(exact)) {
            QVERIFY(std::isnan(b.value_at(r, c)));
          } else {
            QCOMPARE(b.value_at(r, c), exact);  // exact: the file's double, not a grey level
            QCOMPARE(v, exact);
          }
        }
    }
  }
};

QTEST_MAIN(TestDocument)
#include "test_document.moc"
