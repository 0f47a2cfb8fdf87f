// The search of the explanation check (explain.cpp): the cells the model leaves slow, counted per
// region of the levels; the group that explains most of them named, or a group's uplink that
// carries part of its routes, until none is left; sibling groups merged; the rest as one
// `unexplained` finding.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

#include <fmt/format.h>

#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/tuning.hpp"
#include "anomalies/anomalies_parts.hpp"
#include "explain_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis::explain_parts {

using anomaly_parts::hosts_of;

namespace {

// A place the search tries: the cells group `group` of level `level` sends (to ranks outside it) or
// receives.
struct Region {
  std::size_t level = 0, group = 0;
  bool send = true;
};

}  // namespace

namespace {

std::size_t region_index(const RegionCounts& rc, std::size_t level, std::size_t group, bool send) {
  return rc.offset[level] + 2 * group + (send ? 0 : 1);
}

}  // namespace

RegionCounts count_regions(const Grid& g, const Model& m, const std::vector<Claim>& claims,
                           std::vector<std::vector<char>>& slow_cells, bool ends_only, const std::vector<char>* named) {
  RegionCounts rc;
  std::size_t n = 0;
  for (const auto& lev : g.t.levels) {
    rc.offset.push_back(n);
    n += 2 * lev.groups.size();
  }
  rc.classes = static_cast<std::size_t>(g.t.class_count());
  rc.usable.assign(g.K, std::vector<std::uint32_t>(n * rc.classes, 0));
  rc.slow.assign(g.K, std::vector<std::uint32_t>(n * rc.classes, 0));
  slow_cells.assign(g.K, std::vector<char>(g.P * g.P, 0));
  for (std::size_t k = 0; k < g.K; ++k)
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (i == j || std::isnan(g.logv[k][x])) continue;
        const double r = residual(g, m, claims, k, i, j, static_cast<std::size_t>(-1), ends_only);
        const bool slow = r > g.tol[k] && !(named && (*named)[x]);
        slow_cells[k][x] = slow;
        ++rc.cells;
        rc.within += std::fabs(r) <= g.tol[k];
        rc.slower += slow;
        for (std::size_t l = 0; l < g.t.levels.size(); ++l) {
          const auto& go = g.t.levels[l].group_of;
          if (go[i] == go[j]) break;  // same group here, and at every coarser level
          const auto c = static_cast<std::size_t>(g.cls[x]);
          const auto si = region_index(rc, l, static_cast<std::size_t>(go[i]), true) * rc.classes + c;
          const auto rj = region_index(rc, l, static_cast<std::size_t>(go[j]), false) * rc.classes + c;
          ++rc.usable[k][si];
          ++rc.usable[k][rj];
          rc.slow[k][si] += slow;
          rc.slow[k][rj] += slow;
        }
      }
  return rc;
}

