// Shows a ViewResult: the cell image scaled without smoothing, with zoom (wheel, keys), pan
// (drag) and hover (cellHovered). Zoomed out, each screen pixel shows a level of the result's
// Pyramid (blocks of 2^L cells reduced to their max or median, reduce()); only the visible part
// is coloured, so a 10,000-rank matrix costs its grey levels, not a P x P colour picture. Zoomed
// in far enough, every cell is labelled with its exact value (from the result's values, or read
// through its probe). It never opens files.
#pragma once

#include <QPainter>
#include <QPixmap>
#include <QPointF>
#include <QWidget>

#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "nt/viewer/plot.hpp"
#include "nt/viewer/view_spec.hpp"

namespace nt::viewer {

class Pyramid;

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
  // How a screen pixel showing several cells is reduced (max by default).
  void setReduce(Reduce r);
  Reduce reduce() const { return reduce_; }
  // Cells per side of what one screen pixel shows now (1 when zoomed in), and a line for the
  // status bar: "max of 16 x 16 cells per pixel", "1 cell per pixel", "24 pixels per cell".
  int cellsPerPixel() const;
  QString detailText() const;
  // The picture in colours at one pixel per cell (plots: the plot), built when asked.
  const QPixmap& pixmap() const;
  // The cells labelled with their value in the last paint (zoomed in to single cells).
  struct CellLabel {
    int row, col;
    QString text;
    QRectF rect;  // widget coordinates of the cell
  };
  const std::vector<CellLabel>& cellLabels() const { return labels_; }
  // Screen pixels per cell side from which every cell shows its value.
  static constexpr double kLabelZoom = 44.0;
  const ViewResult& result() const { return result_; }
  bool hasResult() const { return result_.plot || !result_.cells.empty(); }
  // Pair plots: where the plot shown puts lengths and delays (picture pixels).
  const PlotGeometry& plotGeometry() const { return plotGeometry_; }
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
  // The level of detail changed (zoom or reduce): detailText() has news.
  void detailChanged(const QString& text);

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
  QSize imageSize() const;
  void paintCells(QPainter& p, const QRectF& target);
  void paintCellValues(QPainter& p, const QRectF& target);
  void paintGroupsZoomed(QPainter& p, const QRectF& target, const std::vector<std::vector<int>>& groups, int level);
  void paintLegend(QPainter& p);
  void paintLabels(QPainter& p, const QRectF& target);
  int levelFor() const;
  ViewResult result_;
  QPixmap plot_;            // plots: the picture (plot_picture)
  PlotGeometry plotGeometry_;
  mutable QPixmap full_;    // pixmap(): built when asked
  std::shared_ptr<Pyramid> pyramid_;
  Reduce reduce_ = Reduce::max;
  // The coloured part of a pyramid level last drawn (a margin around the visible part).
  QPixmap shown_;
  QRect shownRect_;         // in level pixels
  int shownLevel_ = -1;
  Reduce shownReduce_ = Reduce::max;
  std::vector<CellLabel> labels_;
  mutable std::map<std::pair<int, int>, double> probed_;  // values read through the probe
  std::vector<std::vector<int>> groups_;
  std::vector<std::pair<QString, std::vector<std::vector<int>>>> hierarchy_;
  Colormap colormap_ = Colormap::automatic;
  void rebuildPixmap();
  void emitDetail();
  bool showGroups_ = true;
  double zoom_ = 1.0;       // screen pixels per image pixel
  QPointF offset_;          // widget position of the image's top-left corner
  bool fitted_ = false;     // zoom follows the widget size until the user zooms or pans
  bool dragging_ = false;
  QPointF dragStart_, offsetStart_;
};

}  // namespace nt::viewer
