// Groups that their profile places wrongly (a slow node, a switch behind a slow uplink) moved to the
// upper group their direct links reach fastest.
#include "topology_parts.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace nt::analysis::topology_parts {

namespace {

// Per finer group a, per length k and column ([a][k*W + column], W = width(a), 0: none): the least,
// over the finer groups gy of a column (column(a, gy), W: none), of the lower median log delay
// between their ranks and a's, both ways (NaN where none); one length at a time over every finer
// group (the delays are read once per length).
template <class Width, class Column>
std::vector<std::vector<double>> nearest_delays(const Cube& c, const std::vector<std::vector<int>>& finer, Width width,
                                                Column column) {
  const std::size_t G = finer.size(), K = c.count();
  std::vector<int> group_of(static_cast<std::size_t>(c.P), -1);
  for (std::size_t g = 0; g < G; ++g)
    for (int r : finer[g]) group_of[static_cast<std::size_t>(r)] = static_cast<int>(g);
  std::vector<std::vector<double>> dall(G);
  for (std::size_t a = 0; a < G; ++a) dall[a].assign(K * width(a), kNaN);
  std::vector<float> buf;
  const auto N = static_cast<std::size_t>(c.P);
  for (std::size_t k = 0; k < K; ++k) {
    const float* slice = c.slice(k, buf);
    parallel_for(G, [&](std::size_t g0, std::size_t g1) {
      std::vector<std::vector<double>> vals(G);
      for (std::size_t a = g0; a < g1; ++a) {
        const std::size_t W = width(a);
        if (W == 0) continue;
        for (auto& of_group : vals) of_group.clear();
        for (int x : finer[a])
          for (int y = 0; y < c.P; ++y) {
            const int gy = group_of[static_cast<std::size_t>(y)];
            if (gy < 0 || static_cast<std::size_t>(gy) == a) continue;
            const auto X = static_cast<std::size_t>(x), Y = static_cast<std::size_t>(y);
            for (const double delay : {static_cast<double>(slice[X * N + Y]), static_cast<double>(slice[Y * N + X])})
              if (Cube::usable(delay)) vals[static_cast<std::size_t>(gy)].push_back(std::log(delay));
          }
        for (std::size_t gy = 0; gy < G; ++gy) {
          const std::size_t col = column(a, gy);
          if (vals[gy].empty() || col >= W) continue;
          double& near = dall[a][k * W + col];
          const double md = lower_median_inplace(vals[gy]);
          if (!(near <= md)) near = md;
        }
      }
    });
  }
  return dall;
}

// Per finer group a, per length k and upper group u ([a][k*S + u]): the nearest of u's finer groups.
std::vector<std::vector<double>> nearest_member_delays(const Cube& c, const std::vector<std::vector<int>>& finer,
                                                       const std::vector<std::size_t>& up_of, std::size_t S) {
  return nearest_delays(
      c, finer, [S](std::size_t) { return S; }, [&](std::size_t, std::size_t gy) { return up_of[gy]; });
}

// The upper group of least summed nearest delay among those `allowed` (S when none has delays).
template <class Allowed>
std::size_t fastest_group(const std::vector<double>& nearest, std::size_t S, std::size_t K, Allowed allowed) {
  std::size_t best = S;
  double best_sum = 0.0;
  for (std::size_t u = 0; u < S; ++u) {
    if (!allowed(u)) continue;
    double sum = 0.0;
    for (std::size_t k = 0; k < K; ++k) sum += nearest[k * S + u];
    if (std::isfinite(sum) && (best == S || sum < best_sum)) {
      best = u;
      best_sum = sum;
    }
  }
  return best;
}

// The upper group a finer group reaches clearly fastest (nearest: its nearest_member_delays), or
// `own` when none does.
std::size_t clearly_nearest_group(const std::vector<double>& nearest, std::size_t S, std::size_t K, std::size_t own,
                                  double margin) {
  const std::size_t best = fastest_group(nearest, S, K, [](std::size_t) { return true; });
  if (best == S || best == own) return own;
  // Clearly nearer than every other group with links to compare (a's own group, when a is
  // alone in it, has none); with no other group to compare, nothing is clear and a stays.
  bool clear = true;
  std::size_t compared = 0;
  for (std::size_t u = 0; u < S && clear; ++u) {
    bool known = false;
    for (std::size_t k = 0; k < K; ++k) known = known || std::isfinite(nearest[k * S + u]);
    if (u == best || !known) continue;
    ++compared;
    double most = -1e300, least = 1e300;
    for (std::size_t k = 0; k < K; ++k) {
      const double diff = nearest[k * S + u] - nearest[k * S + best];
      most = std::max(most, diff);
      least = std::min(least, diff);
    }
    clear = most >= margin && least >= -margin / 2;
  }
  return clear && compared > 0 ? best : own;
}

// Which of `upper` each of the G finer groups belongs to.
std::vector<std::size_t> group_of_each(const std::vector<std::vector<int>>& upper, std::size_t G) {
  std::vector<std::size_t> up_of(G);
  for (std::size_t u = 0; u < upper.size(); ++u)
    for (int g : upper[u]) up_of[static_cast<std::size_t>(g)] = u;
  return up_of;
}

// The finer groups that a member of upper group u reaches clearly faster than every other: the
// fewest nearest by summed delay that are at some length `margin` below all the rest and at no
// length more than half of that above. nearest: per length, W = |u| + S columns, u's members one
// each (a's own empty), then the nearest member of each upper group (u's own empty).
struct NearestSet {
  std::vector<int> set;  // sorted, a included; {a} alone when there are none
  bool outside = false;  // the set reaches beyond u
  int first = -1;        // the nearest by summed delay in u (-1: none, or outside u)
};
NearestSet clearly_nearest_set(const std::vector<double>& nearest, int a, const std::vector<int>& u, std::size_t K,
                               double margin) {
  const std::size_t W = nearest.size() / K;
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t col = 0; col < W; ++col) {
    double sum = 0.0;
    for (std::size_t k = 0; k < K; ++k) sum += nearest[k * W + col];
    if (std::isfinite(sum)) order.emplace_back(sum, col);
  }
  std::sort(order.begin(), order.end());
  const std::size_t M = order.size();
  // Per length, the farthest of the first j (prefix) and the nearest of the rest (suffix).
  std::vector<double> suffix(K * (M + 1), 1e300), prefix(K, -1e300);
  for (std::size_t j = M; j-- > 0;)
    for (std::size_t k = 0; k < K; ++k)
      suffix[j * K + k] = std::min(suffix[(j + 1) * K + k], nearest[k * W + order[j].second]);
  NearestSet out{{a}, false, M > 0 && order[0].second < u.size() ? u[order[0].second] : -1};
  for (std::size_t j = 1; j < M; ++j) {
    double most = -1e300, least = 1e300;
    for (std::size_t k = 0; k < K; ++k) {
      prefix[k] = std::max(prefix[k], nearest[k * W + order[j - 1].second]);
      most = std::max(most, suffix[j * K + k] - prefix[k]);
      least = std::min(least, suffix[j * K + k] - prefix[k]);
    }
    if (most < margin || least < -margin / 2) continue;
    for (std::size_t q = 0; q < j; ++q) {
      if (order[q].second < u.size()) out.set.push_back(u[order[q].second]);
      else out.outside = true;
    }
    std::sort(out.set.begin(), out.set.end());
    break;
  }
  return out;
}

