#include "nt/validate.hpp"

#include <cmath>

#include <fmt/format.h>

#include "nt/params.hpp"

namespace nt {

std::string BadValues::summary() const {
  if (total() == 0) return {};
  std::vector<std::string> parts;
  if (missing) parts.push_back(fmt::format("{} NaN", missing));
  if (infinite) parts.push_back(fmt::format("{} infinite", infinite));
  if (negative) parts.push_back(fmt::format("{} negative", negative));
  if (absurd) parts.push_back(fmt::format("{} above {:g} s", absurd, kAbsurdDelay));
  return fmt::format("{} bad value{} ({})", total(), total() == 1 ? "" : "s", fmt::join(parts, ", "));
}

void BadValues::scan(const Matrix& m, std::size_t k, bool skip_diagonal, std::size_t keep_first) {
  scan_rows(m.data(), m.ranks(), 0, m.ranks(), k, skip_diagonal, keep_first);
}

void BadValues::scan_rows(const double* rows, int P, int x0, int nx, std::size_t k, bool skip_diagonal,
                          std::size_t keep_first) {
  for (int i = x0; i < x0 + nx; ++i)
    for (int j = 0; j < P; ++j) {
      if (skip_diagonal && i == j) continue;
      const double v = rows[static_cast<std::size_t>(i - x0) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)];
      if (is_good_delay(v)) continue;
      if (std::isnan(v))
        ++missing;
      else if (std::isinf(v))
        ++infinite;
      else if (v < 0)
        ++negative;
      else
        ++absurd;
      if (first.size() < keep_first) first.push_back({k, i, j, v});
    }
}

BadValues scan_values(const Dataset& d) {
  BadValues b;
  const bool skip = diagonal_is_zero(d.params().mode);
  for (std::size_t k = 0; k < d.count(); ++k) b.scan(d.matrix(k), k, skip);
  return b;
}

}  // namespace nt
