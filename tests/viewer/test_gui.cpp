// The widgets and the worker on the offscreen platform: open, render, hover, errors, export,
// request coalescing, and QAbstractItemModelTester on every model.
#include <QAbstractItemModelTester>
#include <QComboBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QSpinBox>
#include <QSignalSpy>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "fixtures.hpp"
#include "nt/viewer/image_view.hpp"
#include "nt/viewer/main_window.hpp"
#include "nt/viewer/models.hpp"
#include "nt/viewer/session.hpp"
#include "nt/raw_file.hpp"
#include "nt/viewer/render.hpp"

using namespace nt::viewer;
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
  // Shows the window and opens the fixture in it; true once the first view is drawn.
  bool showOpened(MainWindow& w, QSignalSpy& rendered) {
    w.show();
    w.openFile(median_);
    return waitFor(rendered);
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
    QCOMPARE(QSize(r.cells.width, r.cells.height), QSize(8, 8));
    QVERIFY(fixtures::row_gray(to_qimage(r.cells), 4, 4) + 30 < fixtures::row_gray(to_qimage(r.cells), 0, 0));
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
      const PlotGeometry& g = w.view()->plotGeometry();
      const QPointF img(g.x_to_px(4096), g.area.center().y());
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
      const PlotGeometry& g = w.view()->plotGeometry();
      const QPointF img(g.x_to_px(static_cast<double>(c.lengths[3])), g.y_to_px(c.y[3]));
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
    QVERIFY(w.lastError().contains(QStringLiteral("second run")));
  }

  // The error bar of a failed view goes away with the next successful one (it once stayed on),
  // and it tells a GUI user where to act (the File menu), not only the command-line flag.
  void staleErrorBarIsHidden() {
    MainWindow w;
    w.show();
    QSignalSpy opened(&w, &MainWindow::documentOpened), rendered(&w, &MainWindow::viewRendered),
        err(&w, &MainWindow::errorShown);
    w.openFile(median_);
    QVERIFY(waitFor(opened));
    QVERIFY(waitFor(rendered));
    auto* bar = w.findChild<QLabel*>(QStringLiteral("errorLabel"));
    auto* views = w.findChild<QComboBox*>(QStringLiteral("viewBox"));
    QVERIFY(bar && views);
    QVERIFY(!bar->isVisibleTo(&w));
    for (ViewKind needsSecond : {ViewKind::difference, ViewKind::ratio}) {
      const int e = err.count();
      views->setCurrentIndex(views->findData(static_cast<int>(needsSecond)));
      QVERIFY(waitFor(err, e + 1));
      QVERIFY(bar->isVisibleTo(&w));
      QVERIFY2(bar->text().contains(QStringLiteral("File > Compare with")), qPrintable(bar->text()));
      QVERIFY2(bar->text().contains(QString::fromLatin1(view_name(needsSecond).data())), qPrintable(bar->text()));
      // Back to a view that works: the bar and the remembered error are gone.
      const int r = rendered.count();
      views->setCurrentIndex(views->findData(static_cast<int>(ViewKind::matrix)));
      QVERIFY(waitFor(rendered, r + 1));
      QVERIFY(!bar->isVisibleTo(&w));
      QCOMPARE(w.lastError(), QString());
    }
    // With the second run opened, the same view succeeds and the bar stays hidden.
    const int e = err.count();
    views->setCurrentIndex(views->findData(static_cast<int>(ViewKind::difference)));
    QVERIFY(waitFor(err, e + 1));
    QVERIFY(bar->isVisibleTo(&w));
    w.openCompare(QString(median_).replace(QStringLiteral("_median"), QStringLiteral("_average")));
    QTRY_VERIFY(w.view()->result().spec.view == ViewKind::difference);
    QVERIFY(!bar->isVisibleTo(&w));
  }

  // A killed run's file: the title, the status bar and the Parameters tab say "cut short".
  void cutShortFileIsAnnounced() {
    const auto killed = fixtures::killed_run(dir_ / "killed_median.nc", 4, 0, 1024, 4096, {0, 1024, 2048});
    MainWindow w;
    QAbstractItemModelTester t(w.infoModel(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    w.show();
    QSignalSpy opened(&w, &MainWindow::documentOpened), rendered(&w, &MainWindow::viewRendered);
    w.openFile(QString::fromStdString(killed.string()));
    QVERIFY(waitFor(opened));
    QVERIFY(waitFor(rendered));
    QVERIFY2(w.windowTitle().contains(QStringLiteral("(cut short)")), qPrintable(w.windowTitle()));
    auto* note = w.findChild<QLabel*>(QStringLiteral("cutShortLabel"));
    QVERIFY(note && note->isVisibleTo(&w));
    QVERIFY2(note->text().contains(QStringLiteral("3 of 5 message lengths")), qPrintable(note->text()));
    QVERIFY(w.infoModel()->value(QStringLiteral("message lengths")).startsWith(QStringLiteral("3 (cut short")));
    QCOMPARE(w.view()->result().note, note->text());
    // A complete file afterwards clears every sign of it.
    w.openFile(median_);
    QVERIFY(waitFor(opened, 2));
    QVERIFY(!w.windowTitle().contains(QStringLiteral("cut short")));
    QVERIFY(!note->isVisibleTo(&w));
    QCOMPARE(w.infoModel()->value(QStringLiteral("message lengths")), QStringLiteral("4"));
  }

  // The selectors of the rank order and view, driven through their widgets (keyboard and clicks).
  void colormapSelectorRecolours() {
    MainWindow w;
    QSignalSpy rendered(&w, &MainWindow::viewRendered);
    QVERIFY(showOpened(w, rendered));
    auto* maps = w.findChild<QComboBox*>(QStringLiteral("mapBox"));
    QVERIFY(maps);
    QAbstractItemModelTester t(maps->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    const auto colourful = [&] {
      const QImage img = w.view()->pixmap().toImage();
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
          const QColor c = img.pixelColor(x, y);
          n += std::max({c.red(), c.green(), c.blue()}) - std::min({c.red(), c.green(), c.blue()}) > 30;
        }
      return n;
    };
    QCOMPARE(w.view()->colormap(), Colormap::automatic);
    QVERIFY(colourful() > 40);  // automatic = viridis for delays
    maps->setFocus();
    while (maps->currentData().toInt() != static_cast<int>(Colormap::grey)) QTest::keyClick(maps, Qt::Key_Down);
    QCOMPARE(w.view()->colormap(), Colormap::grey);
    QCOMPARE(colourful(), 0);
    // The slow node (ranks 4, 5) stays darker than the others in grey.
    const QImage grey = w.view()->pixmap().toImage();
    QVERIFY(qGray(grey.pixel(1, 4)) + 30 < qGray(grey.pixel(1, 0)));
    // The export uses the colours on screen.
    const QString png = QString::fromStdString((dir_ / "grey.png").string());
    QVERIFY(w.exportPng(png));
    QImage exported(png);
    int tinted = 0;
    for (int y = 0; y < exported.height(); y += 2)
      for (int x = 0; x < exported.width() - 150; x += 2) {  // the cells, not the legend's outline colours
        const QColor c = exported.pixelColor(x, y);
        tinted += std::abs(c.red() - c.blue()) > 30;
      }
    QCOMPARE(tinted, 0);
    QTest::keyClick(maps, Qt::Key_Up);
    QCOMPARE(w.view()->colormap(), Colormap::viridis);
    QVERIFY(colourful() > 40);
  }

  void orderSelectorReordersAxes() {
    MainWindow w;
    QSignalSpy rendered(&w, &MainWindow::viewRendered), err(&w, &MainWindow::errorShown);
    QVERIFY(showOpened(w, rendered));
    // Groups that pair each rank with one of another node: order 0,5,1,4,2,7,3,6.
    const fs::path json = dir_ / "pairs.json";
    std::ofstream(json) << R"({"groups": [[3, 6], [1, 4], [0, 5], [2, 7]]})";
    w.loadGroups(QString::fromStdString(json.string()));
    QTRY_COMPARE(w.document().groups.size(), std::size_t(4));
    auto* orders = w.findChild<QComboBox*>(QStringLiteral("orderBox"));
    QVERIFY(orders);
    orders->setCurrentIndex(orders->findData(static_cast<int>(Order::groups)));
    QTRY_VERIFY(w.view()->result().spec.order == Order::groups);
    const ViewResult& r = w.view()->result();
    QCOMPARE(r.order, (std::vector<int>{0, 5, 1, 4, 2, 7, 3, 6}));
    // Displayed row 1 is rank 5 (slow node): darker than row 0 (rank 0); values follow.
    QVERIFY(fixtures::row_gray(to_qimage(r.cells), 1, 1) + 30 < fixtures::row_gray(to_qimage(r.cells), 0, 0));
    QVERIFY(w.hoverText(1, 0).startsWith(QStringLiteral("sender 5 ")));
    orders->setCurrentIndex(orders->findData(static_cast<int>(Order::host)));
    QTRY_VERIFY(w.view()->result().spec.order == Order::host);
    QCOMPARE(w.view()->result().order, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));  // node0, node0, node1, ...
    QCOMPARE(w.view()->result().axis_hosts.front(), w.hostsModel()->host(0));
    orders->setCurrentIndex(orders->findData(static_cast<int>(Order::rank)));
    QTRY_VERIFY(w.view()->result().spec.order == Order::rank);
    QVERIFY(w.view()->result().order.empty());
    QCOMPARE(err.count(), 0);
  }

  void pairListPinsAndRemoves() {
    MainWindow w;
    QSignalSpy rendered(&w, &MainWindow::viewRendered);
    QVERIFY(showOpened(w, rendered));
    auto* views = w.findChild<QComboBox*>(QStringLiteral("viewBox"));
    auto* sender = w.findChild<QSpinBox*>(QStringLiteral("senderSpin"));
    auto* receiver = w.findChild<QSpinBox*>(QStringLiteral("receiverSpin"));
    auto* list = w.findChild<QListWidget*>(QStringLiteral("pairsList"));
    auto* pin = w.findChild<QPushButton*>(QStringLiteral("pinButton"));
    auto* unpin = w.findChild<QPushButton*>(QStringLiteral("unpinButton"));
    QVERIFY(views && sender && receiver && list && pin && unpin);
    QAbstractItemModelTester t(list->model(), QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!pin->isEnabled());  // pairs belong to the pair view
    views->setCurrentIndex(views->findData(static_cast<int>(ViewKind::pair)));
    QTRY_VERIFY(w.view()->result().plot);
    QVERIFY(pin->isEnabled());
    QTest::mouseClick(pin, Qt::LeftButton);  // pins 0 -> 1
    sender->setValue(4);
    receiver->setValue(2);
    QTest::mouseClick(pin, Qt::LeftButton);  // pins 4 -> 2
    QTest::mouseClick(pin, Qt::LeftButton);  // again: no duplicate
    QCOMPARE(list->count(), 2);
    receiver->setValue(7);
    QTRY_COMPARE(w.view()->result().curves.size(), std::size_t(3));
    {
      const auto& c = w.view()->result().curves;
      QCOMPARE(std::pair(c[0].sender, c[0].receiver), std::pair(4, 7));
      QCOMPARE(std::pair(c[1].sender, c[1].receiver), std::pair(0, 1));
      QCOMPARE(std::pair(c[2].sender, c[2].receiver), std::pair(4, 2));
      // The slow sender's curve lies above the fast pair's at the longest message.
      QVERIFY(c[0].y.back() > 2 * c[1].y.back());
    }
    list->item(0)->setSelected(true);
    QTest::mouseClick(unpin, Qt::LeftButton);
    QCOMPARE(list->count(), 1);
    QTRY_COMPARE(w.view()->result().curves.size(), std::size_t(2));
    QCOMPARE(w.view()->result().curves[1].sender, 4);
    QCOMPARE(w.lastError(), QString());
  }

  void ratioAndDifferenceViews() {
    MainWindow w;
    QSignalSpy rendered(&w, &MainWindow::viewRendered), err(&w, &MainWindow::errorShown);
    QVERIFY(showOpened(w, rendered));
    w.openCompare(QString(median_).replace(QStringLiteral("_median"), QStringLiteral("_min")));
    QTRY_VERIFY(!w.document().compare_path.isEmpty());
    auto* views = w.findChild<QComboBox*>(QStringLiteral("viewBox"));
    views->setCurrentIndex(views->findData(static_cast<int>(ViewKind::ratio)));
    QTRY_VERIFY(w.view()->result().spec.view == ViewKind::ratio);
    {
      const ViewResult& r = w.view()->result();
      // Log-symmetric around 1: white * black == 1; median >= min everywhere, so every ratio >= 1.
      QVERIFY(r.levels.log);
      QVERIFY(std::abs(r.levels.white * r.levels.black - 1.0) < 1e-9);
      for (int i = 0; i < r.rows; ++i)
        for (int j = 0; j < r.cols; ++j)
          if (i != j) QVERIFY((*r.values)[static_cast<std::size_t>(i * r.cols + j)] >= 1.0 - 1e-12);
          else QCOMPARE((*r.values)[static_cast<std::size_t>(i * r.cols + j)], 1.0);  // 0 and 0: no change
      // The diverging map: ratios above 1 are red (slower here), never blue.
      const QImage img = w.view()->pixmap().toImage();
      int red = 0, blue = 0;
      for (int i = 0; i < r.rows; ++i)
        for (int j = 0; j < r.cols; ++j) {
          if (i == j) continue;
          const QColor c = img.pixelColor(j, i);
          red += c.red() > c.blue() + 8;
          blue += c.blue() > c.red() + 8;
        }
      QVERIFY2(red > 20 && blue == 0, qPrintable(QStringLiteral("red %1 blue %2").arg(red).arg(blue)));
      QVERIFY(w.hoverText(1, 0).contains(QStringLiteral("ratio")));
    }
    views->setCurrentIndex(views->findData(static_cast<int>(ViewKind::difference)));
    QTRY_VERIFY(w.view()->result().spec.view == ViewKind::difference);
    {
      const ViewResult& r = w.view()->result();
      QCOMPARE(r.levels.white, -r.levels.black);  // centred on 0
      QVERIFY(!r.levels.log);
      QVERIFY(r.levels.black > 0);
    }
    QCOMPARE(err.count(), 0);
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

  // A matrix too big to keep in memory (streamed: forced on 40 ranks by a value limit of 0):
  // zoomed out, each screen pixel is the max (or, chosen in the selector, the median) of its
  // block of cells, and the status bar says which; zoomed in to single cells, a cell shows its
  // exact value, read from the file on demand, and hovering it names the pair and that value.
  void bigMatrixPyramidZoomAndHover() {
    const int P = 40;
    const auto f = [](int i, int j, std::size_t k) {
      if (i == j) return 0.0;
      if (i == 6 && j == 29) return 30e-6 * static_cast<double>(k + 1);  // one slow link
      return 1e-6 * (1.0 + ((i * 7 + j * 11) % 13) / 6.0) * static_cast<double>(k + 1);
    };
    const auto file = fixtures::exact_raw(dir_ / "big40_average.nc", P, {0, 512}, f);
    MainWindow w;
    w.session()->setValueLimit(0);
    w.setColormap(Colormap::grey);
    QSignalSpy rendered(&w, &MainWindow::viewRendered);
    w.show();
    w.openFile(QString::fromStdString(file.string()));
    QVERIFY(waitFor(rendered));
    ImageView* v = w.view();
    const ViewResult& r = v->result();
    QVERIFY(!r.values && r.probe);  // streamed: no values in memory
    QCOMPARE(r.rows, P);
    auto* detail = w.findChild<QLabel*>(QStringLiteral("detailLabel"));
    QVERIFY(detail);

    // Zoom out to 4 cells per screen pixel: level 2 of the pyramid, one level pixel per screen pixel.
    v->zoomBy(0.25 / v->zoom(), QPointF(v->rect().center()));
    QCOMPARE(v->cellsPerPixel(), 4);
    QCOMPARE(detail->text(), QStringLiteral("max of 4 x 4 cells per pixel"));
    // The screen pixel holding a widget position (the one whose square contains it).
    const auto pixelAt = [](QPointF p) { return QPoint(static_cast<int>(std::floor(p.x())), static_cast<int>(std::floor(p.y()))); };
    const auto expect = [&](int bx, int by, Reduce mode) {
      std::vector<int> g;
      for (int y = 4 * by; y < 4 * by + 4; ++y)
        for (int x = 4 * bx; x < 4 * bx + 4; ++x) g.push_back(r.levels.gray(f(y, x, 0)));
      std::sort(g.begin(), g.end());
      return mode == Reduce::max ? g.front() : g[(g.size() - 1) / 2];
    };
    auto* reduce = w.findChild<QComboBox*>(QStringLiteral("reduceBox"));
    QVERIFY(reduce);
    for (Reduce mode : {Reduce::max, Reduce::median}) {
      reduce->setCurrentIndex(reduce->findData(static_cast<int>(mode)));
      QCOMPARE(v->reduce(), mode);
      const QImage shot = v->grab().toImage();
      int differ = 0;
      for (int by = 0; by < P / 4; ++by)
        for (int bx = 0; bx < P / 4; ++bx) {
          const QPointF at = v->widgetPos(QPointF(4 * bx + 2, 4 * by + 2));
          differ += qGray(shot.pixel(pixelAt(at))) != expect(bx, by, mode);
        }
      QCOMPARE(differ, 0);
      // The slow link (6, 29) is the darkest cell of its block: black with max, not with the median.
      const QPointF slow = v->widgetPos(QPointF(29, 6));
      QCOMPARE(qGray(shot.pixel(pixelAt(slow))) == 0, mode == Reduce::max);
    }
    QCOMPARE(detail->text(), QStringLiteral("median of 4 x 4 cells per pixel"));

    // Zoom in on cell (row 6, column 29) until a cell is 60 pixels wide: it shows its value.
    const QPointF anchor = v->widgetPos(QPointF(29.5, 6.5));
    v->zoomBy(60.0 / v->zoom(), anchor);
    QCOMPARE(v->cellsPerPixel(), 1);
    QVERIFY2(detail->text().startsWith(QStringLiteral("60 pixels per cell")), qPrintable(detail->text()));
    QCOMPARE(v->cellAt(anchor), QPoint(29, 6));
    const QImage shot = v->grab().toImage();
    QCOMPARE(qGray(shot.pixel(pixelAt(anchor) + QPoint(0, 20))), 0);  // the slow link's colour (black)
    bool found = false;
    for (const auto& l : v->cellLabels()) {
      QCOMPARE(l.text, format_value(f(l.row, l.col, 0), false));  // every label the exact value
      found = found || (l.row == 6 && l.col == 29);
    }
    QVERIFY(found && v->cellLabels().size() >= 4);
    // Hover: the pair under the mouse and its value, read from the file.
    QSignalSpy hover(v, &ImageView::cellHovered);
    QTest::mouseMove(v, anchor.toPoint());
    QTRY_VERIFY(hover.count() >= 1);
    QCOMPARE(hover.last().at(0).toInt(), 6);
    QCOMPARE(hover.last().at(1).toInt(), 29);
    const QString h = w.hoverText(6, 29);
    QVERIFY2(h.startsWith(QStringLiteral("sender 6 (node3) -> receiver 29 (node14) at 0 B: ")), qPrintable(h));
    QVERIFY2(h.endsWith(format_value(30e-6, false)), qPrintable(h));
    QVERIFY2(w.hoverText(2, 3).endsWith(format_value(f(2, 3, 0), false)), qPrintable(w.hoverText(2, 3)));
    // The slider's next length: the same zoom, the values of that length.
    w.setLengthIndex(1);
    QTRY_COMPARE(w.view()->result().spec.k, std::size_t(1));
    QVERIFY2(w.hoverText(6, 29).endsWith(format_value(60e-6, false)), qPrintable(w.hoverText(6, 29)));
    QCOMPARE(w.lastError(), QString());
  }
};

QTEST_MAIN(TestGui)
#include "test_gui.moc"
