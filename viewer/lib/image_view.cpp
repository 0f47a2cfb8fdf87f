#include "image_view.hpp"

#include <QFontMetricsF>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

#include "render.hpp"
#include "nt/units.hpp"

namespace ntv {

ImageView::ImageView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setFocusPolicy(Qt::StrongFocus);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setMinimumSize(200, 200);
}

void ImageView::setResult(const ViewResult& r, bool keepZoom) {
  const bool same = hasResult() && r.cells.size() == result_.cells.size() && r.plot == result_.plot;
  result_ = r;
  rebuildPixmap();
  if (!(keepZoom && same) || fitted_) fit();
  update();
}

void ImageView::rebuildPixmap() {
  const Colormap c = resolve_colormap(colormap_, result_.symmetric());
  pixmap_ = QPixmap::fromImage(result_.plot || result_.cells.isNull() ? result_.cells
                                                                      : colorize(result_.cells, c, result_.values.get()));
  pooled_ = QPixmap();
  pooledFactor_ = 1;
}

void ImageView::setColormap(Colormap c) {
  colormap_ = c;
  if (hasResult()) rebuildPixmap();
  update();
}

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
  return {offset_, QSizeF(pixmap_.width() * zoom_, pixmap_.height() * zoom_)};
}

void ImageView::fit() {
  if (pixmap_.isNull()) return;
  // Keep the legend and the labels off the picture.
  const double m = 8, legend = 0, left = result_.plot ? 0 : 130, top = result_.plot ? 0 : 18;
  const double z = std::min((width() - 2 * m - 2 * left) / pixmap_.width(),
                            (height() - 2 * m - legend - top) / pixmap_.height());
  // Whole screen pixels per cell when cells are larger than a pixel, so that cells stay even;
  // plots are never enlarged.
  zoom_ = result_.plot ? std::min(1.0, z) : (z >= 1.0 ? std::floor(z) : z);
  if (zoom_ <= 0) zoom_ = 1e-3;
  offset_ = QPointF((width() - pixmap_.width() * zoom_) / 2, top + (height() - top - legend - pixmap_.height() * zoom_) / 2);
  fitted_ = true;
  emit zoomChanged(zoom_);
  update();
}

void ImageView::zoomBy(double factor, const QPointF& anchor) {
  if (pixmap_.isNull()) return;
  const double nz = std::clamp(zoom_ * factor, 1e-3, 256.0);
  // Keep the image point under `anchor` where it is.
  const QPointF img = (anchor - offset_) / zoom_;
  zoom_ = nz;
  offset_ = anchor - img * zoom_;
  fitted_ = false;
  emit zoomChanged(zoom_);
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
    if (!result_.geometry.area.adjusted(-12, -12, 12, 12).contains(p)) return {-1, -1};
    int bestCurve = -1, bestPoint = -1;
    double bestY = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < result_.curves.size(); ++c) {
      const PlotCurve& cv = result_.curves[c];
      int best = -1;
      double bestDist = 12.0;
      for (std::size_t k = 0; k < cv.lengths.size(); ++k) {
        const double d = std::abs(result_.geometry.x_to_px(static_cast<double>(cv.lengths[k])) - p.x());
        if (d < bestDist) {
          bestDist = d;
          best = static_cast<int>(k);
        }
      }
      if (best < 0) continue;
      const double y = cv.y[static_cast<std::size_t>(best)];
      const double dy = std::isfinite(y) ? std::abs(result_.geometry.y_to_px(y) - p.y()) : 1e9;
      if (bestCurve < 0 || dy < bestY) {
        bestY = dy;
        bestCurve = static_cast<int>(c);
        bestPoint = best;
      }
    }
    if (bestCurve < 0) return {-1, -1};
    return {bestPoint, bestCurve};
  }
  const int col = static_cast<int>(std::floor(p.x() * result_.cols / pixmap_.width()));
  const int row = static_cast<int>(std::floor(p.y() * result_.rows / pixmap_.height()));
  if (col < 0 || row < 0 || col >= result_.cols || row >= result_.rows) return {-1, -1};
  return {col, row};
}

void ImageView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  // A blue-grey backdrop that no grey level of the matrix can be mistaken for.
  p.fillRect(rect(), QColor(52, 73, 94));
  if (pixmap_.isNull()) {
    p.setPen(Qt::white);
    p.drawText(rect(), Qt::AlignCenter, tr("Open a result file (File > Open)"));
    return;
  }
  p.setRenderHint(QPainter::SmoothPixmapTransform, result_.plot && zoom_ < 1.0);
  const QRectF target = imageRect();
  // Zoomed out past one cell per pixel: draw the darkest-cell reduction instead of sampling,
  // so that a single slow rank or link never disappears from a large matrix.
  const int factor = result_.plot || zoom_ >= 1.0 ? 1 : static_cast<int>(std::ceil(1.0 / zoom_ - 1e-9));
  if (factor > 1) {
    if (factor != pooledFactor_ || pooled_.isNull()) {
      pooled_ = QPixmap::fromImage(colorize(darkest_pool(result_.cells, factor),
                                            resolve_colormap(colormap_, result_.symmetric())));
      pooledFactor_ = factor;
    }
    const QRectF src(0, 0, double(pixmap_.width()) / factor, double(pixmap_.height()) / factor);
    p.drawPixmap(target, pooled_, src);
  } else {
    p.drawPixmap(target, pixmap_, QRectF(pixmap_.rect()));
  }
  p.setPen(QColor(20, 30, 40));
  p.setBrush(Qt::NoBrush);
  p.drawRect(target.adjusted(-1, -1, 0, 0));
  if (showGroups_ && !result_.plot && result_.diag_col == ViewResult::kDiagIsRow) {
    if (!hierarchy_.empty()) {
      for (std::size_t l = hierarchy_.size(); l-- > 0;)
        paint_groups(p, target, result_.rows, result_.cols, displayed_groups(hierarchy_[l].second, result_.order),
                     static_cast<int>(l));
    } else if (!groups_.empty()) {
      paint_groups(p, target, result_.rows, result_.cols, displayed_groups(groups_, result_.order));
    }
  }
  if (!result_.plot) {
    paintLabels(p, target);
    paintLegend(p);
  }
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

}  // namespace ntv
