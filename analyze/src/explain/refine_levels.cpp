// A switch group that holds parts farther apart than the class says (refine_levels): the levels are
// the first half of the report's explanation of the matrix, and a group whose inner cells fall into
// two distances is two groups. Within each group of a level above the nodes, its parts (the groups
// of the level below) are joined where the cells between them are as fast as the group's own
// class; parts that end in separate sets of two or more are separate groups. A single part that
// is slow to every other is left in place: that is a slow node or switch, for the anomalies.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"

namespace nt::analysis {
namespace {

// Per part pair (a < b) of one group at level l, per length, the log delays between them (both
// directions).
struct GroupCells {
  std::vector<int> parts;  // the level-(l-1) groups inside
  std::map<std::pair<int, int>, std::vector<std::vector<double>>> between;  // [k] values
};

GroupCells collect(const Cube& c, const Topology& t, std::size_t l, const std::vector<int>& ranks) {
  GroupCells gc;
  const auto& below = t.levels[l - 1].group_of;
  for (int r : ranks)
    if (std::find(gc.parts.begin(), gc.parts.end(), below[static_cast<std::size_t>(r)]) == gc.parts.end())
      gc.parts.push_back(below[static_cast<std::size_t>(r)]);
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    const float* m = c.slice(k, buf);
    for (int i : ranks)
      for (int j : ranks) {
        const int a = below[static_cast<std::size_t>(i)], b = below[static_cast<std::size_t>(j)];
        const double v = m[static_cast<std::size_t>(i) * static_cast<std::size_t>(c.P) + static_cast<std::size_t>(j)];
        if (a == b || !Cube::usable(v)) continue;
        auto& cell = gc.between[{std::min(a, b), std::max(a, b)}];
        cell.resize(c.count());
        cell[k].push_back(std::log(v));
      }
  }
  return gc;
}

// Per length, the group's own delay: over its parts, the lower median of each part's delay to its
// nearest part (most of a group's pairs may be between two sets; every part's nearest is its own
// set's), plus `margin`: above it a link between two parts is slow.
std::vector<double> reference(GroupCells& gc, std::size_t K, double margin) {
  std::vector<double> out(K, kNaN);
  for (std::size_t k = 0; k < K; ++k) {
    std::map<int, double> nearest;
    for (auto& [key, cells] : gc.between) {
      if (cells[k].empty()) continue;
      const double m = lower_median_inplace(cells[k]);
      for (int p : {key.first, key.second})
        if (!nearest.count(p) || m < nearest[p]) nearest[p] = m;
    }
    std::vector<double> v;
    for (auto [p, m] : nearest) v.push_back(m);
    if (!v.empty()) out[k] = lower_median_inplace(v) + margin;
  }
  return out;
}

// The sets of parts joined by fast links (connected components), each sorted.
std::vector<std::vector<int>> joined_parts(const GroupCells& gc, const std::vector<double>& floor_k, std::size_t need) {
  std::map<int, std::vector<int>> next;
  for (auto [key, cells] : gc.between) {
    std::size_t slow = 0;
    for (std::size_t k = 0; k < cells.size(); ++k)
      if (!cells[k].empty() && std::isfinite(floor_k[k]) && lower_median_inplace(cells[k]) > floor_k[k]) ++slow;
    if (slow >= need) continue;
    next[key.first].push_back(key.second);
    next[key.second].push_back(key.first);
  }
  std::vector<std::vector<int>> sets;
  std::map<int, bool> seen;
  for (int p : gc.parts) {
    if (seen[p]) continue;
    std::vector<int> set{p}, todo{p};
    seen[p] = true;
    while (!todo.empty()) {
      const int x = todo.back();
      todo.pop_back();
      for (int y : next[x])
        if (!seen[y]) seen[y] = true, set.push_back(y), todo.push_back(y);
    }
    std::sort(set.begin(), set.end());
    sets.push_back(set);
  }
  return sets;
}

}  // namespace

std::vector<std::string> refine_levels(const Cube& c, Topology& t, const AnomalyOptions& opt) {
  std::vector<std::string> notes;
  const std::size_t need = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::ceil(opt.min_length_fraction * static_cast<double>(c.count()) - 1e-9)));
  for (std::size_t l = 1; l < t.levels.size(); ++l) {
    auto& lev = t.levels[l];
    std::vector<std::vector<int>> groups;
    bool split = false;
    for (const auto& ranks : lev.groups) {
      GroupCells gc = collect(c, t, l, ranks);
      if (gc.parts.size() < 4) {
        groups.push_back(ranks);
        continue;
      }
      const auto floor_k = reference(gc, c.count(), std::log(opt.explain_floor));
      const auto sets = joined_parts(gc, floor_k, need);
      const bool apart = sets.size() >= 2 && std::all_of(sets.begin(), sets.end(), [](const auto& s) { return s.size() >= 2; });
      if (!apart) {
        groups.push_back(ranks);
        continue;
      }
      split = true;
      const auto& below = t.levels[l - 1].group_of;
      for (const auto& set : sets) {
        std::vector<int> g;
        for (int r : ranks)
          if (std::binary_search(set.begin(), set.end(), below[static_cast<std::size_t>(r)])) g.push_back(r);
        groups.push_back(g);
      }
      notes.push_back(fmt::format("{} level: a group of ranks {}..{} holds {} sets of {} whose cells between them "
                                  "are more than {:.0f} % slower than the group's other cells: split into {} groups",
                                  lev.name, ranks.front(), ranks.back(), sets.size(), t.levels[l - 1].name,
                                  100 * (opt.explain_floor - 1), sets.size()));
    }
    if (!split) continue;
    std::sort(groups.begin(), groups.end());
    lev.groups = groups;
    for (std::size_t g = 0; g < groups.size(); ++g)
      for (int r : groups[g]) lev.group_of[static_cast<std::size_t>(r)] = static_cast<int>(g);
  }
  return notes;
}

}  // namespace nt::analysis