// The sets of u's members (near: each one's clearly_nearest_set) that are the same for all their
// members, inside u and smaller; part_of: each of their members' set.
std::vector<std::vector<int>> mutual_sets(const std::vector<int>& u, const std::map<int, NearestSet>& near,
                                          std::map<int, std::size_t>& part_of) {
  std::vector<std::vector<int>> parts;
  for (int a : u) {
    const auto& s = near.at(a);
    if (part_of.count(a) || s.outside || s.set.size() < 2 || s.set.size() >= u.size()) continue;
    bool same = true;
    for (int b : s.set) same = same && !near.at(b).outside && near.at(b).set == s.set && !part_of.count(b);
    if (!same) continue;
    for (int b : s.set) part_of[b] = parts.size();
    parts.push_back(s.set);
  }
  return parts;
}

// Upper group u split into its mutual_sets. A member in none of them (a slow node: its mates' set
// leaves it out) joins the one that holds the rest of its own set, else follows its nearest to its
// part; members that lead to each other form a part (a router whose two hosts are slow or near a
// slow one). None when a member's nearest is outside u, or u stays whole.
std::vector<std::vector<int>> nearest_set_parts(const std::vector<int>& u, const std::map<int, NearestSet>& near) {
  std::map<int, std::size_t> part_of;
  auto parts = mutual_sets(u, near, part_of);
  if (parts.empty()) return {};
  std::map<int, std::size_t> joining;
  for (int a : u) {
    if (part_of.count(a)) continue;
    if (near.at(a).first < 0) return {};
    std::size_t part = parts.size();
    bool one = !near.at(a).outside;
    for (int b : near.at(a).set) {
      if (b == a || !one) continue;
      const auto it = part_of.find(b);
      one = it != part_of.end() && (part == parts.size() || it->second == part);
      if (one) part = it->second;
    }
    if (one && part < parts.size()) joining[a] = part;
  }
  std::map<int, std::size_t> new_part;  // by the least member of the loop they lead to
  for (int a : u) {
    if (part_of.count(a) || joining.count(a)) continue;
    std::vector<int> path{a};
    int b = near.at(a).first;
    while (!part_of.count(b) && !joining.count(b) && std::find(path.begin(), path.end(), b) == path.end()) {
      path.push_back(b);
      b = near.at(b).first;
    }
    std::size_t part = part_of.count(b) ? part_of[b] : joining.count(b) ? joining[b] : parts.size();
    if (part == parts.size()) {
      const int key = *std::min_element(std::find(path.begin(), path.end(), b), path.end());
      if (!new_part.count(key)) {
        new_part[key] = parts.size();
        parts.emplace_back();
      }
      part = new_part[key];
    }
    for (int x : path) joining[x] = part;
  }
  if (parts.size() < 2) return {};
  for (auto [a, part] : joining) parts[part].push_back(a);
  for (auto& part : parts) std::sort(part.begin(), part.end());
  return parts;
}

}  // namespace

