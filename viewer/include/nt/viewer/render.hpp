// Pure rendering (GUI layer, nt_viewer): the data layer's grey cell pictures (levels.hpp) made
// into colour images, decorations and overlays. Needs only QtGui (a QGuiApplication for text:
// plots and --decorate), so the headless --render path uses it too.
#pragma once

#include <QColor>
#include <QImage>
#include <QPainter>

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "nt/viewer/levels.hpp"
#include "nt/viewer/view_spec.hpp"

namespace nt {
class PendingOutput;
}

namespace nt::viewer {

// The grey picture as a Grayscale8 QImage (the same levels), for painting and saving.
QImage to_qimage(const GreyImage& grey);

// About n tick positions at 1-2-5 steps over [lo, hi]; log_ticks: the decades within [lo, hi]
// (1-2-5 steps when fewer than two fall inside). Total: non-finite bounds give no ticks.
std::vector<double> nice_ticks(double lo, double hi, int n);
std::vector<double> log_ticks(double lo, double hi);

// Colour of a darkness 0 (low, the white level) .. 1 (high, the black level) in a colormap
// (automatic must be resolved first), and the colour of a cell with no data.
Colormap resolve_colormap(Colormap c, bool symmetric);
QRgb colormap_rgb(Colormap c, double darkness);
QRgb no_data_rgb(Colormap c);
// Colours a cell picture (grey levels of cells_image, or a reduction of them). Cells with no
// value are drawn in no_data_rgb when `values` covers the image one value per pixel, or where
// `nodata` (the same size as the image) is set.
QImage colorize(const GreyImage& cells, Colormap c, const std::vector<double>* values = nullptr,
                const CellMask* nodata = nullptr);
// Colour-bar ticks between the levels: 1-2-5 steps (linear) or decades, with 2 and 5 between
// them when the range is short (log). Always inside [white, black].
std::vector<double> colorbar_ticks(const Levels& lv, int max_ticks);
// Ticks of a ratio bar (levels 1/m .. m, log): 1 and pairs f, 1/f of round factors (1.1, 1.2,
// 1.5, 2, 3, 5, 10, 20, 50, ...) within m, so the bar reads the same both ways from 1.
std::vector<double> factor_ticks(const Levels& lv, int max_ticks);
// "×2", "×0.5", "×1.25": a factor A / B.
QString format_factor(double v);
// Draws a warning line (dark red, centred) such as "cut short: ..." into `where`.
void paint_note(QPainter& p, const QRectF& where, const QString& note);
// Draws a vertical colour bar (high at the top) with ticks and labels to its right.
void paint_colorbar(QPainter& p, const QRectF& bar, const Levels& lv, Colormap c, ValueUnit unit, bool no_data_swatch);
// Groups of ranks mapped to displayed positions (inverse of ViewResult::order).
std::vector<std::vector<int>> displayed_groups(const std::vector<std::vector<int>>& groups, const std::vector<int>& order);

struct ComposeOptions {
  int size = 0;              // longest side in pixels of the cell area; 0: one pixel per cell
  bool decorate = false;     // axes, legend and title
  const std::vector<std::vector<int>>* groups = nullptr;  // overlays (matrix-like views only)
  // Every hierarchy level (finest first); when set, drawn instead of `groups`, with a legend.
  const std::vector<std::pair<QString, std::vector<std::vector<int>>>>* hierarchy = nullptr;
  Colormap colormap = Colormap::grey;  // the programs pass the user's choice (auto by default)
  bool raw = false;          // undecorated: grey levels stay grey (script-readable) unless a map is chosen,
                             // and no outline is drawn over the cells
};
// The image a user exports: cell image scaled (nearest) with optional overlays/decorations.
// Plots are returned as they are.
QImage compose(const ViewResult& r, const ComposeOptions& o);

// Draws the outline of every block (group x group) of ranks onto a cell area of rows x cols
// cells mapped to `area`. Non-contiguous groups give one rectangle per pair of runs.
void paint_groups(QPainter& p, const QRectF& area, int rows, int cols,
                  const std::vector<std::vector<int>>& groups, int level = 0);
QColor group_color(std::size_t index);

// The data behind a view as CSV: a header of displayed ranks (or lengths), values in seconds
// (ratios for the relative deviation), an empty field for no data.
std::string view_csv(const ViewResult& r);
// An SVG document that holds the picture (embedded PNG, drawn without smoothing).
std::string svg_document(const QImage& img);
// Writes the picture into an output under construction: SVG when its name ends in .svg, else
// PNG; a write error (a full disk) is a FileError naming the cause. The caller commits.
void write_image(const QImage& img, nt::PendingOutput& out);

// A value for labels and hover text: seconds with units ("-1.20 µs" for negatives), or a
// percentage for ratios.
QString format_value(double v, bool ratio);

}  // namespace nt::viewer
