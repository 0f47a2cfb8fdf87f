// Value types shared by the viewer's document, renderer, worker and widgets.
//
// A ViewSpec says what to draw (which view, which length, which rank or pair, how to normalise);
// a ViewResult is what the document produced for it: one grey pixel per cell (or the curves of
// a pair plot) plus the values behind the pixels, so that widgets can show hover text without
// touching the file. Data layer (nt_viewer_data): Qt Core only (QString), no Qt GUI types; the
// GUI layer paints the picture (render.hpp's colorize/compose, plot.hpp's plot_picture).
#pragma once

#include <QMetaType>
#include <QString>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "nt/params.hpp"
#include "nt/viewer/grey_image.hpp"

namespace nt::viewer {

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
// How a block of cells becomes one pixel when a big matrix is shown smaller than one pixel per
// cell: the largest value (the darkest cell, so that one slow link stays visible), or the median
// of the cells that hold data (the upper middle one of an even count).
enum class Reduce { max, median };

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
std::string_view reduce_name(Reduce r);
std::optional<Reduce> reduce_from_name(std::string_view s);
// Each choice's names, in the order --help lists them (aliases after: "gray"): the tables the
// command line gives nt::add_enum_option (nt/cli.hpp's Names).
std::vector<std::pair<std::string, ViewKind>> view_names();
std::vector<std::pair<std::string, Normalize>> normalize_names();
std::vector<std::pair<std::string, Colormap>> colormap_names();
std::vector<std::pair<std::string, Order>> order_names();
std::vector<std::pair<std::string, Reduce>> reduce_names();

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
  // Matrix-like views: the longest side in pixels the picture will be drawn at (0: one pixel per
  // cell). When it is at most half the rank count the matrix is read in blocks of rows and each
  // pixel is reduced (`reduce`) from its block of cells as it is read: no P x P image is made.
  int fit = 0;
  Reduce reduce = Reduce::max;
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

// One bit per pixel of a cell image: set where the cell (or every cell of a reduced block) holds
// no data. Used when the values behind the picture are not kept (big matrices).
struct CellMask {
  int width = 0, height = 0;
  std::vector<std::uint8_t> bits;  // rows of (width + 7) / 8 bytes
  CellMask() = default;
  CellMask(int w, int h)
      : width(w), height(h), bits(static_cast<std::size_t>((w + 7) / 8) * static_cast<std::size_t>(h), 0) {}
  std::size_t stride() const { return static_cast<std::size_t>((width + 7) / 8); }
  bool at(int x, int y) const {
    return (bits[static_cast<std::size_t>(y) * stride() + static_cast<std::size_t>(x / 8)] >> (x % 8)) & 1u;
  }
  void set(int x, int y) {
    bits[static_cast<std::size_t>(y) * stride() + static_cast<std::size_t>(x / 8)] |= static_cast<std::uint8_t>(1u << (x % 8));
  }
};

// The exact value behind a displayed cell of a view whose values are not kept in memory (big
// matrices), read from the file on demand. Thread-safe: the GUI thread asks while the worker
// renders (it reads through its own handles of the files).
class CellProbe {
 public:
  virtual ~CellProbe() = default;
  // The value at displayed (row, col), NaN for no data or a failed read.
  virtual double value(int row, int col) const = 0;
  // Samples behind the cell when the file records them.
  virtual std::optional<int> samples(int row, int col) const = 0;
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
  std::size_t color = 0;           // its colour: curve_color(color) (plot.hpp)
};

// The words of a pair plot beside its curves.
struct PlotStyle {
  QString title;
  QString y_what = QStringLiteral("delay");  // y title before the unit: "median delay"
  QString band_label;                          // legend text of the band ("" when no band)
  QString note;                                // a warning under the title ("cut short: ...")
  bool y_log = false;
};

struct ViewResult {
  ViewSpec spec;
  bool plot = false;         // true: a pair plot (curves, plot_style), not cells
  GreyImage cells;           // cell views: one grey pixel per cell; plots: empty
  Levels levels;
  int rows = 0, cols = 0;    // cell grid (rows = senders or lengths)
  // Cells per pixel side of `cells`: 1, or the factor f of a streamed picture (spec.fit), whose
  // pixel (x, y) is the spec.reduce of cells [f y, f y + f) x [f x, f x + f).
  int pool = 1;
  // rows*cols values behind the pixels; null for big matrices (spec.fit, or more ranks than
  // Document keeps values for), which give `nodata` and `probe` instead.
  std::shared_ptr<const std::vector<double>> values;
  std::shared_ptr<const CellMask> nodata;   // pixels of `cells` without data (when values is null)
  std::shared_ptr<const CellProbe> probe;   // exact values on demand (when values is null)
  // The value behind displayed cell (row, col): from `values`, else from the probe; NaN if none.
  double value_at(int row, int col) const {
    if (row < 0 || col < 0 || row >= rows || col >= cols) return std::numeric_limits<double>::quiet_NaN();
    if (values) return (*values)[static_cast<std::size_t>(row) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(col)];
    return probe ? probe->value(row, col) : std::numeric_limits<double>::quiet_NaN();
  }
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
  // Pair plots: the curves (hover row = curve, col = point), their words and the size in
  // pixels the GUI layer paints them at (plot_picture).
  std::vector<PlotCurve> curves;
  PlotStyle plot_style;
  int plot_width = 0, plot_height = 0;
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

}  // namespace nt::viewer

Q_DECLARE_METATYPE(nt::viewer::ViewSpec)
Q_DECLARE_METATYPE(nt::viewer::ViewResult)
Q_DECLARE_METATYPE(nt::viewer::DocumentInfo)
