#include "nt/viewer/render.hpp"

#include <QBuffer>
#include <QFont>
#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/viewer/plot.hpp"
#include "nt/viewer/pyramid.hpp"
#include "nt/output.hpp"
#include "nt/validate.hpp"
#include "nt/units.hpp"

namespace nt::viewer {

namespace {

QString signed_seconds(double v) {
  if (v < 0) return QStringLiteral("-") + QString::fromStdString(nt::format_seconds(-v));
  return QString::fromStdString(nt::format_seconds(v));
}

}  // namespace

// About n "nice" tick positions over [lo, hi] (linear).
// Every tick routine is total: non-finite or degenerate bounds give no ticks or one, and no loop
// runs more than a few dozen times whatever the data (delays of 1.7e308 s once looped forever).
std::vector<double> nice_ticks(double lo, double hi, int n) {
  std::vector<double> t;
  if (!std::isfinite(lo) || !std::isfinite(hi)) return t;
  if (!(hi > lo) || !std::isfinite(hi - lo)) {
    t.push_back(lo);
    return t;
  }
  const double raw = (hi - lo) / n;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    step = m * mag;
    if (step >= raw) break;
  }
  if (!(step > 0) || !std::isfinite(step)) return t;
  const double first = std::ceil(lo / step) * step;
  for (int i = 0; i <= 4 * n + 2; ++i) {
    const double v = first + i * step;
    if (v > hi + step * 1e-9) break;
    t.push_back(v);
  }
  return t;
}

std::vector<double> log_ticks(double lo, double hi) {
  std::vector<double> t;
  if (!(lo > 0) || !(hi > lo) || !std::isfinite(hi)) return nice_ticks(lo, hi, 5);
  for (double e = std::floor(std::log10(lo)); e <= std::ceil(std::log10(hi)) && t.size() < 700; e += 1.0) {
    const double v = std::pow(10.0, e);
    if (v >= lo * 0.999 && v <= hi * 1.001) t.push_back(v);
  }
  if (t.size() < 2) return nice_ticks(lo, hi, 5);
  return t;
}


QString format_value(double v, bool ratio) {
  if (std::isnan(v)) return QStringLiteral("no value");
  if (ratio) return QString::number(100.0 * v, 'g', 3) + QStringLiteral(" %");
  return signed_seconds(v);
}

namespace {
struct Stop { double t; int r, g, b; };
// Viridis at nine evenly spaced points of the published 256-entry table (low to high);
// interpolated linearly in sRGB between them. Drawn reversed: high values dark.
constexpr Stop kViridis[] = {{0.0, 0x44, 0x01, 0x54}, {0.125, 0x47, 0x2d, 0x7b}, {0.25, 0x3b, 0x52, 0x8b},
                             {0.375, 0x2c, 0x72, 0x8e}, {0.5, 0x21, 0x90, 0x8c}, {0.625, 0x27, 0xad, 0x81},
                             {0.75, 0x5d, 0xc8, 0x63}, {0.875, 0xaa, 0xdc, 0x32}, {1.0, 0xfd, 0xe7, 0x25}};
// A blue - white - red diverging map (ColorBrewer RdBu, 7 classes): low (this file faster) blue.
constexpr Stop kDiverging[] = {{0.0, 0x21, 0x66, 0xac}, {1.0 / 6, 0x67, 0xa9, 0xcf}, {2.0 / 6, 0xd1, 0xe5, 0xf0},
                               {0.5, 0xf7, 0xf7, 0xf7}, {4.0 / 6, 0xfd, 0xdb, 0xc7}, {5.0 / 6, 0xef, 0x8a, 0x62},
                               {1.0, 0xb2, 0x18, 0x2b}};
template <std::size_t N>
QRgb interpolate(const Stop (&s)[N], double t) {
  t = std::clamp(t, 0.0, 1.0);
  std::size_t i = 1;
  while (i + 1 < N && s[i].t < t) ++i;
  const Stop& a = s[i - 1];
  const Stop& b = s[i];
  const double u = b.t > a.t ? (t - a.t) / (b.t - a.t) : 0.0;
  auto mix = [u](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * u)); };
  return qRgb(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}
}  // namespace

