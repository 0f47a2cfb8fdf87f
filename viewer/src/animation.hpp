// Animated export over message lengths: an animated GIF written frame by frame through giflib
// (Debian libgif-dev), so that a long sweep of large matrices never holds more than one frame.
// Frames are reduced to one 8-bit palette shared by the whole animation with Qt's conversion
// (nearest colour, no dithering): the colormap's own colours, greys for text, the overlay and
// note colours, so that cells keep their exact colours from frame to frame.
#pragma once

#include <QImage>
#include <QList>
#include <QRgb>

#include <memory>
#include <ostream>

#include "nt/viewer/view_spec.hpp"

struct GifFileType;

namespace nt::viewer {

// The palette of an animation drawn in colormap `c` (resolved): at most 256 colours.
QList<QRgb> animation_palette(Colormap c);

// The one checked wrapper over giflib's encoder. Writes a GIF89a that loops forever into `out`;
// every frame is shown for delay_cs hundredths of a second. Errors are nt::Error naming giflib's
// reason. finish() writes the trailer; without it the destructor abandons the stream.
class GifWriter {
 public:
  GifWriter(std::ostream& out, int width, int height, const QList<QRgb>& palette, int delay_cs);
  ~GifWriter();
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;
  // A frame of any format; drawn on white at the top left when its size differs.
  void add(const QImage& frame);
  void finish();
  int frames() const { return frames_; }

 private:
  void check(int rc, const char* what);
  std::ostream& out_;
  GifFileType* gif_ = nullptr;
  int width_, height_, delay_cs_, frames_ = 0;
  QList<QRgb> palette_;
};

}  // namespace nt::viewer
