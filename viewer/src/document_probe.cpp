// The probes of streamed views: exact values of single cells read on demand, through the
// probes' own handles of the document's files.
#include "nt/viewer/document.hpp"

#include <limits>
#include <mutex>

#include "cell_values.hpp"
#include "nt/error.hpp"
#include "nt/raw_file.hpp"

namespace nt::viewer {

using detail::compared;
using detail::good_or_nan;

// The probes' own handles of the document's files: the GUI thread reads single cells through
// them while the worker thread renders with the document's.
struct Document::ProbeFiles {
  std::mutex mutex;
  std::unique_ptr<nt::Dataset> data, dev, cmp;
};

namespace {
class DocumentProbe final : public CellProbe {
 public:
  enum class Kind { primary, deviation, relative, difference, ratio };
  DocumentProbe(std::shared_ptr<Document::ProbeFiles> files, Kind kind, std::size_t k, std::ptrdiff_t kb,
                std::vector<int> order, std::vector<int> cmp_rank)
      : files_(std::move(files)), kind_(kind), k_(k), kb_(kb), order_(std::move(order)), cmp_rank_(std::move(cmp_rank)) {}

  double value(int row, int col) const override {
    const int s = rank(row), r = rank(col);
    constexpr double nan = std::numeric_limits<double>::quiet_NaN();
    std::lock_guard lock(files_->mutex);
    try {
      switch (kind_) {
        case Kind::primary: return good_or_nan(files_->data->value(s, r, k_));
        case Kind::deviation: return files_->dev ? files_->dev->value(s, r, k_) : nan;
        case Kind::relative: {
          if (!files_->dev) return nan;
          const double base = files_->data->value(s, r, k_);
          return base > 0 ? files_->dev->value(s, r, k_) / base : nan;
        }
        case Kind::difference:
        case Kind::ratio: {
          const double x = good_or_nan(files_->data->value(s, r, k_));
          if (!files_->cmp || kb_ < 0) return nan;
          const int bs = cmp_rank_[static_cast<std::size_t>(s)], br = cmp_rank_[static_cast<std::size_t>(r)];
          const double o = bs < 0 || br < 0 ? nan : good_or_nan(files_->cmp->value(bs, br, static_cast<std::size_t>(kb_)));
          return compared(kind_ == Kind::difference, x, o);
        }
      }
    } catch (const std::exception&) {
      // A read that fails now (the file changed under us) shows as no data in the hover.
    }
    return nan;
  }

  std::optional<int> samples(int row, int col) const override {
    if (kind_ != Kind::primary) return std::nullopt;
    std::lock_guard lock(files_->mutex);
    const nt::Dataset* raw = files_->data.get();
    if (!raw || !raw->has_sample_count()) return std::nullopt;
    try {
      const auto c = raw->sample_count_of(rank(row), rank(col));
      if (k_ < c.size()) return c[k_];
    } catch (const std::exception&) {
    }
    return std::nullopt;
  }

 private:
  int rank(int pos) const { return order_.empty() ? pos : order_[static_cast<std::size_t>(pos)]; }
  std::shared_ptr<Document::ProbeFiles> files_;
  Kind kind_;
  std::size_t k_;
  std::ptrdiff_t kb_;
  std::vector<int> order_, cmp_rank_;
};
}  // namespace

std::shared_ptr<const CellProbe> Document::probe_for(Source s, std::size_t k, const std::vector<int>& order) {
  if (!probe_tried_) {
    probe_tried_ = true;
    try {
      auto f = std::make_shared<ProbeFiles>();
      f->data = nt::open_dataset(path_);
      if (f->data->ranks() != ranks() || f->data->lengths() != lengths()) throw nt::Error("changed");
      if (dev_ && !dev_is_self_) f->dev = nt::open_dataset(dev_path_);
      if (dev_is_self_) f->dev = nt::open_dataset(path_);
      if (cmp_) f->cmp = nt::open_dataset(cmp_path_);
      probe_files_ = std::move(f);
    } catch (const std::exception&) {
      probe_files_.reset();  // data not from a file (adopted): no exact values on demand
    }
  }
  if (!probe_files_) return nullptr;
  using K = DocumentProbe::Kind;
  const K kind = s == Source::primary             ? K::primary
                 : s == Source::deviation          ? K::deviation
                 : s == Source::relative_deviation ? K::relative
                 : s == Source::difference         ? K::difference
                                                   : K::ratio;
  const std::ptrdiff_t kb = k < cmp_len_.size() ? cmp_len_[k] : -1;
  return std::make_shared<DocumentProbe>(probe_files_, kind, k, kb, order, cmp_rank_);
}

}  // namespace nt::viewer
