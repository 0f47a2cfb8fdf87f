// The widgets and the worker on the offscreen platform: open, render, hover, errors, export,
// request coalescing, and QAbstractItemModelTester on every model.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "image_view.hpp"
#include "main_window.hpp"
#include "models.hpp"
#include "session.hpp"
#include "nt/raw_file.hpp"

using namespace ntv;
namespace fs = std::filesystem;

class TestGui : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir_;
  QString median_;

  static bool waitFor(QSignalSpy& spy, int n = 1, int ms = 20000) {
    QElapsedTimer t;
    t.start();
    while (spy.count() < n && t.elapsed() < ms) spy.wait(200);
    return spy.count() >= n;
  }

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path().toStdString();
    median_ = QString::fromStdString(fixtures::synth_run(dir_) + "_median.nc");
  }

  void modelsPassTester() {
    InfoModel info;
    HostsModel hosts;
    QAbstractItemModelTester t1(&info, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(&hosts, QAbstractItemModelTester::FailureReportingMode::QtTest);
    DocumentInfo d;
    d.path = median_;
    d.format = QStringLiteral("raw");
    d.info.params.proc_num = 3;
    d.info.meta.hosts = {"a", "b", "c"};
    d.info.meta.cpus = {0, 1};
    d.info.meta.extra.emplace("custom", std::string(1, 'x'));  // (operator= trips GCC 12 -Wrestrict)
    d.lengths = {0, 8};
    info.setDocument(d);
    hosts.setDocument(d);
    QCOMPARE(hosts.rowCount(), 3);
    QCOMPARE(hosts.data(hosts.index(1, 1)).toString(), QStringLiteral("b"));
    QCOMPARE(hosts.data(hosts.index(2, 2)).toString(), QStringLiteral("?"));
    QCOMPARE(info.value(QStringLiteral("ranks")), QStringLiteral("3"));
    QCOMPARE(info.value(QStringLiteral("custom")), QStringLiteral("x"));
    QCOMPARE(info.columnCount(), 2);
    info.clear();
    hosts.clear();
    QCOMPARE(info.rowCount(), 0);
    d.info.params.proc_num = 5;
    hosts.setDocument(d);
    QCOMPARE(hosts.rowCount(), 5);
  }

  void openRenderHover() {
    MainWindow w;
    QAbstractItemModelTester t1(w.infoModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester t2(w.hostsModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    w.show();
    QSignalSpy opened(&w, &MainWindow::documentOpened), rendered(&w, &MainWindow::viewRendered);
    w.openFile(median_);
    QVERIFY(waitFor(opened));
    QVERIFY(waitFor(rendered));
    QCOMPARE(w.infoModel()->value(QStringLiteral("ranks")), QStringLiteral("8"));
    QCOMPARE(w.infoModel()->value(QStringLiteral("statistic")), QStringLiteral("median"));
    QCOMPARE(w.hostsModel()->rowCount(), 8);
    QVERIFY(!w.hostsModel()->host(4).isEmpty());
    const ViewResult& r = w.view()->result();
    QCOMPARE(r.cells.size(), QSize(8, 8));
    QVERIFY(fixtures::row_gray(r.cells, 4, 4) + 30 < fixtures::row_gray(r.cells, 0, 0));
    // Hover: sender, receiver, hosts, value with units.
    const QString h = w.hoverText(4, 1);
    QVERIFY2(h.contains(QStringLiteral("sender 4 (%1)").arg(w.hostsModel()->host(4))), qPrintable(h));
    QVERIFY2(h.contains(QStringLiteral("receiver 1 (%1)").arg(w.hostsModel()->host(1))), qPrintable(h));
    QVERIFY2(h.contains(QStringLiteral("s")) && (h.contains(QStringLiteral("µs")) || h.contains(QStringLiteral("ns")) || h.contains(QStringLiteral("ms"))), qPrintable(h));
    // The view maps widget positions to cells and emits the hover signal.
    QSignalSpy hover(w.view(), &ImageView::cellHovered);
    const QRect vr = w.view()->rect();
    QTest::mouseMove(w.view(), vr.center());
    QVERIFY(hover.count() >= 1 || w.view()->cellAt(QPointF(vr.center())).x() >= 0);
    const QPoint cell = w.view()->cellAt(QPointF(vr.center()));
    QVERIFY(cell.x() >= 3 && cell.x() <= 4 && cell.y() >= 3 && cell.y() <= 4);
    // Zoom keeps the cell under the anchor.
    w.view()->zoomBy(3.0, QPointF(vr.center()));
    QCOMPARE(w.view()->cellAt(QPointF(vr.center())), cell);

    // Switching the length and the normalisation re-renders with the new spec.
    w.setLengthIndex(3);
    QVERIFY(waitFor(rendered, 2));
    QTRY_COMPARE(w.view()->result().spec.k, std::size_t(3));
    const Levels own = w.view()->result().levels;
    const int n = rendered.count();
    w.setNormalize(Normalize::file);
    QVERIFY(waitFor(rendered, n + 1));
    QTRY_COMPARE(w.view()->result().spec.normalize, Normalize::file);
    // The last matrix holds the largest values of the file, so file levels share its black
    // level, while the white level comes from the shortest messages.
    QCOMPARE(w.view()->result().levels.black, own.black);
    QVERIFY(w.view()->result().levels.white < own.white);

    // Every view kind renders through the GUI.
    for (ViewKind v : {ViewKind::row, ViewKind::column, ViewKind::pair, ViewKind::deviation}) {
      const int before = rendered.count();
      w.setView(v);
      QVERIFY(waitFor(rendered, before + 1));
      QTRY_COMPARE(w.view()->result().spec.view, v);
    }
    QCOMPARE(w.lastError(), QString());
    // Hovering the pair plot names the nearest point.
    w.setView(ViewKind::pair);
    QTRY_COMPARE(w.view()->result().spec.view, ViewKind::pair);
    {
      const ViewResult& pr = w.view()->result();
      const QPointF img(pr.geometry.x_to_px(4096), pr.geometry.area.center().y());
      QCOMPARE(w.view()->cellAt(w.view()->widgetPos(img)), QPoint(2, 0));
      QCOMPARE(pr.row_lengths.size(), std::size_t(4));
      QVERIFY2(w.hoverText(0, 2).contains(QStringLiteral("at 4 KiB: ")), qPrintable(w.hoverText(0, 2)));
      QVERIFY(w.hoverText(0, 2).contains(QStringLiteral("sender 0")));
    }

    // Export the current view.
    const QString png = QString::fromStdString((dir_ / "export.png").string());
    QVERIFY(w.exportPng(png));
    QImage img(png);
    QVERIFY(!img.isNull());
    QVERIFY(img.width() > 100);
  }

  // Pinned pairs and another file's curves on the pair plot; hover names the curve under the
  // mouse, its file and, where the file records them, the samples behind each value.
  void pinnedPairsFilesAndSamples() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::documentOpened), rendered(&w, &MainWindow::viewRendered);
    w.openFile(median_);
    QVERIFY(waitFor(opened));
    w.setView(ViewKind::pair);
    QTRY_COMPARE(w.view()->result().spec.view, ViewKind::pair);
    w.setPair(0, 1);
    w.pinPair();
    w.setPair(4, 0);
    QTRY_COMPARE(w.view()->result().curves.size(), std::size_t(2));
    {
      const ViewResult& r = w.view()->result();
      QCOMPARE(r.curves[0].sender, 4);  // the boxes' pair first, then the pinned one
      QCOMPARE(r.curves[1].sender, 0);
      // Over the pinned (fast, lower) curve's last point: its curve, not the slow one above.
      const PlotCurve& c = r.curves[1];
      const QPointF img(r.geometry.x_to_px(static_cast<double>(c.lengths[3])), r.geometry.y_to_px(c.y[3]));
      QCOMPARE(w.view()->cellAt(w.view()->widgetPos(img)), QPoint(3, 1));
      QVERIFY2(w.hoverText(1, 3).contains(QStringLiteral("sender 0")), qPrintable(w.hoverText(1, 3)));
      QVERIFY(!w.hoverText(1, 3).contains(QStringLiteral("samples")));  // not recorded in this file
    }
    w.addPlotFile(QString(median_).replace(QStringLiteral("_median"), QStringLiteral("_average")));
    QTRY_COMPARE(w.view()->result().curves.size(), std::size_t(4));
    QVERIFY2(w.hoverText(3, 0).contains(QStringLiteral("[run_average.nc]")), qPrintable(w.hoverText(3, 0)));
    w.clearPinnedPairs();
    QTRY_COMPARE(w.view()->result().curves.size(), std::size_t(2));
    QCOMPARE(w.lastError(), QString());

    // A file with samples per cell (network_test --precision).
    nt::FileInfo info;
    info.params.proc_num = 3;
    info.params.statistic = nt::Statistic::median;
    info.params.end_length = 64;
    info.params.num_repeats = 100;
    const fs::path prec = dir_ / "prec_median.nc";
    {
      nt::RawWriter wr(prec, info, true, 0, nt::RecordExtras{true, false});
      for (int k = 0; k < 2; ++k) {
        std::vector<double> v(9, 1e-6 * (k + 1));
        std::vector<int> c(9, 0);
        for (int i = 0; i < 9; ++i) c[static_cast<std::size_t>(i)] = 10 * (k + 1) + i;
        wr.append(k * 64, v, c);
      }
      wr.close();
    }
    MainWindow p;
    p.show();
    QSignalSpy popened(&p, &MainWindow::documentOpened);
    p.openFile(QString::fromStdString(prec.string()));
    QVERIFY(waitFor(popened));
    QTRY_VERIFY(p.view()->hasResult() && p.view()->result().samples);
    QVERIFY2(p.hoverText(1, 2).endsWith(QStringLiteral(", 15 samples")), qPrintable(p.hoverText(1, 2)));
    p.setView(ViewKind::pair);
    p.setPair(2, 0);
    QTRY_VERIFY(p.view()->result().plot && p.view()->result().curves[0].sender == 2);
    QVERIFY2(p.hoverText(0, 1).endsWith(QStringLiteral(", 26 samples")), qPrintable(p.hoverText(0, 1)));
  }

  void errorsAreShownNotCrashes() {
    MainWindow w;
    w.show();
    QSignalSpy err(&w, &MainWindow::errorShown);
    w.openFile(QString::fromStdString((dir_ / "nothere.nc").string()));
    QVERIFY(waitFor(err));
    QVERIFY(w.lastError().contains(QStringLiteral("nothere.nc")));
    QVERIFY(w.findChild<QLabel*>(QStringLiteral("errorLabel"))->isVisibleTo(&w));
    std::ofstream(dir_ / "junk.nc") << "junk junk junk";
    w.openFile(QString::fromStdString((dir_ / "junk.nc").string()));
    QVERIFY(waitFor(err, 2));
    QVERIFY(w.lastError().contains(QStringLiteral("junk.nc")));
    // A good file afterwards still works, and clears the error.
    QSignalSpy rendered(&w, &MainWindow::viewRendered);
    w.openFile(median_);
    QVERIFY(waitFor(rendered));
    QVERIFY(w.lastError().isEmpty());
    // Difference view without a second file: an error message, no crash.
    w.setView(ViewKind::difference);
    QVERIFY(waitFor(err, 3));
    QVERIFY(w.lastError().contains(QStringLiteral("second file")));
  }

  void sessionCoalescesRequests() {
    Session s;
    QSignalSpy opened(&s, &Session::opened), rendered(&s, &Session::rendered);
    s.open(median_);
    QVERIFY(waitFor(opened));
    for (int i = 0; i < 50; ++i) {
      ViewSpec v;
      v.k = static_cast<std::size_t>(i % 4);
      v.normalize = Normalize::file;
      s.request(v);
    }
    ViewSpec last;
    last.k = 2;
    last.view = ViewKind::column;
    last.rank = 5;
    s.request(last);
    QVERIFY(waitFor(rendered));
    QTest::qWait(300);
    QVERIFY(rendered.count() < 51);
    const auto r = rendered.last().at(0).value<ViewResult>();
    QCOMPARE(r.spec.view, ViewKind::column);
    QCOMPARE(r.spec.rank, 5);
  }
};

QTEST_MAIN(TestGui)
#include "test_gui.moc"
