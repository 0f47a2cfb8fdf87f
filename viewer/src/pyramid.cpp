#include "nt/viewer/pyramid.hpp"

#include <algorithm>
#include <cmath>

namespace nt::viewer {

namespace {
// Small blocks keep their levels and select the median; from 16 x 16 cells on, a histogram of
// the 256 levels is cheaper than keeping them (and gives the same order statistic).
constexpr int kHistogramFrom = 16;
}  // namespace

BlockReducer::BlockReducer(int cols, int f, Reduce mode)
    : cols_(cols), f_(std::max(1, f)), out_cols_((cols + std::max(1, f) - 1) / std::max(1, f)), mode_(mode) {
  const auto n = static_cast<std::size_t>(out_cols_);
  if (mode_ == Reduce::max) {
    best_.assign(n, 255);
    has_.assign(n, 0);
  } else {
    hist_ = f_ >= kHistogramFrom;
    count_.assign(n, 0);
    if (hist_) hist_buf_.assign(n * 256, 0);
    else buf_.resize(n * static_cast<std::size_t>(f_) * static_cast<std::size_t>(f_));
  }
}

void BlockReducer::add_row(const std::uint8_t* grey, const std::uint8_t* nodata) {
  ++rows_;
  if (mode_ == Reduce::max) {
    for (int o = 0, x = 0; o < out_cols_; ++o) {
      const int end = std::min(cols_, x + f_);
      std::uint8_t b = best_[static_cast<std::size_t>(o)];
      std::uint8_t h = has_[static_cast<std::size_t>(o)];
      for (; x < end; ++x) {
        if (nodata && nodata[x]) continue;
        b = std::min(b, grey[x]);
        h = 1;
      }
      best_[static_cast<std::size_t>(o)] = b;
      has_[static_cast<std::size_t>(o)] = h;
    }
    return;
  }
  const auto ff = static_cast<std::size_t>(f_) * static_cast<std::size_t>(f_);
  for (int x = 0; x < cols_; ++x) {
    if (nodata && nodata[x]) continue;
    const auto o = static_cast<std::size_t>(x / f_);
    if (hist_) ++hist_buf_[o * 256 + grey[x]];
    else buf_[o * ff + count_[o]] = grey[x];
    ++count_[o];
  }
}

void BlockReducer::take(std::uint8_t* grey, CellMask* mask, int y) {
  const auto ff = static_cast<std::size_t>(f_) * static_cast<std::size_t>(f_);
  for (int o = 0; o < out_cols_; ++o) {
    const auto i = static_cast<std::size_t>(o);
    bool empty = false;
    if (mode_ == Reduce::max) {
      grey[o] = best_[i];
      empty = !has_[i];
      best_[i] = 255;
      has_[i] = 0;
    } else if (count_[i] == 0) {
      grey[o] = 255;
      empty = true;
    } else {
      // The ((n - 1) / 2)-th lightest level = the darker middle value for an even count.
      const std::uint32_t want = (count_[i] - 1) / 2;
      if (hist_) {
        std::uint32_t* h = hist_buf_.data() + i * 256;
        std::uint32_t seen = 0;
        int g = 0;
        while (seen + h[g] <= want) seen += h[g++];
        grey[o] = static_cast<std::uint8_t>(g);
        std::fill(h, h + 256, 0u);
      } else {
        std::uint8_t* b = buf_.data() + i * ff;
        std::nth_element(b, b + want, b + count_[i]);
        grey[o] = b[want];
      }
      count_[i] = 0;
    }
    if (empty && mask) mask->set(o, y);
  }
  rows_ = 0;
}

std::pair<GreyImage, CellMask> reduce_cells(const GreyImage& grey, int f, Reduce mode, const CellMask* nodata,
                                            const std::vector<double>* values) {
  const int w = grey.width, h = grey.height;
  f = std::max(1, f);
  const int ow = (w + f - 1) / f, oh = (h + f - 1) / f;
  GreyImage out(ow, oh);
  CellMask mask(ow, oh);
  const bool from_mask = nodata && nodata->width == w && nodata->height == h;
  const bool from_values = !from_mask && values && values->size() == static_cast<std::size_t>(w) * static_cast<std::size_t>(h);
  std::vector<std::uint8_t> nd(static_cast<std::size_t>(w));
  BlockReducer red(w, f, mode);
  for (int y = 0; y < h; ++y) {
    const std::uint8_t* flags = nullptr;
    if (from_mask) {
      for (int x = 0; x < w; ++x) nd[static_cast<std::size_t>(x)] = nodata->at(x, y);
      flags = nd.data();
    } else if (from_values) {
      const double* v = values->data() + static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
      for (int x = 0; x < w; ++x) nd[static_cast<std::size_t>(x)] = std::isnan(v[x]);
      flags = nd.data();
    }
    red.add_row(grey.row(y), flags);
    if (red.rows_added() == f || y + 1 == h) red.take(out.row(y / f), &mask, y / f);
  }
  return {std::move(out), std::move(mask)};
}

Pyramid::Pyramid(GreyImage base, std::shared_ptr<const CellMask> nodata, std::shared_ptr<const std::vector<double>> values)
    : base_(std::move(base)), nodata_(std::move(nodata)), values_(std::move(values)) {
  base_level_.grey = base_;
  int side = std::max(base_.width, base_.height);
  while (side > 1) {
    side = (side + 1) / 2;
    ++levels_;
  }
}

bool Pyramid::no_data(int x, int y) const {
  if (nodata_ && nodata_->width == base_.width && nodata_->height == base_.height) return nodata_->at(x, y);
  if (values_ && values_->size() == static_cast<std::size_t>(base_.width) * static_cast<std::size_t>(base_.height))
    return std::isnan((*values_)[static_cast<std::size_t>(y) * static_cast<std::size_t>(base_.width) + static_cast<std::size_t>(x)]);
  return false;
}

const Pyramid::Level& Pyramid::level(int L, Reduce mode) {
  L = std::clamp(L, 0, levels_ - 1);
  if (L == 0) return base_level_;
  std::lock_guard lock(mutex_);
  const auto key = std::make_pair(L, mode);
  if (const auto it = built_.find(key); it != built_.end()) return it->second;
  Level lv;
  if (mode == Reduce::max && L > 1) {
    // The max of a block is the max of its four half-size blocks: build from the level below.
    const auto below = built_.find({L - 1, mode});
    if (below != built_.end()) {
      auto [g, m] = reduce_cells(below->second.grey, 2, mode, &below->second.nodata, nullptr);
      lv.grey = std::move(g);
      lv.nodata = std::move(m);
      return built_.emplace(key, std::move(lv)).first->second;
    }
  }
  auto [g, m] = reduce_cells(base_, 1 << L, mode, nodata_.get(), values_.get());
  lv.grey = std::move(g);
  lv.nodata = std::move(m);
  return built_.emplace(key, std::move(lv)).first->second;
}

}  // namespace nt::viewer
