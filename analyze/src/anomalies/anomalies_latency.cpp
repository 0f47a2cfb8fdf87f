// Slow links of a direct network (a torus) read from latency: the time a link adds to every route
// across it whatever the length, where its bandwidth is fine and the time per byte
// (anomalies_slopes.cpp) cannot show it. A node pair's latency is its delay at the shortest length
// less that length's share of its time per byte. A node on a shortest route splits the route into
// two legs whose latencies add up to the route's plus one message's overhead c; so on a healthy
// network no route is slower than its fastest detour through a third node, less c. A route that
// is slower than that by min_ratio crosses a link that adds time and that the detour avoids. The
// routes of one such link add the same time (clustered by it, connected); of the nodes on every one
// of them (through which a route is as long as itself), the link is the hop that adds the time.
#include "node_delays.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {

namespace {

// The detours are N^3 sums: at most so many, else no pass (a cost bound).
constexpr std::size_t kMaxDetourWork = std::size_t{1} << 30;

struct Latencies {
  std::size_t N;
  std::vector<double> lat;     // per node pair, NaN where unknown
  std::vector<double> detour;  // per node pair, its fastest route through a third node (two legs)
  double overhead = 0.0;    // c: a detour's two legs count it twice
  double tol = 0.0;         // a route's share within which a detour is as long as the route
  double at(int a, int b) const { return lat[static_cast<std::size_t>(a) * N + static_cast<std::size_t>(b)]; }
  // Whether node m is on the route a -> b: an end, or the route through m as long as it (a detour
  // around an added latency is shorter, another one longer).
  bool on(int m, int a, int b) const {
    return m == a || m == b || std::abs(at(a, m) + at(m, b) - overhead - at(a, b)) <= at(a, b) * tol;
  }
};

// The nodes on every route of a cluster, ordered from its first route's sender.
std::vector<int> on_every_route(const Latencies& L, const std::vector<SlowPair>& c) {
  std::vector<int> ends;
  for (std::size_t m = 0; m < L.N; ++m) {
    const auto x = static_cast<int>(m);
    if (std::all_of(c.begin(), c.end(), [&](const SlowPair& p) { return L.on(x, p.a, p.b); })) ends.push_back(x);
  }
  const int s = c.front().a;
  std::sort(ends.begin(), ends.end(), [&](int x, int y) { return (x == s ? 0.0 : L.at(s, x)) < (y == s ? 0.0 : L.at(s, y)); });
  return ends;
}

// Of the nodes on every route, the hop that adds the time: the one whose own latency (either way)
// is above a typical hop's by hop_share of the time added or more. Two such hops meeting at one node are
// that node's (a router slow on all of its links); none, or more, blame nothing (a detour as long
// as a slow route by chance puts nodes off the route on it).
struct Culprit {
  std::vector<int> nodes;
  bool node = false;
};
Culprit culprit(const Latencies& L, const std::vector<int>& chain, double added, double hop) {
  std::vector<std::size_t> slow;
  for (std::size_t i = 0; i + 1 < chain.size(); ++i)
    if (std::fmax(L.at(chain[i], chain[i + 1]), L.at(chain[i + 1], chain[i])) - hop >= kTuning.hop_share * added) slow.push_back(i);
  if (slow.size() == 1) return {{chain[slow[0]], chain[slow[0] + 1]}};
  if (slow.size() == 2 && slow[1] == slow[0] + 1) return {{chain[slow[1]]}, true};
  return {};
}

// A culprit and the routes it slows.
struct Blame {
  Culprit who;
  std::vector<SlowPair> routes;
};

// Each connected part of alike routes blamed on its culprit, the parts of one culprit together
// (the two directions of a link may add unalike times); then the slow routes of no such part that
// run through a culprit (through both ends of a link), as a straight route whose detour is longer.
std::vector<Blame> blame(const Latencies& L, const std::vector<std::vector<SlowPair>>& parts,
                         const std::vector<SlowPair>& slow, double hop) {
  std::vector<Blame> out;
  std::set<std::pair<int, int>> taken;
  for (const auto& c : parts) {
    const auto chain = on_every_route(L, c);
    std::vector<double> e;
    for (const auto& p : c) e.push_back(std::exp(p.ratio));
    const double added = finite_median(e);
    // One node inside every route and nothing else in common: routes through a router.
    const bool inside = chain.size() == 1 && std::none_of(c.begin(), c.end(), [&](const SlowPair& p) {
      return p.a == chain.front() || p.b == chain.front();
    });
    Culprit who = inside ? Culprit{chain, true} : chain.size() < 2 ? Culprit{} : culprit(L, chain, added, hop);
    if (who.nodes.empty()) continue;
    std::sort(who.nodes.begin(), who.nodes.end());
    auto it = std::find_if(out.begin(), out.end(), [&](const Blame& b) { return b.who.nodes == who.nodes; });
    if (it == out.end()) it = out.insert(out.end(), Blame{who, {}});
    it->routes.insert(it->routes.end(), c.begin(), c.end());
    for (const auto& p : c) taken.emplace(p.a, p.b);
    // A link's own pair, each way it adds the time (no detour is as short: not among the slow).
    if (who.node) continue;
    for (const auto& [x, y] : {std::pair{who.nodes[0], who.nodes[1]}, std::pair{who.nodes[1], who.nodes[0]}})
      if (L.at(x, y) - hop >= kTuning.hop_share * added && taken.emplace(x, y).second) it->routes.push_back({x, y, std::log(L.at(x, y) - hop)});
  }
  for (const auto& p : slow) {
    if (taken.count({p.a, p.b})) continue;
    for (auto& b : out)
      if (std::all_of(b.who.nodes.begin(), b.who.nodes.end(), [&](int n) { return L.on(n, p.a, p.b); })) {
        b.routes.push_back(p);
        break;
      }
  }
  return out;
}

Anomaly latency_finding(const AnomalyScan& scan, const Latencies& L, const Culprit& who,
                        const std::vector<SlowPair>& c, const std::vector<double>& ratio, double added) {
  const auto& nodes = scan.topo.levels.front();
  // One way when every route meets the ends in the same order: the sender named first.
  std::vector<int> ends = who.nodes;
  const auto forward = [&](const SlowPair& p) { return p.a == ends.front() || (p.a != ends.back() && L.on(ends.front(), p.a, ends.back())); };
  const auto ahead = std::count_if(c.begin(), c.end(), forward);
  const bool both = who.node || (ahead > 0 && static_cast<std::size_t>(ahead) < c.size());
  if (ahead == 0) std::reverse(ends.begin(), ends.end());
  Anomaly f;
  f.kind = who.node ? AnomalyKind::slow_node : AnomalyKind::slow_link;
  for (int n : ends)
    for (int r : nodes.groups[static_cast<std::size_t>(n)]) f.ranks.push_back(r);
  std::sort(f.ranks.begin(), f.ranks.end());
  f.hosts = hosts_of(f.ranks, scan.hosts);
  f.direction = both ? "both" : "send";
  for (const auto& p : c)
    for (int x : nodes.groups[static_cast<std::size_t>(p.a)])
      for (int y : nodes.groups[static_cast<std::size_t>(p.b)]) f.pairs.emplace_back(x, y);
  f.score = std::exp(finite_median(ratio));
  f.lengths.assign(scan.cube.lengths.begin(), scan.cube.lengths.end());
  const std::string word = scan.topo.node_level_identified ? "node group" : "group";
  const auto name = [&](std::size_t i0, std::size_t i1) {
    std::vector<int> side(ends.begin() + static_cast<std::ptrdiff_t>(i0), ends.begin() + static_cast<std::ptrdiff_t>(i1));
    return side.size() == 1 ? fmt::format("{} {}", word, side.front()) : fmt::format("{}s {} (alike)", word, fmt::join(side, ", "));
  };
  const std::string what = who.node ? fmt::format("slow {} {}, every link of it", word, ends.front())
                                    : fmt::format("slow link between {} and {}, {}", name(0, ends.size() - 1),
                                                  name(1, ends.size()), both ? "both directions" : "one way (the first sends)");
  f.detail = fmt::format(
      "{}: {} node pairs take {:.2f}x the latency of their fastest detour through a third node, each {:.3g} us more, "
      "alike, and every one of them runs through {}: it adds latency to every route across it (a direct network, "
      "such as a torus)",
      what, c.size(), f.score, added * 1e6, who.node ? "it" : "these");
  return f;
}

// The latency of each node pair, its fastest detour through a third node, and the overhead c.
bool latencies(const AnomalyScan& scan, const NodeDelays& d, std::size_t k0, std::size_t k1, Latencies& L) {
  const std::size_t N = L.N;
  const auto span = static_cast<double>(scan.cube.lengths[k1] - scan.cube.lengths[k0]);
  const auto len0 = static_cast<double>(scan.cube.lengths[k0]);
  L.lat.assign(N * N, kNaN);
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = 0; b < N; ++b) {
      const auto x = static_cast<int>(a), y = static_cast<int>(b);
      const double per_byte = std::max(0.0, (d.at(k1, x, y) - d.at(k0, x, y)) / span);
      const double l = d.at(k0, x, y) - len0 * per_byte;
      if (a != b && std::isfinite(l) && l > 0) L.lat[a * N + b] = l;
    }
  L.detour.assign(N * N, kNaN);
  std::vector<double> slack;
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = 0; b < N; ++b)
      if (std::isfinite(L.lat[a * N + b])) {
        double& best = L.detour[a * N + b];
        for (std::size_t m = 0; m < N; ++m)
          if (m != a && m != b) best = std::fmin(best, L.lat[a * N + m] + L.lat[m * N + b]);
        if (std::isfinite(best)) slack.push_back(best - L.lat[a * N + b]);
      }
  if (slack.size() < 3) return false;
  L.overhead = std::max(0.0, lower_median_inplace(slack));
  return true;
}

