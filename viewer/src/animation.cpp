#include "animation.hpp"

#include <QPainter>

#include <gif_lib.h>

#include <algorithm>
#include <string>
#include <vector>

#include "nt/error.hpp"
#include "nt/viewer/render.hpp"

namespace nt::viewer {

QList<QRgb> animation_palette(Colormap c) {
  QList<QRgb> p;
  const auto add = [&p](QRgb v) {
    if (p.size() < 256 && !p.contains(v)) p.push_back(v);
  };
  // Fixed colours first: white, black, the note's red, the no-data swatch, the outlines of the
  // first hierarchy levels and the first groups' colours (compose draws them without smoothing).
  for (QRgb v : {qRgb(255, 255, 255), qRgb(0, 0, 0), qRgb(170, 20, 20), qRgb(40, 40, 40), qRgb(140, 140, 140),
                 no_data_rgb(c)})
    add(v);
  for (std::size_t i = 0; i < 12; ++i) add(group_color(i).rgb());
  // Greys for antialiased text (every 16th level), then the colormap itself with what is left.
  for (int g = 0; g < 256; g += 16) add(qRgb(g, g, g));
  const int room = 256 - static_cast<int>(p.size());
  for (int i = 0; i < room; ++i) add(colormap_rgb(c, static_cast<double>(i) / std::max(1, room - 1)));
  return p;
}

namespace {
int write_to_stream(GifFileType* gif, const GifByteType* data, int n) {
  auto* out = static_cast<std::ostream*>(gif->UserData);
  out->write(reinterpret_cast<const char*>(data), n);
  return *out ? n : 0;
}
}  // namespace

void GifWriter::check(int rc, const char* what) {
  if (rc == GIF_OK) return;
  const int e = gif_ ? gif_->Error : 0;
  const char* why = GifErrorString(e);
  throw nt::Error(std::string("cannot write the GIF (") + what + "): " + (why ? why : "unknown giflib error"));
}

GifWriter::GifWriter(std::ostream& out, int width, int height, const QList<QRgb>& palette, int delay_cs)
    : out_(out), width_(width), height_(height), delay_cs_(delay_cs), palette_(palette) {
  if (width <= 0 || height <= 0 || width > 65535 || height > 65535)
    throw nt::UsageError("a GIF frame must be 1..65535 pixels on each side, got " + std::to_string(width) + " x " +
                         std::to_string(height));
  if (palette_.isEmpty() || palette_.size() > 256) throw nt::Error("a GIF palette holds 1..256 colours");
  int error = 0;
  gif_ = EGifOpen(&out_, write_to_stream, &error);
  if (!gif_) throw nt::Error(std::string("cannot start the GIF: ") + GifErrorString(error));
  EGifSetGifVersion(gif_, true);
  // giflib wants a power-of-two colour count: the unused entries repeat white.
  std::vector<GifColorType> colours(256, GifColorType{255, 255, 255});
  for (qsizetype i = 0; i < palette_.size(); ++i)
    colours[static_cast<std::size_t>(i)] = {static_cast<GifByteType>(qRed(palette_[i])),
                                            static_cast<GifByteType>(qGreen(palette_[i])),
                                            static_cast<GifByteType>(qBlue(palette_[i]))};
  ColorMapObject* map = GifMakeMapObject(256, colours.data());
  if (!map) throw nt::Error("cannot write the GIF: out of memory for its palette");
  const int rc = EGifPutScreenDesc(gif_, width_, height_, 8, 0, map);
  GifFreeMapObject(map);
  check(rc, "screen");
  // NETSCAPE2.0 application extension: loop forever.
  static const GifByteType kApp[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
  static const GifByteType kLoop[] = {1, 0, 0};
  check(EGifPutExtensionLeader(gif_, APPLICATION_EXT_FUNC_CODE), "loop");
  check(EGifPutExtensionBlock(gif_, sizeof kApp, kApp), "loop");
  check(EGifPutExtensionBlock(gif_, sizeof kLoop, kLoop), "loop");
  check(EGifPutExtensionTrailer(gif_), "loop");
}

GifWriter::~GifWriter() {
  if (gif_) EGifCloseFile(gif_, nullptr);  // an abandoned stream: the caller does not commit it
}

void GifWriter::add(const QImage& frame_in) {
  if (!gif_) throw nt::Error("cannot write the GIF: already finished");
  QImage frame = frame_in;
  if (frame.size() != QSize(width_, height_)) {
    QImage canvas(width_, height_, QImage::Format_RGB32);
    canvas.fill(Qt::white);
    QPainter(&canvas).drawImage(0, 0, frame_in);
    frame = canvas;
  }
  // Qt's conversion to the shared palette: the nearest colour of each pixel, no dithering.
  const QImage idx = frame.convertToFormat(QImage::Format_Indexed8, palette_, Qt::ThresholdDither | Qt::AvoidDither);
  GraphicsControlBlock gcb{DISPOSE_DO_NOT, false, delay_cs_, NO_TRANSPARENT_COLOR};
  GifByteType ext[4];
  const std::size_t n = EGifGCBToExtension(&gcb, ext);
  check(EGifPutExtension(gif_, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(n), ext), "frame delay");
  check(EGifPutImageDesc(gif_, 0, 0, width_, height_, false, nullptr), "frame");
  for (int y = 0; y < height_; ++y)
    check(EGifPutLine(gif_, const_cast<GifPixelType*>(idx.constScanLine(y)), width_), "frame");
  ++frames_;
}

void GifWriter::finish() {
  if (!gif_) return;
  int error = 0;
  const int rc = EGifCloseFile(gif_, &error);
  gif_ = nullptr;
  if (rc != GIF_OK) throw nt::Error(std::string("cannot finish the GIF: ") + GifErrorString(error));
  if (!out_) throw nt::Error("cannot finish the GIF: the output stream failed");
}

}  // namespace nt::viewer
