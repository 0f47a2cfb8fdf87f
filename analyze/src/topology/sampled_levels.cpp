// The profiles of node groups of a sampled file (network_test --sample-pairs): most pairs of node
// groups were not measured, so two groups share few measured third parties, and the clustering of
// a level, which compares groups by those, found no difference between groups of different
// switches (no third party in common: distance 0) and merged them (256 simulated ranks, 64 hosts,
// K = 4: no switch level, the slow leaf's 8 nodes 8 slow nodes).
//
// On a tree the delay between two groups is at most the largest delay along any path of measured
// links between them (a path that leaves a switch crosses that switch's links out at least once,
// and no path costs less than that): the group's unmeasured cells get the minimax path of its
// measured ones (Floyd-Warshall in the bottleneck semiring, per band). Each host's next hosts
// (mostly its own switch's) chain a switch's groups at the switch's own delay, the random partners
// and landmarks link the switches at theirs. Only for finding the levels: the findings and fits
// read the measured cells alone, a missing cell counts neither as slow nor as fast.
#include <algorithm>
#include <cmath>

#include "nt/analysis/tuning.hpp"
#include "nt/schedule.hpp"
#include "topology_parts.hpp"

namespace nt::analysis::topology_parts {

namespace {

// The most items (ranks, or groups of them) whose paths are filled in (n^3 per band: about a
// second per band at 1,024).
constexpr std::size_t kMaxGroups = 1024;

}  // namespace

bool is_sampled(const Cube& c) { return c.file && sampled_pairs(c.file->meta()); }

template <class T>
std::size_t fill_by_measured_paths(ProfilesOf<T>& gp, std::size_t n) {
  if (n > kMaxGroups) return 0;
  std::size_t filled = 0;
  for (auto& band : gp) {
    std::vector<double> d(band.begin(), band.end());
    std::vector<char> known(n * n, 0);
    for (std::size_t q = 0; q < n * n; ++q) known[q] = std::isfinite(d[q]) ? 1 : 0;
    for (std::size_t k = 0; k < n; ++k)
      for (std::size_t a = 0; a < n; ++a) {
        if (a == k || !std::isfinite(d[a * n + k])) continue;
        const double ak = d[a * n + k];
        for (std::size_t c = 0; c < n; ++c) {
          if (c == a || c == k || known[a * n + c] || !std::isfinite(d[k * n + c])) continue;
          const double via = std::max(ak, d[k * n + c]);
          if (!std::isfinite(d[a * n + c]) || via < d[a * n + c]) d[a * n + c] = via;
        }
      }
    for (std::size_t q = 0; q < n * n; ++q)
      if (!known[q] && std::isfinite(d[q]) && q / n != q % n) {
        band[q] = static_cast<T>(d[q] + kTuning.filled_bias);
        ++filled;
      }
  }
  return filled;
}

template std::size_t fill_by_measured_paths<float>(ProfilesOf<float>&, std::size_t);
template std::size_t fill_by_measured_paths<double>(Profiles&, std::size_t);

}  // namespace nt::analysis::topology_parts
