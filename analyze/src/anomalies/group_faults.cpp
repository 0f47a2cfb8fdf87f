// The slow switch detector: a fault that lives above the nodes (a leaf's uplink, a switch, the
// links of a pod) shows on every pair that leaves or enters one group of an upper level, whatever
// the rank layout. Per level and length, each rank's effect is its median residual to
// (and from) the ranks outside the group, a residual being log(delay) less the median of the pair's
// class at that length, a node's the median over its ranks, a group's the lower median of its
// nodes'; a group is slow when its effect stands out of its peers' (the other groups of the level)
// by group_min_ratio AND mad_factor robust sigmas, at enough lengths or, for a bandwidth limit, at
// the longest length where it is largest.
// The ranks of slow nodes are left out as third parties and as members (but of a group all of whose
// nodes are slow): with two nodes under a router, one slow node made its router's median look slow
// (seen on a dragonfly).
// O(P^2) per length and level; one slice and the pair classes (P^2 bytes) in memory.
#include "group_faults.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include <fmt/format.h>

#include "nt/stats.hpp"

namespace nt::analysis {
namespace {

// A group's effect from its ranks' (`of`): per node the median over its ranks, the group's the
// lower median of its nodes' (the ceil(n/2)-th smallest: the least slowed of two nodes). A fault of
// the group slows every node of it, a slow node only itself, so the group reads slow only when more
// than half of its nodes are: with two hosts per leaf, the slow host of a healthy leaf is half of
// its leaf, whose median over the ranks would sit halfway, and with four leaves that spreads the
// peers' effects so far (a robust sigma of 0.5 in log) that a leaf behind an uplink at 1/8 passes
// no threshold. Not the least slowed node of many: under load one odd node of a group
// of nine (a slow host clustered with a slow leaf) takes the slow leaf's effect to nothing. The
// ranks of slow nodes are left out, unless all of the group's are (a slow uplink makes every node
// of its group slow to the rest).
template <class LeftOut>
double lower_median_node(const Topology& t, const std::vector<int>& members, const std::vector<double>& of,
                         const LeftOut& left_out) {
  const bool all_out =
      std::all_of(members.begin(), members.end(), [&](int r) { return left_out(static_cast<std::size_t>(r)); });
  const auto& node_of = t.levels.front().group_of;
  std::map<int, std::vector<double>> per_node;
  for (int r : members)
    if (all_out || !left_out(static_cast<std::size_t>(r)))
      per_node[node_of[static_cast<std::size_t>(r)]].push_back(of[static_cast<std::size_t>(r)]);
  std::vector<double> nodes;
  for (const auto& [node, effects] : per_node)
    if (const double e = finite_median(effects); std::isfinite(e)) nodes.push_back(e);
  return nodes.empty() ? kNaN : lower_median_inplace(nodes);
}

// Effects of every group of level l at one length: [g] out (its ranks sending out) and in.
void group_effects_at(const float* slice, const Topology& t, std::size_t l, const std::vector<std::int8_t>& cls,
                      const std::vector<double>& cmed, const std::vector<char>& exclude, std::size_t N,
                      std::vector<double>& out, std::vector<double>& in) {
  const auto& lev = t.levels[l];
  const std::size_t G = lev.groups.size();
  std::vector<double> send(N, kNaN), recv(N, kNaN), tmp;
  auto residual = [&](std::size_t i, std::size_t j) {
    const float d = slice[i * N + j];
    if (!Cube::usable(d)) return kNaN;
    return std::log(static_cast<double>(d)) - cmed[static_cast<std::size_t>(cls[i * N + j])];
  };
  auto left_out = [&](std::size_t r) { return !exclude.empty() && exclude[r]; };
  for (std::size_t i = 0; i < N; ++i) {
    const int gi = lev.group_of[i];
    tmp.clear();
    for (std::size_t j = 0; j < N; ++j)
      if (lev.group_of[j] != gi && !left_out(j)) tmp.push_back(residual(i, j));
    send[i] = finite_median(tmp);
    tmp.clear();
    for (std::size_t j = 0; j < N; ++j)
      if (lev.group_of[j] != gi && !left_out(j)) tmp.push_back(residual(j, i));
    recv[i] = finite_median(tmp);
  }
  out.assign(G, kNaN);
  in.assign(G, kNaN);
  for (std::size_t g = 0; g < G; ++g) {
    out[g] = lower_median_node(t, lev.groups[g], send, left_out);
    in[g] = lower_median_node(t, lev.groups[g], recv, left_out);
  }
}

// Per length, whether group g stands out, and by how much (log): the larger of its out and in
// effects over the peers' median, when it passes both thresholds.
struct Verdict {
  std::vector<double> effect;     // per length (NaN where unknown)
  std::vector<char> slow, out_slow, in_slow;
  std::vector<double> sigmas;
};

// The peers of every group of a level at each length: the robust spread of their effects.
struct Peers {
  std::vector<RobustSpread> out, in;  // per length
};

Peers peers_of(const std::vector<std::vector<double>>& out, const std::vector<std::vector<double>>& in) {
  Peers p;
  for (std::size_t k = 0; k < out.size(); ++k) {
    p.out.push_back(robust_spread(out[k]));
    p.in.push_back(robust_spread(in[k]));
  }
  return p;
}

Verdict judge(const std::vector<std::vector<double>>& out, const std::vector<std::vector<double>>& in,
              const Peers& peers, std::size_t g, double min_log, double mad_factor) {
  const std::size_t K = out.size();
  Verdict v{std::vector<double>(K, kNaN), std::vector<char>(K, 0), std::vector<char>(K, 0), std::vector<char>(K, 0),
            std::vector<double>(K, kNaN)};
  for (std::size_t k = 0; k < K; ++k) {
    const auto so = peers.out[k], si = peers.in[k];
    const double eo = out[k][g] - so.median, ei = in[k][g] - si.median;
    auto passes = [&](double e, double sigma) { return e >= min_log && e >= mad_factor * sigma; };
    v.out_slow[k] = passes(eo, so.sigma);
    v.in_slow[k] = passes(ei, si.sigma);
    v.effect[k] = std::max(eo, ei);
    v.slow[k] = v.out_slow[k] || v.in_slow[k];
    const double sigma = eo >= ei ? so.sigma : si.sigma;
    v.sigmas[k] = sigma > 0 ? v.effect[k] / sigma : kNaN;
  }
  return v;
}

// Whether the effect at length k is slow and the largest of all.
bool slow_and_largest_at(const Verdict& v, std::size_t k) {
  if (!v.slow[k]) return false;
  for (double e : v.effect)
    if (std::isfinite(e) && e > v.effect[k]) return false;
  return true;
}

// Slow at enough lengths, or a bandwidth limit: slow at the longest length, where the effect is
// the largest of all (short messages do not see a narrow uplink: one was 1.76x at 1 MiB only); or
// on a tree (`tree`), a latency limit: slow leaving and entering at the shortest length, where the
// effect is the largest of all (an uplink that adds time per message, not per byte, fades as the
// messages grow, and a link's latency is the same both ways; the groups of a network with no tree
// above them differ by their hops' latency at the short lengths, and on a dragonfly one way only).
bool holds(const Verdict& v, std::size_t need, bool tree) {
  const auto n = static_cast<std::size_t>(std::count(v.slow.begin(), v.slow.end(), 1));
  if (n >= need) return true;
  if (v.slow.empty()) return false;
  const bool latency = tree && v.out_slow.front() && v.in_slow.front() && slow_and_largest_at(v, 0);
  return slow_and_largest_at(v, v.slow.size() - 1) || latency;
}

std::string direction(const Verdict& v) {
  const bool o = std::count(v.out_slow.begin(), v.out_slow.end(), 1) > 0;
  const bool i = std::count(v.in_slow.begin(), v.in_slow.end(), 1) > 0;
  return o && i ? "leaving and entering" : (o ? "leaving" : "entering");
}

}  // namespace

std::vector<double> class_log_medians(const float* slice, const Topology& t, const std::vector<std::int8_t>& cls,
                                      std::size_t N, const std::vector<int>& slow_group) {
  const auto Q = static_cast<std::size_t>(t.class_count());
  auto samples = population_samples(Q, [&](auto&& take) {
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) {
        const float d = slice[i * N + j];
        if (i == j || !Cube::usable(d)) continue;
        if (!slow_group.empty() && crosses_slow_group(slow_group, i, j)) continue;
        take(static_cast<std::size_t>(cls[i * N + j]), std::log(static_cast<double>(d)));
      }
  });
  std::vector<double> med(Q, kNaN);
  for (std::size_t q = 0; q < Q; ++q)
    if (!samples[q].empty()) med[q] = population_median(samples[q]);
  return med;
}

