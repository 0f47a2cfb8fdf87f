// Nodes alone in an upper-level group: their links form a class of their own, so they are judged
// against the inter-node links of the other nodes instead of by the rank effects.
#include "anomalies_parts.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {
namespace {

// A node alone in its upper-level group, not reported yet, and per length the median of its
// links over the median of the reference links.
struct LoneGroup {
  std::size_t level, group;
  std::vector<char> inside;       // per rank
  bool have_class1 = false;       // the other nodes have links of class 1 (the reference)
  std::vector<double> ratio;      // per length; NaN where either side has no delay
};

std::vector<LoneGroup> lone_groups_to_check(const AnomalyScan& scan, const std::set<int>& reported) {
  const std::size_t n_ranks = scan.n_ranks;
  const auto& topo = scan.topo;
  std::vector<LoneGroup> lones;
  for (std::size_t l = 1; l < topo.levels.size(); ++l)
    for (std::size_t lg : lone_node_groups(topo, l)) {
      const auto& group = topo.levels[l].groups[lg];
      if (reported.count(group.front())) continue;
      LoneGroup lone{l, lg, std::vector<char>(n_ranks, 0), false, std::vector<double>(scan.n_lengths, kNaN)};
      for (int r : group) lone.inside[static_cast<std::size_t>(r)] = 1;
      for (std::size_t i = 0; i < n_ranks && !lone.have_class1; ++i)
        for (std::size_t j = 0; j < n_ranks; ++j)
          if (i != j && !lone.inside[i] && !lone.inside[j] &&
              topo.pair_class(static_cast<int>(i), static_cast<int>(j)) == 1) {
            lone.have_class1 = true;
            break;
          }
      lones.push_back(std::move(lone));
    }
  return lones;
}

// Per length (one at a time for all of them), each lone group's links over the reference links.
void measure_lone_ratios(const AnomalyScan& scan, std::vector<LoneGroup>& lones) {
  const std::size_t n_ranks = scan.n_ranks;
  std::vector<float> buf, own, ref;
  for (std::size_t k = 0; k < scan.n_lengths && !lones.empty(); ++k) {
    const float* slice = scan.cube.slice(k, buf);
    for (auto& lone : lones) {
      own.clear();
      ref.clear();
      const auto& in = lone.inside;
      for (std::size_t i = 0; i < n_ranks; ++i)
        for (std::size_t j = 0; j < n_ranks; ++j) {
          if (i == j) continue;
          const float delay = slice[i * n_ranks + j];
          if (!Cube::usable(delay)) continue;
          const int pair_class = scan.topo.pair_class(static_cast<int>(i), static_cast<int>(j));
          if (in[i] != in[j]) own.push_back(delay);
          else if (!in[i] && (lone.have_class1 ? pair_class == 1 : pair_class >= 1)) ref.push_back(delay);
        }
      if (!own.empty() && !ref.empty()) lone.ratio[k] = float_median(own) / float_median(ref);
    }
  }
}

}  // namespace

// A node alone in its upper-level group: all of its links form their own class, so the rank
// effect model cannot compare them with anything. Compare them with the inter-node links of the
// other nodes instead (it is a slow node, or a node behind a switch of its own). Its ranks are
// marked in exclusions.explained.
void find_slow_lone_nodes(const AnomalyScan& scan, std::vector<Anomaly>& out, LinkExclusions& exclusions) {
  std::set<int> reported;
  for (const auto& finding : out)
    for (int r : finding.ranks) reported.insert(r);
  const auto& topo = scan.topo;
  const auto& node_of = topo.levels.front().group_of;
  const std::string group_word = topo.node_level_identified ? "node group" : "group";
  auto lones = lone_groups_to_check(scan, reported);
  measure_lone_ratios(scan, lones);
  for (const auto& lone : lones) {
    const auto& group = topo.levels[lone.level].groups[lone.group];
    if (reported.count(group.front())) continue;
    std::vector<std::int64_t> lens;
    std::vector<double> ratios;
    for (std::size_t k = 0; k < scan.n_lengths; ++k) {
      const double ratio = lone.ratio[k];
      if (std::isnan(ratio)) continue;
      if (ratio >= scan.opt.min_ratio) {
        lens.push_back(scan.cube.lengths[k]);
        ratios.push_back(ratio);
      }
    }
    if (lens.size() < scan.need) continue;
    Anomaly finding;
    finding.kind = group.size() >= 2 ? AnomalyKind::slow_node : AnomalyKind::slow_rank;
    finding.ranks = group;
    finding.hosts = hosts_of(group, scan.hosts);
    finding.lengths = lens;
    finding.score = finite_median(ratios);
    finding.detail = fmt::format("{} {} is alone in its {} group: its links are {:.2f}x the {} links of the others "
                                 "(at {} of {} lengths); a lone node {}",
                                 group_word, node_of[static_cast<std::size_t>(group.front())],
                                 topo.levels[lone.level].name, finding.score, topo.class_name(1),
                                 finding.lengths.size(), scan.n_lengths, kLoneNodeCaveat);
    out.push_back(std::move(finding));
    for (int r : group) {
      reported.insert(r);
      exclusions.explained[static_cast<std::size_t>(r)] = 1;
    }
  }
}

}  // namespace nt::analysis::anomaly_parts
