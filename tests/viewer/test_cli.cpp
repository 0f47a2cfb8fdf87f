// network_viewer --render: the real program, its PNGs and its exit codes.
#include <QDir>
#include <QImageReader>
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include "fixtures.hpp"
#include "nt/version.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <gif_lib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <string>

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
    const Run r = run({in("median"), QStringLiteral("--render"), out("m.png"), QStringLiteral("--length"), QStringLiteral("4096"),
                       QStringLiteral("--raw-pixels")});
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
      const bool decorated = c.args.contains(QStringLiteral("--decorate")) || c.args.contains(QStringLiteral("pair"));
      const Run r = run(QStringList{in("median"), QStringLiteral("--render"), png} + c.args +
                        (decorated ? QStringList{} : QStringList{QStringLiteral("--raw-pixels")}));
      QVERIFY2(r.code == 0, qPrintable(c.args.join(' ') + QStringLiteral(": ") + r.err));
      QImage img(png);
      if (c.size.isEmpty()) QVERIFY(img.width() > 512 && img.height() > 512);
      else QCOMPARE(img.size(), c.size);
    }
    // File normalisation makes the shortest length lighter than per-matrix normalisation.
    QCOMPARE(run({in("median"), QStringLiteral("--render"), out("nm.png"), QStringLiteral("--length"), QStringLiteral("16384"), QStringLiteral("--raw-pixels")}).code, 0);
    QCOMPARE(run({in("median"), QStringLiteral("--render"), out("nf.png"), QStringLiteral("--length"), QStringLiteral("0"),
                  QStringLiteral("--normalize"), QStringLiteral("file"), QStringLiteral("--raw-pixels")}).code, 0);
    QCOMPARE(run({in("median"), QStringLiteral("--render"), out("n0.png"), QStringLiteral("--length"), QStringLiteral("0"), QStringLiteral("--raw-pixels")}).code, 0);
    QVERIFY(fixtures::row_gray(QImage(out("nf.png")), 4, 4) > fixtures::row_gray(QImage(out("n0.png")), 4, 4) + 20);
  }

  // Several pairs, and the same pair from two files, on one plot: each curve in its own colour.
  void severalCurvesOnOnePlot() {
    const auto count = [](const QImage& img, const QColor& c) { return fixtures::count_colour(img, c); };
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
    r = run({in("median"), QStringLiteral("--render"), out("ratio.png"), QStringLiteral("--view"), QStringLiteral("ratio"), QStringLiteral("--raw-pixels"),
             QStringLiteral("--compare"), in("average")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(QImage(out("ratio.png")).size(), QSize(8, 8));
  }

  // Groups are outlined on a decorated picture; raw pixels stay the data, every pixel as without
  // --groups (no outline over the cells).
  void groupsOverlayInPng() {
    std::ofstream(dir_ / "g.json") << R"({"groups": [[0,1],[2,3],[4,5],[6,7]]})";
    // Decorated with grey cells: the coloured outlines are the only colour (--raw-pixels draws
    // none over the data: test_raw_groups.cpp).
    const Run r = run({in("median"), QStringLiteral("--render"), out("g.png"), QStringLiteral("--size"), QStringLiteral("160"),
                       QStringLiteral("--groups"), out("g.json"), QStringLiteral("--colormap"), QStringLiteral("grey")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage img(out("g.png"));
    QVERIFY(img.width() > 160 && img.height() > 160);
    QVERIFY(!img.allGray());
  }

  void errorsExitTwoWithOneMessage_data() {
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("needle");
    const QString dst = QStringLiteral("%1/e.png").arg(tmp_.path());
    QTest::newRow("missing file") << QStringList{out("nope.nc"), QStringLiteral("--render"), dst} << QStringLiteral("nope.nc");
    QTest::newRow("bad view") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("pie")} << QStringLiteral("network_viewer: error: --view: 'pie' is not one of matrix, row, column, pair, deviation, difference, ratio");
    QTest::newRow("length not stored") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--length"), QStringLiteral("5")} << QStringLiteral("stored lengths");
    QTest::newRow("rank out of range") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("row"), QStringLiteral("--rank"), QStringLiteral("8")} << QStringLiteral("rank 8");
    QTest::newRow("bad pair") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--pair"), QStringLiteral("1")} << QStringLiteral("pair");
    QTest::newRow("difference without compare") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("difference")} << QStringLiteral("--compare");
    QTest::newRow("empty window") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--normalize"), QStringLiteral("window"), QStringLiteral("--window"), QStringLiteral("1,2")} << QStringLiteral("window");
    QTest::newRow("no deviation file") << QStringList{out("lonely.nc"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("deviation")} << QStringLiteral("deviation");
    QTest::newRow("corrupt file") << QStringList{out("corrupt.nc"), QStringLiteral("--render"), dst} << QStringLiteral("corrupt.nc");
    QTest::newRow("relative outside deviation") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--relative")} << QStringLiteral("--relative");
    QTest::newRow("white at black") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--white"), QStringLiteral("2e-6"), QStringLiteral("--black"), QStringLiteral("2e-6")} << QStringLiteral("--white");
    QTest::newRow("white above black") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--white"), QStringLiteral("3e-6"), QStringLiteral("--black"), QStringLiteral("1e-6")} << QStringLiteral("must be below");
    QTest::newRow("diagonal pair") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--view"), QStringLiteral("pair"), QStringLiteral("--pair"), QStringLiteral("3,3")} << QStringLiteral("diagonal");
    QTest::newRow("order groups without groups") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--order"), QStringLiteral("groups")} << QStringLiteral("--groups");
    QTest::newRow("bad colormap") << QStringList{in("median"), QStringLiteral("--render"), dst, QStringLiteral("--colormap"), QStringLiteral("jet")} << QStringLiteral("--colormap: 'jet' is not one of auto, grey, viridis, diverging (");
    QTest::newRow("render-all of a pair") << QStringList{in("median"), QStringLiteral("--render-all"), out("seqbad"), QStringLiteral("--view"), QStringLiteral("pair")} << QStringLiteral("--render-all");
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

  // The issue's "must show": a shuffled run (8 nodes x 4 ranks, two switches, node 5 slow) in
  // rank order scatters the slow node into separate lines; ordered by the analysed groups the
  // slow node is one contiguous cross and every node and switch a contiguous block.
  void orderByGroupsMakesContiguousBlocks() {
    nt::SynthParams p;
    p.nodes = 8;
    p.ranks_per_node = 4;
    p.nodes_per_switch = 4;
    p.switch_latency = 20e-6;
    p.slow_node = 5;
    p.slow_factor = 3.0;
    p.shuffle = true;
    p.seed = 11;
    p.lengths = {0, 65536};
    const auto syn = nt::synthesize(p);
    const std::string prefix = (dir_ / "shuf").string();
    nt::write_synth(prefix, syn, true);
    // Groups as an analysis reports them: nodes and switches, by host, in an arbitrary order.
    const int P = 32;
    std::map<std::string, std::vector<int>> by_host;
    for (int r = 0; r < P; ++r) by_host[syn.hosts[static_cast<std::size_t>(r)]].push_back(r);
    std::vector<std::vector<int>> nodes, switches(2);
    for (const auto& [h, ranks] : by_host) nodes.push_back(ranks);
    for (int r = 0; r < P; ++r)
      switches[static_cast<std::size_t>(syn.switch_of_node[static_cast<std::size_t>(syn.node_of_rank[static_cast<std::size_t>(r)])])].push_back(r);
    std::reverse(nodes.begin(), nodes.end());
    nlohmann::json j;
    j["groups"] = nodes;
    nlohmann::json node_level = nlohmann::json::object(), switch_level = nlohmann::json::object();
    node_level["level"] = "node";
    node_level["groups"] = nodes;
    switch_level["level"] = "switch";
    switch_level["groups"] = switches;
    j["hierarchy"] = nlohmann::json::array({node_level, switch_level});
    std::ofstream(dir_ / "shuf.json") << j.dump();
    const QString file = QString::fromStdString(prefix + "_median.nc");
    auto dark_rows = [&](const QString& png, const QStringList& extra) {
      const Run r = run(QStringList{file, QStringLiteral("--render"), png, QStringLiteral("--length"), QStringLiteral("65536"),
                                    QStringLiteral("--raw-pixels"), QStringLiteral("--size"), QStringLiteral("320"),
                                    QStringLiteral("--force")} + extra);
      [&] { QVERIFY2(r.code == 0, qPrintable(r.err)); }();
      // 10 x 10 pixels per cell (outlines only touch block edges): sample the cell centres.
      const QImage big(png);
      QImage img(32, 32, QImage::Format_RGB32);
      for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 32; ++x) img.setPixel(x, y, big.pixel(x * 10 + 5, y * 10 + 5));
      std::vector<int> rows;
      for (int y = 0; y < img.height(); ++y)
        if (fixtures::row_gray(img, y, y) < 60) rows.push_back(y);
      return std::pair{img, rows};
    };
    const auto [plain, plain_dark] = dark_rows(out("shuf_rank.png"), {});
    const auto [ord, ord_dark] = dark_rows(out("shuf_groups.png"), {QStringLiteral("--groups"), out("shuf.json"),
                                                                    QStringLiteral("--order"), QStringLiteral("groups")});
    QCOMPARE(plain_dark.size(), std::size_t(4));
    QCOMPARE(ord_dark.size(), std::size_t(4));
    QVERIFY2(plain_dark.back() - plain_dark.front() > 3, "the shuffled run should scatter the slow node");
    QCOMPARE(ord_dark.back() - ord_dark.front(), 3);  // one contiguous band of 4 rows
    // The cross: the same positions are dark columns too.
    for (int y : ord_dark) {
      double s = 0;
      for (int x = 0; x < ord.width(); ++x)
        if (x != y) s += qGray(ord.pixel(y, x));
      QVERIFY(s / (ord.width() - 1) < 60);
    }
    // Switch blocks: away from the slow node, cells within a switch half are lighter than
    // cells across the halves; ordered, the halves are contiguous [0,16) and [16,32).
    auto block_contrast = [](const QImage& img, const std::vector<int>& dark) {
      double in = 0, across = 0;
      int ni = 0, na = 0;
      for (int y = 0; y < 32; ++y)
        for (int x = 0; x < 32; ++x) {
          if (x == y || std::count(dark.begin(), dark.end(), x) || std::count(dark.begin(), dark.end(), y)) continue;
          if ((x < 16) == (y < 16)) { in += qGray(img.pixel(x, y)); ++ni; } else { across += qGray(img.pixel(x, y)); ++na; }
        }
      return in / ni - across / na;
    };
    // (Grey levels: within a switch ~54 µs, across ~88 µs on a 0..260 µs scale: ~33 levels.)
    const double c_ord = block_contrast(ord, ord_dark), c_plain = block_contrast(plain, plain_dark);
    QVERIFY2(c_ord > 20 && std::abs(c_plain) < c_ord / 3, qPrintable(QStringLiteral("%1 %2").arg(c_ord).arg(c_plain)));
  }

  void defaultsColoursAndExports() {
    // Decorated by default, at a readable size, in colour, with a colour bar.
    Run r = run({in("median"), QStringLiteral("--render"), out("d.png"), QStringLiteral("--length"), QStringLiteral("16384")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage d(out("d.png"));
    QVERIFY(d.width() >= 600 && d.height() >= 512);
    QVERIFY(!d.allGray());
    // --colormap grey keeps the paper's greys (bar included).
    r = run({in("median"), QStringLiteral("--render"), out("dg.png"), QStringLiteral("--colormap"), QStringLiteral("grey")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    {
      // Only the "no data" swatch of the colour bar (18 x 10 pixels) is not grey.
      const QImage g(out("dg.png"));
      int coloured = 0;
      for (int y = 0; y < g.height(); ++y)
        for (int x = 0; x < g.width(); ++x) coloured += !qIsGray(g.pixel(x, y));
      QVERIFY2(coloured <= 250, qPrintable(QString::number(coloured)));
    }
    // --raw-pixels with a colormap: one coloured pixel per cell, darkest (viridis' purple) for the slow node.
    r = run({in("median"), QStringLiteral("--render"), out("rv.png"), QStringLiteral("--raw-pixels"), QStringLiteral("--colormap"),
             QStringLiteral("viridis"), QStringLiteral("--length"), QStringLiteral("16384")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QImage rv(out("rv.png"));
    QCOMPARE(rv.size(), QSize(8, 8));
    QVERIFY(qBlue(rv.pixel(0, 5)) > qGreen(rv.pixel(0, 5)));   // purple end
    QVERIFY(qRed(rv.pixel(0, 1)) > qBlue(rv.pixel(0, 1)));     // yellow end (fast pair)
    // SVG, CSV and the sequence over every length.
    r = run({in("median"), QStringLiteral("--render"), out("d.svg"), QStringLiteral("--csv"), out("d.csv"), QStringLiteral("--length"), QStringLiteral("1024")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QFile svg(out("d.svg"));
    QVERIFY(svg.open(QIODevice::ReadOnly));
    QVERIFY(svg.readAll().startsWith("<svg"));
    QFile csv(out("d.csv"));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    const QStringList lines = QString::fromUtf8(csv.readAll()).trimmed().split('\n');
    QCOMPARE(lines.size(), 9);
    QCOMPARE(lines[0], QStringLiteral("sender\\receiver,0,1,2,3,4,5,6,7"));
    const auto ds = nt::open_dataset(in("median").toStdString());
    const nt::Matrix m = ds->matrix(1);
    QCOMPARE(lines[5].split(',')[3].toDouble(), std::stod(fmt::format("{:.9g}", m.at(4, 2))));
    r = run({in("median"), QStringLiteral("--render-all"), out("seq")});
    QVERIFY2(r.code == 0, qPrintable(r.err));
    QCOMPARE(QDir(out("seq")).entryList({QStringLiteral("*.png")}).size(), 4);
    // Again without --force: refused before anything is written.
    r = run({in("median"), QStringLiteral("--render-all"), out("seq")});
    QCOMPARE(r.code, 2);
  }

  // --render-all NAME.gif: one animated GIF, decoded back by giflib and by Qt's own GIF reader:
  // a frame per stored length, each the size of the PNG sequence's pictures and, within the
  // 8-bit palette, the same picture; it loops and shows each frame for half a second.
  void animatedGifOverAllLengths() {
    const QString json = out("anim_groups.json");
    {
      std::ofstream(json.toStdString()) << R"({"groups": [[0, 1], [2, 3], [4, 5], [6, 7]]})";
    }
    const QStringList view{QStringLiteral("--order"), QStringLiteral("groups"), QStringLiteral("--groups"), json};
    Run r = run(QStringList{in("median"), QStringLiteral("--render-all"), out("anim.gif")} + view);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    r = run(QStringList{in("median"), QStringLiteral("--render-all"), out("anim_png")} + view);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QStringList pngs = QDir(out("anim_png")).entryList({QStringLiteral("*.png")}, QDir::Files, QDir::Name);
    QCOMPARE(pngs.size(), 4);

    int error = 0;
    GifFileType* gif = DGifOpenFileName(out("anim.gif").toLocal8Bit().constData(), &error);
    QVERIFY2(gif, GifErrorString(error));
    QCOMPARE(DGifSlurp(gif), GIF_OK);
    QCOMPARE(gif->ImageCount, 4);
    const QImage first(out("anim_png") + QStringLiteral("/") + pngs[0]);
    QCOMPARE(QSize(gif->SWidth, gif->SHeight), first.size());
    bool loops = false;
    for (int i = 0; i < gif->ExtensionBlockCount; ++i) {
      const ExtensionBlock& e = gif->ExtensionBlocks[i];
      loops = loops || (e.Function == APPLICATION_EXT_FUNC_CODE && e.ByteCount == 11 &&
                        std::memcmp(e.Bytes, "NETSCAPE2.0", 11) == 0);
    }
    for (int k = 0; k < gif->ImageCount; ++k) {
      const SavedImage& im = gif->SavedImages[k];
      QCOMPARE(QSize(im.ImageDesc.Width, im.ImageDesc.Height), first.size());
      GraphicsControlBlock gcb;
      QCOMPARE(DGifSavedExtensionToGCB(gif, k, &gcb), GIF_OK);
      QCOMPARE(gcb.DelayTime, 50);
      for (int i = 0; i < im.ExtensionBlockCount && !loops; ++i)
        loops = im.ExtensionBlocks[i].Function == APPLICATION_EXT_FUNC_CODE;
    }
    QVERIFY(loops);
    DGifCloseFile(gif, &error);

    // Qt's decoder: the same frames, close to the PNGs (palette error only), and not all alike.
    QImageReader reader(out("anim.gif"));
    QVERIFY(reader.supportsAnimation());
    QCOMPARE(reader.imageCount(), 4);
    QImage previous;
    for (int k = 0; k < 4; ++k) {
      const QImage f = reader.read().convertToFormat(QImage::Format_RGB32);
      QVERIFY2(!f.isNull(), qPrintable(reader.errorString()));
      const QImage p = QImage(out("anim_png") + QStringLiteral("/") + pngs[k]).convertToFormat(QImage::Format_RGB32);
      QCOMPARE(f.size(), p.size());
      double diff = 0;
      int worst = 0;
      for (int y = 0; y < f.height(); ++y)
        for (int x = 0; x < f.width(); ++x) {
          const QRgb a = f.pixel(x, y), b = p.pixel(x, y);
          const int d = std::max({std::abs(qRed(a) - qRed(b)), std::abs(qGreen(a) - qGreen(b)), std::abs(qBlue(a) - qBlue(b))});
          diff += d;
          worst = std::max(worst, d);
        }
      diff /= f.width() * f.height();
      QVERIFY2(diff < 1.5, qPrintable(QStringLiteral("frame %1: mean difference %2").arg(k).arg(diff)));
      // The cells themselves (the colormap's colours are in the palette) match within a step.
      const QPoint cell(96 + 40, 40 + 40);
      const QRgb a = f.pixel(cell), b = p.pixel(cell);
      QVERIFY(std::abs(qRed(a) - qRed(b)) + std::abs(qGreen(a) - qGreen(b)) + std::abs(qBlue(a) - qBlue(b)) <= 12);
      if (k > 0) QVERIFY(f != previous);  // the title names each length
      previous = f;
    }
    // Existing file: refused without --force and left alone; a pair view has no lengths to animate.
    const auto before = fs::file_size(out("anim.gif").toStdString());
    r = run({in("median"), QStringLiteral("--render-all"), out("anim.gif")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains(QStringLiteral("--force")));
    QCOMPARE(fs::file_size(out("anim.gif").toStdString()), before);
    r = run({in("median"), QStringLiteral("--render-all"), out("pair.gif"), QStringLiteral("--view"), QStringLiteral("pair")});
    QCOMPARE(r.code, 2);
    QVERIFY(!QFile::exists(out("pair.gif")));
  }

  void refusesToOverwriteWithoutForce() {
    const QString png = out("keep.png");
    QCOMPARE(run({in("median"), QStringLiteral("--render"), png}).code, 0);
    const auto before = fs::file_size(png.toStdString());
    const Run r = run({in("median"), QStringLiteral("--render"), png, QStringLiteral("--size"), QStringLiteral("100")});
    QCOMPARE(r.code, 2);
    QVERIFY(r.err.contains(QStringLiteral("--force")));
    QCOMPARE(fs::file_size(png.toStdString()), before);
    QCOMPARE(run({in("median"), QStringLiteral("--render"), png, QStringLiteral("--size"), QStringLiteral("100"), QStringLiteral("--force"), QStringLiteral("--raw-pixels")}).code, 0);
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
                         QStringLiteral("--force"), QStringLiteral("--raw-pixels")});
      const Run b = run({out("clustered.nc"), QStringLiteral("--render"), out("cl.png"), QStringLiteral("--length"), QLatin1String(len),
                         QStringLiteral("--force"), QStringLiteral("--raw-pixels")});
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

  // --render --size N of a matrix larger than N pixels reads it in blocks of rows and reduces
  // each block of cells to a pixel as it goes (no P x P image): the picture must be the full
  // one-pixel-per-cell picture reduced here block by block: the darkest cell (--reduce max, so a
  // single slow link stays visible) or the median of the cells with data (--reduce median);
  // and decorated, the same picture as the full path gives (--csv keeps every value, so the
  // full matrix is read). 300 ranks, one slow link, holes. About 3 s.
  void renderSizeReducesBlocksWithoutTheFullImage() {
    const int P = 300;
    const auto f = [](int i, int j, std::size_t) {
      if (i == j) return 0.0;
      if ((i * 7 + j * 3) % 97 == 1) return std::numeric_limits<double>::quiet_NaN();
      if (i == 123 && j == 45) return 40e-6;  // one slow link
      return 1e-6 * (1.0 + ((i * 13 + j * 29) % 31) / 40.0) * (i / 75 == j / 75 ? 1.0 : 2.0);
    };
    const auto file = fixtures::exact_raw(dir_ / "p300.nc", P, {0, 1024}, f);
    const QString in = QString::fromStdString(file.string());
    const Run full = run({in, QStringLiteral("--render"), out("full.png"), QStringLiteral("--raw-pixels"), QStringLiteral("--force")});
    QVERIFY2(full.code == 0, qPrintable(full.err));
    const QImage cells(out("full.png"));
    QCOMPARE(cells.size(), QSize(P, P));
    for (const char* how : {"max", "median"})
      for (const int size : {50, 37}) {
        const Run r = run({in, QStringLiteral("--render"), out("small.png"), QStringLiteral("--raw-pixels"), QStringLiteral("--size"),
                           QString::number(size), QStringLiteral("--reduce"), QLatin1String(how), QStringLiteral("--force")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QImage small(out("small.png"));
        QCOMPARE(small.size(), QSize(size, size));
        // Blocks of P / size cells (integer division), the last ones partial; then, for 37, the
        // nearest-neighbour scale of the reduced picture to 37 pixels (as for any --size).
        const int b = P / size, side = (P + b - 1) / b;
        QImage want(side, side, QImage::Format_Grayscale8);
        for (int by = 0; by < side; ++by)
          for (int bx = 0; bx < side; ++bx) {
            std::vector<int> g;
            for (int y = by * b; y < std::min(P, by * b + b); ++y)
              for (int x = bx * b; x < std::min(P, bx * b + b); ++x)
                if (!std::isnan(f(y, x, 0))) g.push_back(qGray(cells.pixel(x, y)));
            std::sort(g.begin(), g.end());
            want.scanLine(by)[bx] = static_cast<uchar>(g.empty() ? 255 : std::strcmp(how, "max") == 0 ? g.front() : g[(g.size() - 1) / 2]);
          }
        if (side != size) want = want.scaled(size, size, Qt::IgnoreAspectRatio, Qt::FastTransformation);
        int differ = 0;
        for (int y = 0; y < size; ++y)
          for (int x = 0; x < size; ++x) differ += qGray(small.pixel(x, y)) != qGray(want.pixel(x, y));
        QVERIFY2(differ == 0, qPrintable(QStringLiteral("%1, size %2: %3 pixels differ").arg(QLatin1String(how)).arg(size).arg(differ)));
        // The slow link's block is black with max; with the median it is not.
        const int sx = 45 / b, sy = 123 / b;
        if (side == size) QCOMPARE(qGray(small.pixel(sx, sy)), std::strcmp(how, "max") == 0 ? 0 : qGray(want.pixel(sx, sy)));
      }
    // Decorated (colours, axes, bar): the streamed picture and the full path's are the same.
    const Run a = run({in, QStringLiteral("--render"), out("dec_stream.png"), QStringLiteral("--size"), QStringLiteral("60"),
                       QStringLiteral("--force")});
    const Run c = run({in, QStringLiteral("--render"), out("dec_full.png"), QStringLiteral("--size"), QStringLiteral("60"),
                       QStringLiteral("--csv"), out("dec_full.csv"), QStringLiteral("--force")});
    QVERIFY2(a.code == 0 && c.code == 0, qPrintable(a.err + c.err));
    QCOMPARE(QImage(out("dec_stream.png")), QImage(out("dec_full.png")));
    QVERIFY(QImage(out("dec_stream.png")).width() > 60);
    QCOMPARE(run({in, QStringLiteral("--render"), out("x.png"), QStringLiteral("--reduce"), QStringLiteral("mean")}).code, 2);
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

  // QT_QPA_PLATFORM=offscreen without --render would open a window no one can see and
  // wait for ever: one line and exit 2, within seconds.
  void guiOffscreenIsAnError() {
    QProcess p;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    p.setProcessEnvironment(env);
    p.start(QStringLiteral(NT_VIEWER_EXE), {in("median")});
    const bool finished = p.waitForFinished(20000);
    if (!finished) p.kill(), p.waitForFinished(5000);
    QVERIFY2(finished, "network_viewer FILE under QT_QPA_PLATFORM=offscreen did not return");
    QCOMPARE(p.exitCode(), 2);
    const QList<QByteArray> lines = p.readAllStandardError().trimmed().split('\n');
    QCOMPARE(lines.size(), 1);
    QVERIFY2(lines.front().contains("no screen") && lines.front().contains("--render"), lines.front().constData());
  }

  void helpAndVersion() {
    QCOMPARE(run({QStringLiteral("--help")}).code, 0);
    QProcess p;
    p.start(QStringLiteral(NT_VIEWER_EXE), {QStringLiteral("--version")});
    QVERIFY(p.waitForFinished(30000));
    QCOMPARE(p.exitCode(), 0);
    // The one form of every program: "<program> <version>".
    QCOMPARE(p.readAllStandardOutput().trimmed(), QByteArray("network_viewer " NT_VERSION));
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