Colormap resolve_colormap(Colormap c, bool symmetric) {
  if (c != Colormap::automatic) return c;
  return symmetric ? Colormap::diverging : Colormap::viridis;
}

QRgb colormap_rgb(Colormap c, double d) {
  d = std::isnan(d) ? 0.0 : std::clamp(d, 0.0, 1.0);
  switch (c) {
    case Colormap::viridis: return interpolate(kViridis, 1.0 - d);
    case Colormap::diverging: return interpolate(kDiverging, d);
    case Colormap::automatic:
    case Colormap::grey: break;
  }
  const int g = 255 - static_cast<int>(255.0 * d + 0.5);
  return qRgb(g, g, g);
}

QRgb no_data_rgb(Colormap c) {
  // Colours none of the maps contains: a pink for grey, light grey for viridis, dark grey for
  // the diverging map (whose middle is near white).
  switch (c) {
    case Colormap::viridis: return qRgb(205, 205, 205);
    case Colormap::diverging: return qRgb(96, 96, 96);
    default: return qRgb(236, 112, 190);
  }
}

QImage to_qimage(const GreyImage& grey) {
  QImage img(grey.width, grey.height, QImage::Format_Grayscale8);
  for (int y = 0; y < grey.height; ++y) std::copy_n(grey.row(y), grey.width, img.scanLine(y));
  return img;
}

QImage colorize(const GreyImage& grey, Colormap c, const std::vector<double>* values, const CellMask* nodata) {
  QImage out(grey.width, grey.height, QImage::Format_RGB32);
  QRgb lut[256];
  for (int g = 0; g < 256; ++g) lut[g] = colormap_rgb(c, (255 - g) / 255.0);
  const bool mark = values && values->size() == grey.pixel_count();
  const QRgb nd = no_data_rgb(c);
  for (int y = 0; y < grey.height; ++y) {
    const std::uint8_t* in = grey.row(y);
    auto* o = reinterpret_cast<QRgb*>(out.scanLine(y));
    const double* v = mark ? values->data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(grey.width) : nullptr;
    for (int x = 0; x < grey.width; ++x) o[x] = v && std::isnan(v[x]) ? nd : lut[in[x]];
  }
  if (nodata && nodata->width == grey.width && nodata->height == grey.height)
    for (int y = 0; y < grey.height; ++y) {
      auto* o = reinterpret_cast<QRgb*>(out.scanLine(y));
      for (int x = 0; x < grey.width; ++x)
        if (nodata->at(x, y)) o[x] = nd;
    }
  return out;
}

std::vector<double> colorbar_ticks(const Levels& lv, int max_ticks) {
  const double lo = std::min(lv.white, lv.black), hi = std::max(lv.white, lv.black);
  std::vector<double> t;
  if (lv.log && lo > 0 && hi > lo && std::isfinite(hi)) {
    const double decades = std::log10(hi / lo);
    const std::vector<double> mult = decades < 1.5 ? std::vector<double>{1, 2, 5} : std::vector<double>{1};
    const int step = std::max(1, static_cast<int>(std::ceil(decades / std::max(1, max_ticks))));
    for (double e = std::floor(std::log10(lo)); e <= std::ceil(std::log10(hi)) && t.size() < 64; e += step)
      for (double m : mult) {
        const double v = m * std::pow(10.0, e);
        if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) t.push_back(v);
      }
    if (t.size() >= 2) return t;
    t.clear();
  }
  t = nice_ticks(lo, hi, std::max(2, max_ticks - 1));
  std::vector<double> in;
  for (double v : t)
    if (v >= lo - 1e-12 * std::abs(hi - lo) && v <= hi + 1e-12 * std::abs(hi - lo)) in.push_back(std::abs(v) < 1e-12 * std::abs(hi - lo) ? 0.0 : v);
  return in;
}