namespace {

// The best region to name: its cells slow at enough lengths but overclaim_share of them at most
// (the rule a detector's group finding is held to: a group is slow on all of its routes, a link
// into it on some), the one that covers the most slow cells. Both directions of a group when both
// qualify.
struct Pick {
  bool found = false;
  std::size_t level = 0, group = 0;
  bool send = false, recv = false;
  std::vector<std::size_t> lengths;  // length indices where it shows
};

Pick best_region(const Grid& g, const RegionCounts& rc, const std::vector<std::vector<char>>& tried) {
  Pick best;
  std::size_t best_cover = 0;
  for (std::size_t l = 0; l < g.t.levels.size(); ++l)
    for (std::size_t grp = 0; grp < g.t.levels[l].groups.size(); ++grp) {
      if (tried[l][grp]) continue;
      bool ok[2] = {false, false};
      std::size_t cover = 0;
      std::vector<std::size_t> lens;
      for (int d = 0; d < 2; ++d) {
        const auto q = region_index(rc, l, grp, d == 0) * rc.classes;
        std::vector<std::size_t> at;
        std::size_t c = 0;
        for (std::size_t k = 0; k < g.K; ++k) {
          std::size_t u = 0, sl = 0;
          for (std::size_t cl = 0; cl < rc.classes; ++cl) u += rc.usable[k][q + cl], sl += rc.slow[k][q + cl];
          if (u >= 2 && static_cast<double>(u - sl) <= kTuning.overclaim_share * static_cast<double>(u)) {
            at.push_back(k);
            c += sl;
          }
        }
        if (at.size() >= g.need) {
          ok[d] = true;
          cover += c;
          if (at.size() > lens.size()) lens = at;
        }
      }
      if ((ok[0] || ok[1]) && cover > best_cover) {
        best_cover = cover;
        best = {true, l, grp, ok[0], ok[1], lens};
      }
    }
  return best;
}

const char* direction_words(const std::string& d) {
  return d == "send" ? "sends" : d == "receive" ? "receives" : "sends and receives";
}

Anomaly region_finding(const Grid& g, const Pick& p, const std::vector<std::string>& hosts) {
  Anomaly a;
  const auto& lev = g.t.levels[p.level];
  a.kind = p.level == 0 ? AnomalyKind::slow_node : AnomalyKind::slow_switch;
  a.ranks = lev.groups[p.group];
  a.hosts = hosts_of(a.ranks, hosts);
  a.direction = p.send && p.recv ? "both" : p.send ? "send" : "receive";
  for (std::size_t k : p.lengths) a.lengths.push_back(g.c.lengths[k]);
  a.detail = fmt::format("{} {} {} slowly: most of its cells to and from the other {}s are slower than the "
                         "levels and the other findings predict, at {} of {} lengths",
                         p.level == 0 ? (g.t.node_level_identified ? "node group" : "group") : lev.name, p.group,
                         direction_words(a.direction), p.level == 0 ? "node" : lev.name, p.lengths.size(), g.K);
  return a;
}

}  // namespace

// The score of a finding the check added: its factor at the lengths where it shows (median).
void score_from_factor(const Grid& g, const Claim& q, Anomaly& a) {
  std::vector<double> f;
  for (std::size_t k = 0; k < g.K; ++k)
    if (std::find(a.lengths.begin(), a.lengths.end(), g.c.lengths[k]) != a.lengths.end())
      f.push_back(*std::max_element(q.factor[k].begin(), q.factor[k].end()));
  a.score = f.empty() ? 1.0 : std::exp(finite_median(f));
  a.detail += fmt::format(" ({:.2f}x)", a.score);
  if (!a.hosts.empty()) a.detail += " on " + text::hosts_text(a.hosts);
}

// Whether slow pairs form a region: the senders that send at least half as many of them as the
// most and the receivers likewise, with the pairs between them filling a quarter of that block or
// more. A fault slows a block of routes (a node's row, a switch's pairs, one half to the other);
// transients of a noisy run scatter, a pair or two per rank, and fill no block.
namespace {
bool dense_block(std::size_t P, const std::vector<std::pair<int, int>>& pairs) {
  std::vector<std::size_t> out(P, 0), in(P, 0);
  for (const auto& [i, j] : pairs) {
    ++out[static_cast<std::size_t>(i)];
    ++in[static_cast<std::size_t>(j)];
  }
  const std::size_t top_out = *std::max_element(out.begin(), out.end());
  const std::size_t top_in = *std::max_element(in.begin(), in.end());
  std::size_t senders = 0, receivers = 0, inside = 0;
  for (std::size_t r = 0; r < P; ++r) {
    senders += 2 * out[r] >= top_out ? 1 : 0;
    receivers += 2 * in[r] >= top_in ? 1 : 0;
  }
  for (const auto& [i, j] : pairs)
    inside += 2 * out[static_cast<std::size_t>(i)] >= top_out && 2 * in[static_cast<std::size_t>(j)] >= top_in ? 1 : 0;
  return static_cast<double>(inside) >= kTuning.region_fill * static_cast<double>(senders * receivers);
}
}  // namespace

