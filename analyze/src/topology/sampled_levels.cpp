// The profiles of node groups of a sampled file (network_test --sample-pairs): most pairs of node
// groups were not measured, so two groups share few measured third parties, and the clustering of
// a level, which compares groups by those, found no difference between groups of different
// switches (no third party in common: distance 0) and merged them (256 simulated ranks, 64 hosts,
// K = 4: no switch level, the slow leaf's 8 nodes 8 slow nodes).
//
// On a tree the delay between two groups is at most the largest delay along any path of measured
// links between them (a path that leaves a switch crosses that switch's links out at least once,
// and no path costs less than that): the group's unmeasured cells get the minimax path of its
// measured ones, per band. Each host's next hosts (mostly its own switch's) chain a switch's groups
// at the switch's own delay, the random partners and landmarks link the switches at theirs. Only for
// finding the levels: the findings and fits read the measured cells alone, a missing cell counts
// neither as slow nor as fast. The paths are searched from each item over its measured links alone
// (a sampled file has O(n) of them, not n^2), so 2,500 hosts cost what 1,024 did by Floyd-Warshall.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <queue>
#include <utility>

#include "nt/analysis/tuning.hpp"
#include "nt/schedule.hpp"
#include "topology_parts.hpp"

namespace nt::analysis::topology_parts {

namespace {

// The most work (items x measured links x log2 links: each search a heap over the links) spent on
// the paths, seconds per band: 2,500 hosts with ~8 sampled partners each are 1.5 x 10^9; 10,000
// ranks of 4 per host are 10^11 at the rank level, left unfilled (their hosts give the node level).
constexpr double kMaxPathWork = 2e10;

// From item s, the least over paths of measured links of the largest link on the path (a
// bottleneck Dijkstra), into out[0..n).
template <class T>
void minimax_from(std::size_t s, const std::vector<T>& band, const std::vector<std::size_t>& first,
                  const std::vector<std::size_t>& to, std::size_t n, std::vector<double>& out) {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::infinity());
  out[s] = -std::numeric_limits<double>::infinity();
  using Item = std::pair<double, std::size_t>;
  std::priority_queue<Item, std::vector<Item>, std::greater<>> heap;
  heap.emplace(out[s], s);
  while (!heap.empty()) {
    const auto [d, u] = heap.top();
    heap.pop();
    if (d > out[u]) continue;
    for (std::size_t e = first[u]; e < first[u + 1]; ++e) {
      const std::size_t v = to[e];
      const double via = std::max(d, dbl(band[u * n + v]));
      if (via < out[v]) {
        out[v] = via;
        heap.emplace(via, v);
      }
    }
  }
}

}  // namespace

bool is_sampled(const Cube& c) { return c.file && sampled_pairs(c.file->meta()); }

template <class T>
std::size_t fill_by_measured_paths(ProfilesOf<T>& gp, std::size_t n) {
  std::size_t filled = 0;
  std::vector<double> out(n);
  for (auto& band : gp) {
    std::vector<std::size_t> first(n + 1, 0), to;
    for (std::size_t a = 0; a < n; ++a) {
      for (std::size_t c = 0; c < n; ++c)
        if (c != a && std::isfinite(dbl(band[a * n + c]))) to.push_back(c);
      first[a + 1] = to.size();
    }
    const double links = static_cast<double>(to.size());
    if (static_cast<double>(n) * links * std::log2(links + 2.0) > kMaxPathWork) return filled;
    // Filled in place: the searches read the measured links alone (first, to), and row a's
    // unmeasured cells are written only after its own search.
    for (std::size_t a = 0; a < n; ++a) {
      minimax_from(a, band, first, to, n, out);
      for (std::size_t c = 0; c < n; ++c) {
        const std::size_t q = a * n + c;
        if (c == a || std::isfinite(dbl(band[q])) || !std::isfinite(out[c])) continue;
        band[q] = static_cast<T>(out[c] + kTuning.filled_bias);
        ++filled;
      }
    }
  }
  return filled;
}

template std::size_t fill_by_measured_paths<float>(ProfilesOf<float>&, std::size_t);
template std::size_t fill_by_measured_paths<double>(Profiles&, std::size_t);

}  // namespace nt::analysis::topology_parts
