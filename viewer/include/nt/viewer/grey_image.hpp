// A picture of grey levels, one byte per pixel (0 black .. 255 white), rows top to bottom with
// no padding: the one-pixel-per-cell picture of a view, made without Qt GUI types so that the
// viewer's data layer (nt_viewer_data) needs no QGuiApplication. The GUI layer turns it into a
// QImage (render.hpp's to_qimage, colorize) only to paint it.
//
// Copies share the pixels until one of them writes (as QImage did before it): a ViewResult of a
// big matrix travels from the worker to the widget, its pyramid and the export without copying
// them.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace nt::viewer {

class GreyImage {
 public:
  GreyImage() = default;
  // A w x h picture, every pixel `fill`.
  GreyImage(int w, int h, std::uint8_t fill = 0)
      : width(w), height(h),
        data_(std::make_shared<std::vector<std::uint8_t>>(static_cast<std::size_t>(w) * static_cast<std::size_t>(h), fill)) {}
  int width = 0, height = 0;

  bool empty() const { return width <= 0 || height <= 0; }
  std::size_t pixel_count() const { return static_cast<std::size_t>(width) * static_cast<std::size_t>(height); }
  const std::uint8_t* row(int y) const { return data_->data() + offset(y); }
  // Writable row y: the pixels stop being shared with copies first.
  std::uint8_t* row(int y) {
    if (data_.use_count() > 1) data_ = std::make_shared<std::vector<std::uint8_t>>(*data_);
    return data_->data() + offset(y);
  }
  std::uint8_t at(int x, int y) const { return row(y)[x]; }
  bool contains(int x, int y) const { return x >= 0 && y >= 0 && x < width && y < height; }
  // The w x h part whose top left pixel is (x, y); the part must lie inside the picture.
  GreyImage crop(int x, int y, int w, int h) const {
    GreyImage out(w, h);
    for (int r = 0; r < h; ++r) std::copy_n(row(y + r) + x, w, out.row(r));
    return out;
  }
  bool operator==(const GreyImage& o) const {
    return width == o.width && height == o.height && (empty() || *data_ == *o.data_);
  }

 private:
  std::size_t offset(int y) const { return static_cast<std::size_t>(y) * static_cast<std::size_t>(width); }
  std::shared_ptr<std::vector<std::uint8_t>> data_;
};

}  // namespace nt::viewer
