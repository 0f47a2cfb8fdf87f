// The pieces of a finding the detectors share: host names, sigmas, link hits merged per node group.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {

std::string sigmas_text(double z) { return std::isfinite(z) ? fmt::format("{:.1f} sigmas", z) : "noise-free data"; }

std::vector<std::string> hosts_of(const std::vector<int>& ranks, const std::vector<std::string>& hosts) {
  std::vector<std::string> h;
  if (hosts.empty()) return h;
  for (int r : ranks)
    if (r >= 0 && static_cast<std::size_t>(r) < hosts.size()) h.push_back(hosts[static_cast<std::size_t>(r)]);
  std::sort(h.begin(), h.end());
  h.erase(std::unique(h.begin(), h.end()), h.end());
  return h;
}

void set_node_ranks(const Level& nodes, const std::vector<int>& ids, const std::vector<std::string>& hosts, Anomaly& f) {
  f.ranks.clear();
  for (int n : ids) {
    const auto& own = nodes.groups[static_cast<std::size_t>(n)];
    f.ranks.insert(f.ranks.end(), own.begin(), own.end());
  }
  std::sort(f.ranks.begin(), f.ranks.end());
  f.hosts = hosts_of(f.ranks, hosts);
}

std::vector<Anomaly> merge_links(AnomalyKind kind, const std::vector<LinkHit>& hits, const Topology& t,
                                 const std::vector<std::string>& hosts, std::size_t max_items,
                                 const std::string& what, bool ordered) {
  std::map<std::pair<int, int>, std::vector<const LinkHit*>> by_groups;
  const auto& node_of = t.levels.front().group_of;
  for (const auto& hit : hits) {
    int from = node_of[static_cast<std::size_t>(hit.i)], to = node_of[static_cast<std::size_t>(hit.j)];
    if (!ordered && from > to) std::swap(from, to);
    by_groups[{from, to}].push_back(&hit);
  }
  const std::string group_word = t.node_level_identified ? "node group" : "group";
  std::vector<Anomaly> out;
  for (auto& [key, group_hits] : by_groups) {
    Anomaly finding;
    finding.kind = kind;
    std::set<int> ranks;
    std::set<std::int64_t> lens;
    std::vector<double> scores, sigmas;
    for (const auto* hit : group_hits) {
      ranks.insert(hit->i);
      ranks.insert(hit->j);
      lens.insert(hit->lengths.begin(), hit->lengths.end());
      scores.push_back(hit->score);
      sigmas.push_back(hit->sigmas);
      finding.pairs.emplace_back(hit->i, hit->j);
    }
    finding.ranks.assign(ranks.begin(), ranks.end());
    finding.lengths.assign(lens.begin(), lens.end());
    finding.score = finite_median(scores);
    finding.hosts = hosts_of(finding.ranks, hosts);
    const std::string evidence =
        fmt::format("{:.2f}x, {}, at {} of the lengths", finding.score, sigmas_text(finite_median(sigmas)), finding.lengths.size());
    if (group_hits.size() == 1)
      finding.detail = fmt::format("{} rank {} -> rank {}: {}", what, group_hits.front()->i, group_hits.front()->j, evidence);
    else if (ordered)
      finding.detail = fmt::format("{} {} {} -> {} {} (sender -> receiver, {} rank pairs): {}", what, group_word,
                             key.first, group_word, key.second, group_hits.size(), evidence);
    else if (key.first == key.second)
      finding.detail = fmt::format("{} within {} {}, both directions ({} rank pairs): {}", what, group_word, key.first,
                             group_hits.size(), evidence);
    else
      finding.detail = fmt::format("{} between {}s {} and {}, both directions ({} rank pairs): {}", what, group_word,
                             key.first, key.second, group_hits.size(), evidence);
    out.push_back(std::move(finding));
  }
  std::sort(out.begin(), out.end(), [](const Anomaly& x, const Anomaly& y) { return x.score > y.score; });
  if (out.size() > max_items) out.resize(max_items);
  return out;
}

}  // namespace nt::analysis::anomaly_parts