std::vector<int> fault_group_of(std::size_t n_ranks, const std::vector<GroupFault>& faults) {
  std::vector<int> group(n_ranks, -1);
  for (std::size_t f = 0; f < faults.size(); ++f)
    for (int r : faults[f].ranks) group[static_cast<std::size_t>(r)] = static_cast<int>(f);
  return group;
}

double smallest_passing(std::vector<double> log_thresholds, std::size_t need) {
  std::erase_if(log_thresholds, [](double x) { return !std::isfinite(x); });
  if (log_thresholds.empty()) return kNaN;
  std::sort(log_thresholds.begin(), log_thresholds.end());
  return std::exp(log_thresholds[std::min(std::max<std::size_t>(need, 1), log_thresholds.size()) - 1]);
}

namespace {

// Per level and length, every group's effects (out, in: [level][k][g]), the class medians taken
// without the pairs that cross a boundary of `slow_group` (per rank, -1: none).
struct LevelEffects {
  std::vector<std::vector<std::vector<double>>> out, in;
};

LevelEffects level_effects(const Cube& c, const Topology& t, const std::vector<std::int8_t>& cls,
                           const std::vector<char>& exclude, const std::vector<int>& slow_group) {
  const auto N = static_cast<std::size_t>(c.P);
  LevelEffects e{std::vector<std::vector<std::vector<double>>>(t.levels.size()),
                 std::vector<std::vector<std::vector<double>>>(t.levels.size())};
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    const float* slice = c.slice(k, buf);
    const auto cmed = class_log_medians(slice, t, cls, N, slow_group);
    for (std::size_t l = 1; l < t.levels.size(); ++l) {
      if (t.levels[l].groups.size() < 3) continue;  // two groups: a slow one is the distance between them
      e.out[l].emplace_back();
      e.in[l].emplace_back();
      group_effects_at(slice, t, l, cls, cmed, exclude, N, e.out[l].back(), e.in[l].back());
    }
  }
  return e;
}

