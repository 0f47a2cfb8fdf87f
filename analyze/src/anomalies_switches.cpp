// The slow switch findings: the faults group_faults.cpp finds, where_faults_live keeps, as anomalies.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

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
    if (slow_nodes == nodes) std::erase_if(out, inside);
    for (int r : f.ranks) exclusions.slow_group[static_cast<std::size_t>(r)] = static_cast<int>(out.size());
    out.push_back(slow_switch_finding(scan, f));
  }
}

}  // namespace nt::analysis::anomaly_parts
