// Pair plots: axes in one unit family each, a legend for several curves and the deviation band.
//
// Message-length axes are binary (ticks at powers of two, KiB/MiB) when the stored lengths are
// multiples of a power of two, decimal (1-2-5 ticks, kB/MB) otherwise; never both on one axis.
// Delay axes use one unit (s, ms, µs or ns) for every tick, named in the axis title.
#pragma once

#include <QImage>
#include <QString>
#include <QStringList>

#include <span>
#include <vector>

#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

struct AxisTicks {
  std::vector<double> at;  // positions in data units (bytes, seconds)
  QStringList labels;      // one per position
  QString unit;            // linear axes: the unit every label is in ("KiB", "µs"); log: empty
};

// True for binary sweeps: every positive length a power of two (1, 2, 4, 8), or their greatest
// common divisor a power of two >= 2 (0, 512, 1024, 1536). False for decimal ones (0, 1000, 2000;
// 1, 10, 100) and irregular lists, whose axes get 1-2-5 ticks in decimal units.
bool binary_lengths(std::span<const double> lengths);
// True when the positive lengths span at least 64x and are not evenly spaced (geometric sweeps,
// lists): such axes are drawn in log scale.
bool log_length_axis(std::span<const double> lengths);
AxisTicks length_ticks(double lo, double hi, bool log, bool binary);
AxisTicks delay_ticks(double lo, double hi, bool log);

struct PlotStyle {
  QString title;
  QString y_what = QStringLiteral("delay");  // y title before the unit: "median delay"
  QString band_label;                          // legend text of the band ("" when no band)
  QString note;                                // a warning under the title ("cut short: ...")
  bool y_log = false;
};
// Draws the curves (colours from curve.color) into a width x height image; `geometry` receives
// the mapping used. Curves with band draw it translucent in their colour.
QImage plot_image(const std::vector<PlotCurve>& curves, const PlotStyle& style, int width, int height,
                  PlotGeometry* geometry, AxisTicks* x_ticks = nullptr, AxisTicks* y_ticks = nullptr);

// Colour of curve i: the first is the viewer's dark blue, then a colour-blind-safe palette.
QColor curve_color(std::size_t i);

}  // namespace nt::viewer
