#include "nt/analysis/linkage.hpp"

#include <cmath>
#include <limits>
#include <numeric>

namespace nt::analysis {

std::vector<int> average_linkage(std::vector<double>& d, std::size_t n, double cut) {
  // parent[x]: x was merged into cluster slot parent[x] (slots keep the smallest member's index).
  std::vector<std::size_t> parent(n);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  std::vector<double> size(n, 1.0);
  // active: clusters that may still merge; a cluster whose nearest neighbour is at >= cut is
  // final (average linkage distances never drop below the smaller of the merged ones).
  std::vector<std::size_t> active(n);
  std::iota(active.begin(), active.end(), std::size_t{0});
  std::vector<std::size_t> pos(n);  // index in `active`
  std::iota(pos.begin(), pos.end(), std::size_t{0});
  auto drop = [&](std::size_t x) {
    const std::size_t p = pos[x];
    // Keep `active` ordered so that "smallest index first" on ties is a scan in order.
    active.erase(active.begin() + static_cast<std::ptrdiff_t>(p));
    for (std::size_t q = p; q < active.size(); ++q) pos[active[q]] = q;
  };
  auto D = [&](std::size_t a, std::size_t b) -> double& { return d[a * n + b]; };
  std::vector<std::size_t> chain;
  while (active.size() > 1) {
    if (chain.empty()) chain.push_back(active.front());
    const std::size_t a = chain.back();
    const std::size_t prev = chain.size() >= 2 ? chain[chain.size() - 2] : n;
    // Nearest active neighbour of a (NaN distances never win).
    std::size_t best = prev;
    double bd = prev < n ? D(a, prev) : std::numeric_limits<double>::infinity();
    if (std::isnan(bd)) bd = std::numeric_limits<double>::infinity();
    for (std::size_t x : active) {
      if (x == a) continue;
      const double v = D(a, x);
      if (v < bd) {
        bd = v;
        best = x;
      }
    }
    if (best == n || !(bd < cut)) {
      // a's nearest neighbour is at >= cut: a stays as it is (and so does nothing merge into it).
      // The chain's earlier items had a as their strict nearest at >= cut, so they are final too.
      for (std::size_t x : chain) drop(x);
      chain.clear();
      continue;
    }
    if (best != prev) {
      chain.push_back(best);
      continue;
    }
    // a and prev are reciprocal nearest neighbours: merge them into the smaller slot.
    chain.pop_back();
    chain.pop_back();
    const std::size_t keep = std::min(a, prev), gone = std::max(a, prev);
    const double nk = size[keep], ng = size[gone];
    for (std::size_t x : active) {
      if (x == keep || x == gone) continue;
      const double v = (nk * D(keep, x) + ng * D(gone, x)) / (nk + ng);
      D(keep, x) = D(x, keep) = v;
    }
    size[keep] = nk + ng;
    parent[gone] = keep;
    drop(gone);
  }
  std::vector<int> label(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t r = i;
    while (parent[r] != r) r = parent[r];
    label[i] = static_cast<int>(r);
  }
  return label;
}

}  // namespace nt::analysis
