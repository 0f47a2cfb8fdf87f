#include "nt/analysis/anomalies.hpp"

#include <cmath>
#include <set>

#include "anomalies_parts.hpp"

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
std::vector<GroupFault> slow_switch_faults(const AnomalyScan& scan, const LinkExclusions& exclusions,
                                           std::vector<double>* sensitivity) {
  GroupFaultOptions gopt;
  gopt.mad_factor = scan.opt.mad_factor;
  gopt.min_ratio = scan.opt.group_min_ratio;
  gopt.need = scan.need;
  gopt.exclude = exclusions.explained;  // the ranks of slow nodes
  return where_faults_live(scan.topo, find_slow_groups(scan.cube, scan.topo, gopt, sensitivity));
}

// The rank-effect model, the slow ranks and nodes it shows, and the slow switch faults. The pairs
// of a slow switch group's boundary are its evidence, and they are left out of the model once
// found: they may be half of their class or more (of the pairs between four leaves, the slow
// leaf's are half), and then set its constant, which made every healthy rank fast, the slow node
// of another leaf normal, and the pairs inside healthy hosts slow links. The nodes are then judged
// again, and the groups again with the new slow nodes left out.
struct ModelAndFaults {
  PolishedLengths pass;
  std::vector<GroupFault> faults;
  std::vector<double> group_sensitivity;
};

ModelAndFaults fit_model(const AnomalyScan& scan, std::vector<Anomaly>& out, LinkExclusions& exclusions) {
  ModelAndFaults m{polish_every_length(scan), {}, {}};
  find_slow_ranks_and_nodes(scan, m.pass.effects, out, exclusions);
  m.faults = slow_switch_faults(scan, exclusions, &m.group_sensitivity);
  if (m.faults.empty()) return m;
  m.pass = polish_every_length(scan, fault_group_of(scan.n_ranks, m.faults));
  out.clear();
  exclusions.explained.assign(scan.n_ranks, 0);
  find_slow_ranks_and_nodes(scan, m.pass.effects, out, exclusions);
  m.faults = slow_switch_faults(scan, exclusions, &m.group_sensitivity);
  return m;
}

// The thresholds the rank, link and one-way detectors applied, per length (logs), as Sensitivity
// (the link thresholds as the polish pass kept them).
void rank_and_link_sensitivity(const AnomalyScan& scan, const PolishedLengths& pass, Sensitivity& s) {
  const double mad = scan.opt.mad_factor, floor = scan.min_log;
  std::vector<double> rank;
  for (std::size_t k = 0; k < scan.n_lengths; ++k) {
    const double send = robust_spread(pass.effects.send[k]).sigma, recv = robust_spread(pass.effects.recv[k]).sigma;
    rank.push_back(std::min(std::max(floor, mad * send), std::max(floor, mad * recv)));
  }
  s.rank = smallest_passing(rank, scan.need);
  s.link = smallest_passing(pass.link_threshold, scan.need);
  s.one_way = smallest_passing(pass.asym_threshold, scan.need);
}

}  // namespace

std::vector<Anomaly> find_anomalies(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                                    const AnomalyOptions& opt, Sensitivity* sensitivity) {
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
  LinkExclusions exclusions{std::vector<char>(scan.n_ranks, 0), std::vector<int>(scan.n_ranks, -1)};
  const auto [pass, faults, group_sensitivity] = fit_model(scan, out, exclusions);
  add_slow_switches(scan, faults, out, exclusions);
  find_slow_lone_nodes(scan, out, exclusions);
  std::vector<Anomaly> blocks;
  double one_way_cut = 0.0;
  find_slow_and_asymmetric_links(scan, pass, exclusions, out, blocks, one_way_cut);
  slow_links_to_slow_nodes(t, hosts, out);
  out.insert(out.end(), blocks.begin(), blocks.end());
  slow_links_between_neighbours(scan, out);
  slope_links(scan, out);
  one_way_blocks(scan, one_way_cut, out);
  latency_links(scan, out);
  cap_one_way_pairs(t, opt.max_links, one_way_cut, out);
  fold_transit_routes(scan, out);
  if (sensitivity) {
    rank_and_link_sensitivity(scan, pass, *sensitivity);
    for (std::size_t l = 1; l < group_sensitivity.size(); ++l)
      if (std::isfinite(group_sensitivity[l])) sensitivity->group.emplace_back(t.levels[l].name, group_sensitivity[l]);
  }
  return out;
}

}  // namespace nt::analysis
