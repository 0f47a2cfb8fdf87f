// The host names and the groups: the node level taken from the hosts when the delays agree with
// them, and how the groups the delays find compare with the hosts.
#include "topology_parts.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace nt::analysis::topology_parts {
namespace {

// Ranks grouped by host name: ranks ascending, groups by first rank.
std::vector<std::vector<int>> host_groups(const std::vector<std::string>& hosts) {
  std::map<std::string, int> id;
  std::vector<int> label(hosts.size());
  for (std::size_t r = 0; r < hosts.size(); ++r) label[r] = id.emplace(hosts[r], static_cast<int>(id.size())).first->second;
  return groups_from_labels(label);
}

// Whether every group holds whole hosts (the ranks of a host never split over groups).
bool holds_whole_hosts(const std::vector<std::vector<int>>& groups, const std::vector<std::string>& hosts) {
  std::map<std::string, std::size_t> group_of_host;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int r : groups[g]) {
      const auto [it, inserted] = group_of_host.emplace(hosts[static_cast<std::size_t>(r)], g);
      if (!inserted && it->second != g) return false;
    }
  return true;
}

}  // namespace

// The hosts are a measured fact (network_test records each rank's machine): when the groups the
// delays find hold whole hosts (the same, or unions of them) they are the node level. With one rank
// per host the delays cannot tell node mates from switch mates, and a slow host's profile matches
// none of its switch mates' (9 groups for 8 leaves); as groups of the level below the
// switches, a slow host is an odd item that the switch clustering leaves out of its comparisons.
// Without hosts, or when the groups split hosts (sockets) or disagree with them (a wrong hosts
// file), the delays' groups.
void add_node_level(Topology& t, const std::vector<std::string>& hosts) {
  const int P = t.P;
  const auto N = static_cast<std::size_t>(P);
  if (hosts.size() == N && holds_whole_hosts(t.delay_groups, hosts)) {
    t.levels.push_back(make_level("node", host_groups(hosts), P));
    t.nodes_from_hosts = true;
  } else {
    t.levels.push_back(make_level("node", t.delay_groups, P));
  }
}

}  // namespace nt::analysis::topology_parts

namespace nt::analysis {

using topology_parts::groups_from_labels;

double adjusted_rand_index(const std::vector<int>& a, const std::vector<int>& b) {
  const std::size_t n = a.size();
  if (n < 2 || b.size() != n) return 1.0;
  std::map<std::pair<int, int>, long long> nij;
  std::map<int, long long> ai, bj;
  for (std::size_t i = 0; i < n; ++i) {
    ++nij[{a[i], b[i]}];
    ++ai[a[i]];
    ++bj[b[i]];
  }
  auto c2 = [](long long x) { return static_cast<double>(x) * static_cast<double>(x - 1) / 2.0; };
  double sij = 0, sa = 0, sb = 0;
  for (auto& [k, v] : nij) sij += c2(v);
  for (auto& [k, v] : ai) sa += c2(v);
  for (auto& [k, v] : bj) sb += c2(v);
  const double total = c2(static_cast<long long>(n));
  const double expected = sa * sb / total;
  const double maxi = 0.5 * (sa + sb);
  if (maxi - expected == 0.0) return 1.0;
  return (sij - expected) / (maxi - expected);
}

HostAgreement compare_with_hosts(const std::vector<std::vector<int>>& groups, const std::vector<std::string>& hosts) {
  HostAgreement h;
  if (hosts.empty()) {
    h.summary = "no host names known";
    return h;
  }
  h.known = true;
  const std::size_t P = hosts.size();
  std::map<std::string, int> id;
  std::vector<int> hl(P), gl(P, -1);
  for (std::size_t r = 0; r < P; ++r) {
    auto [it, inserted] = id.emplace(hosts[r], static_cast<int>(id.size()));
    hl[r] = it->second;
  }
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int r : groups[g])
      if (r >= 0 && static_cast<std::size_t>(r) < P) gl[static_cast<std::size_t>(r)] = static_cast<int>(g);
  h.host_groups = groups_from_labels(hl);
  for (const auto& g : h.host_groups) h.host_names.push_back(hosts[static_cast<std::size_t>(g.front())]);
  h.adjusted_rand = adjusted_rand_index(gl, hl);
  bool coarser = true, finer = true;
  for (const auto& g : groups) {
    std::vector<std::string> hs;
    for (int r : g) hs.push_back(hosts[static_cast<std::size_t>(r)]);
    std::sort(hs.begin(), hs.end());
    hs.erase(std::unique(hs.begin(), hs.end()), hs.end());
    if (hs.size() > 1) {
      finer = false;
      h.mismatches.push_back(fmt::format("group of ranks {} spans hosts {}", fmt::join(g, ","), fmt::join(hs, ",")));
    }
  }
  for (std::size_t k = 0; k < h.host_groups.size(); ++k) {
    std::vector<int> gs;
    for (int r : h.host_groups[k]) gs.push_back(gl[static_cast<std::size_t>(r)]);
    std::sort(gs.begin(), gs.end());
    gs.erase(std::unique(gs.begin(), gs.end()), gs.end());
    if (gs.size() > 1) {
      coarser = false;
      h.mismatches.push_back(fmt::format("host {} is split over {} groups", h.host_names[k], gs.size()));
    }
  }
  h.exact = h.mismatches.empty();
  if (h.exact) h.summary = fmt::format("the groups equal the {} hosts", h.host_groups.size());
  else if (coarser) h.summary = "the groups are unions of hosts (ranks on different hosts look alike)";
  else if (finer) h.summary = "the groups split hosts (e.g. sockets or NUMA domains look different)";
  else h.summary = "the groups and the hosts disagree";
  return h;
}

}  // namespace nt::analysis