// The cells left slow at enough lengths after the search, but the pairs left out as transients
// (either direction: a slow link's pair is listed once): one `unexplained` finding, its pairs (the
// first max_links) and the ranks most of them touch.
std::optional<Anomaly> leftover(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                                const std::vector<std::string>& hosts,
                                const std::vector<std::pair<int, int>>& transients, std::size_t* count) {
  std::vector<std::pair<int, int>> pairs;
  std::vector<std::size_t> touch(g.P, 0);
  std::set<std::pair<int, int>> excused;
  for (const auto& [i, j] : transients) excused.insert({std::min(i, j), std::max(i, j)});
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      if (excused.count({static_cast<int>(std::min(i, j)), static_cast<int>(std::max(i, j))})) continue;
      std::size_t n = 0;
      for (std::size_t k = 0; k < g.K; ++k) n += slow_cells[k][g.cell(i, j)];
      if (i == j || n < g.need) continue;
      pairs.emplace_back(static_cast<int>(i), static_cast<int>(j));
      ++touch[i];
      ++touch[j];
    }
  *count = pairs.size();
  const std::size_t cells = g.P * (g.P - 1);
  if (pairs.size() < std::max<std::size_t>(g.opt.explain_min_cells,
                                           static_cast<std::size_t>(g.opt.explain_min_share * static_cast<double>(cells))))
    return std::nullopt;
  if (!dense_block(g.P, pairs)) return std::nullopt;
  Anomaly a;
  a.kind = AnomalyKind::unexplained;
  const std::size_t top = *std::max_element(touch.begin(), touch.end());
  for (std::size_t r = 0; r < g.P; ++r)
    if (2 * touch[r] > top) a.ranks.push_back(static_cast<int>(r));
  a.hosts = hosts_of(a.ranks, hosts);
  a.score = 1.0;
  for (std::size_t k = 0; k < g.K; ++k) a.lengths.push_back(g.c.lengths[k]);
  a.detail = fmt::format("{} rank pairs ({:.1f} % of the matrix) are slower than the levels and the findings predict "
                         "and no finding at a level explains them; most are on ranks {}",
                         pairs.size(), 100.0 * static_cast<double>(pairs.size()) / static_cast<double>(cells),
                         text_of_ranks(a.ranks));
  if (!a.hosts.empty()) a.detail += fmt::format(" (hosts {})", text::hosts_text(a.hosts));
  if (pairs.size() > g.opt.max_links) pairs.resize(g.opt.max_links);
  a.pairs = std::move(pairs);
  return a;
}

