#include "nt/viewer/image_view.hpp"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

#include "nt/viewer/pyramid.hpp"
#include "nt/viewer/render.hpp"
#include "nt/units.hpp"

namespace nt::viewer {

namespace {
// The size of the picture of r in pixels: the plot's, else one pixel per cell (or per block of
// r.pool cells).
QSize pictureSize(const ViewResult& r) {
  return r.plot ? QSize(r.plot_width, r.plot_height) : QSize(r.cells.width, r.cells.height);
}
}  // namespace

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(200, 200);
}

void ImageView::setResult(const ViewResult& r, bool keepZoom) {
  const bool same = hasResult() && pictureSize(r) == imageSize() && r.plot == result_.plot;
  result_ = r;
  pyramid_.reset();
  if (!result_.plot && !result_.cells.empty())
    pyramid_ = std::make_shared<Pyramid>(result_.cells, result_.nodata, result_.values);
  probed_.clear();
  rebuildPixmap();
  if (!(keepZoom && same) || fitted_) fit();
  emitDetail();
  update();
}

void ImageView::rebuildPixmap() {
  plotGeometry_ = PlotGeometry{};
  plot_ = result_.plot ? QPixmap::fromImage(plot_picture(result_, &plotGeometry_)) : QPixmap();
  full_ = QPixmap();
  shown_ = QPixmap();
  shownLevel_ = -1;
}

const QPixmap& ImageView::pixmap() const {
  if (result_.plot) return plot_;
  if (full_.isNull() && !result_.cells.empty())
    full_ = QPixmap::fromImage(colorize(result_.cells, resolve_colormap(colormap_, result_.symmetric()),
                                        result_.values.get(), result_.nodata.get()));
  return full_;
}

void ImageView::setColormap(Colormap c) {
  colormap_ = c;
  if (hasResult()) rebuildPixmap();
  update();
}

void ImageView::setReduce(Reduce r) {
  if (r == reduce_) return;
  reduce_ = r;
  shown_ = QPixmap();
  shownLevel_ = -1;
  emitDetail();
  update();
}

QSize ImageView::imageSize() const { return pictureSize(result_); }

int ImageView::levelFor() const {
  // The level whose blocks are at least as large as a screen pixel: every pixel then shows the
  // reduction of (a superset of) the cells it covers, so nothing falls between pixels.
  if (result_.plot || zoom_ >= 1.0) return 0;
  const int L = static_cast<int>(std::ceil(std::log2(1.0 / zoom_) - 1e-9));
  return pyramid_ ? std::clamp(L, 0, pyramid_->levels() - 1) : 0;
}

int ImageView::cellsPerPixel() const { return std::max(1, result_.pool) << levelFor(); }

QString ImageView::detailText() const {
  if (!hasResult() || result_.plot) return {};
  const int n = cellsPerPixel();
  const QString how = QString::fromLatin1(reduce_name(reduce_).data());
  if (n > 1) return tr("%1 of %2 x %2 cells per pixel").arg(how).arg(n);
  const double px = zoom_;
  if (px >= 1.5) return tr("%1 pixels per cell (zoomed out: %2)").arg(px, 0, 'f', px < 10 ? 1 : 0).arg(how);
  return tr("1 cell per pixel (zoomed out: %1)").arg(how);
}

void ImageView::emitDetail() { emit detailChanged(detailText()); }

void ImageView::setHierarchy(const std::vector<std::pair<QString, std::vector<std::vector<int>>>>& levels) {
  hierarchy_ = levels;
  update();
}

void ImageView::setGroups(const std::vector<std::vector<int>>& groups) {
  groups_ = groups;
  update();
}

void ImageView::setShowGroups(bool on) {
  showGroups_ = on;
  update();
}

QRectF ImageView::imageRect() const {
  return {offset_, QSizeF(imageSize().width() * zoom_, imageSize().height() * zoom_)};
}

