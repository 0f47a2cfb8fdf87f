// Slow ranks and slow nodes, from the rank effects of the median polish.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"
#include "common/text_util.hpp"

namespace nt::analysis::anomaly_parts {
namespace {

// Per length, the robust spread of the send and of the receive effects over the ranks.
struct EffectSpreads {
  std::vector<RobustSpread> send, recv;
};

EffectSpreads effect_spreads(const RankEffects& effects) {
  EffectSpreads spreads;
  for (std::size_t k = 0; k < effects.send.size(); ++k) {
    spreads.send.push_back(robust_spread(effects.send[k]));
    spreads.recv.push_back(robust_spread(effects.recv[k]));
  }
  return spreads;
}

// A rank whose send or receive effect stands out at some lengths (slow: at enough of them).
struct RankHit {
  bool slow = false;
  bool send = false, recv = false;
  std::vector<std::int64_t> lengths;
  std::vector<double> score;
  std::vector<double> sigmas;  // robust z-score of the effect at each of those lengths
};

const char* slow_direction(const RankHit& hit) {
  return hit.send && hit.recv ? "sends and receives" : (hit.send ? "sends" : "receives");
}

// Each rank's lengths where its send or receive effect is beyond min_ratio and mad_factor sigmas.
std::vector<RankHit> find_rank_hits(const AnomalyScan& scan, const RankEffects& effects,
                                    const EffectSpreads& spreads) {
  std::vector<RankHit> hits(scan.n_ranks);
  for (std::size_t k = 0; k < scan.n_lengths; ++k) {
    const auto [send_median, send_sigma] = spreads.send[k];
    const auto [recv_median, recv_sigma] = spreads.recv[k];
    for (std::size_t i = 0; i < scan.n_ranks; ++i) {
      const double ds = effects.send[k][i] - send_median, dr = effects.recv[k][i] - recv_median;
      const bool slow_send = ds >= scan.min_log && ds >= scan.opt.mad_factor * send_sigma;
      const bool slow_recv = dr >= scan.min_log && dr >= scan.opt.mad_factor * recv_sigma;
      if (!slow_send && !slow_recv) continue;
      auto& hit = hits[i];
      hit.send |= slow_send;
      hit.recv |= slow_recv;
      hit.lengths.push_back(scan.cube.lengths[k]);
      const double effect = std::max(slow_send ? ds : 0.0, slow_recv ? dr : 0.0);
      const double sigma = effect == ds ? send_sigma : recv_sigma;
      hit.score.push_back(std::exp(effect));
      hit.sigmas.push_back(sigma > 0 ? effect / sigma : kNaN);
    }
  }
  for (auto& hit : hits) hit.slow = hit.lengths.size() >= scan.need;
  return hits;
}

// A node group judged as a whole from the median effect of its ranks.
struct NodeVerdict {
  bool slow = false;
  std::vector<std::int64_t> lengths;
  std::vector<double> score, sigmas;
};

// Node groups alone in an upper-level group: their links are of their own class only, judged by
// find_slow_lone_nodes.
std::vector<char> lone_node_flags(const Topology& topo) {
  std::vector<char> lone(topo.levels.front().groups.size(), 0);
  for (std::size_t l = 1; l < topo.levels.size(); ++l)
    for (std::size_t lg : lone_node_groups(topo, l))
      lone[static_cast<std::size_t>(
          topo.levels.front().group_of[static_cast<std::size_t>(topo.levels[l].groups[lg].front())])] = 1;
  return lone;
}

// A node as a whole: the median effect of its ranks per length. A node slowed by exactly the
// threshold factor has rank effects scattered around it, so some ranks pass and some do not
// (4-5 separate slow_rank entries for one node); the node's median has sqrt(ranks) less noise and
// is allowed one standard error below the threshold.
NodeVerdict judge_node(const AnomalyScan& scan, const std::vector<int>& node, const RankEffects& effects,
                       const EffectSpreads& spreads, const std::vector<RankHit>& rank_hits) {
  NodeVerdict verdict;
  std::vector<double> ds, dr, effect_all, stderr_all;
  for (std::size_t k = 0; k < scan.n_lengths; ++k) {
    const auto [send_median, send_sigma] = spreads.send[k];
    const auto [recv_median, recv_sigma] = spreads.recv[k];
    ds.clear();
    dr.clear();
    for (int r : node) {
      ds.push_back(effects.send[k][static_cast<std::size_t>(r)] - send_median);
      dr.push_back(effects.recv[k][static_cast<std::size_t>(r)] - recv_median);
    }
    const double node_ds = finite_median(ds), node_dr = finite_median(dr);
    const double std_error =
        std::max(send_sigma, recv_sigma) * kTuning.median_se_factor / std::sqrt(static_cast<double>(node.size()));
    const double effect = std::max(node_ds, node_dr);
    const double sigma = effect == node_ds ? send_sigma : recv_sigma;
    effect_all.push_back(effect);
    stderr_all.push_back(std_error);
    if (effect >= scan.min_log - 2 * std_error && effect >= scan.opt.mad_factor * sigma) {
      verdict.lengths.push_back(scan.cube.lengths[k]);
      verdict.score.push_back(std::exp(effect));
      verdict.sigmas.push_back(sigma > 0 ? effect / sigma : kNaN);
    }
  }
  // ... and the node is that slow at the long lengths as well, not only at the short ones (a node
  // behind a switch of its own differs by the switch's latency: at the short lengths only).
  // Two standard errors of slack: the median polish leaks a little of a slow node's effect into
  // its peers' (a few per cent of the cell noise), which made a node at exactly the threshold
  // vanish on 1 of 200 seeds with one.
  // Half of its ranks slow on their own also makes the node slow (once, not rank by rank).
  const auto slow_ranks =
      std::count_if(node.begin(), node.end(), [&](int r) { return rank_hits[static_cast<std::size_t>(r)].slow; });
  verdict.slow = verdict.lengths.size() >= scan.need &&
                 (finite_median(std::span<const double>(effect_all).subspan(effect_all.size() / 2)) >=
                      scan.min_log - 2 * finite_median(stderr_all) ||
                  2 * static_cast<std::size_t>(slow_ranks) >= node.size());
  return verdict;
}

std::vector<NodeVerdict> judge_nodes(const AnomalyScan& scan, const RankEffects& effects, const EffectSpreads& spreads,
                                     const std::vector<RankHit>& rank_hits) {
  const auto& nodes = scan.topo.levels.front().groups;
  std::vector<NodeVerdict> verdicts(nodes.size());
  const auto lone = lone_node_flags(scan.topo);
  for (std::size_t gi = 0; gi < nodes.size(); ++gi)
    if (nodes[gi].size() >= 2 && !lone[gi]) verdicts[gi] = judge_node(scan, nodes[gi], effects, spreads, rank_hits);
  return verdicts;
}

Anomaly node_finding(const AnomalyScan& scan, const std::vector<int>& node) {
  Anomaly finding;
  finding.kind = AnomalyKind::slow_node;
  finding.ranks = node;
  finding.hosts = hosts_of(node, scan.hosts);
  return finding;
}

void append_hosts(Anomaly& finding) {
  if (!finding.hosts.empty()) finding.detail += " on " + text::hosts_text(finding.hosts);
}

// A node slow by the median effect of its ranks (not every one of them slow on its own).
Anomaly slow_node_by_median(const AnomalyScan& scan, const std::vector<int>& node, const NodeVerdict& verdict) {
  Anomaly finding = node_finding(scan, node);
  finding.lengths = verdict.lengths;
  finding.score = finite_median(verdict.score);
  finding.detail = fmt::format("the ranks of the group are {:.2f}x their class (median over its {} ranks, {}, "
                               "at {} of {} lengths)",
                               finding.score, node.size(), sigmas_text(finite_median(verdict.sigmas)),
                               finding.lengths.size(), scan.n_lengths);
  append_hosts(finding);
  return finding;
}

// A node every rank of which is slow on its own.
Anomaly slow_node_by_every_rank(const AnomalyScan& scan, const std::vector<int>& node,
                                const std::vector<RankHit>& rank_hits) {
  Anomaly finding = node_finding(scan, node);
  std::set<std::int64_t> lens;
  std::vector<double> scores, sigmas;
  for (int r : node) {
    const auto& hit = rank_hits[static_cast<std::size_t>(r)];
    lens.insert(hit.lengths.begin(), hit.lengths.end());
    scores.insert(scores.end(), hit.score.begin(), hit.score.end());
    sigmas.insert(sigmas.end(), hit.sigmas.begin(), hit.sigmas.end());
  }
  finding.lengths.assign(lens.begin(), lens.end());
  finding.score = finite_median(scores);
  finding.detail = fmt::format("every rank of the group {} slowly ({:.2f}x its class, {}, at {} of {} lengths)",
                               slow_direction(rank_hits[static_cast<std::size_t>(node.front())]), finding.score,
                               sigmas_text(finite_median(sigmas)), finding.lengths.size(), scan.n_lengths);
  append_hosts(finding);
  return finding;
}

Anomaly slow_rank_finding(const AnomalyScan& scan, int rank, const RankHit& hit) {
  Anomaly finding;
  finding.kind = AnomalyKind::slow_rank;
  finding.ranks = {rank};
  finding.hosts = hosts_of(finding.ranks, scan.hosts);
  finding.lengths = hit.lengths;
  finding.score = finite_median(hit.score);
  finding.detail = fmt::format("rank {} {} {:.2f}x slower than its class ({}, at {} of {} lengths)", rank,
                               slow_direction(hit), finding.score, sigmas_text(finite_median(hit.sigmas)),
                               finding.lengths.size(), scan.n_lengths);
  return finding;
}

}  // namespace

// Slow nodes and slow ranks from the rank effects: per node group, one slow_node when the node
// as a whole is slow, else one slow_rank per slow rank. The ranks of slow nodes are marked in
// exclusions.explained.
void find_slow_ranks_and_nodes(const AnomalyScan& scan, const RankEffects& effects, std::vector<Anomaly>& out,
                               LinkExclusions& exclusions) {
  const auto spreads = effect_spreads(effects);
  const auto rank_hits = find_rank_hits(scan, effects, spreads);
  const auto verdicts = judge_nodes(scan, effects, spreads, rank_hits);
  const auto& nodes = scan.topo.levels.front().groups;
  const auto lone = lone_node_flags(scan.topo);
  for (std::size_t gi = 0; gi < nodes.size(); ++gi) {
    const auto& node = nodes[gi];
    const bool every_rank_slow =
        std::all_of(node.begin(), node.end(), [&](int r) { return rank_hits[static_cast<std::size_t>(r)].slow; });
    if (!every_rank_slow && verdicts[gi].slow) out.push_back(slow_node_by_median(scan, node, verdicts[gi]));
    else if (every_rank_slow && (node.size() >= 2 || scan.topo.nodes_from_hosts))
      out.push_back(slow_node_by_every_rank(scan, node, rank_hits));  // a host of one rank is still a node
    else {
      for (int r : node)
        if (rank_hits[static_cast<std::size_t>(r)].slow)
          out.push_back(slow_rank_finding(scan, r, rank_hits[static_cast<std::size_t>(r)]));
      continue;
    }
    // Alone in an upper-level group, with links of a class it shares (it is alone at the switch
    // level, not above): slow to everyone either way, and the delays cannot tell which.
    if (lone[gi]) out.back().detail += fmt::format("; a lone node {}", kLoneNodeCaveat);
    // Its links are its evidence: a slow cable slows the paths through it by factors that differ
    // with their other links (4x inside its switch, less beyond), which no rank effect takes out
    // (else one slow host is also 7 slow links, one per switch mate).
    for (int r : node) exclusions.explained[static_cast<std::size_t>(r)] = 1;
  }
}

}  // namespace nt::analysis::anomaly_parts