void paint_note(QPainter& p, const QRectF& where, const QString& note) {
  p.save();
  p.setPen(QColor(170, 20, 20));
  QFont f = p.font();
  f.setPixelSize(12);
  f.setBold(true);
  p.setFont(f);
  p.drawText(where, Qt::AlignHCenter | Qt::AlignVCenter, note);
  p.restore();
}

std::vector<double> factor_ticks(const Levels& lv, int max_ticks) {
  const double m = std::max(lv.black, lv.white > 0 ? 1.0 / lv.white : 1.0);
  if (!(m > 1.0) || !std::isfinite(m)) return {1.0};
  const std::size_t per_side = static_cast<std::size_t>(std::max(1, (max_ticks - 1) / 2));
  const double fits = m * (1 + 1e-9);
  std::vector<double> up;  // factors > 1, each with its reciprocal below 1
  if (m < 2.0) {
    // Within a factor of 2: the largest round factors that fit (1.5, 1.25, 1.2, 1.1, 1.05).
    for (double f : {1.5, 1.25, 1.2, 1.1, 1.05})
      if (f <= fits && up.size() < per_side) up.push_back(f);
  } else {
    // Powers of the smallest round base (2, 4, 10, 100, ...) that gives at most per_side ticks.
    double base = 2.0;
    for (double b : {2.0, 4.0, 10.0, 100.0, 1e3, 1e4, 1e6, 1e9, 1e12, 1e18, 1e36, 1e72, 1e144}) {
      base = b;
      if (std::floor(std::log(m) / std::log(b) + 1e-9) <= static_cast<double>(per_side)) break;
    }
    for (double f = base; f <= fits && up.size() < per_side; f *= base) up.push_back(f);
  }
  std::vector<double> t{1.0};
  for (double f : up) {
    t.push_back(f);
    t.push_back(1.0 / f);
  }
  std::sort(t.begin(), t.end());
  return t;
}

QString format_factor(double v) {
  if (std::isnan(v)) return QStringLiteral("no value");
  return QString::fromUtf8("×") + QString::number(v, 'g', 3);
}

void paint_colorbar(QPainter& p, const QRectF& bar, const Levels& lv, Colormap c, ValueUnit unit, bool swatch) {
  p.save();
  const int n = std::max(2, static_cast<int>(bar.height()));
  for (int i = 0; i < n; ++i) {
    const double d = 1.0 - static_cast<double>(i) / (n - 1);  // top: high (black level)
    p.fillRect(QRectF(bar.left(), bar.top() + bar.height() * i / n, bar.width(), bar.height() / n + 1),
               QColor(colormap_rgb(c, d)));
  }
  p.setPen(QColor(40, 40, 40));
  p.setBrush(Qt::NoBrush);
  p.drawRect(bar);
  QFont f = p.font();
  f.setPixelSize(11);
  p.setFont(f);
  const int room = std::max(2, static_cast<int>(bar.height() / 28));
  const auto ticks = unit == ValueUnit::factor ? factor_ticks(lv, room) : colorbar_ticks(lv, room);
  for (double v : ticks) {
    const double y = bar.bottom() - lv.darkness(v) * bar.height();
    p.drawLine(QPointF(bar.right(), y), QPointF(bar.right() + 4, y));
    p.drawText(QRectF(bar.right() + 6, y - 8, 90, 16), Qt::AlignLeft | Qt::AlignVCenter,
               unit == ValueUnit::factor ? format_factor(v) : format_value(v, unit == ValueUnit::percent));
  }
  if (lv.log) p.drawText(QRectF(bar.left() - 4, bar.bottom() + 2, 100, 14), Qt::AlignLeft, QStringLiteral("log scale"));
  if (swatch) {
    const QRectF sw(bar.left(), bar.bottom() + (lv.log ? 18 : 4), bar.width(), 10);
    p.fillRect(sw, QColor(no_data_rgb(c)));
    p.drawRect(sw);
    p.drawText(QRectF(sw.right() + 6, sw.top() - 3, 90, 16), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("no data"));
  }
  p.restore();
}