void ImageView::fit() {
  if (!hasResult()) return;
  const QSize im = imageSize();
  // Keep the legend and the labels off the picture.
  const double m = 8, legend = 0, left = result_.plot ? 0 : 130, top = result_.plot ? 0 : 18;
  const double z = std::min((width() - 2 * m - 2 * left) / im.width(), (height() - 2 * m - legend - top) / im.height());
  // Whole screen pixels per cell when cells are larger than a pixel, so that cells stay even;
  // plots are never enlarged.
  zoom_ = result_.plot ? std::min(1.0, z) : (z >= 1.0 ? std::floor(z) : z);
  if (zoom_ <= 0) zoom_ = 1e-3;
  offset_ = QPointF((width() - im.width() * zoom_) / 2, top + (height() - top - legend - im.height() * zoom_) / 2);
  fitted_ = true;
  emit zoomChanged(zoom_);
  emitDetail();
  update();
}

void ImageView::zoomBy(double factor, const QPointF& anchor) {
  if (!hasResult()) return;
  // Down to single cells of the biggest matrix and up to a cell filling the widget.
  const double nz = std::clamp(zoom_ * factor, 1e-4, 512.0);
  // Keep the image point under `anchor` where it is.
  const QPointF img = (anchor - offset_) / zoom_;
  zoom_ = nz;
  offset_ = anchor - img * zoom_;
  fitted_ = false;
  emit zoomChanged(zoom_);
  emitDetail();
  update();
}

void ImageView::zoomIn() { zoomBy(1.5, rect().center()); }
void ImageView::zoomOut() { zoomBy(1 / 1.5, rect().center()); }

QPoint ImageView::cellAt(const QPointF& pos) const {
  if (!hasResult()) return {-1, -1};
  const QPointF p = (pos - offset_) / zoom_;
  if (result_.plot) {
    // Pair plots: per curve the nearest point along the length axis (within a few pixels), then
    // the curve whose point is nearest vertically. Returns (point, curve).
    if (!plotGeometry_.area.adjusted(-12, -12, 12, 12).contains(p)) return {-1, -1};
    int bestCurve = -1, bestPoint = -1;
    double bestY = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < result_.curves.size(); ++c) {
      const PlotCurve& cv = result_.curves[c];
      int best = -1;
      double bestDist = 12.0;
      for (std::size_t k = 0; k < cv.lengths.size(); ++k) {
        const double d = std::abs(plotGeometry_.x_to_px(static_cast<double>(cv.lengths[k])) - p.x());
        if (d < bestDist) {
          bestDist = d;
          best = static_cast<int>(k);
        }
      }
      if (best < 0) continue;
      const double y = cv.y[static_cast<std::size_t>(best)];
      const double dy = std::isfinite(y) ? std::abs(plotGeometry_.y_to_px(y) - p.y()) : 1e9;
      if (bestCurve < 0 || dy < bestY) {
        bestY = dy;
        bestCurve = static_cast<int>(c);
        bestPoint = best;
      }
    }
    if (bestCurve < 0) return {-1, -1};
    return {bestPoint, bestCurve};
  }
  const int col = static_cast<int>(std::floor(p.x() * result_.cols / imageSize().width()));
  const int row = static_cast<int>(std::floor(p.y() * result_.rows / imageSize().height()));
  if (col < 0 || row < 0 || col >= result_.cols || row >= result_.rows) return {-1, -1};
  return {col, row};
}

