// Measuring the viewer's pictures: Qt only, so that the Xvfb test (no suite libraries) uses it too.
#pragma once

#include <QColor>
#include <QImage>
#include <QRect>

#include <algorithm>
#include <cstdlib>

namespace fixtures {

// Pixels within `tolerance` of colour c on every channel.
inline int count_colour(const QImage& img, const QColor& c, int tolerance = 8) {
  int n = 0;
  for (int y = 0; y < img.height(); ++y)
    for (int x = 0; x < img.width(); ++x) {
      const QColor p = img.pixelColor(x, y);
      n += std::abs(p.red() - c.red()) <= tolerance && std::abs(p.green() - c.green()) <= tolerance &&
           std::abs(p.blue() - c.blue()) <= tolerance;
    }
  return n;
}

// Pixels of an RGB image within `rect` that are the dark red of a warning note (paint_note).
inline int note_pixels(const QImage& img, const QRect& rect) {
  int n = 0;
  for (int y = std::max(0, rect.top()); y <= std::min(img.height() - 1, rect.bottom()); ++y)
    for (int x = std::max(0, rect.left()); x <= std::min(img.width() - 1, rect.right()); ++x) {
      const QColor c = img.pixelColor(x, y);
      if (c.red() > 120 && c.green() < 80 && c.blue() < 80) ++n;
    }
  return n;
}

// Mean grey (0 black .. 255 white) of one row of an 8-bit image, skipping column `skip`.
inline double row_gray(const QImage& img, int row, int skip = -1) {
  double s = 0;
  int n = 0;
  for (int c = 0; c < img.width(); ++c) {
    if (c == skip) continue;
    s += qGray(img.pixel(c, row));
    ++n;
  }
  return n ? s / n : 0;
}

}  // namespace fixtures