std::vector<std::vector<int>> displayed_groups(const std::vector<std::vector<int>>& groups, const std::vector<int>& order) {
  if (order.empty()) return groups;
  std::vector<int> pos(order.size(), -1);
  for (std::size_t i = 0; i < order.size(); ++i)
    if (order[i] >= 0 && static_cast<std::size_t>(order[i]) < pos.size()) pos[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  auto out = groups;
  for (auto& g : out)
    for (int& r : g)
      if (r >= 0 && static_cast<std::size_t>(r) < pos.size()) r = pos[static_cast<std::size_t>(r)];
  return out;
}

namespace {
// The group outlines of a picture, finest level first: (name, groups in displayed positions).
using OutlineLevels = std::vector<std::pair<QString, std::vector<std::vector<int>>>>;

// Where the cells are in a decorated picture, in pixels.
struct CellBox {
  int left, top, w, h;
};

// The size of the cell area: o.size on the longest side, else (decorated, under 512 cells) a
// whole number of pixels per cell up to 512, else one pixel per cell.
QSize cell_area_size(const ViewResult& r, const ComposeOptions& o) {
  int w = r.cols, h = r.rows;
  const int longest = std::max(w, h);
  if (o.size > 0 && longest > 0) {
    const PixelSize s = scaled_size(r.rows, r.cols, o.size);
    w = s.width;
    h = s.height;
  } else if (o.decorate && longest > 0 && longest < 512) {
    const int f = std::max(1, 512 / longest);
    w = r.cols * f;
    h = r.rows * f;
  }
  return {w, h};
}

// The cells scaled to `size` (nearest neighbour, so that every cell stays a flat block), in
// colour unless `colour` is false.
QImage scaled_cells(const ViewResult& r, QSize size, bool colour, Colormap cmap) {
  const int w = size.width(), h = size.height();
  GreyImage grey = r.cells;
  const int f = std::max(r.cols / std::max(w, 1), r.rows / std::max(h, 1));
  // Shrinking: each block of cells reduced to one pixel first (its darkest cell by default, so
  // that slow links survive the reduction). A streamed result (r.pool > 1) comes reduced already.
  if (f >= 2 && r.pool == 1) {
    if (r.spec.reduce == Reduce::max) grey = darkest_pool(grey, f);
    else grey = reduce_cells(grey, f, r.spec.reduce, r.nodata.get(), r.values.get()).first;
  }
  QImage cells = colour ? colorize(grey, cmap, f >= 2 ? nullptr : r.values.get(), f >= 2 ? nullptr : r.nodata.get())
                        : to_qimage(grey);
  if (w != cells.width() || h != cells.height()) cells = cells.scaled(w, h, Qt::IgnoreAspectRatio, Qt::FastTransformation);
  return cells;
}

// The outlines to draw: every hierarchy level, else the groups; none on slices. Raw pixels stay
// data: no outline is ever painted over them (the CLI refuses --groups with --raw-pixels unless
// the groups only order the ranks).
OutlineLevels outline_levels(const ViewResult& r, const ComposeOptions& o) {
  const bool outlined = r.diag_col == ViewResult::kDiagIsRow && !o.raw;
  OutlineLevels levels;
  if (outlined && o.hierarchy && !o.hierarchy->empty()) {
    for (const auto& [name, g] : *o.hierarchy) levels.emplace_back(name, displayed_groups(g, r.order));
  } else if (outlined && o.groups && !o.groups->empty()) {
    levels.emplace_back(QStringLiteral("group"), displayed_groups(*o.groups, r.order));
  }
  return levels;
}

void paint_outlines(QPainter& p, const QRectF& area, const ViewResult& r, const OutlineLevels& levels) {
  for (std::size_t l = levels.size(); l-- > 0;) paint_groups(p, area, r.rows, r.cols, levels[l].second, static_cast<int>(l));
}

// Every step-th of n positions, about one per 40 pixels of `px`.
std::vector<int> spaced_ticks(int n, double px) {
  std::vector<int> t;
  const int want = std::max(2, static_cast<int>(px / 40));
  const int step = std::max(1, static_cast<int>(std::ceil(double(n) / want)));
  for (int i = 0; i < n; i += step) t.push_back(i);
  return t;
}

// Positions a..b of a rank axis on one host.
struct HostRun {
  int a, b;
  QString host;
};

// Runs of the same host along a rank axis of n positions, labelled once each when they fit;
// none when a host is unknown or the hosts are scattered (rank order of a shuffled run would
// give a label per cell: rank numbers then).
std::vector<HostRun> host_runs(const ViewResult& r, int n, double px) {
  std::vector<HostRun> runs;
  if (static_cast<int>(r.axis_hosts.size()) != n) return runs;
  for (int i = 0; i < n; ++i) {
    const QString& hn = r.axis_hosts[static_cast<std::size_t>(i)];
    if (hn.isEmpty()) return std::vector<HostRun>{};
    if (!runs.empty() && runs.back().host == hn) runs.back().b = i;
    else runs.push_back({i, i, hn});
  }
  if (runs.size() * 16.0 > px || (n > 1 && runs.size() * 2 > static_cast<std::size_t>(n))) return std::vector<HostRun>{};
  return runs;
}

// Ticks under the columns: host names where known and readable, else ranks.
void paint_column_labels(QPainter& p, const QFont& font, const ViewResult& r, const CellBox& b) {
  const int left = b.left, top = b.top, w = b.w, h = b.h;
  const auto col_runs = host_runs(r, r.cols, w);
  if (!col_runs.empty()) {
    p.save();
    for (const auto& ru : col_runs) {
      const double x0 = left + double(ru.a) * w / r.cols, x1 = left + double(ru.b + 1) * w / r.cols;
      p.drawLine(QPointF(x0, top + h), QPointF(x0, top + h + 4));
      const QString t = (x1 - x0) >= QFontMetrics(font).horizontalAdvance(ru.host) ? ru.host : QString();
      p.drawText(QRectF(x0, top + h + 5, x1 - x0, 16), Qt::AlignHCenter, t);
    }
    p.restore();
  } else {
    for (int c : spaced_ticks(r.cols, w)) {
      const double x = left + (c + 0.5) * w / r.cols;
      p.drawLine(QPointF(x, top + h), QPointF(x, top + h + 4));
      p.drawText(QRectF(x - 30, top + h + 5, 60, 16), Qt::AlignHCenter, QString::number(r.rank_at(c)));
    }
  }
}

// Ticks left of the rows: message lengths of row/column views, else host names where known
// and readable, else ranks.
void paint_row_labels(QPainter& p, const QFont& font, const ViewResult& r, const CellBox& b) {
  const int left = b.left, top = b.top, h = b.h;
  const auto row_runs = r.row_lengths.empty() ? host_runs(r, r.rows, h) : std::vector<HostRun>{};
  if (!row_runs.empty()) {
    for (const auto& ru : row_runs) {
      const double y0 = top + double(ru.a) * h / r.rows, y1 = top + double(ru.b + 1) * h / r.rows;
      p.drawLine(QPointF(left - 4, y0), QPointF(left, y0));
      p.drawText(QRectF(0, (y0 + y1) / 2 - 8, left - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
                 QFontMetrics(font).elidedText(ru.host, Qt::ElideMiddle, left - 10));
    }
  } else {
    for (int rr : spaced_ticks(r.rows, h)) {
      const double y = top + (rr + 0.5) * h / r.rows;
      p.drawLine(QPointF(left - 4, y), QPointF(left, y));
      const QString t = rr < static_cast<int>(r.row_lengths.size())
                            ? QString::fromStdString(nt::format_bytes(r.row_lengths[static_cast<std::size_t>(rr)]))
                            : QString::number(r.rank_at(rr));
      p.drawText(QRectF(0, y - 8, left - 6, 16), Qt::AlignRight | Qt::AlignVCenter, t);
    }
  }
}

// The column title below and the row title left, with the rank order when it is not by rank.
void paint_axis_titles(QPainter& p, const ViewResult& r, const CellBox& b) {
  const int left = b.left, top = b.top, w = b.w, h = b.h;
  const QString order_note = r.spec.order == Order::rank ? QString()
                             : QStringLiteral(" (ordered by %1)").arg(QString::fromLatin1(order_name(r.spec.order).data()));
  p.drawText(QRectF(left, top + h + 24, w, 18), Qt::AlignHCenter, r.col_label + order_note);
  p.save();
  p.translate(14, top + h / 2.0);
  p.rotate(-90);
  p.drawText(QRectF(-h / 2.0, -10, h, 20), Qt::AlignHCenter | Qt::AlignVCenter, r.row_label + order_note);
  p.restore();
}

// Legend for the outlines below the axis title: one line per hierarchy level, `right` pixels
// of room right of the cells.
void paint_outline_legend(QPainter& p, const OutlineLevels& levels, const CellBox& b, int right) {
  const int left = b.left, top = b.top, w = b.w, h = b.h;
  for (std::size_t l = 0; l < levels.size(); ++l) {
    const double y = top + h + 50 + 18.0 * static_cast<double>(l);
    QPen pen = l == 0 ? QPen(group_color(0), 2.5) : QPen(l % 2 ? QColor(0, 0, 0) : QColor(140, 140, 140), 3.5, Qt::DashLine);
    p.setPen(pen);
    const int shown = l == 0 ? std::min<int>(8, static_cast<int>(levels[l].second.size())) : 1;
    for (int i = 0; i < shown; ++i) {
      if (l == 0) p.setPen(QPen(group_color(static_cast<std::size_t>(i)), 2.5));
      p.drawLine(QPointF(left + i * 14, y), QPointF(left + i * 14 + 10, y));
    }
    p.setPen(Qt::black);
    p.drawText(QRectF(left + shown * 14 + 6, y - 8, w + right, 16), Qt::AlignLeft | Qt::AlignVCenter,
               QStringLiteral("%1 outlines: %2 groups%3").arg(levels[l].first).arg(levels[l].second.size())
                   .arg(l == 0 ? QStringLiteral(" (one colour each)") : QString()));
  }
}
}  // namespace

QImage compose(const ViewResult& r, const ComposeOptions& o) {
  if (r.plot) return plot_picture(r);
  const Colormap cmap = resolve_colormap(o.colormap, r.symmetric());
  // Undecorated output keeps one grey level per cell (scripts read values back) unless the
  // user asked for a colormap.
  const bool colour = !(o.raw && (o.colormap == Colormap::automatic || o.colormap == Colormap::grey));
  const QSize size = cell_area_size(r, o);
  const int w = size.width(), h = size.height();
  QImage cells = scaled_cells(r, size, colour, cmap);
  const OutlineLevels levels = outline_levels(r, o);
  if (!o.decorate && levels.empty()) return cells;
  if (!o.decorate) {
    QImage out = cells.convertToFormat(QImage::Format_RGB32);
    QPainter p(&out);
    paint_outlines(p, QRectF(0, 0, w, h), r, levels);
    return out;
  }

  const int left = 96, top = r.note.isEmpty() ? 40 : 58, bottom = 60 + 18 * static_cast<int>(levels.size()), right = 150;
  QImage out(left + w + right, top + h + bottom, QImage::Format_RGB32);
  out.fill(Qt::white);
  QPainter p(&out);
  QFont font = p.font();
  font.setPixelSize(12);
  p.setFont(font);
  p.drawImage(QPoint(left, top), cells);
  const QRectF area(left, top, w, h);
  paint_outlines(p, area, r, levels);
  p.setPen(Qt::black);
  p.drawRect(area.adjusted(-0.5, -0.5, 0.5, 0.5));
  p.drawText(QRectF(0, 6, out.width(), 24), Qt::AlignHCenter | Qt::AlignVCenter, r.title);
  if (!r.note.isEmpty()) paint_note(p, QRectF(0, 30, out.width(), 18), r.note);
  const CellBox box{left, top, w, h};
  paint_column_labels(p, font, r, box);
  paint_row_labels(p, font, r, box);
  paint_axis_titles(p, r, box);
  paint_outline_legend(p, levels, box, right);
  // Colour bar: black level at the top, ticks in the file's units.
  const QRectF bar(left + w + 20, top, 18, std::max(120, h - 40));
  paint_colorbar(p, bar, r.levels, colour ? cmap : Colormap::grey, r.unit(), colour);
  p.end();
  return out;
}

std::string view_csv(const ViewResult& r) {
  std::string out;
  const auto& v = *r.values;
  auto num = [](double x) { return std::isnan(x) ? std::string() : fmt::format("{:.9g}", x); };
  if (r.plot) {
    out = "length_bytes,value_s\n";
    for (std::size_t k = 0; k < v.size() && k < r.row_lengths.size(); ++k)
      out += fmt::format("{},{}\n", r.row_lengths[k], num(v[k]));
    return out;
  }
  const bool lengths = !r.row_lengths.empty();
  out = lengths ? "length_bytes" : (r.row_label.startsWith(QStringLiteral("sender")) ? "sender\\receiver" : "row");
  for (int c = 0; c < r.cols; ++c) out += fmt::format(",{}", r.rank_at(c));
  out += "\n";
  for (int i = 0; i < r.rows; ++i) {
    out += lengths ? std::to_string(r.row_lengths[static_cast<std::size_t>(i)]) : std::to_string(r.rank_at(i));
    for (int c = 0; c < r.cols; ++c)
      out += "," + num(v[static_cast<std::size_t>(i) * static_cast<std::size_t>(r.cols) + static_cast<std::size_t>(c)]);
    out += "\n";
  }
  return out;
}

namespace {
QByteArray png_bytes(const QImage& img) {
  QByteArray png;
  QBuffer buf(&png);
  buf.open(QIODevice::WriteOnly);
  if (!img.save(&buf, "PNG")) throw nt::Error("cannot encode the picture as PNG");
  return png;
}
}  // namespace

void write_image(const QImage& img, nt::PendingOutput& out) {
  // Encoded in memory first: libpng writing to a file would report a full disk as its own
  // "Write Error" on stderr; the output discipline's stream names the cause instead.
  const std::string name = out.target().string();
  const bool svg = name.size() > 4 && QString::fromStdString(name).endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive);
  const std::string bytes = svg ? svg_document(img) : png_bytes(img).toStdString();
  nt::write_file_atomically_into(out, [&](std::ostream& o) { o.write(bytes.data(), static_cast<std::streamsize>(bytes.size())); });
}

std::string svg_document(const QImage& img) {
  const QByteArray png = png_bytes(img);
  return fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
                     "width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\">\n<image width=\"{0}\" height=\"{1}\" "
                     "style=\"image-rendering:pixelated\" xlink:href=\"data:image/png;base64,",
                     img.width(), img.height()) +
         png.toBase64().toStdString() + "\"/>\n</svg>\n";
}

}  // namespace nt::viewer