void ImageView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  // A blue-grey backdrop that no grey level of the matrix can be mistaken for.
  p.fillRect(rect(), QColor(52, 73, 94));
  labels_.clear();
  if (!hasResult()) {
    p.setPen(Qt::white);
    p.drawText(rect(), Qt::AlignCenter, tr("Open a result file (File > Open)"));
    return;
  }
  const QRectF target = imageRect();
  if (result_.plot) {
    p.setRenderHint(QPainter::SmoothPixmapTransform, zoom_ < 1.0);
    p.drawPixmap(target, plot_, QRectF(plot_.rect()));
  } else {
    paintCells(p, target);
  }
  p.setPen(QColor(20, 30, 40));
  p.setBrush(Qt::NoBrush);
  p.drawRect(target.adjusted(-1, -1, 0, 0));
  if (showGroups_ && !result_.plot && result_.diag_col == ViewResult::kDiagIsRow) {
    // Zoomed in on a big matrix the picture is far larger than the widget: outline the visible
    // cells only (paint_groups would work over the whole picture).
    const bool zoomed = target.width() * target.height() > 4.0 * width() * height();
    const auto draw = [&](const std::vector<std::vector<int>>& g, int level) {
      const auto shown = displayed_groups(g, result_.order);
      if (zoomed) paintGroupsZoomed(p, target, shown, level);
      else paint_groups(p, target, result_.rows, result_.cols, shown, level);
    };
    if (!hierarchy_.empty()) {
      for (std::size_t l = hierarchy_.size(); l-- > 0;) draw(hierarchy_[l].second, static_cast<int>(l));
    } else if (!groups_.empty()) {
      draw(groups_, 0);
    }
  }
  if (!result_.plot) {
    paintCellValues(p, target);
    paintLabels(p, target);
    paintLegend(p);
  }
}

void ImageView::paintCells(QPainter& p, const QRectF& target) {
  if (!pyramid_) return;
  const int L = levelFor();
  const Pyramid::Level& lv = pyramid_->level(L, reduce_);
  const int scale = 1 << L;  // image pixels per level pixel
  const int lw = lv.grey.width, lh = lv.grey.height;
  // The visible part in level pixels, with a margin so that small pans reuse the colours.
  const double px = zoom_ * scale;  // screen pixels per level pixel
  const auto clampi = [](double v, int hi) { return std::clamp(static_cast<int>(v), 0, hi); };
  const int x0 = clampi(std::floor(-offset_.x() / px), lw), x1 = clampi(std::ceil((width() - offset_.x()) / px), lw);
  const int y0 = clampi(std::floor(-offset_.y() / px), lh), y1 = clampi(std::ceil((height() - offset_.y()) / px), lh);
  if (x1 <= x0 || y1 <= y0) return;
  const QRect need(x0, y0, x1 - x0, y1 - y0);
  if (shown_.isNull() || shownLevel_ != L || shownReduce_ != reduce_ || !shownRect_.contains(need)) {
    const int mx = need.width() / 4 + 1, my = need.height() / 4 + 1;
    const QRect r = need.adjusted(-mx, -my, mx, my).intersected(QRect(0, 0, lw, lh));
    const GreyImage part = lv.grey.crop(r.x(), r.y(), r.width(), r.height());
    // No-data cells: the base's mask (or NaN values), a level's own mask above it.
    CellMask nd(r.width(), r.height());
    bool any = false;
    for (int y = 0; y < r.height(); ++y)
      for (int x = 0; x < r.width(); ++x) {
        const bool none = L == 0 ? pyramid_->no_data(r.x() + x, r.y() + y)
                                 : lv.nodata.width == lw && lv.nodata.at(r.x() + x, r.y() + y);
        if (none) {
          nd.set(x, y);
          any = true;
        }
      }
    shown_ = QPixmap::fromImage(colorize(part, resolve_colormap(colormap_, result_.symmetric()), nullptr, any ? &nd : nullptr));
    shownRect_ = r;
    shownLevel_ = L;
    shownReduce_ = reduce_;
  }
  // Level pixel (x, y) covers image pixels [x scale, (x + 1) scale): the last one of a row may
  // cover fewer, so the drawing is clipped to the picture.
  const QRectF dst(offset_.x() + shownRect_.x() * px, offset_.y() + shownRect_.y() * px, shownRect_.width() * px,
                   shownRect_.height() * px);
  p.save();
  p.setClipRect(target);
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawPixmap(dst, shown_, QRectF(shown_.rect()));
  p.restore();
}