// A group of finer groups that are each other's nearest by a clear margin (min_ratio, as
// move_to_nearest) is a group of its own, whatever the profiles say: they compare medians over a
// band of lengths, where a step that only the shortest length shows is lost (a dragonfly's router:
// its hosts 0.7x each other's delay at 1 KiB, alike from 64 KiB on, so the routers of one group
// look alike and join), while the direct links still show it. An upper group of 4 or more splits
// into nearest_set_parts. Cost O(P^2 K), memory O(G (s + S) K) for upper groups of s finer ones.
void split_nearest_sets(const Cube& c, const std::vector<std::vector<int>>& finer,
                        std::vector<std::vector<int>>& upper, double min_ratio) {
  const std::size_t G = finer.size(), S = upper.size(), K = c.count();
  if (G < 4) return;
  const std::vector<std::size_t> up_of = group_of_each(upper, G);
  std::vector<std::size_t> index(G);  // within its upper group
  for (const auto& u : upper)
    for (std::size_t q = 0; q < u.size(); ++q) index[static_cast<std::size_t>(u[q])] = q;
  const auto size_of = [&](std::size_t a) { return upper[up_of[a]].size(); };
  const auto dall = nearest_delays(
      c, finer, [&](std::size_t a) { return size_of(a) >= 4 ? size_of(a) + S : 0; },
      [&](std::size_t a, std::size_t gy) { return up_of[gy] == up_of[a] ? index[gy] : size_of(a) + up_of[gy]; });
  std::vector<std::vector<int>> out;
  for (const auto& u : upper) {
    std::map<int, NearestSet> near;
    if (u.size() >= 4)
      for (int a : u) near[a] = clearly_nearest_set(dall[static_cast<std::size_t>(a)], a, u, K, std::log(min_ratio));
    auto parts = u.size() >= 4 ? nearest_set_parts(u, near) : std::vector<std::vector<int>>{};
    if (parts.empty()) out.push_back(u);
    else out.insert(out.end(), parts.begin(), parts.end());
  }
  std::sort(out.begin(), out.end());
  upper = std::move(out);
}

