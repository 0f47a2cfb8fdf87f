#include "nt/viewer/plot.hpp"

#include <QFontMetrics>
#include <QPainter>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>

#include "nt/units.hpp"
#include "nt/validate.hpp"
#include "nt/viewer/render.hpp"

namespace nt::viewer {

namespace {

// A value a plot can place: delays, never NaN, infinite or absurd.
bool plottable(double v) { return std::isfinite(v) && std::fabs(v) <= nt::kAbsurdDelay; }

bool is_pow2(std::int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

// A tick label: at most 4 significant digits, "-0" and rounding residue (1e-17) shown as 0.
QString number(double v, double step) {
  if (std::fabs(v) < std::fabs(step) * 1e-6) v = 0.0;
  return QString::number(v, 'g', 4);
}

struct Unit {
  double scale;
  const char* name;
};

constexpr Unit kDecimalBytes[] = {{1e9, "GB"}, {1e6, "MB"}, {1e3, "kB"}, {1, "B"}};

// The largest unit of a table (largest first) that `magnitude` reaches; else the smallest.
template <std::size_t N>
const Unit* unit_for(const Unit (&units)[N], double magnitude) {
  for (const auto& u : units)
    if (magnitude >= u.scale) return &u;
  return &units[N - 1];
}

// The decimal byte unit of a label on a log axis ("20 kB").
QString decimal_bytes(double v) {
  const Unit* u = unit_for(kDecimalBytes, std::fabs(v));
  return QString::number(v / u->scale, 'g', 4) + QLatin1Char(' ') + QLatin1String(u->name);
}

}  // namespace

bool binary_lengths(std::span<const double> lengths) {
  std::int64_t g = 0;
  bool all_pow2 = true, any = false;
  for (double x : lengths) {
    if (!(x > 0) || !std::isfinite(x) || x > 9e18) continue;
    const auto v = static_cast<std::int64_t>(std::llround(x));
    any = true;
    all_pow2 = all_pow2 && is_pow2(v);
    g = std::gcd(g, v);
  }
  if (!any) return true;  // only 0 B: either family draws "0"
  return all_pow2 || (g >= 2 && is_pow2(g));
}

bool log_length_axis(std::span<const double> lengths) {
  std::vector<double> v;
  for (double x : lengths)
    if (x > 0 && std::isfinite(x)) v.push_back(x);
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.size() < 3 || v.back() / v.front() < 64.0) return false;
  double dmin = v[1] - v[0], dmax = dmin;
  for (std::size_t i = 2; i < v.size(); ++i) {
    dmin = std::min(dmin, v[i] - v[i - 1]);
    dmax = std::max(dmax, v[i] - v[i - 1]);
  }
  return dmax > 1.5 * dmin;  // evenly spaced sweeps stay linear
}

AxisTicks length_ticks(double lo, double hi, bool log, bool binary) {
  AxisTicks t;
  if (!std::isfinite(lo) || !std::isfinite(hi) || hi > 9e18) return t;
  if (log && lo > 0 && hi > lo) {
    if (binary) {
      const int e0 = static_cast<int>(std::ceil(std::log2(lo) - 1e-9)), e1 = static_cast<int>(std::floor(std::log2(hi) + 1e-9));
      // Strides that keep 1 KiB, 1 MiB on the axis; the first giving at most 8 ticks.
      for (int stride : {1, 2, 5, 10, 20}) {
        std::vector<int> es;
        for (int e = e0; e <= e1; ++e)
          if (e % stride == 0) es.push_back(e);
        if (es.size() <= 8 || stride == 20) {
          for (int e : es) {
            t.at.push_back(std::ldexp(1.0, e));
            t.labels << QString::fromStdString(nt::format_bytes(std::int64_t{1} << e));
          }
          break;
        }
      }
    } else {
      const int d0 = static_cast<int>(std::floor(std::log10(lo))), d1 = static_cast<int>(std::ceil(std::log10(hi)));
      const bool fine = d1 - d0 < 3;
      for (int d = d0; d <= d1; ++d)
        for (double m : {1.0, 2.0, 5.0}) {
          if (!fine && m != 1.0) continue;
          const double v = m * std::pow(10.0, d);
          if (v >= lo * 0.999 && v <= hi * 1.001) {
            t.at.push_back(v);
            t.labels << decimal_bytes(v);
          }
        }
    }
    if (t.at.size() >= 2) return t;
    t = {};
  }
  // Linear: one unit for every label.
  if (binary) {
    static constexpr Unit units[] = {{1073741824.0, "GiB"}, {1048576.0, "MiB"}, {1024.0, "KiB"}, {1, "B"}};
    const double span = hi - lo;
    double step = 1;
    if (span > 0) step = std::max(1.0, std::exp2(std::ceil(std::log2(span / 6.0))));
    const Unit* u = unit_for(units, std::max(std::fabs(lo), std::fabs(hi)));
    t.unit = QLatin1String(u->name);
    const double first = std::ceil(lo / step) * step;
    for (int i = 0; i < 64; ++i) {
      const double v = first + i * step;
      if (v > hi + step * 1e-9) break;
      t.at.push_back(v);
      t.labels << number(v / u->scale, step / u->scale);
    }
    return t;
  }
  t.at = nice_ticks(lo, hi, 6);
  const Unit* u = unit_for(kDecimalBytes, std::max(std::fabs(lo), std::fabs(hi)));
  t.unit = QLatin1String(u->name);
  const double step = t.at.size() > 1 ? t.at[1] - t.at[0] : 1.0;
  for (double v : t.at) t.labels << number(v / u->scale, step / u->scale);
  return t;
}

AxisTicks delay_ticks(double lo, double hi, bool log) {
  AxisTicks t;
  t.at = log ? log_ticks(lo, hi) : nice_ticks(lo, hi, 6);
  static constexpr Unit units[] = {{1.0, "s"}, {1e-3, "ms"}, {1e-6, "µs"}, {1e-9, "ns"}};
  const Unit* u = unit_for(units, std::max(std::fabs(lo), std::fabs(hi)));
  t.unit = QString::fromUtf8(u->name);
  const double step = !log && t.at.size() > 1 ? t.at[1] - t.at[0] : 0.0;
  for (double v : t.at) t.labels << number(v / u->scale, step / u->scale);
  return t;
}

namespace {
double tr(double v, bool lg) { return lg ? std::log10(std::max(v, 1e-300)) : v; }
}  // namespace

double PlotGeometry::x_to_px(double x) const {
  QRectF ar = area;
  if (x_log && x_zero) {
    // 0 B sits in a slot of its own left of the log scale, past an axis break.
    const double gap = zero_gap();
    if (!(x > 0)) return area.left() + gap * 0.35;
    ar.setLeft(area.left() + gap);
  }
  const double a = tr(x_log ? std::max(x, 1.0) : x, x_log), lo = tr(x_min, x_log), hi = tr(x_max, x_log);
  const double t = hi > lo ? (a - lo) / (hi - lo) : 0.5;
  return ar.left() + t * ar.width();
}
double PlotGeometry::zero_gap() const { return std::clamp(area.width() * 0.08, 24.0, 60.0); }
double PlotGeometry::y_to_px(double y) const {
  const double a = tr(y, y_log), lo = tr(y_min, y_log), hi = tr(y_max, y_log);
  const double t = hi > lo ? (a - lo) / (hi - lo) : 0.5;
  return area.bottom() - t * area.height();
}


QColor curve_color(std::size_t i) {
  // The viewer's dark blue, then Okabe & Ito's colour-blind-safe colours (yellow left out: it
  // does not show on white), then darker repeats.
  static const QColor palette[] = {QColor(20, 40, 120), QColor(213, 94, 0),   QColor(0, 158, 115),
                                   QColor(204, 121, 167), QColor(230, 159, 0), QColor(86, 180, 233),
                                   QColor(90, 90, 90)};
  constexpr std::size_t n = sizeof(palette) / sizeof(palette[0]);
  const QColor c = palette[i % n];
  return i < n ? c : c.darker(100 + 40 * static_cast<int>(std::min<std::size_t>(i / n, 3)));
}

namespace {
QColor band_color(std::size_t i, const QColor& c) {
  if (i == 0) return QColor(150, 180, 230, 140);  // the single-curve plot's light blue
  QColor b = c;
  b.setAlpha(60);
  return b;
}

// Margins of the plot area in image pixels (the top one grows with a note under the title).
constexpr double kPlotLeft = 96, kPlotRight = 24, kPlotBottom = 56;

// The plot area and the data ranges of the axes over every curve: log length axis for
// geometric sweeps (with a 0 B slot when 0 B is stored), delays from zero (linear) or padded
// by 1.25x (log), bands included. `binary` receives the length unit family.
PlotGeometry fit_axes(const std::vector<PlotCurve>& curves, const PlotStyle& st, int width, int height, bool& binary) {
  PlotGeometry g;
  const double top = st.note.isEmpty() ? 34 : 50;
  g.area = QRectF(kPlotLeft, top, std::max(10.0, width - kPlotLeft - kPlotRight),
                  std::max(10.0, height - top - kPlotBottom));
  g.y_log = st.y_log;
  std::vector<double> xs;
  Range yr;
  bool zero = false;
  for (const auto& c : curves) {
    for (std::size_t i = 0; i < c.lengths.size() && i < c.y.size(); ++i) {
      xs.push_back(static_cast<double>(c.lengths[i]));
      if (c.lengths[i] <= 0) zero = true;
      if (!plottable(c.y[i])) continue;  // bad values are no data, and never set the scale
      const double b = i < c.band.size() && plottable(c.band[i]) ? c.band[i] : 0.0;
      yr.add(c.y[i] + b);
      yr.add(c.y[i] - b);
      yr.add(c.y[i]);
    }
  }
  binary = binary_lengths(xs);
  g.x_log = log_length_axis(xs);
  g.x_zero = g.x_log && zero;
  Range xr;
  for (double x : xs)
    if (!g.x_log || x > 0) xr.add(x);
  g.x_min = xr.empty() ? 0 : xr.lo;
  g.x_max = xr.empty() ? 1 : xr.hi;
  if (!(g.x_max > g.x_min)) g.x_max = g.x_min + 1;
  if (st.y_log) {
    g.y_min = yr.lo_pos <= yr.hi ? yr.lo_pos / 1.25 : 1e-9;
    g.y_max = yr.hi > 0 ? yr.hi * 1.25 : 1e-6;
  } else {
    const double lo = yr.empty() ? 0 : std::min(0.0, yr.lo), hi = yr.empty() ? 1 : yr.hi;
    g.y_min = lo;
    g.y_max = hi > lo ? hi + 0.05 * (hi - lo) : lo + 1e-6;
  }
  return g;
}

// Grid lines, tick labels, axis titles, the plot title and its note.
void paint_axes(QPainter& p, const PlotGeometry& g, const AxisTicks& xt, const AxisTicks& yt, const PlotStyle& st,
                int width, int height) {
  p.setPen(QColor(225, 225, 225));
  for (double v : yt.at) p.drawLine(QPointF(g.area.left(), g.y_to_px(v)), QPointF(g.area.right(), g.y_to_px(v)));
  for (double v : xt.at) p.drawLine(QPointF(g.x_to_px(v), g.area.top()), QPointF(g.x_to_px(v), g.area.bottom()));
  p.setPen(Qt::black);
  for (std::size_t i = 0; i < yt.at.size(); ++i)
    p.drawText(QRectF(22, g.y_to_px(yt.at[i]) - 8, kPlotLeft - 28, 16), Qt::AlignRight | Qt::AlignVCenter,
               yt.labels[static_cast<qsizetype>(i)]);
  for (std::size_t i = 0; i < xt.at.size(); ++i)
    p.drawText(QRectF(g.x_to_px(xt.at[i]) - 40, g.area.bottom() + 4, 80, 16), Qt::AlignHCenter | Qt::AlignTop,
               xt.labels[static_cast<qsizetype>(i)]);
  const QString x_title = g.x_log ? QStringLiteral("message length (log scale)")
                                  : QStringLiteral("message length (%1)").arg(xt.unit);
  p.drawText(QRectF(g.area.left(), height - 22, g.area.width(), 18), Qt::AlignHCenter, x_title);
  const QString y_title = QStringLiteral("%1 (%2%3)").arg(st.y_what, yt.unit,
                                                          st.y_log ? QStringLiteral(", log scale") : QString());
  p.save();
  p.translate(12, g.area.center().y());
  p.rotate(-90);
  p.drawText(QRectF(-g.area.height() / 2, -9, g.area.height(), 18), Qt::AlignHCenter | Qt::AlignVCenter, y_title);
  p.restore();
  p.drawText(QRectF(0, 4, width, 22), Qt::AlignHCenter | Qt::AlignVCenter, st.title);
  if (!st.note.isEmpty()) paint_note(p, QRectF(0, 26, width, 16), st.note);
}

// The deviation bands, before every curve so that no band hides another curve. One polygon per
// run of points with data, never across a gap or the 0 B axis break; a lone point gets an error bar.
void paint_bands(QPainter& p, const std::vector<PlotCurve>& curves, const PlotGeometry& g) {
  for (std::size_t ci = 0; ci < curves.size(); ++ci) {
    const auto& c = curves[ci];
    if (c.band.empty() || c.band.size() != c.y.size()) continue;
    const std::size_t n = std::min(c.y.size(), c.lengths.size());
    p.setPen(Qt::NoPen);
    p.setBrush(band_color(ci, curve_color(c.color)));
    const auto lower = [&](std::size_t i) {
      double v = c.y[i] - c.band[i];
      if (g.y_log && !(v > 0)) v = g.y_min;
      return v;
    };
    std::size_t i = 0;
    while (i < n) {
      if (!plottable(c.y[i]) || !plottable(c.band[i])) {
        ++i;
        continue;
      }
      std::size_t j = i + 1;
      while (j < n && plottable(c.y[j]) && plottable(c.band[j]) && !(g.x_zero && c.lengths[j - 1] <= 0)) ++j;
      if (j - i == 1) {
        const double x = g.x_to_px(static_cast<double>(c.lengths[i]));
        p.drawRect(QRectF(QPointF(x - 3, g.y_to_px(c.y[i] + c.band[i])), QPointF(x + 3, g.y_to_px(lower(i)))));
      } else {
        QPolygonF poly;
        for (std::size_t k = i; k < j; ++k)
          poly << QPointF(g.x_to_px(static_cast<double>(c.lengths[k])), g.y_to_px(c.y[k] + c.band[k]));
        for (std::size_t k = j; k-- > i;) poly << QPointF(g.x_to_px(static_cast<double>(c.lengths[k])), g.y_to_px(lower(k)));
        p.drawPolygon(poly);
      }
      i = j;
    }
  }
}

// The curves and their points, clipped to the plot area.
void paint_curves(QPainter& p, const std::vector<PlotCurve>& curves, const PlotGeometry& g) {
  p.setClipRect(g.area.adjusted(-4, -4, 4, 4));
  for (const auto& c : curves) {
    QPainterPath path;
    bool started = false;
    auto ok = [&](std::size_t i) { return plottable(c.y[i]) && (!g.y_log || c.y[i] > 0); };
    for (std::size_t i = 0; i < c.lengths.size() && i < c.y.size(); ++i) {
      if (!ok(i)) {
        started = false;
        continue;
      }
      const QPointF pt(g.x_to_px(static_cast<double>(c.lengths[i])), g.y_to_px(c.y[i]));
      if (started) path.lineTo(pt); else path.moveTo(pt);
      // No line across the axis break: 0 B stands alone left of the log scale.
      started = !(g.x_zero && c.lengths[i] <= 0);
    }
    p.setBrush(Qt::NoBrush);
    p.setPen(QPen(curve_color(c.color), 2));
    p.drawPath(path);
    p.setBrush(curve_color(c.color));
    for (std::size_t i = 0; i < c.lengths.size() && i < c.y.size(); ++i)
      if (ok(i)) p.drawEllipse(QPointF(g.x_to_px(static_cast<double>(c.lengths[i])), g.y_to_px(c.y[i])), 2.5, 2.5);
  }
  p.setClipping(false);
}

// The frame of the plot area, broken between the 0 B slot and the log scale.
void paint_frame(QPainter& p, const PlotGeometry& g) {
  p.setPen(Qt::black);
  p.setBrush(Qt::NoBrush);
  p.drawRect(g.area);
  if (g.x_zero) {
    const double bx = g.area.left() + g.zero_gap() * 0.7, by = g.area.bottom();
    p.fillRect(QRectF(bx - 3, by - 5, 6, 10), Qt::white);
    p.drawLine(QPointF(bx - 5, by + 4), QPointF(bx - 1, by - 4));
    p.drawLine(QPointF(bx + 1, by + 4), QPointF(bx + 5, by - 4));
  }
}

struct LegendEntry {
  QString text;
  QColor color;
  bool patch;  // a band's patch rather than a curve's line and point
};

// One legend entry per curve (when there are several) and one for the band, cut to the rows
// the plot area holds ("... N more" last).
std::vector<LegendEntry> legend_entries(const std::vector<PlotCurve>& curves, const PlotStyle& st, double area_height,
                                        int line) {
  std::vector<LegendEntry> entries;
  if (curves.size() > 1)
    for (const auto& c : curves) entries.push_back({c.label, curve_color(c.color), false});
  if (!st.band_label.isEmpty()) {
    std::size_t first = 0;
    while (first < curves.size() && curves[first].band.empty()) ++first;
    if (first < curves.size()) entries.push_back({st.band_label, band_color(first, curve_color(curves[first].color)), true});
  }
  const int max_rows = std::max(1, static_cast<int>(area_height / line) - 1);
  if (!entries.empty() && static_cast<int>(entries.size()) > max_rows) {
    const auto more = entries.size() - static_cast<std::size_t>(max_rows - 1);
    entries.resize(static_cast<std::size_t>(max_rows - 1));
    entries.push_back({QStringLiteral("... %1 more").arg(more), Qt::transparent, false});
  }
  return entries;
}

// The legend box in the top left corner of the plot area.
void paint_legend(QPainter& p, const QFontMetrics& fm, const std::vector<PlotCurve>& curves, const PlotStyle& st,
                  const PlotGeometry& g) {
  const int line = fm.height() + 2;
  const auto entries = legend_entries(curves, st, g.area.height(), line);
  if (entries.empty()) return;
  int tw = 0;
  for (const auto& e : entries) tw = std::max(tw, fm.horizontalAdvance(e.text));
  const QRectF box(g.area.left() + 8, g.area.top() + 8, std::min<double>(tw + 38, g.area.width() - 16),
                   static_cast<double>(line * static_cast<int>(entries.size()) + 8));
  p.setPen(QColor(160, 160, 160));
  p.setBrush(QColor(255, 255, 255, 225));
  p.drawRect(box);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const double y = box.top() + 4 + line * static_cast<double>(i) + line / 2.0;
    const auto& e = entries[i];
    if (e.patch) {
      p.setPen(Qt::NoPen);
      p.setBrush(e.color);
      p.drawRect(QRectF(box.left() + 6, y - 5, 22, 10));
    } else if (e.color.alpha() > 0) {
      p.setPen(QPen(e.color, 2));
      p.drawLine(QPointF(box.left() + 6, y), QPointF(box.left() + 28, y));
      p.setBrush(e.color);
      p.drawEllipse(QPointF(box.left() + 17, y), 2.5, 2.5);
    }
    p.setPen(Qt::black);
    p.drawText(QRectF(box.left() + 34, y - line / 2.0, box.width() - 36, line), Qt::AlignLeft | Qt::AlignVCenter,
               fm.elidedText(e.text, Qt::ElideMiddle, static_cast<int>(box.width() - 36)));
  }
}
}  // namespace

