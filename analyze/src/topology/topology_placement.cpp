// Groups that their profile places wrongly (a slow node, a switch behind a slow uplink) moved to the
// upper group their direct links reach fastest.
#include "topology_parts.hpp"

#include <algorithm>
#include <cmath>

namespace nt::analysis::topology_parts {

namespace {

// Per finer group a, per length k and upper group u ([a][k*S + u]): the least, over u's finer
// groups, of the median log delay between their ranks and a's, both ways (NaN where none); one
// length at a time over every finer group (the delays are read once per length).
std::vector<std::vector<double>> nearest_member_delays(const Cube& c, const std::vector<std::vector<int>>& finer,
                                                       const std::vector<std::size_t>& up_of, std::size_t S) {
  const std::size_t G = finer.size(), K = c.count();
  std::vector<int> group_of(static_cast<std::size_t>(c.P), -1);
  for (std::size_t g = 0; g < G; ++g)
    for (int r : finer[g]) group_of[static_cast<std::size_t>(r)] = static_cast<int>(g);
  std::vector<std::vector<double>> dall(G, std::vector<double>(K * S, kNaN));
  std::vector<float> buf;
  const auto N = static_cast<std::size_t>(c.P);
  for (std::size_t k = 0; k < K; ++k) {
    const float* slice = c.slice(k, buf);
    parallel_for(G, [&](std::size_t g0, std::size_t g1) {
      std::vector<std::vector<double>> vals(G);
      for (std::size_t a = g0; a < g1; ++a) {
        std::vector<double>& nearest = dall[a];
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
          if (vals[gy].empty()) continue;
          double& near = nearest[k * S + up_of[gy]];
          const double md = lower_median_inplace(vals[gy]);
          if (!(near <= md)) near = md;
        }
      }
    });
  }
  return dall;
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

}  // namespace

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
