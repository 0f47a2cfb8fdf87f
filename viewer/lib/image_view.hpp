// Shows a ViewResult: the cell image scaled without smoothing, with zoom (wheel, keys), pan
// (drag) and hover (cellHovered). It only draws and emits signals; it never reads files.
#pragma once

#include <QPainter>
#include <QPixmap>
#include <QPointF>
#include <QWidget>

#include <utility>
#include <vector>

#include "view_spec.hpp"

namespace ntv {

class ImageView : public QWidget {
  Q_OBJECT
 public:
  explicit ImageView(QWidget* parent = nullptr);
  // keepZoom: keep zoom and pan when the new result has the same grid (moving the slider).
  void setResult(const ViewResult& r, bool keepZoom);
  void setGroups(const std::vector<std::vector<int>>& groups);
  void setShowGroups(bool on);
  // Every hierarchy level (finest first); drawn instead of the plain groups when set.
  void setHierarchy(const std::vector<std::pair<QString, std::vector<std::vector<int>>>>& levels);
  void setColormap(Colormap c);
  Colormap colormap() const { return colormap_; }
  // The picture as shown (colours, no zoom): one pixel per cell.
  const QPixmap& pixmap() const { return pixmap_; }
  const ViewResult& result() const { return result_; }
  bool hasResult() const { return !result_.cells.isNull(); }
  double zoom() const { return zoom_; }
  // Cell under a widget position, or (-1, -1).
  QPoint cellAt(const QPointF& pos) const;
  // Widget position of a point of the shown image (inverse of the zoom and pan).
  QPointF widgetPos(const QPointF& imagePos) const { return offset_ + imagePos * zoom_; }

 public slots:
  void zoomIn();
  void zoomOut();
  void fit();
  void zoomBy(double factor, const QPointF& anchor);

 signals:
  void cellHovered(int row, int col);
  void hoverLeft();
  void zoomChanged(double zoom);

 protected:
  void paintEvent(QPaintEvent*) override;
  void wheelEvent(QWheelEvent*) override;
  void mousePressEvent(QMouseEvent*) override;
  void mouseMoveEvent(QMouseEvent*) override;
  void mouseReleaseEvent(QMouseEvent*) override;
  void leaveEvent(QEvent*) override;
  void resizeEvent(QResizeEvent*) override;
  QSize sizeHint() const override { return {640, 640}; }

 private:
  QRectF imageRect() const;
  void paintLegend(QPainter& p);
  void paintLabels(QPainter& p, const QRectF& target);
  ViewResult result_;
  QPixmap pixmap_;
  QPixmap pooled_;          // darkest-cell reduction used when zoomed out
  int pooledFactor_ = 1;
  std::vector<std::vector<int>> groups_;
  std::vector<std::pair<QString, std::vector<std::vector<int>>>> hierarchy_;
  Colormap colormap_ = Colormap::automatic;
  void rebuildPixmap();
  bool showGroups_ = true;
  double zoom_ = 1.0;       // screen pixels per image pixel
  QPointF offset_;          // widget position of the image's top-left corner
  bool fitted_ = false;     // zoom follows the widget size until the user zooms or pans
  bool dragging_ = false;
  QPointF dragStart_, offsetStart_;
};

}  // namespace ntv
