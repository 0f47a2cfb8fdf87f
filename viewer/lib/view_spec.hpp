// Value types shared by the viewer's document, renderer, worker and widgets.
//
// A ViewSpec says what to draw (which view, which length, which rank or pair, how to normalise);
// a ViewResult is what the renderer produced for it: one pixel per cell (or a plot) plus the
// values behind the pixels, so that widgets can show hover text without touching the file.
#pragma once

#include <QColor>
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
#include <utility>
#include <vector>

#include "nt/params.hpp"

namespace ntv {

enum class ViewKind { matrix, row, column, pair, deviation, difference, ratio };
// Where the white and black levels come from (diagonal always excluded):
//   matrix: the values on screen (the matrix, or the row/column slice);
//   file:   every matrix of the file;  window: the matrices in the window of lengths.
enum class Normalize { matrix, file, window };
// Colours of the cell views. grey: the paper's (white = low, black = high); viridis: perceptually
// uniform, reversed so that high stays dark; diverging: blue - white - red for differences.
// automatic: viridis, or diverging for the difference view.
enum class Colormap { automatic, grey, viridis, diverging };
// What the values of a cell view are, for colour-bar labels: seconds, a ratio shown in percent
// (relative deviation), or a factor A / B (ratio view, "×2").
enum class ValueUnit { seconds, percent, factor };
// Order of the ranks on both axes: rank number, host name, or nested analysed groups.
enum class Order { rank, host, groups };

std::string_view view_name(ViewKind v);
// Views whose levels are centred on a neutral value (difference: 0; ratio: 1, log-symmetric):
// the automatic colormap is the diverging one, white at the centre.
inline bool centred(ViewKind v) { return v == ViewKind::difference || v == ViewKind::ratio; }
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
  std::vector<std::pair<int, int>> more_pairs;  // pair view: further (sender, receiver) curves
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
  // Log length axis with a 0 B point: 0 gets its own slot left of the log scale (axis break).
  bool x_zero = false;
  double x_to_px(double x) const;
  double zero_gap() const;   // width of the 0 B slot when x_zero
  double y_to_px(double y) const;
};

// One curve of a pair plot: one (sender, receiver) of one file, with what the hover needs.
struct PlotCurve {
  QString label;                   // legend text
  QString file;                    // file name the curve comes from (with its folder when ambiguous)
  int source = 0;                  // 0: the document's file; i: the i-th file added to the plot
  int sender = 0, receiver = 1;    // ranks in that file
  std::vector<std::int64_t> lengths;
  std::vector<double> y;           // seconds (no data: NaN)
  std::vector<double> band;        // +-1 sd in seconds, same size as y; empty: no deviation file
  std::vector<int> samples;        // samples per point when the file records them; else empty
  QColor color;
};

struct ViewResult {
  ViewSpec spec;
  bool plot = false;         // true: `image` is a pair plot, not cells
  QImage cells;              // cell views: one pixel per cell (Grayscale8); plots: the plot
  Levels levels;
  int rows = 0, cols = 0;    // cell grid (rows = senders or lengths)
  std::shared_ptr<const std::vector<double>> values;  // rows*cols values behind the pixels
  std::shared_ptr<const std::vector<int>> samples;    // matrix view: samples per cell, when recorded
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
  std::vector<PlotCurve> curves;  // pair plots: hover row = curve, col = point
  QString title;
  // A warning drawn under the title of decorated pictures: "cut short: ..." for a killed run.
  QString note;
  QString row_label, col_label;
  // Rank shown at each displayed position of a rank axis (empty: rank order), and the host of
  // each displayed position when the file knows it (for axis labels).
  std::vector<int> order;
  std::vector<QString> axis_hosts;
  int rank_at(int pos) const {
    return pos >= 0 && static_cast<std::size_t>(pos) < order.size() ? order[static_cast<std::size_t>(pos)] : pos;
  }
  bool symmetric() const { return centred(spec.view); }
  // Values are ratios (relative deviation; A / B of the ratio view), not seconds: shown in %.
  bool ratio() const { return (spec.view == ViewKind::deviation && spec.relative) || spec.view == ViewKind::ratio; }
  ValueUnit unit() const {
    return spec.view == ViewKind::ratio ? ValueUnit::factor : ratio() ? ValueUnit::percent : ValueUnit::seconds;
  }
};

// A summary of an opened document handed to the GUI thread (value type).
struct DocumentInfo {
  QString path;
  QString format;
  nt::FileInfo info;
  std::vector<std::int64_t> lengths;
  // Non-empty when the file holds fewer lengths than its run planned (nt::sweep_completeness):
  // "cut short: 3 of 6 message lengths stored (the run stopped early)".
  QString cut_short;
  bool has_deviation = false;
  QString deviation_path;
  QString compare_path;
  QString compare_match;   // how the compared file's ranks and lengths were matched
  std::vector<QString> plot_files;  // further files whose curves the pair view overlays
  std::vector<std::vector<int>> groups;
  // Every level of the analysed hierarchy, finest first ("node", "switch", ...).
  std::vector<std::pair<QString, std::vector<std::vector<int>>>> hierarchy;
};

}  // namespace ntv

Q_DECLARE_METATYPE(ntv::ViewSpec)
Q_DECLARE_METATYPE(ntv::ViewResult)
Q_DECLARE_METATYPE(ntv::DocumentInfo)