void ImageView::paintCellValues(QPainter& p, const QRectF& target) {
  // Zoomed in to single cells: each visible cell shows its exact value.
  const double cw = target.width() / result_.cols, ch = target.height() / result_.rows;
  if (result_.rows <= 0 || result_.cols <= 0 || std::min(cw, ch) < kLabelZoom) return;
  const int c0 = std::max(0, static_cast<int>(std::floor(-offset_.x() / cw)));
  const int c1 = std::min(result_.cols, static_cast<int>(std::ceil((width() - offset_.x()) / cw)));
  const int r0 = std::max(0, static_cast<int>(std::floor(-offset_.y() / ch)));
  const int r1 = std::min(result_.rows, static_cast<int>(std::ceil((height() - offset_.y()) / ch)));
  if ((c1 - c0) * (r1 - r0) > 4096) return;
  QFont f = font();
  f.setPixelSize(std::clamp(static_cast<int>(std::min(cw / 6, ch / 3)), 8, 14));
  p.save();
  p.setFont(f);
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      double v;
      if (result_.values) {
        v = result_.value_at(r, c);
      } else {
        const auto key = std::make_pair(r, c);
        auto it = probed_.find(key);
        if (it == probed_.end()) it = probed_.emplace(key, result_.value_at(r, c)).first;
        v = it->second;
      }
      const QRectF cell(target.left() + c * cw, target.top() + r * ch, cw, ch);
      const QString text = std::isnan(v) ? tr("no data") : format_value(v, result_.ratio());
      const int g = result_.pool == 1 && result_.cells.contains(c, r) ? result_.cells.at(c, r) : 255;
      // Dark text on light cells, light text on dark ones (the grey level stands for the colour).
      p.setPen(g > 140 ? QColor(10, 10, 10) : QColor(250, 250, 250));
      p.drawText(cell.adjusted(2, 2, -2, -2), Qt::AlignCenter | Qt::TextWordWrap, text);
      labels_.push_back({r, c, text, cell});
    }
  p.restore();
}

void ImageView::paintGroupsZoomed(QPainter& p, const QRectF& target, const std::vector<std::vector<int>>& groups,
                                  int level) {
  // Block of a visible cell: its group when row and column share one; edges where it changes.
  std::vector<int> gid(static_cast<std::size_t>(result_.rows), -1);
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int r : groups[g])
      if (r >= 0 && r < result_.rows) gid[static_cast<std::size_t>(r)] = static_cast<int>(g);
  const double cw = target.width() / result_.cols, ch = target.height() / result_.rows;
  const int c0 = std::max(0, static_cast<int>(std::floor(-offset_.x() / cw)) - 1);
  const int c1 = std::min(result_.cols, static_cast<int>(std::ceil((width() - offset_.x()) / cw)) + 1);
  const int r0 = std::max(0, static_cast<int>(std::floor(-offset_.y() / ch)) - 1);
  const int r1 = std::min(result_.rows, static_cast<int>(std::ceil((height() - offset_.y()) / ch)) + 1);
  if ((c1 - c0) * static_cast<double>(r1 - r0) > 4.0e6) return;
  const auto block = [&](int r, int c) {
    if (r < 0 || c < 0 || r >= result_.rows || c >= result_.cols) return -1;
    const int a = gid[static_cast<std::size_t>(r)];
    return a >= 0 && a == gid[static_cast<std::size_t>(c)] ? a : -1;
  };
  p.save();
  for (int r = r0; r < r1; ++r)
    for (int c = c0; c < c1; ++c) {
      const int b = block(r, c);
      if (b < 0) continue;
      QPen pen(level == 0 ? group_color(static_cast<std::size_t>(b)) : (level % 2 ? QColor(0, 0, 0) : QColor(255, 255, 255)));
      pen.setWidthF(level > 0 ? 3.5 : 2.5);
      if (level > 0) pen.setStyle(Qt::DashLine);
      p.setPen(pen);
      const double x = target.left() + c * cw, y = target.top() + r * ch;
      if (block(r - 1, c) != b) p.drawLine(QPointF(x, y), QPointF(x + cw, y));
      if (block(r + 1, c) != b) p.drawLine(QPointF(x, y + ch), QPointF(x + cw, y + ch));
      if (block(r, c - 1) != b) p.drawLine(QPointF(x, y), QPointF(x, y + ch));
      if (block(r, c + 1) != b) p.drawLine(QPointF(x + cw, y), QPointF(x + cw, y + ch));
    }
  p.restore();
}

