// The levels of a topology: groups made into levels, the class of a pair of ranks and its name,
// lone nodes and the check that the finest level is nodes.
#include "topology_parts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "nt/analysis/tuning.hpp"

namespace nt::analysis::topology_parts {

// Groups from labels: ranks ascending, groups by first member.
std::vector<std::vector<int>> groups_from_labels(const std::vector<int>& label) {
  std::map<int, std::vector<int>> by;
  for (std::size_t i = 0; i < label.size(); ++i) by[label[i]].push_back(static_cast<int>(i));
  std::vector<std::vector<int>> g;
  for (auto& [l, v] : by) g.push_back(std::move(v));
  std::sort(g.begin(), g.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return g;
}

Level make_level(std::string name, std::vector<std::vector<int>> groups, int P) {
  Level l;
  l.name = std::move(name);
  for (auto& g : groups) std::sort(g.begin(), g.end());
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  l.groups = std::move(groups);
  l.group_of.assign(static_cast<std::size_t>(P), -1);
  for (std::size_t g = 0; g < l.groups.size(); ++g)
    for (int r : l.groups[g]) l.group_of[static_cast<std::size_t>(r)] = static_cast<int>(g);
  return l;
}

namespace {

// Per member, whether its median distance to the others is kTuning.slow_member_ratio or more beyond
// the typical member's (a slow node, a slow switch's nodes, a slow uplink's group).
std::vector<char> slow_to_everyone(const std::vector<double>& band, std::size_t N) {
  std::vector<char> slow(N, 0);
  std::vector<double> med(N, kNaN), row;
  for (std::size_t a = 0; a < N; ++a) {
    row.clear();
    for (std::size_t b = 0; b < N; ++b)
      if (b != a && std::isfinite(band[a * N + b] + band[b * N + a]))
        row.push_back(0.5 * (band[a * N + b] + band[b * N + a]));
    med[a] = median_inplace(row);
  }
  auto all = med;
  all.erase(std::remove_if(all.begin(), all.end(), [](double x) { return !std::isfinite(x); }), all.end());
  const double typical = median_inplace(all);
  for (std::size_t a = 0; a < N; ++a) slow[a] = std::isfinite(med[a]) && med[a] > typical + std::log(kTuning.slow_member_ratio);
  return slow;
}

}  // namespace

TreeCheck check_tree_level(const Profiles& gp, const std::vector<std::vector<int>>& upper, int n, bool typical_in) {
  const auto N = static_cast<std::size_t>(n);
  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<int> up(N, -1);
  for (std::size_t g = 0; g < upper.size(); ++g)
    for (int a : upper[g]) up[static_cast<std::size_t>(a)] = static_cast<int>(g);
  TreeCheck best;
  double best_share = inf;
  bool every_band_bad = !gp.empty();
  for (const auto& band : gp) {
    std::size_t violating = 0, members = 0;
    // The members slow to everyone are no yardstick (a slow uplink makes its group as far from its
    // mates as from the others). typical_in: each member's own group at the median of its distances
    // to the other normal members, the nearest normal member outside; a member without a normal
    // mate is not judged.
    const std::vector<char> slow = slow_to_everyone(band, N);
    std::vector<double> ins;
    std::vector<char> judged_up(upper.size(), 0);
    for (std::size_t a = 0; a < N; ++a) {
      double in = -inf, out = inf;
      ins.clear();
      for (std::size_t b = 0; b < N; ++b) {
        if (b == a || slow[b]) continue;
        const double d = 0.5 * (band[a * N + b] + band[b * N + a]);
        if (!std::isfinite(d)) continue;
        if (up[b] == up[a]) {
          in = std::max(in, d);
          if (typical_in) ins.push_back(d);
        } else {
          out = std::min(out, d);
        }
      }
      if (typical_in && !ins.empty()) in = median_inplace(ins);
      if (!std::isfinite(in) || !std::isfinite(out)) continue;
      ++members;
      if (!slow[a]) judged_up[static_cast<std::size_t>(up[a])] = 1;
      // The first level: as near outside as inside, within kTuning.first_tree_margin (its groups were cut at the
      // clustering's threshold, and a dragonfly's router mates are 1.8 % nearer than the next
      // router at 64 KiB on clean data; a torus's rows are one hop from their own and from the
      // next row alike); above, kTuning.tree_margin.
      violating += out < in + std::log(typical_in ? kTuning.first_tree_margin : kTuning.tree_margin) ? 1 : 0;
    }
    const double share = members > 0 ? static_cast<double>(violating) / static_cast<double>(members) : 0.0;
    // The first level: more than kTuning.first_tree_share (on a small tree whose faults leave few normal members, a
    // quarter is two or three of them: a 3-leaf tree with a slow leaf and a slow uplink).
    // Above, a level whose normal members all sit in one group sets only slow ones apart: faults
    // (two slow uplinks of a 2-level tree), not a level of the tree.
    const bool slow_apart = !typical_in && std::count(judged_up.begin(), judged_up.end(), 1) < 2;
    every_band_bad = every_band_bad &&
                     (slow_apart || (members > 0 && (typical_in ? share > kTuning.first_tree_share : share >= kTuning.tree_share)));
    if (share < best_share) {
      best_share = share;
      best.violating = violating;
      best.members = members;
    }
  }
  best.rejected = every_band_bad;
  return best;
}

}  // namespace nt::analysis::topology_parts

namespace nt::analysis {

std::vector<std::int8_t> pair_classes(const Topology& t) {
  const auto N = static_cast<std::size_t>(t.P);
  std::vector<std::int8_t> cls(N * N, -1);
  parallel_for(N, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
      for (std::size_t j = 0; j < N; ++j)
        if (i != j) cls[i * N + j] = static_cast<std::int8_t>(t.pair_class(static_cast<int>(i), static_cast<int>(j)));
  });
  return cls;
}

std::string topology_title(const Topology& t) {
  return t.nodes_from_hosts ? "Topology (nodes: the hosts the file names; levels above: from the delays)"
                            : "Topology (from the delays alone)";
}

int Topology::pair_class(int i, int j) const {
  for (std::size_t l = 0; l < levels.size(); ++l)
    if (levels[l].group_of[static_cast<std::size_t>(i)] == levels[l].group_of[static_cast<std::size_t>(j)])
      return static_cast<int>(l);
  return static_cast<int>(levels.size());
}

std::string Topology::class_name(int c) const {
  if (!node_level_identified) {
    if (c == 0) return "within-group";
    if (c == 1) return "between-groups";
  }
  if (c == 0) return "intra-node";
  if (c == 1) return "inter-node";
  if (c == 2) return "inter-switch";
  return fmt::format("inter-switch-{}", c - 1);
}

std::vector<std::size_t> lone_node_groups(const Topology& t, std::size_t l) {
  std::vector<std::size_t> out;
  if (l == 0 || l >= t.levels.size()) return out;
  const auto& node_of = t.levels.front().group_of;
  for (std::size_t g = 0; g < t.levels[l].groups.size(); ++g) {
    const auto& rs = t.levels[l].groups[g];
    if (std::all_of(rs.begin(), rs.end(), [&](int r) { return node_of[static_cast<std::size_t>(r)] == node_of[static_cast<std::size_t>(rs.front())]; }))
      out.push_back(g);
  }
  return out;
}

double check_node_level(const Cube& c, Topology& t, bool hosts_known) {
  const double min_ratio = kTuning.node_level_ratio;
  if (t.levels.empty() || c.P < 3 || c.count() == 0) return std::nan("");
  // Median delay of the two finest classes over the shortest lengths.
  std::vector<float> in, out, buf;
  const std::size_t kn = std::min<std::size_t>(kTuning.node_level_lengths, c.count());
  const auto N = static_cast<std::size_t>(c.P);
  for (std::size_t k = 0; k < kn; ++k) {
    const float* m = c.slice(k, buf);
    for (int i = 0; i < c.P; ++i)
      for (int j = 0; j < c.P; ++j) {
        const float v = m[static_cast<std::size_t>(i) * N + static_cast<std::size_t>(j)];
        if (i == j || !Cube::usable(v)) continue;
        const int q = t.pair_class(i, j);
        if (q == 0) in.push_back(v);
        else if (q == 1 || (q > 1 && t.levels.size() == 1)) out.push_back(v);
      }
  }
  if (in.empty() || out.empty()) return std::nan("");
  const double ratio = float_median(out) / float_median(in);
  if (!hosts_known && ratio < min_ratio) {
    t.node_level_identified = false;
    t.levels.front().name = "group";
    t.notes.push_back(fmt::format(
        "WARNING: the node level cannot be identified: links inside the finest groups are only {:.2f}x faster than "
        "between them (shared memory is usually {:.1f}x or more faster than the network), so these groups are "
        "probably switches or sets of nodes with one rank per node; give a hosts file (--hosts) to know the nodes",
        ratio, min_ratio));
  }
  return ratio;
}

}  // namespace nt::analysis
