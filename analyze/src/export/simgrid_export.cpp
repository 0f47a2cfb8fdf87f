// The SimGrid export (export_simgrid): one host per node group with its loopback and NIC links, an
// uplink per group of the upper levels, the links from the Hockney fits or from the routes' ends,
// whichever the calibration (simgrid_calibration.cpp) brings nearer to the measured delays; the
// platform file with its SMPI config.
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/report.hpp"
#include "nt/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "simgrid_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis {

namespace simgrid_parts {

// A link's latency and bandwidth as the platform file states them (seconds; bytes per second).
double lat_value(double s) { return std::round(std::max(0.0, std::isfinite(s) ? s : 0.0) * 1e10) / 1e10; }
double bw_value(double tw) {
  // 1/tw; an unmeasurable tw gives a very fast link.
  return std::round(((std::isfinite(tw) && tw > 0) ? 1.0 / tw : 1e12) / 100.0) * 100.0;
}

}  // namespace simgrid_parts

namespace {

using namespace simgrid_parts;
using text::xml_escape;

// SimGrid ids: keep letters, digits, '-', '_', '.'.
std::string xml_id(const std::string& s) {
  std::string o;
  for (char ch : s) o += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.') ? ch : '_';
  return o.empty() ? "host" : o;
}

std::string lat(double s) { return fmt::format("{:.4f}us", lat_value(s) * 1e6); }
std::string bw(double tw) { return fmt::format("{:.4f}MBps", bw_value(tw) / 1e6); }

// Short-range ts and long-range tw of a class's median curve (NaN when it has no fit).
double class_ts(const Report& r, int c) {
  const ClassFit* fit = r.hockney.find(c);
  return (fit && !fit->ranges.empty()) ? fit->ranges.front().fit.ts : kNaN;
}
double class_tw(const Report& r, int c) {
  const ClassFit* fit = r.hockney.find(c);
  return (fit && !fit->ranges.empty()) ? fit->ranges.back().fit.tw : kNaN;
}

// Host names: the real ones when the groups equal the hosts.
std::vector<std::string> simgrid_host_names(const Report& r) {
  const Topology& t = r.topology;
  const auto& nodes = t.levels.front().groups;
  std::vector<std::string> name(nodes.size());
  for (std::size_t g = 0; g < nodes.size(); ++g)
    name[g] = (r.agreement.exact && !r.hosts.empty()) ? xml_id(r.hosts[static_cast<std::size_t>(nodes[g].front())])
                                                      : fmt::format("{}{}", t.node_level_identified ? "node" : "group", g);
  return name;
}

// The tws of the links between hosts from the routes' tws (node groups a -> b, class, tw; a
// route's tw is that of its slowest link in its direction: SimGrid gives a lone flow the smallest
// bandwidth on its way). Each link direction starts from its fastest route; then, in turn, each
// the median over its routes whose other links are not clearly slower (by slower_partner), of the
// lowest class among those: such a route shows this link. A NIC takes its routes under its switch
// while it has any (on SMPI's factors a route across switches comes out 2 % slower, from its
// uplinks' latency, when its tw is taken from its ends: links_from_ends); over all its routes, a
// node beside a slow one took half of that one's slowness (a switch of two nodes: the median of
// one fast and one slow pair). A direction without routes takes the other's value, a link without
// any keeps its own. Two directions within additive_from of each other are one value, their mean:
// a difference the calibration would not fit is noise, and the file keeps one link for both.
struct RouteTw {
  std::size_t a = 0, b = 0;
  int cls = 1;
  double tw = 0;
};
void solve_tws(const std::vector<RouteTw>& routes, SimgridPlatform& platform) {
  const std::size_t N = platform.links();
  std::vector<std::vector<std::size_t>> on(routes.size());  // per route its link directions: up e, down N + e
  std::vector<double> own(2 * N, kNaN);
  for (std::size_t n = 0; n < routes.size(); ++n) {
    const auto p = platform.path(routes[n].a, routes[n].b);
    on[n] = p.up;
    for (const std::size_t e : p.down) on[n].push_back(N + e);
    for (const std::size_t e : on[n])
      if (!(own[e] <= routes[n].tw)) own[e] = routes[n].tw;
  }
  for (int it = 0; it < kSimgridTuning.bandwidth_sweeps; ++it) {
    std::vector<std::vector<double>> values(2 * N);
    std::vector<int> lowest(2 * N, std::numeric_limits<int>::max());
    for (std::size_t n = 0; n < routes.size(); ++n)
      for (const std::size_t e : on[n]) {
        double others = 0;
        for (const std::size_t f : on[n])
          if (f != e && std::isfinite(own[f])) others = std::max(others, own[f]);
        if (others > kSimgridTuning.slower_partner * own[e] || routes[n].cls > lowest[e]) continue;
        if (routes[n].cls < lowest[e]) lowest[e] = routes[n].cls, values[e].clear();
        values[e].push_back(routes[n].tw);
      }
    for (std::size_t e = 0; e < 2 * N; ++e)
      if (!values[e].empty()) own[e] = finite_median(values[e]);
  }
  for (std::size_t e = 0; e < N; ++e) {
    double up = std::isfinite(own[e]) ? own[e] : own[N + e], down = std::isfinite(own[N + e]) ? own[N + e] : up;
    if (!std::isfinite(up)) continue;
    if (std::abs(up - down) <= kSimgridTuning.additive_from * std::max(up, down)) up = down = (up + down) / 2;
    platform.tw_up[e] = up, platform.tw_down[e] = down;
  }
}

// Per node group, the NIC and loopback links from the pair fits: per pair of node groups the
// median short ts and long tw; NIC latency per node from x_A + x_B ~ ts(A, B) over inter-node
// pairs, solved by medians; NIC bandwidth from the pairs' tws by solve_tws (both directions alike:
// a pair's fit is one line for both).
void simgrid_node_links(const Report& r, SimgridPlatform& platform) {
  const auto& gof = r.topology.levels.front().group_of;
  const std::size_t G = platform.name.size();
  std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> pts, ptw;
  std::vector<std::vector<double>> lts(G), ltw(G);
  for (const auto& pair : r.hockney.pairs) {
    if (pair.ranges.empty()) continue;
    const auto a = static_cast<std::size_t>(gof[static_cast<std::size_t>(pair.i)]);
    const auto b = static_cast<std::size_t>(gof[static_cast<std::size_t>(pair.j)]);
    if (pair.cls == 0) {
      lts[a].push_back(pair.ranges.front().ts - kSmpiClockRead);
      ltw[a].push_back(pair.ranges.back().tw);
    } else if (pair.cls == 1) {
      pts[{std::min(a, b), std::max(a, b)}].push_back(pair.ranges.front().ts - kSmpiClockRead);
      ptw[{std::min(a, b), std::max(a, b)}].push_back(pair.ranges.back().tw);
    }
  }
  const double ts1 = class_ts(r, 1) - kSmpiClockRead, tw1 = class_tw(r, 1);
  auto& nic_ts = platform.ts_up;  // both directions alike: a pair's fit is one line for both
  for (std::size_t a = 0; a < G; ++a)
    nic_ts[a] = std::isfinite(ts1) ? ts1 / 2 : 0.0, platform.tw_up[a] = platform.tw_down[a] = tw1;
  std::map<std::pair<std::size_t, std::size_t>, double> ts_ab;
  for (auto& [ab, values] : pts) ts_ab[ab] = finite_median(values);
  for (int it = 0; it < kSimgridTuning.nic_latency_sweeps; ++it)
    for (std::size_t a = 0; a < G; ++a) {
      std::vector<double> est;
      for (const auto& [ab, ts] : ts_ab)
        if (ab.first == a) est.push_back(ts - nic_ts[ab.second]);
        else if (ab.second == a) est.push_back(ts - nic_ts[ab.first]);
      if (!est.empty()) nic_ts[a] = std::max(0.0, finite_median(est));
    }
  std::vector<RouteTw> tws;
  for (auto& [ab, values] : ptw) {
    const double tw = finite_median(values);
    tws.push_back({ab.first, ab.second, 1, tw}), tws.push_back({ab.second, ab.first, 1, tw});
  }
  solve_tws(tws, platform);
  // ts holds the envelope's bytes (SMPI sends m + 16); the link's latency does not.
  for (std::size_t a = 0; a < G; ++a) {
    const double tw = (platform.tw_up[a] + platform.tw_down[a]) / 2;
    if (std::isfinite(tw) && tw > 0) nic_ts[a] = std::max(0.0, nic_ts[a] - kSmpiEnvelope * tw / 2);
    platform.ts_down[a] = nic_ts[a];
  }
  const double ts0 = class_ts(r, 0), tw0 = class_tw(r, 0);
  platform.loop_ts.assign(G, kNaN);
  platform.loop_tw.assign(G, kNaN);
  for (std::size_t g = 0; g < G; ++g) {
    const double lt = finite_median(lts[g]), lw = finite_median(ltw[g]);
    platform.loop_ts[g] = std::isfinite(lt) ? lt : ts0;
    platform.loop_tw[g] = std::isfinite(lw) ? lw : tw0;
    if (std::isfinite(platform.loop_tw[g]) && platform.loop_tw[g] > 0)
      platform.loop_ts[g] = std::max(0.0, platform.loop_ts[g] - kSmpiEnvelope * platform.loop_tw[g]);
  }
}

// The platform of the Hockney fits: the node links of simgrid_node_links, every uplink of a level
// the difference of its classes' ts (half on each side) and the tw of the class above.
SimgridPlatform simgrid_platform(const Report& r) {
  const Topology& t = r.topology;
  SimgridPlatform platform{t, simgrid_host_names(r)};
  simgrid_node_links(r, platform);
  for (std::size_t lv = 1; lv < t.levels.size(); ++lv)
    for (std::size_t s = 0; s < t.levels[lv].groups.size(); ++s) {
      const std::size_t e = platform.link(lv, s);
      const int c = static_cast<int>(lv);
      platform.ts_up[e] = platform.ts_down[e] = (class_ts(r, c + 1) - class_ts(r, c)) / 2;
      platform.tw_up[e] = platform.tw_down[e] = class_tw(r, c + 1);
    }
  return platform;
}

// The split of the latencies between directions that the routes leave free: a route leaves a group
// (a switch, a node) up one of its members' links and its own uplink, and enters it down those, or
// stays inside it, so a time moved from its members' up directions to their down ones and back on
// its own uplink changes no route (at the top level, between all uplinks' two directions). Level
// by level from the NICs, each group's members' median up - down is taken as that freedom and moved
// to the group's uplink, where every direction stays >= 0: a network alike both ways comes out alike
// both ways, a NIC slower one way only is the one link split. Two directions within additive_from of
// each other are then one value, their mean (x: up e, down N + e).
void center_directions(const SimgridPlatform& platform, std::vector<double>& x) {
  const Topology& t = platform.topo;
  const std::size_t N = platform.links(), levels = t.levels.size();
  for (std::size_t lv = 0; lv < levels; ++lv) {
    std::map<std::size_t, std::vector<std::size_t>> members;  // parent group -> its members' links
    for (std::size_t g = 0; g < t.levels[lv].groups.size(); ++g) {
      const auto rank = static_cast<std::size_t>(t.levels[lv].groups[g].front());
      members[lv + 1 < levels ? static_cast<std::size_t>(t.levels[lv + 1].group_of[rank]) : 0].push_back(platform.link(lv, g));
    }
    for (const auto& [parent, links] : members) {
      std::vector<double> half;
      for (const std::size_t e : links) half.push_back((x[e] - x[N + e]) / 2);
      const double c = finite_median(half);
      const std::size_t up = lv + 1 < levels ? platform.link(lv + 1, parent) : N;
      bool fits = std::isfinite(c) && c != 0 && (up == N || (x[up] + c >= 0 && x[N + up] - c >= 0));
      for (std::size_t i = 0; i < links.size() && fits; ++i) fits = x[links[i]] - c >= 0 && x[N + links[i]] + c >= 0;
      if (!fits) continue;
      for (const std::size_t e : links) x[e] -= c, x[N + e] += c;
      if (up != N) x[up] += c, x[N + up] -= c;
    }
  }
  for (std::size_t e = 0; e < N; ++e)
    if (std::abs(x[e] - x[N + e]) <= kSimgridTuning.additive_from * std::max(x[e], x[N + e])) x[e] = x[N + e] = (x[e] + x[N + e]) / 2;
}

// The latencies of the links between hosts, per direction, from the routes' (`routes`: indices
// into m with a latency L; a route's latency is the sum of its links' in its directions): each
// level's links start from its class's median latency less the one below, half on each side;
// then least squares by Gauss-Seidel, each link direction in turn the mean over its routes of what
// their other links leave (not >= 0), until none moves by 0.1 ps. Not medians: with a link per
// switch group a median of mostly routes across switches stopped at a split of NIC and uplink that
// met those and left the pair under the slow uplink's switch 0.7 us off; the mean meets every route
// wherever the links can. Under a switch of two nodes their pair gives only the sum of their NICs,
// the routes across switches tell them apart; a level of two groups gives only the sum of their
// uplinks, which is all its routes need. Then center_directions.
void solve_latencies(const MeasuredRoutes& m, const std::vector<double>& L, const std::vector<std::size_t>& routes,
                     SimgridPlatform& platform) {
  const std::size_t levels = platform.first.size(), N = platform.links();
  std::vector<std::vector<double>> by_class(levels + 1);
  std::vector<std::vector<std::size_t>> on(routes.size()), through(2 * N);  // directions: up e, down N + e
  for (std::size_t i = 0; i < routes.size(); ++i) {
    const std::size_t n = routes[i];
    if (static_cast<std::size_t>(m.cls[n]) <= levels) by_class[static_cast<std::size_t>(m.cls[n])].push_back(L[n]);
    const auto p = platform.path(m.a[n], m.b[n]);
    on[i] = p.up;
    for (const std::size_t e : p.down) on[i].push_back(N + e);
    for (const std::size_t e : on[i]) through[e].push_back(i);
  }
  std::vector<double> x(2 * N);
  for (std::size_t e = 0; e < N; ++e) {
    const std::size_t lv = platform.level_of(e);
    const double below = lv == 0 ? 0.0 : finite_median(by_class[lv]);
    const double start = (finite_median(by_class[lv + 1]) - below) / 2;
    x[e] = x[N + e] = std::isfinite(start) ? std::max(0.0, start) : platform.ts_up[e];
  }
  for (int it = 0; it < kSimgridTuning.latency_sweeps; ++it) {
    double moved = 0;
    for (std::size_t e = 0; e < 2 * N; ++e) {
      if (through[e].empty()) continue;
      double sum = 0;
      for (const std::size_t i : through[e]) {
        double rest = L[routes[i]];
        for (const std::size_t f : on[i])
          if (f != e) rest -= x[f];
        sum += rest;
      }
      const double next = std::max(0.0, sum / static_cast<double>(through[e].size()));
      moved = std::max(moved, std::abs(next - x[e])), x[e] = next;
    }
    if (moved < kSimgridTuning.latency_settled) break;
  }
  center_directions(platform, x);
  for (std::size_t e = 0; e < N; ++e) platform.ts_up[e] = x[e], platform.ts_down[e] = x[N + e];
}

// The links from every route's latency and tw (seconds per byte; NaN: unknown): a loopback per
// node group; the links between hosts by solve_latencies and solve_tws.
void links_from_routes(const MeasuredRoutes& m, const std::vector<double>& L, const std::vector<double>& W,
                       SimgridPlatform& platform) {
  std::vector<RouteTw> tws;
  std::vector<std::size_t> between;
  for (std::size_t n = 0; n < m.size(); ++n) {
    if (!std::isfinite(L[n]) || !std::isfinite(W[n])) continue;
    if (m.cls[n] == 0) platform.loop_ts[m.a[n]] = L[n], platform.loop_tw[m.a[n]] = W[n];
    else tws.push_back({m.a[n], m.b[n], m.cls[n], W[n]}), between.push_back(n);
  }
  solve_latencies(m, L, between, platform);
  solve_tws(tws, platform);
}

// The links from the measured routes' ends: per route its tw the slope from length index `from`
// to the longest length, its latency the delay at the shortest less that length's transfer time
// at that tw. The
// pairs' Hockney lines, fitted each over its class's ranges, differ from class to class by how
// those ranges fall (on SMPI's own factors: 0.99 ns/B under one switch, 0.85 across, for the same
// NICs), and a factor per length cannot serve routes whose latency and tw are off by different
// shares. The ends are a linear map of every route's true latency and tw, one for all routes; two
// factors per length take that up wherever the map keeps latency and tw apart: where the latency
// factor does not change between the two longest lengths (SMPI's own: 11.6 from 64 KiB on), the
// slope between them; else (32 and 128 KiB) the slope from the shortest length, which takes the
// change of the latency factor into the tw, more on a route with more latency, and links shared
// by many routes cannot follow that (0.5-1 % off across switches; export_simgrid keeps the better).
// Not done on a sample of the routes (max_routes) or with one length.
bool links_from_ends(const Report& r, const MeasuredRoutes& m, std::size_t from, double c, SimgridPlatform& platform) {
  const std::size_t K = r.cube.count();
  if (m.sampled || K < 2 || from + 1 >= K || m.size() == 0) return false;
  const double b0 = static_cast<double>(r.cube.lengths.front()) + kSmpiEnvelope;
  const double b1 = static_cast<double>(r.cube.lengths[from]) + kSmpiEnvelope;
  const double b2 = static_cast<double>(r.cube.lengths.back()) + kSmpiEnvelope;
  if (!(b2 > b1)) return false;
  std::vector<double> L(m.size(), kNaN), W(m.size(), kNaN);
  for (std::size_t n = 0; n < m.size(); ++n) {
    const double d0 = m.d.front()[n], slope = (m.d.back()[n] - m.d[from][n]) / (b2 - b1);
    const double w = slope - c * std::max(0.0, d0 - b0 * slope);
    if (!(d0 > 0) || !(w > 0)) continue;
    W[n] = w, L[n] = std::max(0.0, d0 - b0 * w);
  }
  links_from_routes(m, L, W, platform);
  return true;
}

// The largest share of a route's latency a slope can hold (see links_from_ends): the smallest
// slope / latency over the routes with a latency (0 without any).
double largest_latency_share(const Report& r, const MeasuredRoutes& m, std::size_t from) {
  const std::size_t K = r.cube.count();
  if (K < 2 || from + 1 >= K) return 0.0;
  const double b0 = static_cast<double>(r.cube.lengths.front()) + kSmpiEnvelope;
  const double b1 = static_cast<double>(r.cube.lengths[from]) + kSmpiEnvelope;
  const double b2 = static_cast<double>(r.cube.lengths.back()) + kSmpiEnvelope;
  double c = std::numeric_limits<double>::infinity();
  for (std::size_t n = 0; n < m.size(); ++n) {
    const double d0 = m.d.front()[n], slope = (m.d.back()[n] - m.d[from][n]) / (b2 - b1);
    const double latency = d0 - b0 * slope;
    if (d0 > 0 && slope > 0 && latency > 0) c = std::min(c, slope / latency);
  }
  return std::isfinite(c) ? c : 0.0;
}

// A link between hosts in the file: a NIC is NAME_nic, an uplink LEVELGROUP_uplink. SimGrid's
// SPLITDUPLEX link is a link per direction with one bandwidth and latency for both; a link whose directions
// differ (as written) is two, ID_up and ID_down, each SPLITDUPLEX and used in its own direction
// only, so that every route keeps its UP and DOWN halves and SimGrid's cross traffic (5 % of a
// flow on its reverse route) stays on the other direction as on a one-bandwidth link.
std::string link_id(const SimgridPlatform& platform, std::size_t e) {
  const std::size_t lv = platform.level_of(e);
  if (lv == 0) return platform.name[e] + "_nic";
  return fmt::format("{}{}_uplink", platform.topo.levels[lv].name, e - platform.first[lv]);
}
bool split(const SimgridPlatform& platform, std::size_t e) {
  return bw_value(platform.tw_up[e]) != bw_value(platform.tw_down[e]) ||
         lat_value(platform.ts_up[e]) != lat_value(platform.ts_down[e]);
}
std::string link_ctn(const SimgridPlatform& platform, std::size_t e, bool down) {
  return fmt::format("<link_ctn id=\"{}{}\" direction=\"{}\"/>", link_id(platform, e),
                     split(platform, e) ? (down ? "_down" : "_up") : "", down ? "DOWN" : "UP");
}
void write_link(std::ostream& o, const SimgridPlatform& platform, std::size_t e) {
  const std::string id = link_id(platform, e);
  auto one = [&](const std::string& name, double tw, double ts) {
    o << fmt::format("    <link id=\"{}\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"SPLITDUPLEX\"/>\n", name, bw(tw),
                     lat(ts));
  };
  if (!split(platform, e)) return one(id, platform.tw_up[e], platform.ts_up[e]);
  one(id + "_up", platform.tw_up[e], platform.ts_up[e]);
  one(id + "_down", platform.tw_down[e], platform.ts_down[e]);
}

// The XML comment on top of the platform, and its config (the calibration).
void write_simgrid_head(std::ostream& o, const Report& r, const SimgridPlatform& platform, const Calibration& cal,
                        const char* links) {
  const Topology& t = r.topology;
  o << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  o << "<!-- SimGrid platform from network_analyze " << version_string() << ", data " << xml_escape(r.source)
    << ".\n     One host per node group found in the delays; latency and bandwidth " << links
    << ". Host speeds are placeholders (not measured).";
  if (!t.node_level_identified)
    o << "\n     The node level could not be identified from the delays (no hosts file): each host stands for a\n"
         "     group of ranks, probably several nodes with one rank each.";
  for (std::size_t lv = 1; lv < t.levels.size(); ++lv)
    for (std::size_t lg : lone_node_groups(t, lv)) {
      const int node = t.levels.front().group_of[static_cast<std::size_t>(t.levels[lv].groups[lg].front())];
      const std::size_t e = platform.link(lv, lg);
      const std::string id = link_id(platform, e);
      o << fmt::format("\n     Host {} is alone in its {} group ({}): a lone node {}.",
                       platform.name[static_cast<std::size_t>(node)], t.levels[lv].name,
                       split(platform, e) ? fmt::format("{0}_up, {0}_down", id) : id, kLoneNodeCaveat);
    }
  o << " -->\n";
  // For smpirun: the links' delays scaled per message length to the measured medians (Calibration;
  // not SMPI's default factors, which model another MPI), no host CPU time charged, the
  // collectives of a real MPI but three (as scripts/simulate: SMPI 3.32's MPICH choices of
  // bcast, allreduce and reduce take a minute of host time each at 1,024 ranks); scripts/simulate
  // --platform runs it.
  o << "<platform version=\"4.1\">\n  <config>\n"
       "    <prop id=\"smpi/coll-selector\" value=\"mpich\"/>\n"
       "    <prop id=\"smpi/bcast\" value=\"binomial_tree\"/>\n"
       "    <prop id=\"smpi/allreduce\" value=\"rdb\"/>\n"
       "    <prop id=\"smpi/reduce\" value=\"binomial\"/>\n"
    << fmt::format("    <prop id=\"smpi/lat-factor\" value=\"{}\"/>\n", cal.lat_factor())
    << fmt::format("    <prop id=\"smpi/bw-factor\" value=\"{}\"/>\n", cal.bw_factor());
  if (cal.has_overhead())
    o << fmt::format("    <prop id=\"smpi/os\" value=\"{}\"/>\n", cal.overhead())
      << fmt::format("    <prop id=\"smpi/ois\" value=\"{}\"/>\n", cal.overhead());
  o << fmt::format("    <prop id=\"smpi/wtime\" value=\"{:g}\"/>\n", kSmpiClockRead)
    << "    <prop id=\"smpi/simulate-computation\" value=\"no\"/>\n"
       "  </config>\n";
}

// The zone: hosts, links and the route between every two hosts.
void write_simgrid_zone(std::ostream& o, const SimgridPlatform& platform) {
  const Topology& t = platform.topo;
  const auto& nodes = t.levels.front().groups;
  const auto& name = platform.name;
  const std::size_t G = nodes.size();
  o << "  <zone id=\"network_analyze\" routing=\"Full\">\n";
  for (std::size_t g = 0; g < G; ++g) {
    o << fmt::format("    <host id=\"{}\" speed=\"1Gf\" core=\"{}\">\n", name[g], nodes[g].size());
    o << fmt::format("      <prop id=\"ranks\" value=\"{}\"/>\n    </host>\n", fmt::join(nodes[g], ","));
  }
  for (std::size_t g = 0; g < G; ++g) {
    if (nodes[g].size() > 1)
      o << fmt::format("    <link id=\"{}_loopback\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"FATPIPE\"/>\n",
                       name[g], bw(platform.loop_tw[g]), lat(platform.loop_ts[g]));
    if (G > 1) write_link(o, platform, g);
  }
  for (std::size_t e = G; e < platform.links(); ++e) write_link(o, platform, e);
  for (std::size_t a = 0; a < G; ++a) {
    if (nodes[a].size() > 1)
      o << fmt::format("    <route src=\"{0}\" dst=\"{0}\"><link_ctn id=\"{0}_loopback\"/></route>\n", name[a]);
    for (std::size_t b = 0; b < G; ++b) {
      if (a == b) continue;
      // a -> b: up a's NIC and a's uplinks to the level where they meet, down b's: each direction
      // of a link its own (SPLITDUPLEX), so that the other direction's traffic (SimGrid's cross
      // traffic of every flow, 5 % of its rate) does not slow it.
      const auto p = platform.path(a, b);
      o << fmt::format("    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\">", name[a], name[b]);
      for (const std::size_t e : p.up) o << link_ctn(platform, e, false);
      for (const std::size_t e : p.down) o << link_ctn(platform, e, true);
      o << "</route>\n";
    }
  }
  o << "  </zone>\n";
}

}  // namespace

