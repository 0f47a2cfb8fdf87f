// The data layer's grey levels (levels.hpp): ranges, levels, grey rows and cell pictures.
#include "nt/viewer/levels.hpp"

#include <algorithm>
#include <cmath>

namespace nt::viewer {

Range range_of(std::span<const double> values, int rows, int cols, int diag_col) {
  // Tight loops over the off-diagonal parts of each row; NaN and infinities are skipped.
  double lo = std::numeric_limits<double>::infinity(), hi = -lo, lo_pos = lo;
  auto scan = [&](const double* p, int n) {
    for (int j = 0; j < n; ++j) {
      const double v = p[j];
      if (!(std::abs(v) <= std::numeric_limits<double>::max())) continue;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
      if (v > 0 && v < lo_pos) lo_pos = v;
    }
  };
  for (int i = 0; i < rows; ++i) {
    const double* row = values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(cols);
    const int d = diag_col == ViewResult::kDiagIsRow ? i : diag_col;
    if (d >= 0 && d < cols) {
      scan(row, d);
      scan(row + d + 1, cols - d - 1);
    } else {
      scan(row, cols);
    }
  }
  Range r;
  r.lo = lo;
  r.hi = hi;
  r.lo_pos = lo_pos;
  return r;
}

Levels levels_from(const Range& r, bool log, bool symmetric) {
  Levels lv;
  lv.log = log && !symmetric;
  if (r.empty()) {
    lv.white = 0.0;
    lv.black = 1.0;
    return lv;
  }
  if (symmetric) {
    const double m = std::max(std::abs(r.lo), std::abs(r.hi));
    lv.white = -m;
    lv.black = m;
  } else if (lv.log && r.lo_pos <= r.hi) {
    lv.white = r.lo_pos;
    lv.black = r.hi;
  } else {
    lv.white = r.lo;
    lv.black = r.hi;
  }
  return lv;
}

Levels ratio_levels(const Range& r) {
  double m = 2.0;
  if (!r.empty() && r.lo_pos <= r.hi) m = std::max({r.hi, 1.0 / r.lo_pos, 1.0});
  if (!std::isfinite(m)) m = 2.0;
  return Levels{1.0 / m, m, true};
}

void grey_row(const double* row, int cols, const Levels& lv, std::uint8_t* line) {
  const bool linear = !(lv.log && lv.white > 0 && lv.black > 0) && lv.black > lv.white;
  if (linear) {
    // Fast path (linear scale): one multiply per cell; same result as Levels::gray.
    const double scale = 255.0 / (lv.black - lv.white);
    for (int j = 0; j < cols; ++j) {
      const double d = (row[j] - lv.white) * scale;  // 0 .. 255 darkness
      // NaN fails both comparisons and ends up white, like Levels::gray.
      const double c = d > 0.0 ? (d < 255.0 ? d : 255.0) : 0.0;
      line[j] = static_cast<std::uint8_t>(255 - static_cast<int>(c + 0.5));
    }
  } else {
    for (int j = 0; j < cols; ++j) line[j] = lv.gray(row[j]);
  }
}

GreyImage cells_image(std::span<const double> values, int rows, int cols, const Levels& lv) {
  GreyImage img(cols, rows);
  for (int i = 0; i < rows; ++i)
    grey_row(values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(cols), cols, lv, img.row(i));
  return img;
}

PixelSize scaled_size(int rows, int cols, int size) {
  const int longest = std::max(rows, cols);
  if (size <= 0 || longest <= 0) return {cols, rows};
  return {std::max(1, static_cast<int>(std::lround(double(cols) * size / longest))),
          std::max(1, static_cast<int>(std::lround(double(rows) * size / longest)))};
}

int reduction_factor(int rows, int cols, int size) {
  const PixelSize s = scaled_size(rows, cols, size);
  return std::max(1, std::max(cols / std::max(s.width, 1), rows / std::max(s.height, 1)));
}

GreyImage darkest_pool(const GreyImage& cells, int f) {
  if (f <= 1) return cells;
  const int w = (cells.width + f - 1) / f, h = (cells.height + f - 1) / f;
  GreyImage out(w, h, 255);
  for (int y = 0; y < cells.height; ++y) {
    const std::uint8_t* in = cells.row(y);
    std::uint8_t* o = out.row(y / f);
    for (int x = 0; x < cells.width; ++x) {
      std::uint8_t& d = o[x / f];
      if (in[x] < d) d = in[x];
    }
  }
  return out;
}

}  // namespace nt::viewer