// A group that its profile alone places wrongly: a slow node's links are slower by a factor that
// depends on the path (a slow cable caps every path at its own bandwidth, so it costs 4x on the
// links within its switch and 2x beyond a 2x slower uplink: the factors do not multiply), so its
// profile matches no switch; it would become a switch of its own or join another odd group.
// Its direct links still say where it is: the switch it reaches fastest. Each finer group A moves
// to the upper group S it reaches clearly fastest (per length, the nearest member of S: the least,
// over S's finer groups, of the lower median log delay between their ranks and A's, both ways, so
// that one slow member does not push its mates away, nor one stalled cell of the two between two
// hosts of one rank each (on noisy data a router's two hosts, one way 4.7x at 1 KiB, would both
// move to another router); at some length min_ratio below every other
// group, and at no length more than half of that above), when S is not its group already. A node
// behind a switch of its own reaches every other switch alike and stays. Cost O(P^2 K).
void move_to_nearest(const Cube& c, const std::vector<std::vector<int>>& finer, std::vector<std::vector<int>>& upper,
                     double min_ratio) {
  const std::size_t G = finer.size(), S = upper.size(), K = c.count();
  if (S < 2) return;
  const std::vector<std::size_t> up_of = group_of_each(upper, G);
  const double margin = std::log(min_ratio);
  const auto dall = nearest_member_delays(c, finer, up_of, S);
  std::vector<std::size_t> dest(G);
  parallel_for(G, [&](std::size_t g0, std::size_t g1) {
    for (std::size_t a = g0; a < g1; ++a) dest[a] = clearly_nearest_group(dall[a], S, K, up_of[a], margin);
  });
  std::vector<std::vector<int>> moved(S);
  for (std::size_t g = 0; g < G; ++g) moved[dest[g]].push_back(static_cast<int>(g));
  upper.clear();
  for (auto& members : moved)
    if (!members.empty()) upper.push_back(std::move(members));
  std::sort(upper.begin(), upper.end());
}

// Above the switches, a group of one finer group is no level of the hierarchy: one switch that
// reaches every other alike, only slower, is a switch behind a slow uplink (as a level of its own,
// 8 leaves of 2 nodes with one uplink at 1/8 gave a level "switch-2" of that leaf against the
// rest, whose links then had a class of their own, hiding the fault). Such a group
// joins the group it reaches fastest (the least summed nearest-member delay); with one group
// left there is no level, and the anomalies see the switch's slow links.
void absorb_lone_groups(const Cube& c, const std::vector<std::vector<int>>& finer, std::vector<std::vector<int>>& upper) {
  const std::size_t G = finer.size(), S = upper.size(), K = c.count();
  if (S < 2) return;
  const std::vector<std::size_t> up_of = group_of_each(upper, G);
  std::vector<std::vector<int>> kept;
  std::vector<std::size_t> lone;
  std::vector<std::size_t> kept_of(S, S);
  for (std::size_t u = 0; u < S; ++u) {
    if (upper[u].size() == 1) {
      lone.push_back(u);
    } else {
      kept_of[u] = kept.size();
      kept.push_back(upper[u]);
    }
  }
  // Every group alone: no level either way (the caller sees as many groups as finer ones).
  if (lone.empty() || kept.empty()) return;
  const auto dall = nearest_member_delays(c, finer, up_of, S);
  for (std::size_t u : lone) {
    const auto g = static_cast<std::size_t>(upper[u].front());
    std::size_t best = fastest_group(dall[g], S, K, [&](std::size_t v) { return kept_of[v] != S; });
    if (best == S)  // no delays known: the largest group
      for (std::size_t v = 0; v < S; ++v)
        if (kept_of[v] != S && (best == S || upper[v].size() > upper[best].size())) best = v;
    kept[kept_of[best]].push_back(static_cast<int>(g));
  }
  for (auto& members : kept) std::sort(members.begin(), members.end());
  std::sort(kept.begin(), kept.end());
  upper = std::move(kept);
}

}  // namespace nt::analysis::topology_parts
