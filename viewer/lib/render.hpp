// Pure rendering: values -> grey images, pair plots, decorations and overlays. Needs only QtGui
// (a QGuiApplication for text: plots and --decorate), so the headless --render path uses it too.
#pragma once

#include <QColor>
#include <QImage>
#include <QPainter>

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "view_spec.hpp"

namespace ntv {

// Running range of the finite values (and of the positive ones, for log scales).
struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  double lo_pos = std::numeric_limits<double>::infinity();
  void add(double v) {
    if (!(v == v) || v == std::numeric_limits<double>::infinity() ||
        v == -std::numeric_limits<double>::infinity())
      return;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
    if (v > 0 && v < lo_pos) lo_pos = v;
  }
  void merge(const Range& o) {
    if (o.lo < lo) lo = o.lo;
    if (o.hi > hi) hi = o.hi;
    if (o.lo_pos < lo_pos) lo_pos = o.lo_pos;
  }
  bool empty() const { return !(lo <= hi); }
};

// Range of the off-diagonal values of a rows x cols grid (see ViewResult::diag_col).
Range range_of(std::span<const double> values, int rows, int cols, int diag_col);
// Levels from a range; `symmetric` (differences) centres them on zero. Empty range: 0..1.
Levels levels_from(const Range& r, bool log, bool symmetric);
// Levels of a ratio view (A / B): log scale symmetric around 1 (1/m .. m). Empty range: 1/2 .. 2.
Levels ratio_levels(const Range& r);
// One grey pixel per value, larger = darker.
QImage cells_image(std::span<const double> values, int rows, int cols, const Levels& lv);

// Shrinks a Grayscale8 cell image by an integer factor, each output pixel the DARKEST of the
// f x f cells it covers, so that one slow link stays visible when a big matrix is zoomed out.
QImage darkest_pool(const QImage& cells, int factor);

// About n tick positions at 1-2-5 steps over [lo, hi]; log_ticks: the decades within [lo, hi]
// (1-2-5 steps when fewer than two fall inside). Total: non-finite bounds give no ticks.
std::vector<double> nice_ticks(double lo, double hi, int n);
std::vector<double> log_ticks(double lo, double hi);

struct ComposeOptions {
  int size = 0;              // longest side in pixels of the cell area; 0: one pixel per cell
  bool decorate = false;     // axes, legend and title
  const std::vector<std::vector<int>>* groups = nullptr;  // overlays (matrix-like views only)
};
// The image a user exports: cell image scaled (nearest) with optional overlays/decorations.
// Plots are returned as they are.
QImage compose(const ViewResult& r, const ComposeOptions& o);

// Draws the outline of every block (group x group) of ranks onto a cell area of rows x cols
// cells mapped to `area`. Non-contiguous groups give one rectangle per pair of runs.
void paint_groups(QPainter& p, const QRectF& area, int rows, int cols,
                  const std::vector<std::vector<int>>& groups);
QColor group_color(std::size_t index);

// A value for labels and hover text: seconds with units ("-1.20 µs" for negatives), or a
// percentage for ratios.
QString format_value(double v, bool ratio);

}  // namespace ntv
