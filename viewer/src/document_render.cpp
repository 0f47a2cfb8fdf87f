// Document::render: a view of the document made into a picture (matrix, deviation, difference,
// ratio, row and column views; the pair plot is pair_view.cpp), whole or streamed by blocks.
#include "nt/viewer/document.hpp"

#include <QFileInfo>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cell_values.hpp"
#include "nt/error.hpp"
#include "nt/raw_file.hpp"
#include "nt/types.hpp"
#include "nt/units.hpp"
#include "nt/viewer/pyramid.hpp"

namespace nt::viewer {

namespace {
// The spec with its window of matrices made explicit (k1 == 0: every stored length); UsageError
// for a window or matrix outside the n stored lengths.
ViewSpec checked_spec(const ViewSpec& spec_in, std::size_t n) {
  ViewSpec spec = spec_in;
  if (spec.k1 == 0) {
    spec.k0 = 0;
    spec.k1 = n;
  }
  if (spec.k0 >= spec.k1 || spec.k1 > n)
    throw nt::UsageError(fmt::format("window of matrices [{}, {}) is outside the {} stored lengths", spec.k0, spec.k1, n));
  if (spec.k >= n) throw nt::UsageError(fmt::format("matrix index {} is outside the {} stored lengths", spec.k, n));
  return spec;
}

// The axes of a matrix-like view of P ranks: senders down, receivers across.
void matrix_axes(ViewResult& res, int P) {
  res.rows = res.cols = P;
  res.diag_col = ViewResult::kDiagIsRow;
  res.row_label = QStringLiteral("sender (from)");
  res.col_label = QStringLiteral("receiver (to)");
}

// The grey levels of a view over the range r of its values: symmetric around 0 for a
// difference, the ratio scale for a ratio, the spec's fixed white and black points over all.
Levels view_levels(const Range& r, const ViewSpec& spec, bool difference, bool ratio) {
  Levels l = levels_from(r, spec.log, difference);
  if (ratio) l = ratio_levels(r);
  if (spec.white) l.white = *spec.white;
  if (spec.black) l.black = *spec.black;
  return l;
}

// Reorders the rank axes of res and its values to the order o (levels do not depend on the
// order): one gather per row.
void reorder_axes(ViewResult& res, std::vector<double>& values, const std::vector<int>& o) {
  const bool rows_are_ranks = res.diag_col == ViewResult::kDiagIsRow;
  std::vector<double> re(values.size());
  const std::size_t C = static_cast<std::size_t>(res.cols);
  for (int i = 0; i < res.rows; ++i) {
    const std::size_t src_row = static_cast<std::size_t>(rows_are_ranks ? o[static_cast<std::size_t>(i)] : i);
    const double* in = values.data() + src_row * C;
    double* out = re.data() + static_cast<std::size_t>(i) * C;
    for (std::size_t j = 0; j < C; ++j) out[j] = in[o[j]];
  }
  values.swap(re);
  res.order = o;
  if (!rows_are_ranks) {
    // The diagonal cell of a row/column slice moves with its rank.
    res.diag_col = static_cast<int>(std::find(o.begin(), o.end(), res.spec.rank) - o.begin());
  }
}

// The host of the rank at each displayed position of a matrix-like view, when d names the host
// of every rank.
void name_axis_hosts(ViewResult& res, const nt::Dataset& d) {
  const int P = d.ranks();
  if (const auto& hosts = d.info().meta.hosts; static_cast<int>(hosts.size()) == P) {
    res.axis_hosts.resize(static_cast<std::size_t>(P));
    for (int i = 0; i < P; ++i)
      res.axis_hosts[static_cast<std::size_t>(i)] = QString::fromStdString(hosts[static_cast<std::size_t>(res.rank_at(i))]);
  }
}
}  // namespace

bool Document::streams(const ViewSpec& spec) const {
  const bool matrix_like = spec.view == ViewKind::matrix || spec.view == ViewKind::deviation ||
                           spec.view == ViewKind::difference || spec.view == ViewKind::ratio;
  return matrix_like && (ranks() > value_limit_ || reduction_factor(ranks(), ranks(), spec.fit) >= 2);
}

Document::Source Document::source_of(const ViewSpec& spec) {
  switch (spec.view) {
    case ViewKind::deviation: return spec.relative ? Source::relative_deviation : Source::deviation;
    case ViewKind::ratio: return Source::ratio;
    case ViewKind::difference: return Source::difference;
    default: return Source::primary;
  }
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
    case ViewKind::ratio:
    case ViewKind::difference: {
      // Runs are often named alike (before/run_median.nc, after/run_median.nc): then with folders.
      QString a = file, b = QString::fromStdString(cmp_path_.filename().string());
      if (a == b) {
        a = QString::fromStdString((std::filesystem::absolute(path_).parent_path().filename() / path_.filename()).string());
        b = QString::fromStdString((std::filesystem::absolute(cmp_path_).parent_path().filename() / cmp_path_.filename()).string());
      }
      return (spec.view == ViewKind::ratio ? QStringLiteral("%1 / %2 at %3") : QStringLiteral("%1 - %2 at %3"))
          .arg(a, b, len(spec.k));
    }
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
  const ViewSpec spec = checked_spec(spec_in, count());
  ViewResult res;
  res.spec = spec;
  res.title = title_for(spec);
  res.note = cut_short_note(*data_);
  if (spec.view == ViewKind::pair) return render_pair(spec);
  const Source src = source_of(spec);
  std::vector<double> values;
  if (spec.view == ViewKind::row || spec.view == ViewKind::column) {
    values = slice_values(res);
  } else {
    if ((src == Source::difference || src == Source::ratio) && cmp_ && cmp_len_[spec.k] < 0)
      throw nt::UsageError(fmt::format("{} holds no message length {} (matched: {})", cmp_path_.string(),
                                       lengths()[spec.k], cmp_match_));
    if (streams(spec)) return render_streamed(std::move(res), src, progress);
    values = matrix_values(src, spec.k);
    if (src == Source::primary)
      if (data_->has_sample_count())
        res.samples = std::make_shared<const std::vector<int>>(data_->sample_count(spec.k));
    matrix_axes(res, ranks());
  }
  const Range r = view_range(src, values, res, progress);
  if (spec.order != Order::rank) reorder_axes(res, values, order_for(spec.order));
  name_axis_hosts(res, *data_);
  res.levels = view_levels(r, spec, src == Source::difference, src == Source::ratio);
  res.cells = cells_image(values, res.rows, res.cols, res.levels);
  res.values = std::make_shared<const std::vector<double>>(std::move(values));
  return res;
}

std::vector<double> Document::slice_values(ViewResult& res) {
  const ViewSpec& spec = res.spec;
  const int P = ranks();
  if (spec.rank < 0 || spec.rank >= P) throw nt::UsageError(fmt::format("rank {} is outside 0..{}", spec.rank, P - 1));
  std::vector<double> values = spec.view == ViewKind::row ? data_->row(spec.rank, spec.k0, spec.k1)
                                                          : data_->column(spec.rank, spec.k0, spec.k1);
  detail::as_missing(values);
  res.rows = static_cast<int>(spec.k1 - spec.k0);
  res.cols = P;
  res.diag_col = spec.rank;
  res.row_lengths.assign(lengths().begin() + static_cast<std::ptrdiff_t>(spec.k0),
                         lengths().begin() + static_cast<std::ptrdiff_t>(spec.k1));
  res.row_label = QStringLiteral("message length");
  res.col_label = spec.view == ViewKind::row ? QStringLiteral("receiver (to)") : QStringLiteral("sender (from)");
  return values;
}

Range Document::view_range(Source src, const std::vector<double>& values, const ViewResult& res,
                           const Progress& progress) {
  const ViewSpec& spec = res.spec;
  if (spec.normalize == Normalize::file) return scan(src, 0, count(), progress);
  if (spec.normalize != Normalize::matrix) return scan(src, spec.k0, spec.k1, progress);
  const Range r = range_of(values, res.rows, res.cols, res.diag_col);
  if (res.diag_col == ViewResult::kDiagIsRow) {
    auto& c = cache_[src];
    if (c.size() != count()) c.assign(count(), std::nullopt);
    c[spec.k] = r;
  }
  return r;
}

ViewResult Document::render_streamed(ViewResult res, Source src, const Progress& progress) {
  const ViewSpec& spec = res.spec;
  const int P = ranks();
  const std::size_t n = count();
  matrix_axes(res, P);
  // Levels first (a scan of the matrix, or of the file or window, by blocks of rows; cached per
  // matrix), then the grey levels block by block, reduced as they come.
  const Range r = spec.normalize == Normalize::matrix ? matrix_range(src, spec.k)
                  : spec.normalize == Normalize::file ? scan(src, 0, n, progress)
                                                      : scan(src, spec.k0, spec.k1, progress);
  res.levels = view_levels(r, spec, src == Source::difference, src == Source::ratio);
  std::vector<int> o;
  if (spec.order != Order::rank) {
    o = order_for(spec.order);
    res.order = o;
  }
  const int f = reduction_factor(P, P, spec.fit);
  const int side = (P + f - 1) / f;
  GreyImage out(side, side);
  auto mask = std::make_shared<CellMask>(side, side);
  BlockReducer red(P, f, spec.reduce);
  // Blocks of about a million cells, whole bands of f rows.
  const int step = std::max(1, (1 << 20) / P / f) * f;
  std::vector<std::uint8_t> grey(static_cast<std::size_t>(P)), nd(static_cast<std::size_t>(P));
  for (int i0 = 0; i0 < P; i0 += step) {
    if (progress.cancelled && progress.cancelled()) throw Cancelled{};
    const int i1 = std::min(P, i0 + step);
    const auto v = display_rows(src, spec.k, i0, i1, o);
    for (int i = i0; i < i1; ++i) {
      const double* row = v.data() + static_cast<std::size_t>(i - i0) * static_cast<std::size_t>(P);
      if (f == 1) {
        grey_row(row, P, res.levels, out.row(i));
        for (int j = 0; j < P; ++j)
          if (std::isnan(row[j])) mask->set(j, i);
        continue;
      }
      grey_row(row, P, res.levels, grey.data());
      for (int j = 0; j < P; ++j) nd[static_cast<std::size_t>(j)] = std::isnan(row[j]);
      red.add_row(grey.data(), nd.data());
      if (red.rows_added() == f || i + 1 == P) red.take(out.row(i / f), mask.get(), i / f);
    }
  }
  res.cells = std::move(out);
  res.pool = f;
  res.nodata = std::move(mask);
  res.probe = probe_for(src, spec.k, o);
  name_axis_hosts(res, *data_);
  return res;
}
}  // namespace nt::viewer
