#include "nt/analysis/anomalies.hpp"

#include <cmath>
#include <set>

#include "anomalies_parts.hpp"
#include "loaded.hpp"

namespace nt::analysis {
namespace {

using namespace anomaly_parts;

std::size_t needed(std::size_t K, double fraction) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(K) - 1e-9)));
}

// A group fault above the nodes is kept at the level where it lives: a group whose every
// (non-lone) subgroup is slow too is the fault, not its subgroups; a group of which only some
// subgroups are slow is their effect leaking into its median. Coarsest level first.
std::vector<GroupFault> where_faults_live(const Topology& t, std::vector<GroupFault> faults) {
  std::vector<char> keep(faults.size(), 1);
  for (std::size_t l = t.levels.size(); l-- > 2;)
    for (std::size_t a = 0; a < faults.size(); ++a) {
      if (faults[a].level != l || !keep[a]) continue;
      const auto& lev = t.levels[l - 1];
      const auto lone = lone_node_groups(t, l - 1);
      std::set<int> children, slow_children;
      for (int r : faults[a].ranks) children.insert(lev.group_of[static_cast<std::size_t>(r)]);
      for (std::size_t lg : lone) children.erase(static_cast<int>(lg));
      std::vector<std::size_t> inside;
      for (std::size_t b = 0; b < faults.size(); ++b)
        if (keep[b] && faults[b].level == l - 1 && children.count(static_cast<int>(faults[b].group))) {
          inside.push_back(b);
          slow_children.insert(static_cast<int>(faults[b].group));
        }
      if (!inside.empty() && slow_children == children)
        for (std::size_t b : inside) keep[b] = 0;
      else if (!inside.empty()) keep[a] = 0;
    }
  std::vector<GroupFault> kept;
  for (std::size_t a = 0; a < faults.size(); ++a)
    if (keep[a]) kept.push_back(std::move(faults[a]));
  return kept;
}

// The slow switch groups (group_faults.cpp), the ranks of slow nodes left out, at the level where
// each fault lives.
std::vector<GroupFault> slow_switch_faults(const AnomalyScan& scan, const LinkExclusions& exclusions) {
  GroupFaultOptions gopt;
  gopt.mad_factor = scan.opt.mad_factor;
  gopt.min_ratio = scan.opt.group_min_ratio;
  gopt.need = scan.need;
  gopt.exclude = exclusions.explained;  // the ranks of slow nodes
  return where_faults_live(scan.topo, find_slow_groups(scan.cube, scan.topo, gopt));
}

}  // namespace

std::vector<Anomaly> find_anomalies(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                                    const AnomalyOptions& opt) {
  std::vector<Anomaly> out;
  if (c.P < 3) return out;  // nothing to compare a rank with
  const AnomalyScan scan{c,
                         t,
                         hosts,
                         opt,
                         static_cast<std::size_t>(c.P),
                         c.count(),
                         needed(c.count(), opt.min_length_fraction),
                         std::log(opt.min_ratio)};
  const auto pass = polish_every_length(scan);
  LinkExclusions exclusions{std::vector<char>(scan.n_ranks, 0), std::vector<int>(scan.n_ranks, -1)};
  find_slow_ranks_and_nodes(scan, pass.effects, out, exclusions);
  add_slow_switches(scan, slow_switch_faults(scan, exclusions), out, exclusions);
  find_slow_lone_nodes(scan, out, exclusions);
  find_slow_and_asymmetric_links(scan, pass, exclusions, out);
  slow_links_to_slow_nodes(t, hosts, out);
  return out;
}

}  // namespace nt::analysis
