#include "render.hpp"

#include <QFont>
#include <QFontMetrics>
#include <QLinearGradient>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>
#include <string>

#include "nt/validate.hpp"
#include "nt/units.hpp"

namespace ntv {

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

QImage cells_image(std::span<const double> values, int rows, int cols, const Levels& lv) {
  QImage img(cols, rows, QImage::Format_Grayscale8);
  const bool linear = !(lv.log && lv.white > 0 && lv.black > 0) && lv.black > lv.white;
  // Fast path (linear scale): one multiply per cell; same result as Levels::gray.
  const double scale = linear ? 255.0 / (lv.black - lv.white) : 0.0;
  for (int i = 0; i < rows; ++i) {
    uchar* line = img.scanLine(i);
    const double* row = values.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(cols);
    if (linear) {
      for (int j = 0; j < cols; ++j) {
        const double d = (row[j] - lv.white) * scale;  // 0 .. 255 darkness
        // NaN fails both comparisons and ends up white, like Levels::gray.
        const double c = d > 0.0 ? (d < 255.0 ? d : 255.0) : 0.0;
        line[j] = static_cast<uchar>(255 - static_cast<int>(c + 0.5));
      }
    } else {
      for (int j = 0; j < cols; ++j) line[j] = lv.gray(row[j]);
    }
  }
  return img;
}

QImage darkest_pool(const QImage& cells, int f) {
  if (f <= 1 || cells.format() != QImage::Format_Grayscale8) return cells;
  const int w = (cells.width() + f - 1) / f, h = (cells.height() + f - 1) / f;
  QImage out(w, h, QImage::Format_Grayscale8);
  out.fill(255);
  for (int y = 0; y < cells.height(); ++y) {
    const uchar* in = cells.constScanLine(y);
    uchar* o = out.scanLine(y / f);
    for (int x = 0; x < cells.width(); ++x) {
      uchar& d = o[x / f];
      if (in[x] < d) d = in[x];
    }
  }
  return out;
}

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

QColor group_color(std::size_t index) {
  const double h = std::fmod(0.05 + 0.618033988749895 * static_cast<double>(index), 1.0);
  return QColor::fromHsvF(static_cast<float>(h), 0.9f, 0.95f);
}

void paint_groups(QPainter& p, const QRectF& area, int rows, int cols,
                  const std::vector<std::vector<int>>& groups) {
  if (rows <= 0 || cols <= 0) return;
  const double cw = area.width() / cols, ch = area.height() / rows;
  p.save();
  p.setBrush(Qt::NoBrush);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    std::vector<int> g = groups[gi];
    std::sort(g.begin(), g.end());
    std::vector<std::pair<int, int>> runs;  // [a, b] inclusive
    for (int r : g) {
      if (!runs.empty() && runs.back().second + 1 == r) runs.back().second = r;
      else if (runs.empty() || runs.back().second != r) runs.emplace_back(r, r);
    }
    QPen pen(group_color(gi));
    pen.setWidthF(std::clamp(std::min(cw, ch) * 0.25, 1.0, 2.5));
    pen.setJoinStyle(Qt::MiterJoin);
    p.setPen(pen);
    for (const auto& ra : runs)
      for (const auto& rb : runs) {
        if (ra.first >= rows || rb.first >= cols) continue;
        const QRectF rc(area.left() + rb.first * cw, area.top() + ra.first * ch,
                        (std::min(rb.second, cols - 1) - rb.first + 1) * cw,
                        (std::min(ra.second, rows - 1) - ra.first + 1) * ch);
        const double inset = pen.widthF() / 2;
        p.drawRect(rc.adjusted(inset, inset, -inset, -inset));
      }
  }
  p.restore();
}

