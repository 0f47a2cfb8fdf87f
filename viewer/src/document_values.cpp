// The values a view shows: the rows of the document's matrices for each view source (the data,
// its deviation, the difference or ratio to a compared run), and the cache of their ranges.
#include "nt/viewer/document.hpp"

#include <algorithm>
#include <limits>
#include <span>

#include <fmt/format.h>

#include "cell_values.hpp"
#include "nt/error.hpp"
#include "nt/result_set.hpp"

namespace nt::viewer {

using detail::as_missing;
using detail::compared;

std::vector<double> Document::block_values(Source s, std::size_t k, int r0, int r1) {
  switch (s) {
    case Source::primary: {
      auto v = data_->rows(k, r0, r1);
      return std::move(as_missing(v));
    }
    case Source::deviation:
    case Source::relative_deviation: {
      const nt::Dataset* dv = deviation();
      if (!dv)
        throw nt::UsageError(fmt::format("no deviation file for {} (expected {})", path_.string(),
                                         nt::ResultSet::of(path_).statistic(nt::Statistic::deviation).string()));
      auto m = dv->rows(k, r0, r1);
      if (s == Source::relative_deviation) {
        if (dv == data_.get())
          throw nt::UsageError(fmt::format("{} is a deviation file: open the average or median file beside it for the "
                                           "relative deviation", path_.string()));
        const auto base = data_->rows(k, r0, r1);
        for (std::size_t i = 0; i < m.size(); ++i)
          m[i] = base[i] > 0 ? m[i] / base[i] : std::numeric_limits<double>::quiet_NaN();
      }
      return m;
    }
    case Source::difference:
    case Source::ratio:
      if (!cmp_)
        throw nt::UsageError(fmt::format("the {} view needs a second run to compare with: open it with File > Compare "
                                         "with... (on the command line: --compare FILE)",
                                         s == Source::ratio ? "ratio" : "difference"));
      return compared_rows(s == Source::difference, k, r0, r1);
  }
  return {};
}

std::vector<double> Document::compared_rows(bool difference, std::size_t k, int r0, int r1) {
  const auto P = static_cast<std::size_t>(ranks());
  auto av = data_->rows(k, r0, r1);
  as_missing(av);
  const std::ptrdiff_t kb = k < cmp_len_.size() ? cmp_len_[k] : -1;
  if (kb < 0) {  // a length the other run does not hold: no data
    std::fill(av.begin(), av.end(), std::numeric_limits<double>::quiet_NaN());
    return av;
  }
  const auto Q = static_cast<std::size_t>(cmp_->ranks());
  const auto kbs = static_cast<std::size_t>(kb);
  // The compared run's rows of the matched ranks: one block when the ranks match one to one.
  bool same = Q == P;
  for (int i = 0; i < ranks() && same; ++i) same = cmp_rank_[static_cast<std::size_t>(i)] == i;
  std::vector<double> bv;
  if (same) {
    bv = cmp_->rows(kbs, r0, r1);
    as_missing(bv);
  }
  for (int i = r0; i < r1; ++i) {
    const int bi = cmp_rank_[static_cast<std::size_t>(i)];
    double* x = av.data() + static_cast<std::size_t>(i - r0) * P;
    if (bi < 0) {
      std::fill(x, x + P, std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    std::vector<double> brow;
    const double* b = nullptr;
    if (same) {
      b = bv.data() + static_cast<std::size_t>(i - r0) * Q;
    } else {
      brow = cmp_->row(bi, kbs, kbs + 1);
      as_missing(brow);
      b = brow.data();
    }
    for (std::size_t j = 0; j < P; ++j) {
      const int bj = cmp_rank_[j];
      const double o = bj < 0 ? std::numeric_limits<double>::quiet_NaN() : b[static_cast<std::size_t>(bj)];
      x[j] = compared(difference, x[j], o);
    }
  }
  return av;
}

std::vector<double> Document::display_rows(Source s, std::size_t k, int i0, int i1, const std::vector<int>& o) {
  if (o.empty()) return block_values(s, k, i0, i1);
  const auto P = static_cast<std::size_t>(ranks());
  std::vector<double> out(static_cast<std::size_t>(i1 - i0) * P);
  for (int i = i0; i < i1; ++i) {
    const int r = o[static_cast<std::size_t>(i)];
    const auto in = block_values(s, k, r, r + 1);
    double* row = out.data() + static_cast<std::size_t>(i - i0) * P;
    for (std::size_t j = 0; j < P; ++j) row[j] = in[static_cast<std::size_t>(o[j])];
  }
  return out;
}

Range Document::matrix_range(Source s, std::size_t k) {
  auto& c = cache_[s];
  if (c.size() != count()) c.assign(count(), std::nullopt);
  if (!c[k]) {
    const int P = ranks();
    if (P <= value_limit_) {
      const auto v = matrix_values(s, k);
      c[k] = range_of(v, P, P, ViewResult::kDiagIsRow);
    } else {
      // Blocks of about a million cells: the range of a big matrix without holding it.
      const int step = std::max(1, (1 << 20) / P);
      Range r;
      for (int i0 = 0; i0 < P; i0 += step) {
        const int i1 = std::min(P, i0 + step);
        const auto v = block_values(s, k, i0, i1);
        for (int i = i0; i < i1; ++i)
          r.merge(range_of(std::span<const double>(v).subspan(static_cast<std::size_t>(i - i0) * static_cast<std::size_t>(P),
                                                              static_cast<std::size_t>(P)),
                           1, P, i));
      }
      c[k] = r;
    }
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

}  // namespace nt::viewer
