// The GUI under a real X server (Xvfb): started with two --pair options and a second file, the
// window shows one pair plot with a curve per pair and file, each in its own colour.
// Usage: test_viewer_xvfb_pairs VIEWER FIXTURE_PREFIX OUT.png
#include <QCoreApplication>
#include <QFile>
#include <QImage>
#include <QProcess>

#include <cstdio>
#include <cstdlib>

#include "pixels.hpp"

namespace {
using fixtures::count_colour;
int fail(const char* what) {
  std::fprintf(stderr, "FAIL: %s\n", what);
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  if (argc != 4) return fail("usage: VIEWER FIXTURE_PREFIX OUT.png");
  const QString viewer = QString::fromLocal8Bit(argv[1]), prefix = QString::fromLocal8Bit(argv[2]),
                out = QString::fromLocal8Bit(argv[3]);
  QFile::remove(out);
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("QT_QPA_PLATFORM"));
  p.setProcessEnvironment(env);
  p.setProcessChannelMode(QProcess::ForwardedChannels);
  p.start(QStringLiteral("xvfb-run"),
          {QStringLiteral("-a"), QStringLiteral("-s"), QStringLiteral("-screen 0 1400x900x24"), viewer,
           prefix + QStringLiteral("_median.nc"), prefix + QStringLiteral("_average.nc"), QStringLiteral("--view"),
           QStringLiteral("pair"), QStringLiteral("--pair"), QStringLiteral("0,1"), QStringLiteral("--pair"),
           QStringLiteral("4,0"), QStringLiteral("--screenshot"), out});
  if (!p.waitForFinished(90000)) {
    p.kill();
    return fail("the viewer did not finish within 90 s");
  }
  if (p.exitStatus() != QProcess::NormalExit || p.exitCode() != 0) return fail("the viewer failed");
  const QImage img(out);
  if (img.isNull() || img.width() < 800) return fail("no window-sized screenshot");
  // 2 pairs x 2 files: the palette's first four colours are all on screen, at least in the
  // legend's line samples (about 40 pixels each; the median and average curves of the same pair
  // nearly coincide, so the later one hides the earlier).
  const QColor colours[] = {QColor(20, 40, 120), QColor(213, 94, 0), QColor(0, 158, 115), QColor(204, 121, 167)};
  for (const QColor& c : colours)
    if (count_colour(img, c) < 25) {
      std::fprintf(stderr, "FAIL: colour %s: %d pixels\n", qPrintable(c.name()), count_colour(img, c));
      return 1;
    }
  if (count_colour(img, QColor(230, 159, 0)) > 0) return fail("a fifth curve is drawn");
  std::printf("pair plot screenshot %dx%d with 4 curves -> %s\n", img.width(), img.height(), qPrintable(out));
  return 0;
}
