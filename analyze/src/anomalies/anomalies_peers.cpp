// A node whose links to every other node of its switch group are slow is one slow node
// (slow_links_to_slow_nodes): the last step of find_anomalies, on every file.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "nt/analysis/anomalies.hpp"
#include "nt/stats.hpp"

#include "anomalies_parts.hpp"

namespace nt::analysis {

namespace {

// The node groups a slow_link finding joins (its pairs all lie between the same two node groups).
std::pair<int, int> link_nodes(const Anomaly& a, const std::vector<int>& node_of) {
  const auto [i, j] = a.pairs.front();
  return {node_of[static_cast<std::size_t>(i)], node_of[static_cast<std::size_t>(j)]};
}

// Whether node n's slow peers cover every other node of its upper group, and no peer is slow to
// half or more of the others (a slow group as a whole is not one slow node).
bool slow_to_every_peer(int n, const std::set<int>& peers, const std::map<int, std::set<int>>& slow_to) {
  const auto mine = slow_to.find(n);
  if (peers.size() < 2 || mine == slow_to.end() ||
      !std::includes(mine->second.begin(), mine->second.end(), peers.begin(), peers.end()))
    return false;
  for (int p : peers) {
    std::size_t others = 0;
    if (const auto it = slow_to.find(p); it != slow_to.end())
      for (int q : it->second) others += (q != n && peers.count(q)) ? 1 : 0;
    if (2 * others >= peers.size() - 1 && others > 0) return false;
  }
  return true;
}

}  // namespace

void anomaly_parts::slow_links_to_slow_nodes(const Topology& t, const std::vector<std::string>& hosts,
                                             std::vector<Anomaly>& out) {
  if (t.levels.size() < 2) return;
  const auto& nodes = t.levels.front();
  const auto& up = t.levels[1];
  std::map<int, std::set<int>> slow_to;
  for (const auto& a : out)
    if (a.kind == AnomalyKind::slow_link && !a.pairs.empty())
      if (const auto [x, y] = link_nodes(a, nodes.group_of); x != y) {
        slow_to[x].insert(y);
        slow_to[y].insert(x);
      }
  std::vector<std::set<int>> nodes_in(up.groups.size());
  for (std::size_t r = 0; r < nodes.group_of.size(); ++r)
    nodes_in[static_cast<std::size_t>(up.group_of[r])].insert(nodes.group_of[r]);
  std::vector<Anomaly> found;
  for (const auto& [n, slow] : slow_to) {
    const int g = up.group_of[static_cast<std::size_t>(nodes.groups[static_cast<std::size_t>(n)].front())];
    std::set<int> peers = nodes_in[static_cast<std::size_t>(g)];
    peers.erase(n);
    if (!slow_to_every_peer(n, peers, slow_to)) continue;
    std::vector<double> scores;
    std::set<std::int64_t> lengths;
    std::erase_if(out, [&](const Anomaly& a) {
      if (a.kind != AnomalyKind::slow_link || a.pairs.empty()) return false;
      const auto [x, y] = link_nodes(a, nodes.group_of);
      if (!((x == n && peers.count(y)) || (y == n && peers.count(x)))) return false;
      scores.push_back(a.score);
      lengths.insert(a.lengths.begin(), a.lengths.end());
      return true;
    });
    Anomaly f;
    f.kind = AnomalyKind::slow_node;
    f.ranks = nodes.groups[static_cast<std::size_t>(n)];
    f.hosts = anomaly_parts::hosts_of(f.ranks, hosts);
    f.lengths.assign(lengths.begin(), lengths.end());
    f.score = finite_median(scores);
    f.detail = fmt::format(
        "node group {}: its links to every other node of its {} group {} (all {} of them) are slow ({:.2f}x, median), not "
        "beyond it: its cable or its port (its pairs beyond the group cross slower or shared links that hide it)",
        n, up.name, g, peers.size(), f.score);
    found.push_back(std::move(f));
  }
  out.insert(out.end(), found.begin(), found.end());
}

}  // namespace nt::analysis
