#include "document.hpp"

#include "nt/validate.hpp"

#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/result_set.hpp"
#include "nt/raw_file.hpp"
#include "nt/types.hpp"
#include "nt/units.hpp"

namespace ntv {

std::vector<std::vector<int>> read_groups(const std::filesystem::path& path, int ranks) {
  std::ifstream in(path);
  if (!in) throw nt::FileError(path, "cannot open the groups file");
  nlohmann::json j;
  try {
    in >> j;
  } catch (const nlohmann::json::exception& e) {
    throw nt::FileError(path, std::string("not valid JSON: ") + e.what());
  }
  if (!j.is_object() || !j.contains("groups") || !j["groups"].is_array())
    throw nt::FileError(path, "expected a JSON object with a \"groups\" list of lists of ranks");
  std::vector<std::vector<int>> groups;
  for (const auto& g : j["groups"]) {
    if (!g.is_array()) throw nt::FileError(path, "every entry of \"groups\" must be a list of ranks");
    std::vector<int> ranks_of;
    for (const auto& r : g) {
      if (!r.is_number_integer()) throw nt::FileError(path, "ranks in \"groups\" must be integers");
      const int v = r.get<int>();
      if (v < 0 || v >= ranks)
        throw nt::FileError(path, fmt::format("rank {} in \"groups\" is outside 0..{}", v, ranks - 1));
      ranks_of.push_back(v);
    }
    groups.push_back(std::move(ranks_of));
  }
  return groups;
}

std::unique_ptr<Document> Document::open(const std::filesystem::path& path) {
  std::unique_ptr<Document> d(new Document);
  d->data_ = nt::open_dataset(path);
  d->path_ = path;
  if (d->data_->ranks() <= 0) throw nt::FileError(path, "the file holds no ranks");
  if (d->data_->count() == 0) throw nt::FileError(path, "the file holds no message lengths (no complete record)");
  d->dev_is_self_ = d->data_->params().statistic == nt::Statistic::deviation;
  return d;
}

const nt::Dataset* Document::deviation() {
  if (dev_is_self_) return data_.get();
  if (!dev_tried_) {
    dev_tried_ = true;
    if (const auto candidate = nt::ResultSet::of(path_).find_statistic(nt::Statistic::deviation, path_)) {
      try {
        auto dv = nt::open_dataset(*candidate);
        if (dv->ranks() == ranks() && dv->lengths() == lengths()) {
          dev_ = std::move(dv);
          dev_path_ = *candidate;
        }
      } catch (const nt::Error&) {
        // A broken deviation file beside the data only disables the band and the map.
      }
    }
  }
  return dev_.get();
}

void Document::set_compare(const std::filesystem::path& path) {
  auto c = nt::open_dataset(path);
  if (c->ranks() != ranks() || c->lengths() != lengths())
    throw nt::UsageError(fmt::format("{} and {} do not have the same shape ({} ranks x {} lengths vs {} x {})",
                                     path_.string(), path.string(), ranks(), count(), c->ranks(), c->count()));
  cmp_ = std::move(c);
  cmp_path_ = path;
  cache_.erase(Source::difference);
}

void Document::set_groups(const std::filesystem::path& json) { groups_ = read_groups(json, ranks()); }

DocumentInfo Document::info() const {
  DocumentInfo i;
  i.path = QString::fromStdString(path_.string());
  i.format = QString::fromStdString(data_->format());
  i.info = data_->info();
  i.lengths = data_->lengths();
  i.has_deviation = dev_ != nullptr || dev_is_self_;
  i.deviation_path = QString::fromStdString(dev_is_self_ ? path_.string() : dev_path_.string());
  i.compare_path = QString::fromStdString(cmp_path_.string());
  i.groups = groups_;
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

namespace {
// Bad delays (NaN, infinite, negative, absurd: nt/validate.hpp) are no data: drawn as such and
// never part of a scale or a difference.
std::vector<double>& as_missing(std::vector<double>& v) {
  for (double& x : v)
    if (!nt::is_good_delay(x)) x = std::numeric_limits<double>::quiet_NaN();
  return v;
}
}  // namespace

std::vector<double> Document::matrix_values(Source s, std::size_t k) {
  switch (s) {
    case Source::primary: {
      nt::Matrix m = data_->matrix(k);
      return std::move(as_missing(m.values()));
    }
    case Source::deviation:
    case Source::relative_deviation: {
      const nt::Dataset* dv = deviation();
      if (!dv)
        throw nt::UsageError(fmt::format("no deviation file for {} (expected {})", path_.string(),
                                         nt::ResultSet::of(path_).statistic(nt::Statistic::deviation).string()));
      nt::Matrix m = dv->matrix(k);
      if (s == Source::relative_deviation) {
        if (dv == data_.get())
          throw nt::UsageError(fmt::format("{} is a deviation file: open the average or median file beside it for the "
                                           "relative deviation", path_.string()));
        const nt::Matrix base = data_->matrix(k);
        auto& mv = m.values();
        for (std::size_t i = 0; i < mv.size(); ++i)
          mv[i] = base.values()[i] > 0 ? mv[i] / base.values()[i] : std::numeric_limits<double>::quiet_NaN();
      }
      return std::move(m.values());
    }
    case Source::difference: {
      if (!cmp_) throw nt::UsageError("the difference view needs a second file (--compare FILE)");
      nt::Matrix a = data_->matrix(k);
      nt::Matrix b = cmp_->matrix(k);
      auto& av = as_missing(a.values());
      const auto& bv = as_missing(b.values());
      for (std::size_t i = 0; i < av.size(); ++i) av[i] -= bv[i];
      return std::move(av);
    }
  }
  return {};
}

Range Document::matrix_range(Source s, std::size_t k) {
  auto& c = cache_[s];
  if (c.size() != count()) c.assign(count(), std::nullopt);
  if (!c[k]) {
    const auto v = matrix_values(s, k);
    c[k] = range_of(v, ranks(), ranks(), ViewResult::kDiagIsRow);
  }
  return *c[k];
}

Range Document::scan(Source s, std::size_t k0, std::size_t k1, const Progress& progress) {
  Range r;
  for (std::size_t k = k0; k < k1; ++k) {
    if (progress.cancelled && progress.cancelled()) throw Cancelled{};
    r.merge(matrix_range(s, k));
    if (progress.report) progress.report(k - k0 + 1, k1 - k0);
  }
  return r;
}

QString Document::title_for(const ViewSpec& spec) const {
  const QString file = QFileInfo(QString::fromStdString(path_.string())).fileName();
  const QString what = QString::fromLatin1(nt::statistic_name(data_->params().statistic).data()) + ", " +
                       QString::fromLatin1(nt::mode_name(data_->params().mode).data());
  const auto len = [&](std::size_t k) { return QString::fromStdString(nt::format_bytes(lengths()[k])); };
  switch (spec.view) {
    case ViewKind::matrix:
      return QStringLiteral("%1: %2 at %3 (%4)").arg(file, QStringLiteral("matrix"), len(spec.k), what);
    case ViewKind::deviation:
      return QStringLiteral("%1: %2 at %3 (%4)")
          .arg(file, spec.relative ? QStringLiteral("relative deviation") : QStringLiteral("deviation"), len(spec.k),
               QString::fromLatin1(nt::mode_name(data_->params().mode).data()));
    case ViewKind::difference:
      return QStringLiteral("%1 - %2 at %3").arg(file, QFileInfo(QString::fromStdString(cmp_path_.string())).fileName(), len(spec.k));
    case ViewKind::row:
      return QStringLiteral("%1: row of sender %2 (%3)").arg(file).arg(spec.rank).arg(what);
    case ViewKind::column:
      return QStringLiteral("%1: column of receiver %2 (%3)").arg(file).arg(spec.rank).arg(what);
    case ViewKind::pair:
      return QStringLiteral("%1: %2 -> %3 (%4)").arg(file).arg(spec.sender).arg(spec.receiver).arg(what);
  }
  return file;
}

ViewResult Document::render(const ViewSpec& spec_in, const Progress& progress) {
  ViewSpec spec = spec_in;
  const int P = ranks();
  const std::size_t n = count();
  if (spec.k1 == 0) {
    spec.k0 = 0;
    spec.k1 = n;
  }
  if (spec.k0 >= spec.k1 || spec.k1 > n)
    throw nt::UsageError(fmt::format("window of matrices [{}, {}) is outside the {} stored lengths", spec.k0, spec.k1, n));
  if (spec.k >= n) throw nt::UsageError(fmt::format("matrix index {} is outside the {} stored lengths", spec.k, n));
  const auto check_rank = [&](int r, const char* what) {
    if (r < 0 || r >= P) throw nt::UsageError(fmt::format("{} {} is outside 0..{}", what, r, P - 1));
  };

  ViewResult res;
  res.spec = spec;
  res.title = title_for(spec);
  Source src = Source::primary;
  std::vector<double> values;
  if (spec.view == ViewKind::pair) {
    check_rank(spec.sender, "sender");
    check_rank(spec.receiver, "receiver");
    PlotSeries s;
    const auto all = data_->pair(spec.sender, spec.receiver);
    const nt::Dataset* dv = dev_is_self_ ? nullptr : deviation();
    std::vector<double> band_all;
    if (dv) band_all = dv->pair(spec.sender, spec.receiver);
    for (std::size_t k = spec.k0; k < spec.k1; ++k) {
      s.x.push_back(static_cast<double>(lengths()[k]));
      s.y.push_back(all[k]);
      if (dv) s.band.push_back(band_all[k]);
    }
    const double lo = std::max<double>(1.0, static_cast<double>(lengths()[spec.k0]));
    const double hi = static_cast<double>(lengths()[spec.k1 - 1]);
    s.x_log = data_->params().step_length == 0 && hi / lo >= 64.0;
    res.plot = true;
    res.cells = plot_image(s, plot_w_, plot_h_, spec.log, res.title, &res.geometry);
    res.rows = 1;
    res.cols = static_cast<int>(s.y.size());
    res.values = std::make_shared<const std::vector<double>>(std::move(s.y));
    res.row_lengths.assign(lengths().begin() + static_cast<std::ptrdiff_t>(spec.k0),
                           lengths().begin() + static_cast<std::ptrdiff_t>(spec.k1));
    res.diag_col = ViewResult::kNoDiag;
    return res;
  }
  switch (spec.view) {
    case ViewKind::matrix:
    case ViewKind::deviation:
    case ViewKind::difference:
      src = spec.view == ViewKind::matrix ? Source::primary
            : spec.view == ViewKind::deviation ? (spec.relative ? Source::relative_deviation : Source::deviation)
                                                : Source::difference;
      values = matrix_values(src, spec.k);
      res.rows = res.cols = P;
      res.diag_col = ViewResult::kDiagIsRow;
      res.row_label = QStringLiteral("sender (from)");
      res.col_label = QStringLiteral("receiver (to)");
      break;
    case ViewKind::row:
    case ViewKind::column:
      check_rank(spec.rank, "rank");
      values = spec.view == ViewKind::row ? data_->row(spec.rank, spec.k0, spec.k1)
                                          : data_->column(spec.rank, spec.k0, spec.k1);
      as_missing(values);
      res.rows = static_cast<int>(spec.k1 - spec.k0);
      res.cols = P;
      res.diag_col = spec.rank;
      res.row_lengths.assign(lengths().begin() + static_cast<std::ptrdiff_t>(spec.k0),
                             lengths().begin() + static_cast<std::ptrdiff_t>(spec.k1));
      res.row_label = QStringLiteral("message length");
      res.col_label = spec.view == ViewKind::row ? QStringLiteral("receiver (to)") : QStringLiteral("sender (from)");
      break;
    case ViewKind::pair:
      break;
  }
  const bool symmetric = src == Source::difference;
  Range r;
  if (spec.normalize == Normalize::matrix) {
    r = range_of(values, res.rows, res.cols, res.diag_col);
    if (res.diag_col == ViewResult::kDiagIsRow) {
      auto& c = cache_[src];
      if (c.size() != n) c.assign(n, std::nullopt);
      c[spec.k] = r;
    }
  } else if (spec.normalize == Normalize::file) {
    r = scan(src, 0, n, progress);
  } else {
    r = scan(src, spec.k0, spec.k1, progress);
  }
  res.levels = levels_from(r, spec.log, symmetric);
  if (spec.white) res.levels.white = *spec.white;
  if (spec.black) res.levels.black = *spec.black;
  res.cells = cells_image(values, res.rows, res.cols, res.levels);
  res.values = std::make_shared<const std::vector<double>>(std::move(values));
  return res;
}

}  // namespace ntv
