// network_viewer --raw-pixels with --groups: the pixels stay data. Every pixel of a raw picture
// ordered by groups is the pixel of the plain raw picture at the displayed ranks (no outline
// painted over any of them), and --groups without --order groups is refused with one line.
// The real program on a synthetic run with noise, groups that do not follow rank order. ~3 s.
#include <QFile>
#include <QProcess>
#include <QtTest>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fixtures.hpp"

namespace fs = std::filesystem;

class TestRawGroups : public QObject {
  Q_OBJECT
  QTemporaryDir tmp_;
  fs::path dir_;
  QString median_;

  struct Run {
    int code;
    QString err;
  };
  Run run(const QStringList& args) {
    QProcess p;
    p.start(QStringLiteral(NT_VIEWER_EXE), args);
    if (!p.waitForFinished(60000)) return {-1, QStringLiteral("timeout")};
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -2, QString::fromLocal8Bit(p.readAllStandardError())};
  }
  QString out(const std::string& name) const { return QString::fromStdString((dir_ / name).string()); }

  // The displayed ranks, left to right, from the header of the view's CSV.
  static std::vector<int> csv_order(const QString& path) {
    std::ifstream in(path.toStdString());
    std::string header, cell;
    std::getline(in, header);
    std::stringstream ss(header);
    std::getline(ss, cell, ',');  // "sender\receiver"
    std::vector<int> order;
    while (std::getline(ss, cell, ',')) order.push_back(std::stoi(cell));
    return order;
  }

  // Renders the plain raw picture and the one ordered by `groups_json`, at `size` (0: one pixel
  // per cell), and checks every pixel of the second against the first.
  void check_untouched(const std::string& groups_json, int size, const QStringList& extra) {
    const std::string tag = std::to_string(size) + (extra.isEmpty() ? "" : "c");
    std::ofstream(dir_ / ("g" + tag + ".json")) << groups_json;
    const QStringList common = QStringList{QStringLiteral("--length"), QStringLiteral("4096"), QStringLiteral("--raw-pixels")} + extra;
    // The plain picture at one pixel per cell: the reference values.
    Run r = run(QStringList{median_, QStringLiteral("--render"), out("plain" + tag + ".png")} + common);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QImage plain(out("plain" + tag + ".png"));
    QCOMPARE(plain.size(), QSize(8, 8));
    QStringList ordered{median_, QStringLiteral("--render"), out("ordered" + tag + ".png"), QStringLiteral("--csv"),
                        out("ordered" + tag + ".csv"), QStringLiteral("--groups"), out("g" + tag + ".json"),
                        QStringLiteral("--order"), QStringLiteral("groups")};
    if (size > 0) ordered << QStringLiteral("--size") << QString::number(size);
    r = run(ordered + common);
    QVERIFY2(r.code == 0, qPrintable(r.err));
    const QImage img(out("ordered" + tag + ".png"));
    const int n = size > 0 ? size : 8;
    QCOMPARE(img.size(), QSize(n, n));
    const std::vector<int> order = csv_order(out("ordered" + tag + ".csv"));
    QCOMPARE(order.size(), std::size_t{8});
    // The groups do reorder the ranks (else the comparison below would not see an overlay
    // drawn in the wrong place any better than in the right one).
    bool moved = false;
    for (int i = 0; i < 8; ++i) moved |= order[static_cast<std::size_t>(i)] != i;
    QVERIFY(moved);
    int wrong = 0;
    for (int y = 0; y < n; ++y)
      for (int x = 0; x < n; ++x) {
        const int i = order[static_cast<std::size_t>(y * 8 / n)], j = order[static_cast<std::size_t>(x * 8 / n)];
        wrong += img.pixel(x, y) != plain.pixel(j, i);
      }
    QCOMPARE(wrong, 0);
  }

 private slots:
  void initTestCase() {
    QVERIFY(tmp_.isValid());
    dir_ = tmp_.path().toStdString();
    median_ = QString::fromStdString(fixtures::synth_run(dir_, 1, 0.05)) + QStringLiteral("_median.nc");
  }

  void everyPixelUntouchedOnePerCell() {
    check_untouched(R"({"groups": [[3,6],[0,5],[1,7],[2,4]]})", 0, {});
  }

  void everyPixelUntouchedScaled() {
    check_untouched(R"({"groups": [[7,2,5],[0,6],[4,1,3]]})", 160, {});
  }

  void everyPixelUntouchedWithHierarchyAndColours() {
    check_untouched(R"({"hierarchy": [{"level": "node", "groups": [[5,2],[0,7],[3,6],[1,4]]},
                                      {"level": "switch", "groups": [[5,2,3,6],[0,7,1,4]]}]})",
                    80, {QStringLiteral("--colormap"), QStringLiteral("viridis")});
  }

  void outlinesOverRawPixelsAreRefused() {
    std::ofstream(dir_ / "refused.json") << R"({"groups": [[0,1],[2,3],[4,5],[6,7]]})";
    for (const QString& target : {QStringLiteral("--render"), QStringLiteral("--render-all")}) {
      const QString dst = out(target == QStringLiteral("--render") ? "refused.png" : "refused.gif");
      const Run r = run({median_, target, dst, QStringLiteral("--groups"), out("refused.json"), QStringLiteral("--raw-pixels")});
      QCOMPARE(r.code, 2);
      QVERIFY2(r.err.contains(QStringLiteral("--raw-pixels")) && r.err.contains(QStringLiteral("--order groups")), qPrintable(r.err));
      QCOMPARE(r.err.trimmed().count(QLatin1Char('\n')), 0);
      QVERIFY(!QFile::exists(dst));
    }
  }
};

QTEST_GUILESS_MAIN(TestRawGroups)
#include "test_raw_groups.moc"
