// The groups drawn over a matrix: one outline per block of a group, or their borders found pixel
// by pixel when the blocks are too many to draw one rectangle each.
#include <QImage>
#include <QPainter>
#include <QPen>

#include <algorithm>
#include <cmath>
#include <vector>

#include "nt/viewer/render.hpp"

namespace nt::viewer {

QColor group_color(std::size_t index) {
  const double h = std::fmod(0.05 + 0.618033988749895 * static_cast<double>(index), 1.0);
  return QColor::fromHsvF(static_cast<float>(h), 0.9f, 0.95f);
}

namespace {
QColor level_color(int level, std::size_t group) {
  return level == 0 ? group_color(group) : (level % 2 ? QColor(0, 0, 0) : QColor(255, 255, 255));
}

// Scattered groups (a shuffled run in rank order) make thousands of tiny blocks, too many to draw
// one rectangle each: their borders are found pixel by pixel instead. A pixel is on a border
// when a neighbour belongs to another block (or to none).
void paint_group_borders(QPainter& p, const QRectF& area, int rows, int cols, const std::vector<int>& gid, int level) {
  const int w = std::max(1, static_cast<int>(std::lround(area.width())));
  const int h = std::max(1, static_cast<int>(std::lround(area.height())));
  std::vector<int> col_of(static_cast<std::size_t>(w));
  for (int x = 0; x < w; ++x) col_of[static_cast<std::size_t>(x)] = std::min(cols - 1, static_cast<int>(static_cast<long long>(x) * cols / w));
  const auto row_of = [&](int y) { return std::min(rows - 1, static_cast<int>(static_cast<long long>(y) * rows / h)); };
  // Block id of each pixel of one image row: the group when row and column ranks share it, else -1.
  const auto blocks = [&](int y, std::vector<int>& out) {
    const int gi = gid[static_cast<std::size_t>(row_of(y))];
    for (int x = 0; x < w; ++x) {
      const int gj = gid[static_cast<std::size_t>(col_of[static_cast<std::size_t>(x)])];
      out[static_cast<std::size_t>(x)] = gi >= 0 && gi == gj ? gi : -1;
    }
  };
  QImage overlay(w, h, QImage::Format_ARGB32_Premultiplied);
  overlay.fill(Qt::transparent);
  std::vector<int> above(static_cast<std::size_t>(w)), here(static_cast<std::size_t>(w)), below(static_cast<std::size_t>(w));
  blocks(0, here);
  above = here;
  std::vector<QRgb> colours;
  for (int y = 0; y < h; ++y) {
    if (y + 1 < h) blocks(y + 1, below);
    else below = here;
    auto* line = reinterpret_cast<QRgb*>(overlay.scanLine(y));
    for (int x = 0; x < w; ++x) {
      const int b = here[static_cast<std::size_t>(x)];
      if (b < 0) continue;
      const bool edge = x == 0 || x + 1 == w || here[static_cast<std::size_t>(x - 1)] != b ||
                        here[static_cast<std::size_t>(x + 1)] != b || above[static_cast<std::size_t>(x)] != b ||
                        below[static_cast<std::size_t>(x)] != b;
      if (!edge) continue;
      if (static_cast<std::size_t>(b) >= colours.size())
        for (std::size_t g = colours.size(); g <= static_cast<std::size_t>(b); ++g) colours.push_back(level_color(level, g).rgb());
      line[x] = colours[static_cast<std::size_t>(b)];
    }
    std::swap(above, here);
    std::swap(here, below);
  }
  p.drawImage(QPointF(area.left(), area.top()), overlay);
}
}  // namespace

void paint_groups(QPainter& p, const QRectF& area, int rows, int cols,
                  const std::vector<std::vector<int>>& groups, int level) {
  if (rows <= 0 || cols <= 0) return;
  const double cw = area.width() / cols, ch = area.height() / rows;
  // Runs of consecutive positions of each group: a block is drawn per pair of runs.
  std::vector<std::vector<std::pair<int, int>>> group_runs;  // [a, b] inclusive
  std::size_t blocks = 0;
  for (const auto& group : groups) {
    std::vector<int> g = group;
    std::sort(g.begin(), g.end());
    auto& runs = group_runs.emplace_back();
    for (int r : g) {
      if (!runs.empty() && runs.back().second + 1 == r) runs.back().second = r;
      else if (runs.empty() || runs.back().second != r) runs.emplace_back(r, r);
    }
    blocks += runs.size() * runs.size();
  }
  if (blocks > 4096 && rows == cols) {
    std::vector<int> gid(static_cast<std::size_t>(rows), -1);
    for (std::size_t gi = 0; gi < groups.size(); ++gi)
      for (int r : groups[gi])
        if (r >= 0 && r < rows) gid[static_cast<std::size_t>(r)] = static_cast<int>(gi);
    paint_group_borders(p, area, rows, cols, gid, level);
    return;
  }
  p.save();
  p.setBrush(Qt::NoBrush);
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const auto& runs = group_runs[gi];
    // Level 0 (nodes): one colour per group; coarser levels: thicker dashed black/white lines
    // so that every level stays visible on top of the others.
    QPen pen(level_color(level, gi));
    pen.setWidthF(std::clamp(std::min(cw, ch) * 0.25, 1.0, 2.5) + (level > 0 ? 1.0 : 0.0));
    if (level > 0) pen.setStyle(Qt::DashLine);
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

}  // namespace nt::viewer