void ImageView::paintLabels(QPainter& p, const QRectF& target) {
  // Rank numbers and message lengths beside the picture when the cells are big enough to tell
  // apart; the hover text gives the rest.
  if (result_.rows <= 0 || result_.cols <= 0) return;
  QFont f = font();
  f.setPixelSize(11);
  p.setFont(f);
  p.setPen(QColor(230, 235, 240));
  const double cw = target.width() / result_.cols, ch = target.height() / result_.rows;
  // Steps of 1, 2, 5 x 10^k cells, wide enough for the widest label.
  auto nice = [](double minCells) {
    int step = 1;
    for (int mag = 1;; mag *= 10) {
      for (int m : {1, 2, 5})
        if (m * mag >= minCells) return std::max(step, m * mag);
      if (mag > 1000000) return step;
    }
  };
  const QFontMetricsF fm(f);
  const double labelW = fm.horizontalAdvance(QString::number(result_.cols - 1)) + 10;
  const int colStep = nice(labelW / cw);
  const int rowStep = nice(16.0 / ch);
  for (int c = 0; c < result_.cols; c += colStep) {
    const double x = target.left() + (c + 0.5) * cw;
    if (x < 0 || x > width()) continue;
    p.drawText(QRectF(x - 30, target.top() - 17, 60, 15), Qt::AlignHCenter | Qt::AlignBottom, QString::number(result_.rank_at(c)));
  }
  const bool lengths = !result_.row_lengths.empty();
  for (int r = 0; r < result_.rows; r += rowStep) {
    const double y = target.top() + (r + 0.5) * ch;
    if (y < 0 || y > height()) continue;
    const QString t = lengths ? QString::fromStdString(nt::format_bytes(result_.row_lengths[static_cast<std::size_t>(r)]))
                              : (static_cast<std::size_t>(r) < result_.axis_hosts.size()
                                     ? QStringLiteral("%1 %2").arg(result_.axis_hosts[static_cast<std::size_t>(r)]).arg(result_.rank_at(r))
                                     : QString::number(result_.rank_at(r)));
    p.drawText(QRectF(target.left() - 126, y - 8, 122, 16), Qt::AlignRight | Qt::AlignVCenter, t);
  }
}

void ImageView::paintLegend(QPainter& p) {
  // A vertical colour bar with ticks in the file's units, right of the picture.
  const QRectF box(width() - 124, 8, 118, std::min(height() - 16.0, 360.0));
  p.setRenderHint(QPainter::Antialiasing, false);
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(255, 255, 255, 225));
  p.drawRect(box);
  const QRectF bar(box.left() + 8, box.top() + 10, 16, box.height() - 56);
  paint_colorbar(p, bar, result_.levels, resolve_colormap(colormap_, result_.symmetric()), result_.unit(), true);
}

void ImageView::wheelEvent(QWheelEvent* e) {
  const double steps = e->angleDelta().y() / 120.0;
  if (steps != 0) zoomBy(std::pow(1.25, steps), e->position());
  e->accept();
}

void ImageView::mousePressEvent(QMouseEvent* e) {
  if (e->button() == Qt::LeftButton || e->button() == Qt::MiddleButton) {
    dragging_ = true;
    dragStart_ = e->position();
    offsetStart_ = offset_;
    setCursor(Qt::ClosedHandCursor);
  }
}

void ImageView::mouseMoveEvent(QMouseEvent* e) {
  if (dragging_) {
    offset_ = offsetStart_ + (e->position() - dragStart_);
    fitted_ = false;
    update();
  }
  const QPoint c = cellAt(e->position());
  if (c.x() >= 0) emit cellHovered(c.y(), c.x());
  else emit hoverLeft();
}

void ImageView::mouseReleaseEvent(QMouseEvent*) {
  dragging_ = false;
  unsetCursor();
}

void ImageView::leaveEvent(QEvent*) { emit hoverLeft(); }

void ImageView::resizeEvent(QResizeEvent*) {
  if (fitted_) fit();
}

}  // namespace nt::viewer
