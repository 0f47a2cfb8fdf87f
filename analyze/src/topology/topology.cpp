// Topology discovery (topology.hpp): the ranks clustered by their profiles, the node level, then
// the levels above clustered the same way on the groups. The parts are in topology_parts.hpp.
#include "nt/analysis/topology.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "nt/analysis/tuning.hpp"
#include "topology_parts.hpp"

namespace nt::analysis {

using namespace topology_parts;

namespace {

// The floor of a threshold above the nodes: `sigmas` noise sigmas of the ranks' cells, within
// [floor_ratio, min_ratio]. For the second largest difference noise_factor sigmas; for the mean
// of several third parties (cluster_profiles' spread) its own number: a few odd cells of 5 % noise
// (0.2 % of them 2-6x) moved two nodes of one switch 3 % apart, which floor_ratio let through.
double floor_from_cells(const TopologyOptions& opt, double sigmas, double cell_noise) {
  return std::clamp(std::exp(sigmas * cell_noise), opt.floor_ratio, std::max(opt.floor_ratio, opt.min_ratio));
}

// The ranks of each upper group: those of its finer groups.
std::vector<std::vector<int>> ranks_of(const std::vector<std::vector<int>>& finer,
                                       const std::vector<std::vector<int>>& upper) {
  std::vector<std::vector<int>> out;
  for (const auto& gg : upper) {
    std::vector<int> rs;
    for (int gi : gg)
      rs.insert(rs.end(), finer[static_cast<std::size_t>(gi)].begin(), finer[static_cast<std::size_t>(gi)].end());
    out.push_back(std::move(rs));
  }
  return out;
}

// The ranks' bands of K lengths. At least 3 lengths per band where there are 3: a profile cell is
// then a median that one gross outlier does not move (a band of 2 lengths averages it in; with
// 0.1 % outliers, 8 lengths in 3 bands split 512 ranks into 430 groups).
// Fewer than 3 lengths: a band each (a median of 2 is their mean, no more robust than either,
// and it halves a step that only the shorter length shows: the leaves of a 3-level tree, 3.7 %
// apart at 64 KiB and 0.24 % at 1 MiB, were 1.9 % apart in one band, under the 2 % floor).
std::size_t rank_bands(std::size_t K, std::size_t bands) {
  const std::size_t least = kTuning.band_lengths;
  return K < least ? std::max<std::size_t>(1, std::min(bands, K))
                   : std::max<std::size_t>(1, std::min<std::size_t>(bands, K / least));
}

}  // namespace

Topology find_topology(const Cube& c, const TopologyOptions& opt, const std::vector<std::string>& hosts) {
  Topology t;
  t.P = c.P;
  const int P = c.P;
  const auto N = static_cast<std::size_t>(P);
  const std::size_t K = c.count();
  const std::size_t bands = static_cast<std::size_t>(std::max(1, opt.bands));
  const std::size_t B = rank_bands(K, bands);
  auto prof = rank_profiles(c, B);
  if (is_sampled(c)) fill_by_measured_paths(prof, N);
  if (P <= 2) t.notes.push_back("2 ranks: too few to tell nodes apart from the delays; both ranks form one group");
  // The ranks are clustered whether or not the hosts are known: the noise between a rank and its
  // nearest (one cell's noise) sets the smallest ratio that may separate the groups above. Their
  // profiles are medians of many cells, so their own noise is tiny, while a few odd cells (a slow
  // node's) move them by a few per cent; only on clean data (a simulator's) does a 2-4 % step
  // between switches separate them (floor_ratio), on noisy data it takes min_ratio.
  // The ranks keep min_ratio as their floor (a node's ranks differ by noise only, and contention
  // under --concurrent moves a few cells of a rank by more than the noise of the rest).
  double cell_noise = 0.0;
  TopologyOptions ranks = opt;
  ranks.floor_ratio = std::max(opt.floor_ratio, opt.min_ratio);
  auto labels = cluster_profiles(prof, P, ranks, false, 0.0, &cell_noise);
  TopologyOptions upper = opt;
  upper.floor_ratio = floor_from_cells(opt, opt.noise_factor, cell_noise);
  const double spread_floor = floor_from_cells(opt, kTuning.spread_sigmas, cell_noise);
  t.delay_groups = groups_from_labels(labels);
  add_node_level(t, hosts);
  // Above the nodes, no more lengths than bands: a band each. A group's profile is a median of its
  // cells already; the median over a band's lengths would keep the middle length's step and drop
  // one that only the shortest shows (a 3-level tree's pods, 34 % apart at 1 KiB, under noise 1.2 %
  // at 64 KiB and 0.6 % at 1 MiB: one band of the three read 1.2 %, under the noise). The ranks'
  // band is let go first: at most as many bands as a file of 3 bands of 3 lengths holds.
  if (K <= bands && K > B) {
    ProfilesOf<float>().swap(prof);
    prof = rank_profiles(c, K);
    if (is_sampled(c)) fill_by_measured_paths(prof, N);
  }

  // Upper levels: the same on the groups.
  for (int lev = 1; lev <= opt.max_levels; ++lev) {
    const auto& cur = t.levels.back().groups;
    const int n = static_cast<int>(cur.size());
    if (n <= 2) break;
    Profiles gp = group_profiles(prof, cur, N);
    if (is_sampled(c)) fill_by_measured_paths(gp, cur.size());
    auto gl = cluster_profiles(gp, n, upper, true, cell_noise, nullptr, spread_floor);
    auto ggroups = groups_from_labels(gl);
    move_to_nearest(c, cur, ggroups, opt.min_ratio);
    if (lev == 1) split_nearest_sets(c, cur, ggroups, opt.min_ratio);  // mutual nearest nodes: a switch
    if (lev >= 2) absorb_lone_groups(c, cur, ggroups);
    if (ggroups.size() <= 1 || static_cast<int>(ggroups.size()) >= n) break;
    {  // a level only where the distances form a tree (the first one judged by its typical members)
      const TreeCheck tc = check_tree_level(gp, ggroups, n, lev == 1);
      if (tc.rejected) {
        t.no_tree_above = true;
        t.notes.push_back(fmt::format(
            "above the {} level the delays form no tree: {} of {} {} groups are as near to a group outside "
            "theirs as to one of their own at every band of lengths (distance classes, as on a dragonfly or a "
            "torus, not switches): no level is reported above it",
            t.levels.back().name, tc.violating, tc.members, t.levels.back().name));
        break;
      }
    }
    t.levels.push_back(make_level(lev == 1 ? "switch" : fmt::format("switch-{}", lev), ranks_of(cur, ggroups), P));
  }
  return t;
}

}  // namespace nt::analysis
