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
#include "text_util.hpp"

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

// NIC and uplink tws from the routes' tws (node groups a, b, class, tw; a route's is that of its
// slowest link: a's NIC, b's, or an uplink of a level below its class, one value per level). Each
// NIC starts from its fastest route and each uplink from its level's median; then, in turn, each
// the median over its routes whose other links are not clearly slower (by kSlowerPartner): such a
// route shows the other link; a NIC over its routes under its switch while it has any such (on
// SMPI's factors a route across switches comes out 2 % slower, from its uplinks' latency, when its
// tw is taken from its ends: links_from_ends). Over all its routes, a node beside a slow one took half of that
// one's slowness (a switch of two nodes: the median of one fast and one slow pair). A link
// without routes keeps its value.
struct RouteTw {
  std::size_t a = 0, b = 0;
  int cls = 1;
  double tw = 0;
};
void solve_tws(const std::vector<RouteTw>& routes, std::vector<double>& nic, std::vector<double>& up) {
  constexpr double kSlowerPartner = 1.05;
  std::vector<double> own(nic.size(), kNaN), upo(up.size(), kNaN);
  std::vector<std::vector<double>> level(up.size());
  for (const auto& x : routes) {
    for (const std::size_t e : {x.a, x.b})
      if (!(own[e] <= x.tw)) own[e] = x.tw;
    const auto lv = static_cast<std::size_t>(x.cls - 1);
    if (lv >= 1 && lv < up.size()) level[lv].push_back(x.tw);
  }
  for (std::size_t lv = 1; lv < up.size(); ++lv) upo[lv] = finite_median(level[lv]);
  // The slowest link of a route other than node `a`'s NIC (a == SIZE_MAX: other than its top uplink).
  auto others = [&](const RouteTw& x, std::size_t a) {
    double w = 0;
    if (a != x.a) w = std::max(w, own[x.a]);
    if (a != x.b) w = std::max(w, own[x.b]);
    const auto top = static_cast<std::size_t>(x.cls - 1);
    for (std::size_t lv = 1; lv < std::min(top + (a == SIZE_MAX ? 0 : 1), up.size()); ++lv)
      if (std::isfinite(upo[lv])) w = std::max(w, upo[lv]);
    return w;
  };
  for (int it = 0; it < 10; ++it) {
    std::vector<double> next = own, next_up = upo;
    std::vector<std::vector<double>> values(nic.size()), under_switch(nic.size()), up_values(up.size());
    for (const auto& x : routes) {
      for (const std::size_t e : {x.a, x.b})
        if (!(others(x, e) > kSlowerPartner * own[e])) (x.cls == 1 ? under_switch : values)[e].push_back(x.tw);
      const auto top = static_cast<std::size_t>(x.cls - 1);
      if (top >= 1 && top < up.size() && !(others(x, SIZE_MAX) > kSlowerPartner * upo[top])) up_values[top].push_back(x.tw);
    }
    for (std::size_t e = 0; e < nic.size(); ++e)
      if (!values[e].empty()) next[e] = finite_median(values[e]);
    for (std::size_t e = 0; e < nic.size(); ++e)
      if (!under_switch[e].empty()) next[e] = finite_median(under_switch[e]);
    for (std::size_t lv = 1; lv < up.size(); ++lv)
      if (!up_values[lv].empty()) next_up[lv] = finite_median(up_values[lv]);
    own = std::move(next), upo = std::move(next_up);
  }
  for (std::size_t e = 0; e < nic.size(); ++e)
    if (std::isfinite(own[e])) nic[e] = own[e];
  for (std::size_t lv = 1; lv < up.size(); ++lv)
    if (std::isfinite(upo[lv])) up[lv] = upo[lv];
}