namespace {

// A group's uplink that carries part of its routes (a switch with several uplinks sends each
// destination's routes over one): the group is slow to a set R of the ranks outside it and not to
// the others. Per direction, R holds the ranks outside that every member's cells to (or from) are
// slow at enough lengths; a block is two ranks or more of R, short of all the ranks outside (all of
// them is the group's own region), with no other slow cell of the group's.
struct UplinkBlock {
  std::size_t level = 0, group = 0, cells = 0;
  std::vector<int> to, from;  // R of the cells the group sends, and of those it receives
};

std::vector<int> slow_partners(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                               const std::vector<int>& members, const std::vector<int>& go, int grp, bool send,
                               std::size_t& stray) {
  std::vector<int> far;
  for (std::size_t y = 0; y < g.P; ++y) {
    if (go[y] == grp) continue;
    std::size_t slow = 0;
    for (int i : members) {
      const std::size_t x = send ? g.cell(static_cast<std::size_t>(i), y) : g.cell(y, static_cast<std::size_t>(i));
      std::size_t n = 0;
      for (std::size_t k = 0; k < g.K; ++k) n += slow_cells[k][x];
      slow += n >= g.need;
    }
    if (slow == members.size()) far.push_back(static_cast<int>(y));
    else stray += slow;
  }
  return far;
}

std::optional<UplinkBlock> uplink_block(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                                        const std::vector<std::vector<char>>& tried) {
  std::optional<UplinkBlock> best;
  for (std::size_t l = 1; l < g.t.levels.size(); ++l) {
    const auto& go = g.t.levels[l].group_of;
    for (std::size_t grp = 0; grp < g.t.levels[l].groups.size(); ++grp) {
      if (tried[l][grp]) continue;
      const auto& members = g.t.levels[l].groups[grp];
      const std::size_t outside = g.P - members.size();
      std::size_t stray = 0;
      UplinkBlock b{l, grp, 0, slow_partners(g, slow_cells, members, go, static_cast<int>(grp), true, stray),
                    slow_partners(g, slow_cells, members, go, static_cast<int>(grp), false, stray)};
      for (auto* side : {&b.to, &b.from})
        if (side->size() < 2 || side->size() >= outside) side->clear();
      b.cells = (b.to.size() + b.from.size()) * members.size();
      if (b.cells == 0 || static_cast<double>(stray) > kTuning.stray_share * static_cast<double>(b.cells)) continue;
      if (!best || b.cells > best->cells) best = std::move(b);
    }
  }
  return best;
}

Anomaly uplink_finding(const Grid& g, const UplinkBlock& b, const std::vector<std::string>& hosts) {
  Anomaly a;
  const auto& lev = g.t.levels[b.level];
  a.kind = AnomalyKind::slow_link;
  a.ranks = lev.groups[b.group];
  a.hosts = hosts_of(a.ranks, hosts);
  a.direction = !b.to.empty() && !b.from.empty() ? "both" : !b.to.empty() ? "send" : "receive";
  for (int i : a.ranks) {
    for (int y : b.to) a.pairs.emplace_back(i, y);
    for (int y : b.from) a.pairs.emplace_back(y, i);
  }
  for (std::size_t k = 0; k < g.K; ++k) a.lengths.push_back(g.c.lengths[k]);
  a.detail = fmt::format("slow uplink of {} group {}, part of its routes: it {} slowly {} {} of the {} ranks outside "
                         "it, and no other: one of the group's uplinks, the one those routes take",
                         lev.name, b.group, direction_words(a.direction), b.to.empty() ? "from" : "to",
                         std::max(b.to.size(), b.from.size()), g.P - a.ranks.size());
  return a;
}

}  // namespace

// Names the groups of a level whose cells the model leaves slow, the one that covers most first,
// until none is left (at most explain_max_added). groups false: the routes between two sets of
// groups only (rectangles), no group and no partial uplink.
void search_groups(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                   std::size_t n_found, std::vector<Anomaly>& added, bool groups) {
  std::vector<std::vector<char>> tried, slow_cells;
  for (const auto& lev : g.t.levels) tried.emplace_back(lev.groups.size(), 0);
  // A group that holds or is held by a detector's slow group is that finding's to explain (its
  // factor is a median over hosts that differ), not a new fault.
  for (const auto& q : claims) {
    if (!q.ends || q.finding >= n_found) continue;
    for (std::size_t l = 0; l < g.t.levels.size(); ++l)
      for (std::size_t grp = 0; grp < g.t.levels[l].groups.size(); ++grp)
        for (int r : g.t.levels[l].groups[grp])
          if (q.in[static_cast<std::size_t>(r)]) tried[l][grp] = 1;
  }
  // The cells of the pair findings, the detectors' and those the search names (ends_only leaves them
  // slow): explained, neither a region of their own nor strays of one.
  std::vector<char> named(g.P * g.P, 0);
  for (const auto& q : claims)
    if (!q.ends && q.finding < n_found)
      for (std::uint64_t x : q.cells) named[x] = 1;
  for (std::size_t round = 0; round < g.opt.explain_max_added; ++round) {
    const auto rc = count_regions(g, m, claims, slow_cells, true, &named);
    const Pick p = groups ? best_region(g, rc, tried) : Pick{};
    if (!p.found) {
      // A group's partial uplink, or the routes between two sets of groups where they cover more.
      const auto b = groups ? uplink_block(g, slow_cells, tried) : std::nullopt;
      const auto r = slow_rectangle(g, m, slow_cells, named);
      if (!r && !b) break;
      if (r && (!b || r->cells > b->cells)) {
        added.push_back(rectangle_finding(g, *r, hosts));
      } else {
        tried[b->level][b->group] = 1;
        added.push_back(uplink_finding(g, *b, hosts));
      }
      for (auto [i, j] : added.back().pairs) named[g.cell(static_cast<std::size_t>(i), static_cast<std::size_t>(j))] = 1;
      claims.push_back(claim_of(g, added.back(), n_found + added.size() - 1));
      m = fit_model(g, claims);
      continue;
    }
    tried[p.level][p.group] = 1;
    added.push_back(region_finding(g, p, hosts));
    claims.push_back(claim_of(g, added.back(), n_found + added.size() - 1));
    claims.back().send = p.send;
    claims.back().recv = p.recv;
    m = fit_model(g, claims);
  }
}

