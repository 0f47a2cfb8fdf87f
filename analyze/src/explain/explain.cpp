// The explanation of the whole matrix, checked (share/doc/analyze.md "Explanation").
//
// The levels and the findings are a model of every cell: a cell's delay is its class's delay (the
// median of the class's cells that no finding claims), times the factor of the slowest finding that
// claims it (a finding's factor: the median ratio of its cells of that class to their base). The model is then
// compared with the measured matrix, cell by cell, at every length:
//  - each slow finding's direction is read from its cells (what its ranks send, what they receive);
//  - a finding whose cells are predicted as well without it explains nothing: it is dropped;
//  - the cells the model leaves slow are searched for a fault at a level the topology has (a node
//    or a switch group, the cells it sends, receives or both); the group that explains most of them
//    becomes a finding, and the search goes on until no group explains a majority of its cells;
//  - what is still slow after that, at enough lengths, is an `unexplained` finding with its hosts;
//  - the share of cells the model predicts within the noise is stated.
// The rules are the same for every topology and fault: nothing here knows a kind of network.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/tuning.hpp"
#include "explain_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis {

namespace {

using namespace explain_parts;

// Whether the check may drop a finding that explains nothing: a node or switch group (a distance
// read as a slow group), or pairs within one node (a node's own pairs read as slow links against a
// rank-effect model). Pair findings across nodes are the route detectors' (a partial uplink, one
// direction of a torus link): their cells follow routes the classes do not hold, so a class's
// median is no judge of them.
bool droppable(const Grid& g, const Claim& q, const std::vector<Anomaly>& found) {
  if (q.ends) {
    // A lone node (alone in its switch group) has no peers in its class: no class judges it.
    for (std::size_t l = 1; l < g.t.levels.size(); ++l)
      for (std::size_t lg : lone_node_groups(g.t, l))
        if (g.t.levels[l].groups[lg] == found[q.finding].ranks) return false;
    // A group that holds another finding's ranks: the two share its cells, and the median of a
    // group with a slower member inside is no judge of the group.
    for (std::size_t f = 0; f < found.size(); ++f)
      if (f != q.finding && !found[f].ranks.empty() && ends_kind(found[f].kind) &&
          std::all_of(found[f].ranks.begin(), found[f].ranks.end(), [&](int r) { return q.in[static_cast<std::size_t>(r)] != 0; }) &&
          found[f].ranks.size() < found[q.finding].ranks.size())
        return false;
    return true;
  }
  for (auto [x, y] : found[q.finding].pairs)
    if (g.node_of(static_cast<std::size_t>(x)) != g.node_of(static_cast<std::size_t>(y))) return false;
  return true;
}

// Whether a detector's pair finding across nodes (a route detector's) is among the claims: what is
// left slow may be its routes.
bool route_claims(const Grid& g, const std::vector<Claim>& claims, const std::vector<Anomaly>& found) {
  return std::any_of(claims.begin(), claims.end(), [&](const Claim& q) {
    return q.finding < found.size() && !q.ends && !droppable(g, q, found);
  });
}

// Drops, one at a time and the weakest first, the findings that explain nothing at any length
// (drop[finding]; a detector's finding may show at fewer lengths than the check's tolerance allows):
// of two findings on the same cells each explains nothing beside the other, and one is to stay.
void drop_idle(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<Anomaly>& found,
               std::vector<char>& drop, Explanation& e) {
  for (;;) {
    const auto gain = gains(g, m, claims);
    std::size_t weakest = claims.size();
    for (std::size_t q = 0; q < claims.size(); ++q)
      if (claims[q].finding < found.size() && gain[q].first == 0 && droppable(g, claims[q], found) &&
          (weakest == claims.size() || gain[q] < gain[weakest]))
        weakest = q;
    if (weakest == claims.size()) return;
    const Anomaly& a = found[claims[weakest].finding];
    drop[claims[weakest].finding] = 1;
    e.dropped.push_back(fmt::format("{} on ranks {}", name_of(a.kind), text_of_ranks(a.ranks)));
    claims.erase(claims.begin() + static_cast<std::ptrdiff_t>(weakest));
    m = fit_model(g, claims);
  }
}

// Drops the regions the search added (drop[finding]) that the run's fastest samples do not show
// (Grid::fastest; slow_in_medians_only): a transient, whose pairs go to g.transient_pairs.
void drop_transient_regions(Grid& g, Model& m, std::vector<Claim>& claims, std::size_t n_found,
                            const std::vector<Anomaly>& added, std::vector<char>& drop) {
  if (!g.fastest) return;
  for (std::size_t a = 0; a < added.size(); ++a) {
    if (drop[n_found + a] || !slow_in_medians_only(g.c, *g.fastest, g.t, added[a])) continue;
    drop[n_found + a] = 1;
    std::erase_if(claims, [&](const Claim& q) { return q.finding == n_found + a; });
    g.transient_pairs.insert(g.transient_pairs.end(), added[a].pairs.begin(), added[a].pairs.end());
    ++g.transient_regions;
  }
  if (g.transient_regions > 0) m = fit_model(g, claims);
}

// Drops the detectors' findings whose claims `rejects` holds for (drop[finding]), each listed with
// `why`; whether any went (the model is then fitted again).
template <class Rejects>
bool drop_claims(const Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<Anomaly>& found,
                 std::vector<char>& drop, Explanation& e, const char* why, const Rejects& rejects) {
  bool any = false;
  std::erase_if(claims, [&](const Claim& q) {
    if (q.finding >= found.size() || !rejects(q)) return false;
    const Anomaly& a = found[q.finding];
    drop[q.finding] = 1;
    e.dropped.push_back(fmt::format("{} on ranks {} ({})", name_of(a.kind), text_of_ranks(a.ranks), why));
    return any = true;
  });
  if (any) m = fit_model(g, claims);
  return any;
}

// A detector's group finding of which more than overclaim_share of the cells it holds as slow are
// not: one of a group's uplinks slows half of its routes, a dragonfly's global links into a group
// some of them; the group as a whole is not slow, and the search names what is (a partial uplink,
// the routes between two sets of groups).
bool drop_overclaims(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<Anomaly>& found,
                     std::vector<char>& drop, Explanation& e) {
  return drop_claims(g, m, claims, found, drop, e, "most of its cells are not slow", [&](const Claim& q) {
    return q.ends && overclaimed_share(g, m, q) > kTuning.overclaim_share;
  });
}

// A detector's pair finding whose cells are as fast as their class at every length: their cells'
// base comes from the cells no finding claims, so a route finding's own slowness is never in it; a
// finding its cells do not show is no fault (rnd181 of the random set: six "slow links" of 2.5x
// between hosts of one leaf whose cells were every leaf's).
void drop_flat_pairs(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<Anomaly>& found,
                     std::vector<char>& drop, Explanation& e) {
  drop_claims(g, m, claims, found, drop, e, "its cells are as fast as their class",
              [&](const Claim& q) { return !q.ends && flat_claim(g, m, q); });
}

// The findings revised against the model: their directions read from the delays, the ones that
// explain nothing dropped (drop[finding]), the groups whose cells the model leaves slow added, and
// the findings those make idle dropped.
void revise(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
            std::vector<Anomaly>& found, std::vector<char>& drop, std::vector<Anomaly>& added, Explanation& e,
            bool search) {
  for (auto& q : claims) read_direction(g, m, claims, q, found[q.finding]);
  m = fit_model(g, claims);
  drop_idle(g, m, claims, found, drop, e);
  drop_flat_pairs(g, m, claims, found, drop, e);
  const bool restated = search && drop_overclaims(g, m, claims, found, drop, e);
  // Where route findings claim pairs across nodes, what is left slow may be their routes: no search,
  // but for the routes between two sets of groups where the check dropped a group's finding that
  // claimed them (the cells it left are to be named, not left to a warning).
  const bool routes = route_claims(g, claims, found);
  if (search && (!routes || restated)) search_groups(g, m, claims, hosts, found.size(), added, !routes);
  drop_idle(g, m, claims, found, drop, e);
  drop.resize(found.size() + added.size(), 0);
  merge_siblings(g, m, claims, hosts, found, added, drop);
  merge_group_nodes(g, m, claims, hosts, found, added, drop);
  join_partial_uplinks(g, m, claims, hosts, found.size(), added, drop);
  for (std::size_t a = 0; a < added.size(); ++a) {
    const auto q = std::find_if(claims.begin(), claims.end(), [&](const Claim& x) { return x.finding == found.size() + a; });
    if (q != claims.end()) score_from_factor(g, *q, added[a]);
  }
  drop_transient_regions(g, m, claims, found.size(), added, drop);
}

// The warning of cells left slow that no finding names: their share, their pairs, and why the
// check could not name them (judged: the spread within a finding's; levels_fit: the levels
// describe the distances; else pair findings claim the routes).
std::string slow_cells_warning(double slow_share, std::size_t left, bool judged, bool levels_fit) {
  return fmt::format(
      "WARNING: {:.1f} % of the cells ({} pairs at enough lengths) are slower than the levels and the findings "
      "predict, and no finding names them: {}; read the matrix (or `network_analyze compare` with a healthy run)",
      100 * slow_share, left,
      !judged ? "their spread is wider than a finding's, the levels do not describe the distances here"
      : !levels_fit ? "the levels do not describe the distances here (no tree above the nodes, as on a torus or a "
                      "dragonfly), so a slow region cannot be told from a farther one"
                    : "pair findings claim the routes they cross, which the check does not judge");
}

// The findings the check keeps (into found): the detectors' and the added ones not dropped
// (drop[finding]), in that order, then the `unexplained` rest.
void keep_findings(std::vector<Anomaly>& found, std::vector<Anomaly>& added, std::vector<char>& drop,
                   std::optional<Anomaly>& rest) {
  std::vector<Anomaly> kept;
  drop.resize(found.size() + added.size(), 0);
  for (std::size_t a = 0; a < found.size(); ++a)
    if (!drop[a]) kept.push_back(std::move(found[a]));
  for (std::size_t a = 0; a < added.size(); ++a)
    if (!drop[found.size() + a]) kept.push_back(std::move(added[a]));
  if (rest) kept.push_back(std::move(*rest));
  found = std::move(kept);
}

// The cells left slow that no finding names (leftover), but the pairs of transients: the report's
// and the regions the check left out as such (said in e.note).
std::optional<Anomaly> rest_of(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                               const std::vector<std::string>& hosts, const std::vector<std::pair<int, int>>& transients,
                               std::size_t* left, Explanation& e) {
  std::vector<std::pair<int, int>> excused = transients;
  excused.insert(excused.end(), g.transient_pairs.begin(), g.transient_pairs.end());
  if (g.transient_regions > 0)
    e.note += fmt::format("{}{} slow region(s) of {} pairs left out: slow in the medians only, their fastest samples "
                          "(the min file) are not: a transient while their samples ran, not a fault; a fault slows "
                          "every sample",
                          e.note.empty() ? "" : "; ", g.transient_regions, g.transient_pairs.size());
  return leftover(g, slow_cells, hosts, excused, left);
}

}  // namespace

