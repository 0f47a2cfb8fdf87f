// One uplink of a switch with several (a d-mod-k fat tree's) carries the routes from its group to
// a set R of destinations outside and, the other way, the routes from outside into the members D of
// the group at the same positions. The search names the first as the group's partial uplink (its
// cells to R) and the second as D's nodes, each receiving slowly (or the reverse). When they are
// alike (the same factor within a quarter, or the tolerance, at every length) and D is part of the
// group, they are one finding on D: the nodes the uplink serves, with both sets of cells; an added
// uplink whose cells the joined finding holds (a leaf's inside its pod's) goes.
#include <algorithm>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "anomalies/anomalies_parts.hpp"
#include "explain_parts.hpp"

namespace nt::analysis::explain_parts {

using anomaly_parts::hosts_of;

namespace {

std::size_t claim_of_finding(const std::vector<Claim>& claims, std::size_t finding) {
  for (std::size_t q = 0; q < claims.size(); ++q)
    if (claims[q].finding == finding) return q;
  return claims.size();
}

}  // namespace

void join_partial_uplinks(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                          std::size_t n_found, std::vector<Anomaly>& added, std::vector<char>& drop) {
  bool joined = false;
  for (std::size_t u = 0; u < added.size(); ++u) {
    Anomaly& up = added[u];
    const std::size_t qu = claim_of_finding(claims, n_found + u);
    if (drop[n_found + u] || qu == claims.size() || up.kind != AnomalyKind::slow_link || up.direction == "both") continue;
    const std::set<int> group(up.ranks.begin(), up.ranks.end());
    const std::string other = up.direction == "send" ? "receive" : "send";
    std::vector<std::size_t> nodes;
    std::set<int> served;
    for (std::size_t v = 0; v < added.size(); ++v) {
      const Anomaly& a = added[v];
      const std::size_t qv = claim_of_finding(claims, n_found + v);
      if (v == u || drop[n_found + v] || qv == claims.size() || a.kind != AnomalyKind::slow_node || a.direction != other ||
          !std::all_of(a.ranks.begin(), a.ranks.end(), [&](int r) { return group.count(r) != 0; }) ||
          !alike_factors(g, claims[qu], claims[qv]))
        continue;
      nodes.push_back(v);
      served.insert(a.ranks.begin(), a.ranks.end());
    }
    if (nodes.size() < 2 || served.size() >= group.size()) continue;
    // The uplink's finding becomes the nodes': their ranks, and the cells into (from) them.
    std::vector<std::string> names;
    for (std::size_t v : nodes) {
      names.push_back(text_of_ranks(added[v].ranks));
      drop[n_found + v] = 1;
      claims.erase(claims.begin() + static_cast<std::ptrdiff_t>(claim_of_finding(claims, n_found + v)));
    }
    Claim& q = claims[claim_of_finding(claims, n_found + u)];
    for (int d : served)
      for (std::size_t y = 0; y < g.P; ++y) {
        if (group.count(static_cast<int>(y))) continue;
        const auto i = other == "receive" ? y : static_cast<std::size_t>(d);
        const auto j = other == "receive" ? static_cast<std::size_t>(d) : y;
        up.pairs.emplace_back(static_cast<int>(i), static_cast<int>(j));
        q.cells.insert(g.cell(i, j));
      }
    up.ranks.assign(served.begin(), served.end());
    up.hosts = hosts_of(up.ranks, hosts);
    up.direction = "both";
    up.detail += fmt::format("; and the ranks it serves ({}), each {}s slowly {} every rank outside the group "
                             "alike: its routes {} them, the same uplink",
                             fmt::join(names, "; "), other, other == "receive" ? "from" : "to",
                             other == "receive" ? "into" : "from");
    joined = true;
  }
  if (!joined) return;
  // An added uplink whose cells another added finding now holds (a leaf's, inside its pod's) adds
  // nothing to the explanation.
  for (std::size_t u = 0; u < added.size(); ++u) {
    const std::size_t qu = claim_of_finding(claims, n_found + u);
    if (drop[n_found + u] || qu == claims.size() || claims[qu].ends) continue;
    for (std::size_t w = 0; w < added.size(); ++w) {
      const std::size_t qw = claim_of_finding(claims, n_found + w);
      if (w == u || drop[n_found + w] || qw == claims.size() || claims[qw].ends ||
          claims[qw].cells.size() <= claims[qu].cells.size() ||
          !std::includes(claims[qw].cells.begin(), claims[qw].cells.end(), claims[qu].cells.begin(),
                         claims[qu].cells.end()))
        continue;
      drop[n_found + u] = 1;
      claims.erase(claims.begin() + static_cast<std::ptrdiff_t>(qu));
      break;
    }
  }
  m = fit_model(g, claims);
}

}  // namespace nt::analysis::explain_parts