QImage compose(const ViewResult& r, const ComposeOptions& o) {
  if (r.plot) {
    return r.cells;
  }
  // Scale the cells (nearest neighbour, so that every cell stays a flat block).
  int w = r.cols, h = r.rows;
  const int longest = std::max(w, h);
  if (o.size > 0 && longest > 0) {
    w = std::max(1, static_cast<int>(std::lround(double(r.cols) * o.size / longest)));
    h = std::max(1, static_cast<int>(std::lround(double(r.rows) * o.size / longest)));
  } else if (o.decorate && longest > 0 && longest < 512) {
    const int f = std::max(1, 512 / longest);
    w = r.cols * f;
    h = r.rows * f;
  }
  QImage cells = r.cells;
  if (w != r.cols || h != r.rows) {
    // Shrinking: darkest cell of each block first, so that slow links survive the reduction.
    const int f = std::max(r.cols / std::max(w, 1), r.rows / std::max(h, 1));
    if (f >= 2) cells = darkest_pool(cells, f);
    cells = cells.scaled(w, h, Qt::IgnoreAspectRatio, Qt::FastTransformation);
  }
  const bool overlay = o.groups && !o.groups->empty() && r.diag_col == ViewResult::kDiagIsRow;
  if (!o.decorate && !overlay) return cells;
  if (!o.decorate) {
    QImage out = cells.convertToFormat(QImage::Format_RGB32);
    QPainter p(&out);
    paint_groups(p, QRectF(0, 0, w, h), r.rows, r.cols, *o.groups);
    return out;
  }

  const int left = 80, top = 40, bottom = 56, right = 130;
  QImage out(left + w + right, top + h + bottom, QImage::Format_RGB32);
  out.fill(Qt::white);
  QPainter p(&out);
  QFont f = p.font();
  f.setPixelSize(12);
  p.setFont(f);
  p.drawImage(QPoint(left, top), cells);
  const QRectF area(left, top, w, h);
  if (overlay) paint_groups(p, area, r.rows, r.cols, *o.groups);
  p.setPen(Qt::black);
  p.drawRect(area.adjusted(-0.5, -0.5, 0.5, 0.5));
  p.drawText(QRectF(0, 6, out.width(), 24), Qt::AlignHCenter | Qt::AlignVCenter, r.title);
  // Ticks: ranks, or message lengths for rows of row/column views.
  auto ticks = [](int n) {
    std::vector<int> t;
    const int step = std::max(1, static_cast<int>(std::ceil(n / 8.0)));
    for (int i = 0; i < n; i += step) t.push_back(i);
    return t;
  };
  for (int c : ticks(r.cols)) {
    const double x = left + (c + 0.5) * w / r.cols;
    p.drawLine(QPointF(x, top + h), QPointF(x, top + h + 4));
    p.drawText(QRectF(x - 30, top + h + 5, 60, 16), Qt::AlignHCenter, QString::number(c));
  }
  for (int rr : ticks(r.rows)) {
    const double y = top + (rr + 0.5) * h / r.rows;
    p.drawLine(QPointF(left - 4, y), QPointF(left, y));
    const QString t = rr < static_cast<int>(r.row_lengths.size())
                          ? QString::fromStdString(nt::format_bytes(r.row_lengths[static_cast<std::size_t>(rr)]))
                          : QString::number(rr);
    p.drawText(QRectF(0, y - 8, left - 6, 16), Qt::AlignRight | Qt::AlignVCenter, t);
  }
  p.drawText(QRectF(left, top + h + 24, w, 18), Qt::AlignHCenter, r.col_label);
  p.save();
  p.translate(14, top + h / 2.0);
  p.rotate(-90);
  p.drawText(QRectF(-h / 2.0, -10, h, 20), Qt::AlignHCenter | Qt::AlignVCenter, r.row_label);
  p.restore();
  // Legend: black level at the top, white at the bottom.
  const QRectF bar(left + w + 20, top, 18, std::max(60, h));
  QLinearGradient grad(bar.topLeft(), bar.bottomLeft());
  grad.setColorAt(0, Qt::black);
  grad.setColorAt(1, Qt::white);
  p.fillRect(bar, grad);
  p.drawRect(bar);
  p.drawText(QRectF(bar.right() + 4, bar.top() - 2, right - 40, 16), Qt::AlignLeft, format_value(r.levels.black, r.ratio()));
  p.drawText(QRectF(bar.right() + 4, bar.bottom() - 14, right - 40, 16), Qt::AlignLeft, format_value(r.levels.white, r.ratio()));
  if (r.levels.log)
    p.drawText(QRectF(bar.right() + 4, bar.center().y() - 8, right - 40, 16), Qt::AlignLeft, QStringLiteral("log scale"));
  p.end();
  return out;
}

}  // namespace ntv
