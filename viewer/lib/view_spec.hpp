// Value types shared by the viewer's document, renderer, worker and widgets.
//
// A ViewSpec says what to draw (which view, which length, which rank or pair, how to normalise);
// a ViewResult is what the renderer produced for it: one pixel per cell (or a plot) plus the
// values behind the pixels, so that widgets can show hover text without touching the file.
#pragma once

#include <QImage>
#include <QMetaType>
#include <QRectF>
#include <QString>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "nt/params.hpp"

namespace ntv {

enum class ViewKind { matrix, row, column, pair, deviation, difference };
// Where the white and black levels come from (diagonal always excluded):
//   matrix: the values on screen (the matrix, or the row/column slice);
//   file:   every matrix of the file;  window: the matrices in the window of lengths.
enum class Normalize { matrix, file, window };
// Colours of the cell views. grey: the paper's (white = low, black = high); viridis: perceptually
// uniform, reversed so that high stays dark; diverging: blue - white - red for differences.
// automatic: viridis, or diverging for the difference view.
enum class Colormap { automatic, grey, viridis, diverging };
// Order of the ranks on both axes: rank number, host name, or nested analysed groups.
enum class Order { rank, host, groups };

std::string_view view_name(ViewKind v);
std::optional<ViewKind> view_from_name(std::string_view s);
std::string_view normalize_name(Normalize n);
std::optional<Normalize> normalize_from_name(std::string_view s);
std::string_view colormap_name(Colormap c);
std::optional<Colormap> colormap_from_name(std::string_view s);
std::string_view order_name(Order o);
std::optional<Order> order_from_name(std::string_view s);

struct ViewSpec {
  ViewKind view = ViewKind::matrix;
  std::size_t k = 0;          // matrix index (matrix, deviation, difference views)
  int rank = 0;               // row / column views
  int sender = 0;             // pair view
  int receiver = 1;
  Normalize normalize = Normalize::matrix;
  std::size_t k0 = 0, k1 = 0; // window of matrix indices [k0, k1); k1 == 0: every matrix
  std::optional<double> white, black;  // user levels in seconds, override the computed ones
  bool log = false;
  bool relative = false;      // deviation view: deviation / value (coefficient of variation)
  Order order = Order::rank;  // matrix-like views: order of the ranks on the axes
  bool operator==(const ViewSpec&) const = default;
};

// Grey levels: `white` maps to 255, `black` to 0, linearly (or linearly in log(value)).
struct Levels {
  double white = 0.0;
  double black = 1.0;
  bool log = false;
  // 0 (white) .. 1 (black); NaN and values at or below white give 0.
  double darkness(double v) const;
  unsigned char gray(double v) const;
};

// Geometry of a pair plot, so that tests and the hover can map values to pixels.
struct PlotGeometry {
  QRectF area;               // plot area in image pixels
  double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
  bool x_log = false, y_log = false;
  double x_to_px(double x) const;
  double y_to_px(double y) const;
};

struct ViewResult {
  ViewSpec spec;
  bool plot = false;         // true: `image` is a pair plot, not cells
  QImage cells;              // cell views: one pixel per cell (Grayscale8); plots: the plot
  Levels levels;
  int rows = 0, cols = 0;    // cell grid (rows = senders or lengths)
  std::shared_ptr<const std::vector<double>> values;  // rows*cols values behind the pixels
  std::vector<std::int64_t> row_lengths;  // row/column views: message length of each image row
  // Which cell of each image row is a diagonal (i,i) cell, excluded from normalisation:
  // kDiagIsRow (matrix views: column == row), kNoDiag, or a fixed column (row/column views).
  int diag_col = kDiagIsRow;
  static constexpr int kDiagIsRow = -2;
  static constexpr int kNoDiag = -1;
  bool is_diagonal(int row, int col) const {
    return diag_col == kDiagIsRow ? row == col : col == diag_col;
  }
  PlotGeometry geometry;     // pair plots
  QString title;
  QString row_label, col_label;
  // Rank shown at each displayed position of a rank axis (empty: rank order), and the host of
  // each displayed position when the file knows it (for axis labels).
  std::vector<int> order;
  std::vector<QString> axis_hosts;
  int rank_at(int pos) const {
    return pos >= 0 && static_cast<std::size_t>(pos) < order.size() ? order[static_cast<std::size_t>(pos)] : pos;
  }
  bool symmetric() const { return spec.view == ViewKind::difference; }
  // Values are ratios (relative deviation), not seconds.
  bool ratio() const { return spec.view == ViewKind::deviation && spec.relative; }
};

// A summary of an opened document handed to the GUI thread (value type).
struct DocumentInfo {
  QString path;
  QString format;
  nt::FileInfo info;
  std::vector<std::int64_t> lengths;
  bool has_deviation = false;
  QString deviation_path;
  QString compare_path;
  std::vector<std::vector<int>> groups;
  // Every level of the analysed hierarchy, finest first ("node", "switch", ...).
  std::vector<std::pair<QString, std::vector<std::vector<int>>>> hierarchy;
};

}  // namespace ntv

Q_DECLARE_METATYPE(ntv::ViewSpec)
Q_DECLARE_METATYPE(ntv::ViewResult)
Q_DECLARE_METATYPE(ntv::DocumentInfo)