std::string text_of_ranks(const std::vector<int>& r) { return text::rank_runs_text(r); }

Explanation explain_and_check(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                              const AnomalyOptions& opt, std::vector<Anomaly>& found, bool change,
                              const std::vector<std::pair<int, int>>& transients, const Cube* fastest) {
  Explanation e;
  if (c.P < 3 || c.count() == 0 || t.levels.empty()) return e;
  const auto cells = static_cast<std::uint64_t>(c.P) * static_cast<std::uint64_t>(c.P) * c.count();
  if (cells > opt.explain_max_cells) {
    e.note = fmt::format("the explanation was not checked: {} cells, more than {}", cells, opt.explain_max_cells);
    return e;
  }
  Grid g = make_grid(c, t, opt);
  g.fastest = fastest;
  std::vector<Claim> claims;
  for (std::size_t a = 0; a < found.size(); ++a)
    if (explains_delays(found[a].kind)) claims.push_back(claim_of(g, found[a], a));
  Model m = fit_model(g, claims);
  e.levels_share = set_tolerances(g, m, claims);
  if (change && claim_slow_insides(g, m, claims)) {
    m = fit_model(g, claims);
    e.levels_share = set_tolerances(g, m, claims);
  }
  // Where the levels do not describe the distances (a level the clustering missed), a group left
  // slow may be a distance: the check then reads the directions, drops idle findings and merges
  // siblings, but adds none. With no tree above the nodes, the blocks of node pairs hold the
  // distances (block_bases): those the check judges.
  const bool levels_fit = g.block_levels > 0 || e.levels_share >= opt.explain_levels_fit;
  std::vector<char> drop(found.size(), 0);
  std::vector<Anomaly> added;
  std::vector<std::vector<char>> slow_cells;
  // A tolerance wider than the detectors' line is the spread of distances the levels leave, not
  // noise (random corpus rnd146: a dragonfly without levels, 28x and 76x, and the slow cable of a
  // host, 3.7x, went as explaining nothing): the tolerance is capped there, no group is searched
  // and no region added, and the report says so.
  const double widest = g.tol.empty() ? 0.0 : *std::max_element(g.tol.begin(), g.tol.end());
  const bool judged = widest <= std::log(opt.explain_judge_max);
  if (!judged) {
    e.note = fmt::format("the spread of the delays the levels leave is {:.3g}x, wider than a finding's {:.3g}x: the "
                         "explanation is checked within {:.3g}x, and no slow region is searched for",
                         std::exp(widest), opt.explain_judge_max, opt.explain_judge_max);
    for (double& x : g.tol) x = std::min(x, std::log(opt.explain_judge_max));
  }
  if (change) revise(g, m, claims, hosts, found, drop, added, e, levels_fit && judged);
  // Every claim's residual once: the slow cells left, and the share explained.
  const auto whole = count_regions(g, m, claims, slow_cells, false);
  std::size_t left = 0;
  auto rest = rest_of(g, slow_cells, hosts, transients, &left, e);
  const bool could_add = change && levels_fit && !route_claims(g, claims, found) && judged;
  if (!could_add) rest.reset();
  e.changed_findings = change;
  // The share of cells within the tolerance of their prediction.
  const auto usable = static_cast<double>(whole.cells);
  e.checked = true;
  e.cells = whole.cells;
  e.explained_share = whole.cells ? static_cast<double>(whole.within) / usable : kNaN;
  e.slow_share = whole.cells ? static_cast<double>(whole.slower) / usable : kNaN;
  for (double x : g.tol) e.tolerance.push_back(std::exp(x));
  e.unexplained_pairs = left;
  // Never silent: cells left slow that the check could not name (it adds no region where the levels
  // do not describe the distances) are said in a warning, with what they are (a healthy torus's
  // hops, or faults no finding names: the report cannot tell the two apart there).
  // Pairs slow at enough lengths, as many as an `unexplained` finding needs: scattered slow cells
  // of a noisy run (the demo: 2.8 % of the cells of 4 oversubscribed ranks, no pair slow at enough
  // lengths) are noise, not a region.
  if (change && !could_add && e.slow_share >= opt.explain_warn_share && left >= opt.explain_min_cells)
    e.warning = slow_cells_warning(e.slow_share, left, judged, levels_fit);
  e.added = static_cast<std::size_t>(std::count(drop.begin() + static_cast<std::ptrdiff_t>(found.size()), drop.end(), 0)) +
            (rest ? 1 : 0);
  keep_findings(found, added, drop, rest);
  return e;
}

}  // namespace nt::analysis