// Per node group, the NIC and loopback links from the pair fits: per pair of node groups the
// median short ts and long tw; NIC latency per node from x_A + x_B ~ ts(A, B) over inter-node
// pairs, solved by medians; NIC bandwidth the median tw of the node's inter-node pairs.
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
  auto& nic_ts = platform.nic_ts;
  nic_ts.assign(G, std::isfinite(ts1) ? ts1 / 2 : 0.0);
  platform.nic_tw.assign(G, tw1);
  std::map<std::pair<std::size_t, std::size_t>, double> ts_ab;
  for (auto& [ab, values] : pts) ts_ab[ab] = finite_median(values);
  for (int it = 0; it < 10; ++it)
    for (std::size_t a = 0; a < G; ++a) {
      std::vector<double> est;
      for (const auto& [ab, ts] : ts_ab)
        if (ab.first == a) est.push_back(ts - nic_ts[ab.second]);
        else if (ab.second == a) est.push_back(ts - nic_ts[ab.first]);
      if (!est.empty()) nic_ts[a] = std::max(0.0, finite_median(est));
    }
  std::vector<RouteTw> tws;
  for (auto& [ab, values] : ptw) tws.push_back({ab.first, ab.second, 1, finite_median(values)});
  std::vector<double> no_uplinks;
  solve_tws(tws, platform.nic_tw, no_uplinks);
  // ts holds the envelope's bytes (SMPI sends m + 16); the link's latency does not.
  for (std::size_t a = 0; a < G; ++a)
    if (std::isfinite(platform.nic_tw[a]) && platform.nic_tw[a] > 0)
      nic_ts[a] = std::max(0.0, nic_ts[a] - kSmpiEnvelope * platform.nic_tw[a] / 2);
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

SimgridPlatform simgrid_platform(const Report& r) {
  const Topology& t = r.topology;
  SimgridPlatform platform{t, simgrid_host_names(r), {}, {}, {}, {}, {}, {}};
  simgrid_node_links(r, platform);
  platform.up_ts.assign(t.levels.size(), kNaN);
  platform.up_tw.assign(t.levels.size(), kNaN);
  for (std::size_t lv = 1; lv < t.levels.size(); ++lv) {
    platform.up_ts[lv] = (class_ts(r, static_cast<int>(lv) + 1) - class_ts(r, static_cast<int>(lv))) / 2;
    platform.up_tw[lv] = class_tw(r, static_cast<int>(lv) + 1);
  }
  return platform;
}

