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

// Slow switch groups, one finding each; the node findings inside one that its effect explains (a
// node whose pairs mostly cross a slow uplink is that much slower, no more) are dropped, and the
// pairs that cross its boundary are its evidence, not slow links.
void add_slow_switches(const AnomalyScan& scan, const std::vector<GroupFault>& faults, std::vector<Anomaly>& out,
                       LinkExclusions& exclusions) {
  for (const auto& f : faults) {
    std::set<int> in(f.ranks.begin(), f.ranks.end());
    std::erase_if(out, [&](const Anomaly& a) {
      const bool inside = (a.kind == AnomalyKind::slow_node || a.kind == AnomalyKind::slow_rank) &&
                          std::all_of(a.ranks.begin(), a.ranks.end(), [&](int r) { return in.count(r) > 0; });
      return inside && a.score < f.score * scan.opt.min_ratio;
    });
    for (int r : f.ranks) exclusions.slow_group[static_cast<std::size_t>(r)] = static_cast<int>(out.size());
    out.push_back(slow_switch_finding(scan, f));
  }
}

}  // namespace nt::analysis::anomaly_parts