GroupFault group_fault(const Cube& c, const Topology& t, std::size_t l, std::size_t g, const Verdict& v) {
  GroupFault f;
  f.level = l;
  f.group = g;
  f.ranks = t.levels[l].groups[g];
  std::vector<double> scores, sigmas;
  for (std::size_t k = 0; k < c.count(); ++k)
    if (v.slow[k]) {
      f.lengths.push_back(c.lengths[k]);
      scores.push_back(std::exp(v.effect[k]));
      sigmas.push_back(v.sigmas[k]);
    }
  f.score = finite_median(scores);
  double peak = -std::numeric_limits<double>::infinity();
  for (double e : v.effect)
    if (std::isfinite(e)) peak = std::max(peak, e);
  f.peak = std::exp(peak);
  f.sigmas = finite_median(sigmas);
  f.direction = direction(v);
  return f;
}

std::vector<GroupFault> judge_groups(const Cube& c, const Topology& t, const GroupFaultOptions& opt,
                                     const LevelEffects& e, std::vector<double>* sensitivity) {
  std::vector<GroupFault> found;
  const std::size_t K = c.count();
  // Every slow group of every level; which of nested ones is the fault is the caller's choice.
  for (std::size_t l = 1; l < t.levels.size(); ++l) {
    if (e.out[l].empty()) continue;
    const auto lone_list = lone_node_groups(t, l);
    const std::set<std::size_t> lone(lone_list.begin(), lone_list.end());
    const Peers peers = peers_of(e.out[l], e.in[l]);
    if (sensitivity) {  // per length the easier of the two directions; or the longest length alone
      std::vector<double> thr;
      const double min_log = std::log(opt.min_ratio);
      for (std::size_t k = 0; k < K; ++k)
        thr.push_back(std::min(std::max(min_log, opt.mad_factor * peers.out[k].sigma),
                               std::max(min_log, opt.mad_factor * peers.in[k].sigma)));
      (*sensitivity)[l] = std::min(smallest_passing(thr, opt.need), std::exp(thr.back()));
      if (!t.no_tree_above && K > 0)  // the latency rule: both directions at the shortest length
        (*sensitivity)[l] = std::min((*sensitivity)[l],
                                     std::exp(std::max({min_log, opt.mad_factor * peers.out[0].sigma,
                                                        opt.mad_factor * peers.in[0].sigma})));
    }
    for (std::size_t g = 0; g < t.levels[l].groups.size(); ++g) {
      if (lone.count(g)) continue;  // one node: judged as a node
      const Verdict v = judge(e.out[l], e.in[l], peers, g, std::log(opt.min_ratio), opt.mad_factor);
      if (!holds(v, opt.need, !t.no_tree_above)) continue;
      // Groups whose distances form no tree above them (routers of a dragonfly): a group nearer to or
      // farther from the rest differs by its hops' latency, at the short lengths only (on noisy data
      // a router of two hosts "entering 1.17x" at 1 KiB, 1.0x at 64 KiB); a fault of
      // its links shows where bandwidth counts, at the longest length.
      if (t.no_tree_above && l + 1 == t.levels.size() && !v.slow.back()) continue;
      found.push_back(group_fault(c, t, l, g, v));
    }
  }
  return found;
}

}  // namespace

// Two passes: a slow group's boundary pairs may be half of their class (a slow pod of four: half
// of the pairs between pods) and then set its median, against which a slow leaf elsewhere in the
// same class reads normal. The second pass takes the class medians without the pairs that cross
// the boundary of a group the first found.
std::vector<GroupFault> find_slow_groups(const Cube& c, const Topology& t, const GroupFaultOptions& opt,
                                         std::vector<double>* sensitivity) {
  if (sensitivity) sensitivity->assign(t.levels.size(), kNaN);
  if (c.count() == 0 || t.levels.size() < 2) return {};
  const auto cls = pair_classes(t);  // P^2 bytes, once for every length and level
  auto found = judge_groups(c, t, opt, level_effects(c, t, cls, opt.exclude, {}), sensitivity);
  if (found.empty()) return found;
  const auto slow_group = fault_group_of(static_cast<std::size_t>(c.P), found);  // coarsest last: it holds the finer
  return judge_groups(c, t, opt, level_effects(c, t, cls, opt.exclude, slow_group), nullptr);
}

}  // namespace nt::analysis