// The routes slower than their fastest detour by min_ratio (ratio: that, per node pair; the pair's
// `ratio` field: the log of the time it adds), the gap between two links' added times and a typical
// hop's latency; sets the tolerance of L.on from the healthy routes' noise.
struct SlowRoutes {
  std::vector<SlowPair> slow;
  std::vector<double> ratio;
  double gap = 0.0, hop = 0.0;
};
SlowRoutes slow_routes(const AnomalyScan& scan, Latencies& L) {
  const std::size_t N = L.N;
  SlowRoutes s;
  s.ratio.assign(N * N, kNaN);
  std::vector<double> healthy, share, nearest;
  for (std::size_t a = 0; a < N; ++a)
    for (std::size_t b = 0; b < N; ++b) {
      if (!std::isfinite(L.lat[a * N + b])) continue;
      const double base = L.detour[a * N + b] - L.overhead;
      if (!std::isfinite(base) || base <= 0) continue;
      const double r = std::log(L.lat[a * N + b] / base);
      if (r < scan.min_log) {
        healthy.push_back(r);
        continue;
      }
      s.ratio[a * N + b] = r;
      s.slow.push_back({static_cast<int>(a), static_cast<int>(b), std::log(L.lat[a * N + b] - base)});
      share.push_back(L.lat[a * N + b] / (L.lat[a * N + b] - base));
    }
  const double sigma = healthy.size() >= 3 ? population_spread(healthy).sigma : 0.0;
  const double noise = scan.opt.mad_factor * (std::isfinite(sigma) ? sigma : 0.0);
  // The added time is a share of the route's latency: its noise is the ratios' times that share.
  s.gap = std::max(kTuning.slope_gap, noise * finite_median(share));
  L.tol = std::max(kTuning.end_tie, noise);
  // A typical hop: the median over nodes of the latency to the nearest one.
  for (std::size_t a = 0; a < N; ++a) {
    double m = kNaN;
    for (std::size_t b = 0; b < N; ++b) m = std::fmin(m, L.lat[a * N + b]);
    if (std::isfinite(m)) nearest.push_back(m);
  }
  s.hop = finite_median(nearest);
  return s;
}