namespace {

// Whether two claims' factors (log) at length k are apart: further than alike_factor_share of the
// larger, and than the tolerance.
bool apart_at(const Grid& g, std::size_t k, double fa, double fb) {
  return std::fabs(fa - fb) > std::max(g.tol[k], kTuning.alike_factor_share * std::max(fa, fb));
}

// The finding of claim index f: a detector's (found), else one the check added.
Anomaly& finding_of(std::vector<Anomaly>& found, std::vector<Anomaly>& added, std::size_t f) {
  return f < found.size() ? found[f] : added[f - found.size()];
}

}  // namespace

bool alike_factors(const Grid& g, const Claim& a, const Claim& b) {
  for (std::size_t k = 0; k < g.K; ++k) {
    const double fa = *std::max_element(a.factor[k].begin(), a.factor[k].end());
    const double fb = *std::max_element(b.factor[k].begin(), b.factor[k].end());
    if (apart_at(g, k, fa, fb)) return false;
  }
  return true;
}

namespace {

// Whether two slow groups are one fault of a group the levels lack (two leaves of a slow pod, where
// the pod is no level): the same direction, the same factor within a quarter (or the tolerance) at
// every length, and the cells between them as fast as their class.
bool siblings(const Grid& g, const Model& m, const Claim& a, const Claim& b) {
  if (a.send != b.send || a.recv != b.recv || !alike_factors(g, a, b)) return false;
  for (std::size_t k = 0; k < g.K; ++k) {
    std::vector<double> between;
    for (std::size_t i = 0; i < g.P; ++i)
      for (std::size_t j = 0; j < g.P; ++j) {
        const std::size_t x = g.cell(i, j);
        if (((a.in[i] && b.in[j]) || (b.in[i] && a.in[j])) && !std::isnan(g.logv[k][x]))
          between.push_back(lift(g, m, k, x));
      }
    if (between.empty() || median_inplace(between) > g.tol[k]) return false;
  }
  return true;
}

}  // namespace

// Slow switch findings that are siblings (above) become one finding on the union of their ranks.
void merge_siblings(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                    std::vector<Anomaly>& found, std::vector<Anomaly>& added, std::vector<char>& drop) {
  auto finding = [&](std::size_t f) -> Anomaly& { return finding_of(found, added, f); };
  bool merged = false;
  for (std::size_t a = 0; a < claims.size(); ++a) {
    if (!claims[a].ends || finding(claims[a].finding).kind != AnomalyKind::slow_switch) continue;
    for (std::size_t b = a + 1; b < claims.size();) {
      if (!claims[b].ends || finding(claims[b].finding).kind != AnomalyKind::slow_switch ||
          !siblings(g, m, claims[a], claims[b])) {
        ++b;
        continue;
      }
      Anomaly& keep = finding(claims[a].finding);
      const Anomaly& gone = finding(claims[b].finding);
      keep.ranks.insert(keep.ranks.end(), gone.ranks.begin(), gone.ranks.end());
      std::sort(keep.ranks.begin(), keep.ranks.end());
      keep.hosts = hosts_of(keep.ranks, hosts);
      keep.detail += fmt::format("; with ranks {}, as slow and fast to them: one group the levels above do not show",
                                 text_of_ranks(gone.ranks));
      for (std::size_t r = 0; r < g.P; ++r) claims[a].in[r] = claims[a].in[r] || claims[b].in[r];
      drop[claims[b].finding] = 1;
      claims.erase(claims.begin() + static_cast<std::ptrdiff_t>(b));
      merged = true;
    }
  }
  if (merged) m = fit_model(g, claims);
}