// The links from every route's latency and tw (seconds per byte; NaN: unknown): a loopback per
// node group; NIC and uplink latencies solved by medians (a route's latency is its links' sum);
// NIC and uplink tws by solve_tws.
void links_from_routes(const MeasuredRoutes& m, const std::vector<double>& L, const std::vector<double>& W,
                       SimgridPlatform& platform) {
  const std::size_t G = platform.name.size(), levels = platform.up_ts.size();
  std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> tws;
  for (std::size_t n = 0; n < m.size(); ++n) {
    if (!std::isfinite(L[n]) || !std::isfinite(W[n])) continue;
    if (m.cls[n] == 0) {
      platform.loop_ts[m.a[n]] = L[n], platform.loop_tw[m.a[n]] = W[n];
    } else if (m.cls[n] == 1) {
      tws[{std::min(m.a[n], m.b[n]), std::max(m.a[n], m.b[n])}].push_back(W[n]);
    }
  }
  auto other = [&](std::size_t n, std::size_t a) { return m.a[n] == a ? m.b[n] : m.a[n]; };
  auto ups = [&](int cls, std::size_t below) {
    double x = 0;
    for (std::size_t lv = 1; lv < std::min(static_cast<std::size_t>(cls), below); ++lv) x += 2 * platform.up_ts[lv];
    return x;
  };
  // Each level's uplink starts from its class's median latency less the one below; then, in turn,
  // each NIC the median over all its routes of what the other links leave, each uplink the median
  // over its level's routes. Under a switch of two nodes their pair gives only the sum of their
  // NICs: the routes across switches tell them apart.
  std::vector<std::vector<double>> by_class(levels + 1);
  for (std::size_t n = 0; n < m.size(); ++n)
    if (std::isfinite(L[n]) && m.cls[n] >= 1 && static_cast<std::size_t>(m.cls[n]) <= levels)
      by_class[static_cast<std::size_t>(m.cls[n])].push_back(L[n]);
  if (!by_class[1].empty()) platform.nic_ts.assign(G, finite_median(by_class[1]) / 2);
  for (std::size_t lv = 1; lv < levels; ++lv)
    if (!by_class[lv].empty() && !by_class[lv + 1].empty())
      platform.up_ts[lv] = std::max(0.0, (finite_median(by_class[lv + 1]) - finite_median(by_class[lv])) / 2);
  for (int it = 0; it < 50; ++it) {
    for (std::size_t a = 0; a < G; ++a) {
      std::vector<double> est;
      for (std::size_t n = 0; n < m.size(); ++n)
        if (m.cls[n] >= 1 && (m.a[n] == a) != (m.b[n] == a) && std::isfinite(L[n]))
          est.push_back(L[n] - platform.nic_ts[other(n, a)] - ups(m.cls[n], levels));
      if (!est.empty()) platform.nic_ts[a] = std::max(0.0, finite_median(est));
    }
    for (std::size_t lv = 1; lv < levels; ++lv) {
      std::vector<double> est;
      for (std::size_t n = 0; n < m.size(); ++n)
        if (m.cls[n] == static_cast<int>(lv) + 1 && std::isfinite(L[n]))
          est.push_back((L[n] - platform.nic_ts[m.a[n]] - platform.nic_ts[m.b[n]] - ups(m.cls[n], lv)) / 2);
      if (!est.empty()) platform.up_ts[lv] = std::max(0.0, finite_median(est));
    }
  }
  std::vector<RouteTw> route_tws;
  for (auto& [ab, values] : tws) route_tws.push_back({ab.first, ab.second, 1, finite_median(values)});
  for (std::size_t n = 0; n < m.size(); ++n)
    if (m.cls[n] >= 2 && std::isfinite(W[n])) route_tws.push_back({m.a[n], m.b[n], m.cls[n], W[n]});
  solve_tws(route_tws, platform.nic_tw, platform.up_tw);
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
// Not done on a sample of the routes (kMaxRoutes) or with one length.
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
      o << fmt::format("\n     Host {} is alone in its {} group ({}{}_uplink): a lone node {}.",
                       platform.name[static_cast<std::size_t>(node)], t.levels[lv].name, t.levels[lv].name, lg,
                       kLoneNodeCaveat);
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
    if (G > 1)
      o << fmt::format("    <link id=\"{}_nic\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"SPLITDUPLEX\"/>\n", name[g],
                       bw(platform.nic_tw[g]), lat(platform.nic_ts[g]));
  }
  // Uplinks of the groups of upper levels.
  for (std::size_t lv = 1; lv < t.levels.size(); ++lv)
    for (std::size_t s = 0; s < t.levels[lv].groups.size(); ++s)
      o << fmt::format("    <link id=\"{}{}_uplink\" bandwidth=\"{}\" latency=\"{}\" sharing_policy=\"SPLITDUPLEX\"/>\n",
                       t.levels[lv].name, s, bw(platform.up_tw[lv]), lat(platform.up_ts[lv]));
  for (std::size_t a = 0; a < G; ++a) {
    if (nodes[a].size() > 1)
      o << fmt::format("    <route src=\"{0}\" dst=\"{0}\"><link_ctn id=\"{0}_loopback\"/></route>\n", name[a]);
    for (std::size_t b = 0; b < G; ++b) {
      if (a == b) continue;
      // a -> b: up a's NIC and a's uplinks to the level where they meet, down b's: each direction
      // of a link its own (SPLITDUPLEX), so that the other direction's traffic (SimGrid's cross
      // traffic of every flow, 5 % of its rate) does not slow it.
      const int ra = nodes[a].front(), rb = nodes[b].front();
      const int cls = t.pair_class(ra, rb);
      o << fmt::format("    <route src=\"{}\" dst=\"{}\" symmetrical=\"NO\"><link_ctn id=\"{}_nic\" direction=\"UP\"/>",
                       name[a], name[b], name[a]);
      for (int lv = 1; lv < cls; ++lv)
        o << fmt::format("<link_ctn id=\"{}{}_uplink\" direction=\"UP\"/>", t.levels[static_cast<std::size_t>(lv)].name,
                         t.levels[static_cast<std::size_t>(lv)].group_of[static_cast<std::size_t>(ra)]);
      for (int lv = cls - 1; lv >= 1; --lv)
        o << fmt::format("<link_ctn id=\"{}{}_uplink\" direction=\"DOWN\"/>", t.levels[static_cast<std::size_t>(lv)].name,
                         t.levels[static_cast<std::size_t>(lv)].group_of[static_cast<std::size_t>(rb)]);
      o << fmt::format("<link_ctn id=\"{}_nic\" direction=\"DOWN\"/></route>\n", name[b]);
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
  // Hockney one leaves a route more than kAdditiveFrom off and the ends at least halve that. The
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
    if (hockney_worst <= kAdditiveFrom || (from > 0 && from + 2 != K)) continue;
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
    for (int g = -2; g <= 9; ++g) {
      const double c = cmax * 0.1 * g, w = g == 0 ? at_w : trial(c);
      if (w < at_w) at = c, at_w = w;
    }
    for (double step = cmax * 0.05; step > cmax * 1e-4; step /= 2)
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