QImage plot_image(const std::vector<PlotCurve>& curves, const PlotStyle& st, int width, int height,
                  PlotGeometry* geometry, AxisTicks* x_ticks, AxisTicks* y_ticks) {
  QImage img(width, height, QImage::Format_RGB32);
  img.fill(Qt::white);
  bool binary = true;
  const PlotGeometry g = fit_axes(curves, st, width, height, binary);

  QPainter p(&img);
  p.setRenderHint(QPainter::Antialiasing, true);
  QFont f = p.font();
  f.setPixelSize(12);
  p.setFont(f);
  const QFontMetrics fm(f);

  AxisTicks yt = delay_ticks(g.y_min, g.y_max, st.y_log);
  AxisTicks xt = length_ticks(g.x_min, g.x_max, g.x_log, binary);
  if (g.x_zero) {
    xt.at.insert(xt.at.begin(), 0.0);
    xt.labels.prepend(QStringLiteral("0 B"));
  }
  paint_axes(p, g, xt, yt, st, width, height);
  paint_bands(p, curves, g);
  paint_curves(p, curves, g);
  paint_frame(p, g);
  paint_legend(p, fm, curves, st, g);
  p.end();
  if (geometry) *geometry = g;
  if (x_ticks) *x_ticks = xt;
  if (y_ticks) *y_ticks = yt;
  return img;
}

QImage plot_picture(const ViewResult& r, PlotGeometry* geometry) {
  return plot_image(r.curves, r.plot_style, r.plot_width, r.plot_height, geometry);
}

}  // namespace nt::viewer