namespace {

// Whether two node claims slow the pairs that leave their switch group alike: their factors in
// every class above the group within a quarter (or the tolerance) at every length. The pairs
// between the two nodes cross both of their links, so the classes inside say nothing.
bool alike_outside(const Grid& g, const Claim& a, const Claim& b) {
  bool any = false;
  for (std::size_t k = 0; k < g.K; ++k)
    for (std::size_t c = 2; c < a.factor[k].size() && c < b.factor[k].size(); ++c) {
      const double fa = a.factor[k][c], fb = b.factor[k][c];
      if (!std::isfinite(fa) || !std::isfinite(fb)) continue;
      any = true;
      if (apart_at(g, k, fa, fb)) return false;
    }
  return any;
}

}  // namespace

// Slow node findings on every node of one first-level switch group, two nodes or more, the same
// direction and alike factors, become one slow_switch finding on the group: a switch slows all of
// its nodes alike (by its factor at least), cables slow their nodes each by their own. Where the
// switch's effect is under the group detector's line (a dragonfly's routers differ by their place),
// the node detector names its nodes one by one.
void merge_group_nodes(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                       std::vector<Anomaly>& found, std::vector<Anomaly>& added, std::vector<char>& drop) {
  if (g.t.levels.size() < 2) return;
  auto finding = [&](std::size_t f) -> Anomaly& { return finding_of(found, added, f); };
  const auto& nodes = g.t.levels[0];
  const auto& groups = g.t.levels[1];
  bool merged = false;
  for (std::size_t G = 0; G < groups.groups.size(); ++G) {
    std::set<int> members;
    for (int r : groups.groups[G]) members.insert(nodes.group_of[static_cast<std::size_t>(r)]);
    if (members.size() < 2) continue;
    std::vector<std::size_t> mine;
    std::set<int> covered;
    for (std::size_t q = 0; q < claims.size(); ++q) {
      const Anomaly& a = finding(claims[q].finding);
      if (!claims[q].ends || a.kind != AnomalyKind::slow_node || a.ranks.empty()) continue;
      const int n = nodes.group_of[static_cast<std::size_t>(a.ranks.front())];
      if (!members.count(n) || groups.group_of[static_cast<std::size_t>(a.ranks.front())] != static_cast<int>(G)) continue;
      mine.push_back(q);
      covered.insert(n);
    }
    if (covered != members || mine.size() != members.size()) continue;
    const Claim& first = claims[mine.front()];
    if (!std::all_of(mine.begin(), mine.end(), [&](std::size_t q) {
          return claims[q].send == first.send && claims[q].recv == first.recv && alike_outside(g, first, claims[q]);
        }))
      continue;
    Anomaly& keep = finding(first.finding);
    keep.kind = AnomalyKind::slow_switch;
    keep.ranks = groups.groups[G];
    std::sort(keep.ranks.begin(), keep.ranks.end());
    keep.hosts = hosts_of(keep.ranks, hosts);
    keep.detail = fmt::format("every node of {} group {} is slow alike ({:.2f}x): a switch slows all of its nodes by its "
                              "factor, a cable only its own; ",
                              groups.name, G, keep.score) + keep.detail;
    for (std::size_t i = 1; i < mine.size(); ++i) drop[claims[mine[i]].finding] = 1;
    const std::size_t index = first.finding;
    const bool send = first.send, recv = first.recv;
    std::vector<Claim> kept;
    for (std::size_t q = 0; q < claims.size(); ++q)
      if (std::find(mine.begin(), mine.end(), q) == mine.end()) kept.push_back(std::move(claims[q]));
    kept.push_back(claim_of(g, keep, index));
    kept.back().send = send;
    kept.back().recv = recv;
    kept.back().inner = true;  // the pairs between its nodes cross two of its slow ports
    claims = std::move(kept);
    merged = true;
  }
  if (merged) m = fit_model(g, claims);
}

}  // namespace nt::analysis::explain_parts