// The connected parts of routes alike in the time they add, two routes or more, not a node's own
// and not mostly on the routes of a slow_link already found (a link slow in time per byte too).
std::vector<std::vector<SlowPair>> alike_parts(const SlowRoutes& s, const Level& nodes, const std::vector<Anomaly>& out) {
  const std::size_t N = nodes.groups.size();
  std::set<std::pair<int, int>> named;
  for (const auto& a : out)
    if (a.kind == AnomalyKind::slow_link)
      for (const auto& p : a.pairs)
        named.emplace(nodes.group_of[static_cast<std::size_t>(p.first)], nodes.group_of[static_cast<std::size_t>(p.second)]);
  std::vector<std::vector<SlowPair>> parts;
  for (const auto& alike : clusters_of(s.slow, s.gap)) {
    if (a_nodes_cluster(alike, N)) continue;
    for (auto& c : connected_parts(alike, N)) {
      const auto seen = std::count_if(c.begin(), c.end(), [&](const SlowPair& p) { return named.count({p.a, p.b}) > 0; });
      if (c.size() >= 2 && 2 * static_cast<std::size_t>(seen) <= c.size()) parts.push_back(std::move(c));
    }
  }
  return parts;
}

// Takes out the pair findings of other detectors on the culprits' routes (`mine`), and the one-way
// blocks mostly on them; not a finding on a culprit's own nodes.
void fold_routes_into_culprits(const Level& nodes, const std::set<std::pair<int, int>>& mine,
                               const std::set<std::vector<int>>& culprits, std::vector<Anomaly>& out) {
  std::erase_if(out, [&](const Anomaly& a) {
    if ((a.kind != AnomalyKind::slow_link && a.kind != AnomalyKind::asymmetric_pair) || culprits.count(a.ranks)) return false;
    if (held_by(a, nodes, mine)) return true;
    const auto on_mine = std::count_if(a.pairs.begin(), a.pairs.end(), [&](const auto& p) {
      return mine.count({nodes.group_of[static_cast<std::size_t>(p.first)], nodes.group_of[static_cast<std::size_t>(p.second)]}) > 0;
    });
    return a.kind == AnomalyKind::asymmetric_pair && 2 * static_cast<std::size_t>(on_mine) > a.pairs.size();
  });
}

}  // namespace

