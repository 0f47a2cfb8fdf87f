// Pair plots: axes in one unit family each, a legend for several curves and the deviation band.
//
// Message-length axes are binary (ticks at powers of two, KiB/MiB) when the stored lengths are
// multiples of a power of two, decimal (1-2-5 ticks, kB/MB) otherwise; never both on one axis.
// Delay axes use one unit (s, ms, µs or ns) for every tick, named in the axis title.
#pragma once

#include <QImage>
#include <QRectF>
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

// Geometry of a pair plot, so that tests and the hover can map values to pixels.
struct PlotGeometry {
  QRectF area;               // plot area in image pixels
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  bool x_log = false, y_log = false;
  // Log length axis with a 0 B point: 0 gets its own slot left of the log scale (axis break).
  bool x_zero = false;
  double x_to_px(double x) const;
  double zero_gap() const;   // width of the 0 B slot when x_zero
  double y_to_px(double y) const;
};

// Draws the curves (colours curve_color(curve.color)) into a width x height image; `geometry`
// receives the mapping used. Curves with band draw it translucent in their colour.
QImage plot_image(const std::vector<PlotCurve>& curves, const PlotStyle& style, int width, int height,
                  PlotGeometry* geometry, AxisTicks* x_ticks = nullptr, AxisTicks* y_ticks = nullptr);
// The pair plot of a document's result (r.plot): its curves and style at its plot size.
QImage plot_picture(const ViewResult& r, PlotGeometry* geometry = nullptr);

// Colour of curve i: the first is the viewer's dark blue, then a colour-blind-safe palette.
QColor curve_color(std::size_t i);

}  // namespace nt::viewer