std::string export_simgrid(const Report& r, const Cube& delays) {
  if (delays.P != r.cube.P || delays.lengths != r.cube.lengths)
    throw Error("export simgrid: the delays are not those of the report");
  const auto m = measured_routes(r, delays);
  // The links from the Hockney lines, or from the routes' ends with either slope and a share c of
  // each route's latency taken out of its slope (links_from_ends; c searched on a grid over what
  // keeps every tw positive, then narrowed around the best): the ends' best platform where the
  // Hockney one leaves a route more than additive_from off and the ends at least halve that. The
  // Hockney links, with factors of 1 where the network is a latency and a bandwidth (the reference
  // platforms of bench/results/models.md), stay where they serve: the ends' search would move the
  // factors by tens of percent for a rounding's worth of a route.
  const SimgridPlatform hockney = simgrid_platform(r);
  Calibration cal = calibrate(r, m, hockney);
  const double hockney_worst = worst_route(r, m, hockney, cal);
  std::optional<SimgridPlatform> best_platform;
  Calibration best_cal;
  double best = std::numeric_limits<double>::infinity();
  std::size_t pick = 0;
  const std::size_t K = r.cube.count();
  for (const std::size_t from : {std::size_t{0}, K >= 2 ? K - 2 : std::size_t{0}}) {
    if (hockney_worst <= kSimgridTuning.additive_from || (from > 0 && from + 2 != K)) continue;
    const double cmax = largest_latency_share(r, m, from);
    auto trial = [&](double c) {
      SimgridPlatform p = hockney;
      if (!links_from_ends(r, m, from, c, p)) return std::numeric_limits<double>::infinity();
      auto cc = calibrate(r, m, p);
      const double w = worst_route(r, m, p, cc);
      if (w < best) best = w, pick = from == 0 ? 2 : 1, best_cal = std::move(cc), best_platform.emplace(std::move(p));
      return w;
    };
    double at = 0, at_w = trial(0.0);
    for (int g = kSimgridTuning.grid_first; g <= kSimgridTuning.grid_last; ++g) {
      const double c = cmax * kSimgridTuning.grid_step * g, w = g == 0 ? at_w : trial(c);
      if (w < at_w) at = c, at_w = w;
    }
    for (double step = cmax * kSimgridTuning.narrow_from; step > cmax * kSimgridTuning.narrow_to; step /= 2)
      for (const double c : {at - step, at + step}) {
        const double w = trial(c);
        if (w < at_w) at = c, at_w = w;
      }
  }
  if (best_platform && best <= hockney_worst / 2) cal = std::move(best_cal);
  else best_platform.reset(), pick = 0;
  const SimgridPlatform* platform = best_platform ? &*best_platform : &hockney;
  SimgridPlatform out = *platform;
  apply_shift(out, cal.shift);
  std::ostringstream o;
  static const char* const kLinks[] = {
      "from Hockney fits\n     (short-range ts, long-range 1/tw)",
      "from every route's medians (latency at the\n     shortest length, bandwidth between the two longest), with the factors per length below",
      "from every route's medians (latency at the\n     shortest length, bandwidth from the shortest to the longest), with the factors per length below"};
  write_simgrid_head(o, r, out, cal, kLinks[pick]);
  write_simgrid_zone(o, out);
  o << "</platform>\n";
  return o.str();
}

}  // namespace nt::analysis