void latency_links(const AnomalyScan& scan, std::vector<Anomaly>& out) {
  const auto& t = scan.topo;
  if (t.levels.size() != 1 || scan.cube.count() < 2) return;
  const auto& nodes = t.levels.front();
  const std::size_t N = nodes.groups.size();
  if (N < 4 || N * N * scan.cube.count() > kMaxNodeCells || N * N * N > kMaxDetourWork) return;
  const auto [k0, k1] = shortest_and_longest(scan.cube);
  if (scan.cube.lengths[k1] <= scan.cube.lengths[k0]) return;
  const NodeDelays d(scan.cube, nodes);
  if (!t.no_tree_above && !distances_differ(d, N, k0, scan.opt.explain_floor)) return;
  Latencies L{N, {}, {}};
  if (!latencies(scan, d, k0, k1, L)) return;
  const SlowRoutes s = slow_routes(scan, L);
  if (s.slow.empty()) return;
  std::vector<Anomaly> links;
  std::set<std::pair<int, int>> mine;
  std::set<std::vector<int>> culprits;
  for (const auto& b : blame(L, alike_parts(s, nodes, out), s.slow, s.hop)) {
    std::vector<double> r, e;
    for (const auto& p : b.routes) {
      r.push_back(s.ratio[static_cast<std::size_t>(p.a) * N + static_cast<std::size_t>(p.b)]);
      e.push_back(std::exp(p.ratio));
    }
    auto f = latency_finding(scan, L, b.who, b.routes, r, finite_median(e));
    // A node or link another detector named already (slow in time per byte, a slow node): its
    // routes are still this culprit's, their pair findings folded.
    for (const auto& p : b.routes) mine.emplace(p.a, p.b);
    culprits.insert(f.ranks);
    if (std::none_of(out.begin(), out.end(), [&](const Anomaly& a) { return a.ranks == f.ranks && a.kind != AnomalyKind::asymmetric_pair; }))
      links.push_back(std::move(f));
  }
  if (mine.empty()) return;
  fold_routes_into_culprits(nodes, mine, culprits, out);
  out.insert(out.end(), links.begin(), links.end());
}

}  // namespace nt::analysis::anomaly_parts
