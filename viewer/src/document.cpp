// The document's files: the opened result file, the deviation file beside it, a run to compare
// with, further files for the pair view, the analysed groups; and what they hold (info, lengths).
// The rest of Document lives in files by job (listed in document.hpp).
#include "nt/viewer/document.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/result_set.hpp"
#include "nt/types.hpp"
#include "nt/units.hpp"
#include "rank_match.hpp"

namespace nt::viewer {

namespace {
// FileError unless d (opened from path) holds ranks and message lengths.
void check_holds_data(const nt::Dataset& d, const std::filesystem::path& path) {
  if (d.ranks() <= 0) throw nt::FileError(path, "the file holds no ranks");
  if (d.count() == 0) throw nt::FileError(path, "the file holds no message lengths (no complete record)");
}

// The deviation file beside `path` and its path, when it opens and has the ranks and lengths of
// d (the data of `path`); else none: a broken deviation file only disables the band and the map.
std::pair<std::unique_ptr<nt::Dataset>, std::filesystem::path> deviation_beside(const std::filesystem::path& path,
                                                                               const nt::Dataset& d) {
  if (const auto candidate = nt::ResultSet::of(path).find_statistic(nt::Statistic::deviation, path)) {
    try {
      auto dv = nt::open_dataset(*candidate);
      if (dv->ranks() == d.ranks() && dv->lengths() == d.lengths()) return {std::move(dv), *candidate};
    } catch (const nt::Error&) {
    }
  }
  return {};
}
}  // namespace

std::unique_ptr<Document> Document::open(const std::filesystem::path& path) {
  return adopt(nt::open_dataset(path), path);
}

std::unique_ptr<Document> Document::adopt(std::unique_ptr<nt::Dataset> data, const std::filesystem::path& path) {
  std::unique_ptr<Document> d(new Document);
  d->data_ = std::move(data);
  d->path_ = path;
  check_holds_data(*d->data_, path);
  d->dev_is_self_ = d->data_->params().statistic == nt::Statistic::deviation;
  return d;
}

const nt::Dataset* Document::deviation() {
  if (dev_is_self_) return data_.get();
  if (!dev_tried_) {
    dev_tried_ = true;
    std::tie(dev_, dev_path_) = deviation_beside(path_, *data_);
  }
  return dev_.get();
}

void Document::set_compare(const std::filesystem::path& path) {
  auto c = nt::open_dataset(path);
  detail::CompareMatch m = detail::match_compare(*data_, path_, *c, path);
  cmp_ = std::move(c);
  cmp_path_ = path;
  cmp_rank_ = std::move(m.rank);
  cmp_len_ = std::move(m.length);
  cmp_match_ = std::move(m.how);
  probe_tried_ = false;  // the probes need the compared file too
  probe_files_.reset();
  cache_.erase(Source::difference);
  cache_.erase(Source::ratio);
}

void Document::add_plot_file(const std::filesystem::path& path) {
  PlotFile f;
  f.path = path;
  f.data = nt::open_dataset(path);
  check_holds_data(*f.data, path);
  if (f.data->params().statistic != nt::Statistic::deviation) f.dev = deviation_beside(path, *f.data).first;
  plot_files_.push_back(std::move(f));
}

void Document::set_groups(const std::filesystem::path& json) {
  hierarchy_ = read_hierarchy(json, ranks());
  groups_ = hierarchy_.front().second;
  order_cache_.clear();
}

QString cut_short_note(const nt::Dataset& d) {
  const nt::SweepCompleteness c = nt::sweep_completeness(d);
  if (!c.cut_short) return {};
  if (c.planned > 0)
    return QStringLiteral("cut short: %1 of %2 message lengths stored (the run stopped early)").arg(c.stored).arg(c.planned);
  return QStringLiteral("cut short: the run stopped before %1 (last stored: %2)")
      .arg(QString::fromStdString(nt::format_bytes(d.params().end_length)),
           d.lengths().empty() ? QStringLiteral("none") : QString::fromStdString(nt::format_bytes(d.lengths().back())));
}

DocumentInfo Document::info() const {
  DocumentInfo i;
  i.cut_short = cut_short_note(*data_);
  i.path = QString::fromStdString(path_.string());
  i.format = QString::fromStdString(data_->format());
  i.info = data_->info();
  i.lengths = data_->lengths();
  i.has_deviation = dev_ != nullptr || dev_is_self_;
  i.deviation_path = QString::fromStdString(dev_is_self_ ? path_.string() : dev_path_.string());
  i.compare_path = QString::fromStdString(cmp_path_.string());
  i.compare_match = QString::fromStdString(cmp_match_);
  for (const auto& f : plot_files_) i.plot_files.push_back(QString::fromStdString(f.path.string()));
  i.groups = groups_;
  for (const auto& [name, g] : hierarchy_) i.hierarchy.emplace_back(QString::fromStdString(name), g);
  return i;
}

std::size_t Document::index_of_length(std::int64_t bytes) const {
  const auto k = data_->index_of_length(bytes);
  if (k >= 0) return static_cast<std::size_t>(k);
  std::string list;
  const auto& l = lengths();
  for (std::size_t i = 0; i < l.size() && i < 12; ++i) list += (i ? ", " : "") + std::to_string(l[i]);
  if (l.size() > 12) list += fmt::format(", ... ({} lengths)", l.size());
  throw nt::UsageError(fmt::format("message length {} is not stored in {}; stored lengths: {}", bytes,
                                   path_.string(), list));
}

std::pair<std::size_t, std::size_t> Document::window_of_lengths(std::int64_t a, std::int64_t b) const {
  if (a > b) std::swap(a, b);
  const auto& l = lengths();
  std::size_t k0 = l.size(), k1 = 0;
  for (std::size_t k = 0; k < l.size(); ++k)
    if (l[k] >= a && l[k] <= b) {
      k0 = std::min(k0, k);
      k1 = std::max(k1, k + 1);
    }
  if (k0 >= k1)
    throw nt::UsageError(fmt::format("no stored message length lies in the window {},{} (stored: {} .. {})", a, b,
                                     l.front(), l.back()));
  return {k0, k1};
}

}  // namespace nt::viewer
