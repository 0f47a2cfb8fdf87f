// The slow switch findings: the faults group_faults.cpp finds, where_faults_live keeps, as anomalies.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {
namespace {

Anomaly slow_switch_finding(const AnomalyScan& scan, const GroupFault& f) {
  const auto& lev = scan.topo.levels[f.level];
  std::set<int> nodes;
  for (int r : f.ranks) nodes.insert(scan.topo.levels.front().group_of[static_cast<std::size_t>(r)]);
  Anomaly finding;
  finding.kind = AnomalyKind::slow_switch;
  finding.ranks = f.ranks;
  finding.hosts = hosts_of(f.ranks, scan.hosts);
  finding.lengths = f.lengths;
  finding.score = f.score;
  finding.detail = fmt::format(
      "the links {} {} group {} ({} nodes) are {:.2f}x those of the other {} groups (up to {:.2f}x; median over its "
      "ranks, {}, at {} of {} lengths): its uplink or its switch",
      f.direction, lev.name, f.group, nodes.size(), f.score, lev.name, f.peak, sigmas_text(f.sigmas),
      f.lengths.size(), scan.n_lengths);
  return finding;
}

// The nodes of fault f whose pairs across its boundary (to and from the ranks outside, the median
// per length) are min_ratio slower than those of its least slowed node at a length or more. Every
// node of a leaf of two hosts, one of them slow, is slow by the pairs inside the leaf (each goes
// through the slow host), and the boundary's pairs are left out of the model that judged them; a
// slow switch would slow its nodes' boundary pairs alike, while the slow host's latency shows there
// at the short lengths (the narrow uplink caps the long ones alike; e.g. 7 against 4 us at 0 B).
std::set<int> slower_across_boundary(const AnomalyScan& scan, const GroupFault& f) {
  const auto& node_of = scan.topo.levels.front().group_of;
  const std::set<int> in(f.ranks.begin(), f.ranks.end());
  const auto N = scan.n_ranks;
  std::set<int> slower;
  std::vector<float> buf;
  for (std::size_t k = 0; k < scan.n_lengths; ++k) {
    const float* slice = scan.cube.slice(k, buf);
    std::map<int, std::vector<double>> logs;  // per node of the group
    for (int r : f.ranks) {
      auto& v = logs[node_of[static_cast<std::size_t>(r)]];
      for (std::size_t j = 0; j < N; ++j) {
        if (in.count(static_cast<int>(j))) continue;
        for (const float d : {slice[static_cast<std::size_t>(r) * N + j], slice[j * N + static_cast<std::size_t>(r)]})
          if (Cube::usable(d)) v.push_back(std::log(static_cast<double>(d)));
      }
    }
    std::map<int, double> median;
    double least = kNaN;
    for (auto& [node, v] : logs) {
      median[node] = finite_median(v);
      if (std::isfinite(median[node]) && !(median[node] >= least)) least = median[node];
    }
    for (const auto& [node, m] : median)
      if (m - least >= scan.min_log) slower.insert(node);
  }
  return slower;
}

// Whether most of the node findings `inside` a group (more than half) are slowed alike its least
// slowed one (within alike_ratio): a switch slows all of its nodes by its factor at least, a slow
// cable among them more; two cables under one leaf by their own factors (2x and 4x).
template <class Inside>
bool alike_inside(const std::vector<Anomaly>& out, const Inside& inside) {
  std::vector<double> scores;
  for (const auto& a : out)
    if (inside(a)) scores.push_back(a.score);
  if (scores.empty()) return true;
  const double least = *std::min_element(scores.begin(), scores.end());
  const auto alike = std::count_if(scores.begin(), scores.end(), [&](double x) { return x <= kTuning.alike_ratio * least; });
  return 2 * static_cast<std::size_t>(alike) > scores.size();
}

}  // namespace

// Slow switch groups, one finding each, and the pairs that cross its boundary are its evidence, not
// slow links. The rank effects come from a model without those pairs (anomalies.cpp), so a node
// finding inside the group is about the pairs inside it: when every node of the group has one, the
// switch slows them alike and they are its; a slow node among healthy mates is a fault of its own
// (a slow cable in the slow leaf of four was dropped as the switch's effect).
void add_slow_switches(const AnomalyScan& scan, const std::vector<GroupFault>& faults, std::vector<Anomaly>& out,
                       LinkExclusions& exclusions) {
  const auto& node_of = scan.topo.levels.front().group_of;
  for (const auto& f : faults) {
    std::set<int> in(f.ranks.begin(), f.ranks.end()), nodes, slow_nodes;
    for (int r : f.ranks) nodes.insert(node_of[static_cast<std::size_t>(r)]);
    const auto inside = [&](const Anomaly& a) {
      return (a.kind == AnomalyKind::slow_node || a.kind == AnomalyKind::slow_rank) &&
             std::all_of(a.ranks.begin(), a.ranks.end(), [&](int r) { return in.count(r) > 0; });
    };
    for (const auto& a : out)
      if (inside(a))
        for (int r : a.ranks) slow_nodes.insert(node_of[static_cast<std::size_t>(r)]);
    // Every node of a first-level group slow by the pairs inside, but by unalike factors (two slow
    // cables under one leaf, 2x and 4x): a switch slows its nodes alike, so these are the nodes' own
    // faults, no group's. (Above, a group's nodes differ by the groups inside it.)
    if (f.level == 1 && slow_nodes == nodes && nodes.size() >= 2 && !alike_inside(out, inside)) continue;
    // Every node slow by the pairs inside: the switch's, unless some of them (not all) are also
    // slower across its boundary than their mates, the nodes the inside pairs go through.
    if (slow_nodes == nodes) {
      const auto slower = slower_across_boundary(scan, f);
      const auto mate_of_slower = [&](const Anomaly& a) {
        return inside(a) && (slower.empty() || slower == nodes ||
                             !slower.count(node_of[static_cast<std::size_t>(a.ranks.front())]));
      };
      std::erase_if(out, mate_of_slower);
    }
    for (int r : f.ranks) exclusions.slow_group[static_cast<std::size_t>(r)] = static_cast<int>(out.size());
    out.push_back(slow_switch_finding(scan, f));
  }
}

}  // namespace nt::analysis::anomaly_parts
