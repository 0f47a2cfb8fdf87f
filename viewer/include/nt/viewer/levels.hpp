// Grey levels of the cell views: the range of a view's values, the levels it maps to white and
// black, and the one-pixel-per-cell grey picture (GreyImage) made from them. Part of the data
// layer (nt_viewer_data): no Qt GUI types, so a headless render needs no QGuiApplication.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "nt/viewer/grey_image.hpp"
#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

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
GreyImage cells_image(std::span<const double> values, int rows, int cols, const Levels& lv);
// The grey levels of one row of n values (what cells_image draws), into out.
void grey_row(const double* values, int n, const Levels& lv, std::uint8_t* out);
// Pixels per side of the cell area for a grid of rows x cols drawn with its longest side at
// `size` pixels (0: one pixel per cell), and the factor by which such a picture reduces cells
// (1: none). One rule for compose() and the streamed render (Document, ViewSpec::fit).
struct PixelSize {
  int width = 0, height = 0;
};
PixelSize scaled_size(int rows, int cols, int size);
int reduction_factor(int rows, int cols, int size);

// Shrinks a cell image by an integer factor, each output pixel the DARKEST of the
// f x f cells it covers, so that one slow link stays visible when a big matrix is zoomed out.
GreyImage darkest_pool(const GreyImage& cells, int factor);

}  // namespace nt::viewer
