// network_viewer --render: the real program, its PNGs and its exit codes.
#include <QProcess>
#include <QtTest>

#include <filesystem>
#include <fstream>

#include "fixtures.hpp"

namespace fs = std::filesystem;

class TestCli : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir_;
  QString prefix_;

  struct Run {
    int code;
    QString err;
  };
  Run run(const QStringList& args) {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove(QStringLiteral("DISPLAY"));  // --render must not need a display
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("xcb"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(NT_VIEWER_EXE), args);
    if (!p.waitForFinished(60000)) return {-1, QStringLiteral("timeout")};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromLocal8Bit(p.readAllStandardError())};
  }
  QString out(const char* name) { return QString::fromStdString((dir_ / name).string()); }
  QString in(const char* stat) { return prefix_ + QStringLiteral("_") + QLatin1String(stat) + QStringLiteral(".nc"); }

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path().toStdString();
    prefix_ = QString::fromStdString(fixtures::synth_run(dir_));
  }

  void matrixPngIsOnePixelPerCell() {
    const Run r = run({in("median"), QStringLiteral("--render"), out("m.png"), QStringLiteral("--length"), QStringLiteral("4096")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage img(out("m.png"));
    QCOMPARE(img.size(), QSize(8, 8));
    QVERIFY(img.isGrayscale());
    QVERIFY(fixtures::row_gray(img, 5, 5) + 30 < fixtures::row_gray(img, 1, 1));
    // Off-diagonal extremes span the full range with per-matrix normalisation.
    int lo = 255, hi = 0;
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x)
        if (x != y) {
          lo = std::min(lo, qGray(img.pixel(x, y)));
          hi = std::max(hi, qGray(img.pixel(x, y)));
        }
    QCOMPARE(lo, 0);
    QCOMPARE(hi, 255);
  }

  void viewsAndOptions() {
    struct Case {
      QStringList args;
      QSize size;  // (0,0): only check it is larger than 100 x 60
    };
    const QList<Case> cases{
        {{QStringLiteral("--size"), QStringLiteral("64")}, QSize(64, 64)},
        {{QStringLiteral("--view"), QStringLiteral("row"), QStringLiteral("--rank"), QStringLiteral("4")}, QSize(8, 4)},
        {{QStringLiteral("--view"), QStringLiteral("column"), QStringLiteral("--rank"), QStringLiteral("2"),
          QStringLiteral("--window"), QStringLiteral("1024,16384")}, QSize(8, 3)},
        {{QStringLiteral("--view"), QStringLiteral("pair"), QStringLiteral("--pair"), QStringLiteral("4,0"),
          QStringLiteral("--size"), QStringLiteral("400")}, QSize(400, 250)},
        {{QStringLiteral("--view"), QStringLiteral("deviation")}, QSize(8, 8)},
        {{QStringLiteral("--view"), QStringLiteral("deviation"), QStringLiteral("--relative"), QStringLiteral("--decorate")}, QSize(0, 0)},
        {{QStringLiteral("--normalize"), QStringLiteral("file"), QStringLiteral("--log")}, QSize(8, 8)},
        {{QStringLiteral("--normalize"), QStringLiteral("window"), QStringLiteral("--window"), QStringLiteral("0,1024")}, QSize(8, 8)},
        {{QStringLiteral("--view"), QStringLiteral("difference"), QStringLiteral("--compare"), in("average")}, QSize(8, 8)},
        {{QStringLiteral("--decorate")}, QSize(0, 0)},
    };
    int i = 0;
    for (const auto& c : cases) {
      const QString png = out("v") + QString::number(i++) + QStringLiteral(".png");
      const Run r = run(QStringList{in("median"), QStringLiteral("--render"), png} + c.args);
      QVERIFY2(r.code == 0, qPrintable(c.args.join(' ') + QStringLiteral(": ") + r.err));
      QImage img(png);
      if (c.size.isEmpty()) QVERIFY(img.width() > 512 && img.height() > 512);
      else QCOMPARE(img.size(), c.size);
    }
    // File normalisation makes the shortest length lighter than per-matrix normalisation.
    QCOMPARE(run({in("median"), QStringLiteral("--render"), out("nm.png"), QStringLiteral("--length"), QStringLiteral("16384")}).code, 0);
    QCOMPARE(run({in("median"), QStringLiteral("--render"), out("nf.png"), QStringLiteral("--length"), QStringLiteral("0"),
                  QStringLiteral("--normalize"), QStringLiteral("file")}).code, 0);
    QCOMPARE(run({in("median"), QStringLiteral("--render"), out("n0.png"), QStringLiteral("--length"), QStringLiteral("0")}).code, 0);
    QVERIFY(fixtures::row_gray(QImage(out("nf.png")), 4, 4) > fixtures::row_gray(QImage(out("n0.png")), 4, 4) + 20);
  }

  // Several pairs, and the same pair from two files, on one plot: each curve in its own colour.
  void severalCurvesOnOnePlot() {
    const auto count = [](const QImage& img, QColor c) {
      int n = 0;
      for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
          const QColor p = img.pixelColor(x, y);
          if (std::abs(p.red() - c.red()) <= 8 && std::abs(p.green() - c.green()) <= 8 && std::abs(p.blue() - c.blue()) <= 8) ++n;
        }
      return n;
    };
    const QColor first(20, 40, 120), second(213, 94, 0), third(0, 158, 115);
    Run r = run({in("median"), QStringLiteral("--render"), out("pp.png"), QStringLiteral("--view"), QStringLiteral("pair"),
                 QStringLiteral("--pair"), QStringLiteral("0,1"), QStringLiteral("--pair"), QStringLiteral("4,0")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage img(out("pp.png"));
    QVERIFY(count(img, first) > 100);
    QVERIFY(count(img, second) > 100);
    QCOMPARE(count(img, third), 0);
    r = run({in("median"), in("average"), QStringLiteral("--render"), out("pf.png"), QStringLiteral("--view"), QStringLiteral("pair"),
             QStringLiteral("--pair"), QStringLiteral("4,0"), QStringLiteral("--pair"), QStringLiteral("2,6")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    img = QImage(out("pf.png"));
    for (const QColor& c : {first, second, third}) QVERIFY(count(img, c) > 50);
    // The ratio view of two runs.
    r = run({in("median"), QStringLiteral("--render"), out("ratio.png"), QStringLiteral("--view"), QStringLiteral("ratio"),
             QStringLiteral("--compare"), in("average")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(QImage(out("ratio.png")).size(), QSize(8, 8));
  }

  void groupsOverlayInPng() {
    std::ofstream(dir_ / "g.json") << R"({"groups": [[0,1],[2,3],[4,5],[6,7]]})";
    const Run r = run({in("median"), QStringLiteral("--render"), out("g.png"), QStringLiteral("--size"), QStringLiteral("160"),
                       QStringLiteral("--groups"), out("g.json")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage img(out("g.png"));
    QCOMPARE(img.size(), QSize(160, 160));
    QVERIFY(!img.allGray());
  }

  void errorsExitTwoWithOneMessage_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("needle");
    const QString dst = QStringLiteral("%1/e.png").arg(tmp_.path());
    QTest::newRow("missing file") << QStringList{out("nope.nc"), QStringLiteral("--render"), dst} << QStringLiteral("nope.nc");
    QTest::newRow("bad view") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("pie")} << QStringLiteral("--view");
    QTest::newRow("length not stored") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--length"), QStringLiteral("5")} << QStringLiteral("stored lengths");
    QTest::newRow("rank out of range") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("row"), QStringLiteral("--rank"), QStringLiteral("8")} << QStringLiteral("rank 8");
    QTest::newRow("bad pair") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--pair"), QStringLiteral("1")} << QStringLiteral("pair");
    QTest::newRow("difference without compare") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("difference")} << QStringLiteral("--compare");
    QTest::newRow("empty window") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--normalize"), QStringLiteral("window"), QStringLiteral("--window"), QStringLiteral("1,2")} << QStringLiteral("window");
    QTest::newRow("no deviation file") << QStringList{out("lonely.nc"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("deviation")} << QStringLiteral("deviation");
    QTest::newRow("corrupt file") << QStringList{out("corrupt.nc"), QStringLiteral("--render"), dst} << QStringLiteral("corrupt.nc");
    QTest::newRow("relative outside deviation") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--relative")} << QStringLiteral("--relative");
    QTest::newRow("two files") << QStringList{in("median"), in("average"), QStringLiteral("--render"), dst} << QStringLiteral("exactly one");
    QTest::newRow("diagonal pair") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("pair"), QStringLiteral("--pair"), QStringLiteral("0,1"), QStringLiteral("--pair"), QStringLiteral("3,3")} << QStringLiteral("diagonal");
    QTest::newRow("pair not numbers") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("pair"), QStringLiteral("--pair"), QStringLiteral("a,1")} << QStringLiteral("SENDER,RECEIVER");
    QTest::newRow("ratio without compare") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("ratio")} << QStringLiteral("--compare");
    QTest::newRow("compare unmatchable") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("ratio"), QStringLiteral("--compare"), out("nohosts.nc")} << QStringLiteral("cannot be matched by host");
  }
  void errorsExitTwoWithOneMessage() {
    QFETCH(QStringList, args);
    QFETCH(QString, needle);
    if (!fs::exists(dir_ / "nohosts.nc"))
      fixtures::exact_raw(dir_ / "nohosts.nc", 3, {0, 1024}, [](int i, int j, std::size_t) { return i == j ? 0.0 : 1e-6; },
                          nt::Statistic::average, std::vector<std::string>{});
    if (!fs::exists(dir_ / "lonely.nc"))
      fixtures::exact_raw(dir_ / "lonely.nc", 3, {8}, [](int i, int j, std::size_t) { return i == j ? 0.0 : 1e-6; });
    std::ofstream(dir_ / "corrupt.nc", std::ios::binary) << "CDF\x02 this is not really netcdf at all";
    fs::remove(dir_ / "e.png");
    const Run r = run(args);
    QCOMPARE(r.code, 2);
    QVERIFY2(r.err.contains(needle), qPrintable(r.err));
    QVERIFY2(r.err.trimmed().count('\n') <= 1, qPrintable(r.err));
    QVERIFY(!fs::exists(dir_ / "e.png"));
  }

  void refusesToOverwriteWithoutForce() {
    const QString png = out("keep.png");
    QCOMPARE(run({in("median"), QStringLiteral("--render"), png}).code, 0);
    const auto before = fs::file_size(png.toStdString());
    const Run r = run({in("median"), QStringLiteral("--render"), png, QStringLiteral("--size"), QStringLiteral("100")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains(QStringLiteral("--force")));
    QCOMPARE(fs::file_size(png.toStdString()), before);
    QCOMPARE(run({in("median"), QStringLiteral("--render"), png, QStringLiteral("--size"), QStringLiteral("100"), QStringLiteral("--force")}).code, 0);
    QCOMPARE(QImage(png).size(), QSize(100, 100));
  }

  // A clustered NetCDF-4 file (network_cluster) opens through the same reader and looks like
  // the raw file it came from, within the compression error.
  void clusteredFile() {
#ifndef NT_CLUSTER_EXE
    QSKIP("network_cluster is not part of this build");
#else
    QProcess c;
    c.start(QStringLiteral(NT_CLUSTER_EXE), {QStringLiteral("compress"), in("median"), QStringLiteral("-o"), out("clustered.nc"),
                                            QStringLiteral("--threshold"), QStringLiteral("0.05"), QStringLiteral("--relative"),
                                            QStringLiteral("--force")});
    QVERIFY(c.waitForFinished(60000));
    QVERIFY2(c.exitCode() == 0, c.readAllStandardError().constData());
    for (const char* len : {"0", "16384"}) {
      const Run a = run({in("median"), QStringLiteral("--render"), out("raw.png"), QStringLiteral("--length"), QLatin1String(len),
                         QStringLiteral("--force")});
      const Run b = run({out("clustered.nc"), QStringLiteral("--render"), out("cl.png"), QStringLiteral("--length"), QLatin1String(len),
                         QStringLiteral("--force")});
      QVERIFY2(a.code == 0 && b.code == 0, qPrintable(a.err + b.err));
      const QImage ra(out("raw.png")), cb(out("cl.png"));
      QCOMPARE(cb.size(), QSize(8, 8));
      int worst = 0;
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) worst = std::max(worst, std::abs(qGray(ra.pixel(x, y)) - qGray(cb.pixel(x, y))));
      QVERIFY2(worst <= 40, qPrintable(QStringLiteral("largest grey difference %1").arg(worst)));
      QVERIFY(fixtures::row_gray(cb, 4, 4) + 30 < fixtures::row_gray(cb, 0, 0));
    }
#endif
  }

  void guiWithoutDisplayIsAnError() {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* v : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) env.remove(QLatin1String(v));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(NT_VIEWER_EXE), {in("median")});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitStatus(), QProcess::NormalExit);
    QCOMPARE(p.exitCode(), 2);
    QVERIFY(p.readAllStandardError().contains("--render"));
  }

  void helpAndVersion() {
    QCOMPARE(run({QStringLiteral("--help")}).code, 0);
    QCOMPARE(run({QStringLiteral("--version")}).code, 0);
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
