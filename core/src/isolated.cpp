#include "nt/isolated.hpp"

#include <algorithm>
#include <cmath>

#include "nt/stats.hpp"

namespace nt {

IsolatedWhereRetested::IsolatedWhereRetested(std::shared_ptr<const Dataset> base, std::vector<std::vector<bool>> unknown)
    : base_(std::move(base)), unknown_(std::move(unknown)) {
  info_ = base_->info();
  lengths_ = base_->lengths();
  format_ = base_->format();
  source_ = base_->source();
}

const std::vector<std::pair<std::size_t, double>>& IsolatedWhereRetested::retested(std::size_t k) const {
  check_index(k);
  if (cells_.size() != count()) {
    cells_.assign(count(), {});
    read_.assign(count(), 0);
  }
  if (!read_[k]) {
    if (const auto iso = base_->isolated(k)) {
      const auto& v = iso->values();
      for (std::size_t x = 0; x < v.size(); ++x)
        if (!std::isnan(v[x])) cells_[k].emplace_back(x, v[x]);
    }
    read_[k] = 1;
  }
  return cells_[k];
}

// Unknown cells read NaN, then re-tested cells their isolated value (in every access path below).
Matrix IsolatedWhereRetested::matrix(std::size_t k) const {
  Matrix m = base_->matrix(k);
  for (std::size_t x = 0; k < unknown_.size() && x < unknown_[k].size(); ++x)
    if (unknown_[k][x]) m.values()[x] = kNaN;
  for (const auto& [x, v] : retested(k)) m.values()[x] = v;
  return m;
}

std::vector<double> IsolatedWhereRetested::rows(std::size_t k, int r0, int r1) const {
  std::vector<double> out = base_->rows(k, r0, r1);
  const auto P = static_cast<std::size_t>(ranks());
  const auto& cells = retested(k);
  const auto first = static_cast<std::size_t>(r0) * P, end = static_cast<std::size_t>(r1) * P;
  for (std::size_t x = first; x < end; ++x)
    if (unknown(k, x)) out[x - first] = kNaN;
  auto it = std::lower_bound(cells.begin(), cells.end(), std::make_pair(first, -HUGE_VAL));
  for (; it != cells.end() && it->first < end; ++it) out[it->first - first] = it->second;
  return out;
}

double IsolatedWhereRetested::value(int sender, int receiver, std::size_t k) const {
  check_pair(sender, receiver);
  const auto x = static_cast<std::size_t>(sender) * static_cast<std::size_t>(ranks()) + static_cast<std::size_t>(receiver);
  const auto& cells = retested(k);
  const auto it = std::lower_bound(cells.begin(), cells.end(), std::make_pair(x, -HUGE_VAL));
  if (it != cells.end() && it->first == x) return it->second;
  return unknown(k, x) ? kNaN : base_->value(sender, receiver, k);
}

void IsolatedWhereRetested::block(std::size_t k, int x0, int nx, int y0, int ny, double* out) const {
  base_->block(k, x0, nx, y0, ny, out);
  if (!check_block(k, x0, nx, y0, ny)) return;
  const auto P = static_cast<std::size_t>(ranks());
  for (int i = 0; i < nx; ++i)
    for (int j = 0; j < ny; ++j)
      if (unknown(k, static_cast<std::size_t>(x0 + i) * P + static_cast<std::size_t>(y0 + j)))
        out[static_cast<std::size_t>(i) * static_cast<std::size_t>(ny) + static_cast<std::size_t>(j)] = kNaN;
  const auto& cells = retested(k);
  auto it = std::lower_bound(cells.begin(), cells.end(), std::make_pair(static_cast<std::size_t>(x0) * P, -HUGE_VAL));
  for (; it != cells.end() && it->first < static_cast<std::size_t>(x0 + nx) * P; ++it) {
    const auto i = static_cast<int>(it->first / P), j = static_cast<int>(it->first % P);
    if (j >= y0 && j < y0 + ny)
      out[static_cast<std::size_t>(i - x0) * static_cast<std::size_t>(ny) + static_cast<std::size_t>(j - y0)] =
          it->second;
  }
}

bool has_isolated_values(const Dataset& d) { return d.count() > 0 && d.isolated(0).has_value(); }

}  // namespace nt
