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
#include "nt/json_text.hpp"
#include "nt/loggp.hpp"
#include "text_util.hpp"

namespace nt::analysis {
namespace {

using text::xml_escape;




// SMPI adds an envelope of 16 bytes to every message (tag, source, communicator): a message of m
// bytes moves m + 16 on the platform's links (SMPI picks its lat/bw factors by m itself).
constexpr double kSmpiEnvelope = 16;

// SimGrid ids: keep letters, digits, '-', '_', '.'.
std::string xml_id(const std::string& s) {
  std::string o;
  for (char ch : s) o += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.') ? ch : '_';
  return o.empty() ? "host" : o;
}

// A link's latency and bandwidth as the platform file states them (seconds; bytes per second).
double lat_value(double s) { return std::round(std::max(0.0, std::isfinite(s) ? s : 0.0) * 1e10) / 1e10; }
double bw_value(double tw) {
  // 1/tw; an unmeasurable tw gives a very fast link.
  return std::round(((std::isfinite(tw) && tw > 0) ? 1.0 / tw : 1e12) / 100.0) * 100.0;
}
std::string lat(double s) { return fmt::format("{:.4f}us", lat_value(s) * 1e6); }
std::string bw(double tw) { return fmt::format("{:.4f}MBps", bw_value(tw) / 1e6); }

// SMPI's size-dependent factors (smpi/lat-factor, smpi/bw-factor: "size:factor;...", the factor of
// the largest size below a message's payload) and per-message overheads (smpi/os, smpi/ois:
// "size:seconds:0;...", the sender sleeps them before the message leaves) that make the
// platform's delay at each measured length equal the measured one. Per length, every route (node
// group pair, the measured median over its rank pairs) against the platform's latency and
// transfer time of that route: d = x * latency + y * (m + 16) / bandwidth + a. This is how SMPI
// itself is calibrated to an MPI library; without it a Hockney line misses the measured curve
// between its ends (a protocol step, a cache). One factor (x = y) when it brings every route
// within kAdditiveFrom; else a latency factor and a bandwidth factor apart (x != y: SMPI's own
// factors scale the two apart, so that a slow node's routes, or those within a node, which are
// mostly transfer time, come out wrong under one factor) and an additive time a where the curve
// steps by a time rather than a ratio (an overhead charged below a threshold only: SMPI's o_r),
// taken from the classes' Hockney ranges (calibrate_length).
// Median of values with weights (value, weight); NaN when empty.
double weighted_median(std::vector<std::pair<double, double>> v) {
  std::sort(v.begin(), v.end());
  double total = 0.0;
  for (const auto& [x, w] : v) total += w;
  double acc = 0.0;
  for (const auto& [x, w] : v) {
    acc += w;
    if (acc >= total / 2) return x;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

// A factor alone is kept while it brings every route within this share of its measured median.
constexpr double kAdditiveFrom = 0.001;

// SMPI charges smpi/wtime (set by the export to SimGrid's default, 10 ns) on every clock read, and
// a delay network_test measures holds one: the platform's routes are that much faster than the
// measured delays, so that network_test under SMPI reads the measured ones back (inside a node, at
// 0 B, the 10 ns is most of the delay).
constexpr double kSmpiClockRead = 1e-8;

struct Calibration {
  struct Step {
    std::int64_t length = 0;
    double lat = 1.0;       // latency x lat
    double bw = 1.0;        // transfer time x bw (bandwidth / bw)
    double additive = 0.0;  // seconds the sender sleeps per message (smpi/os, smpi/ois), >= 0
  };
  std::vector<Step> steps;  // ascending lengths, the first 0
  double shift = 0.0;       // seconds taken off every route's latency and given to `additive`
  std::string lat_factor() const {
    std::string s;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
      s += fmt::format("{}{}:{:.6g}", s.empty() ? "" : ";", it->length, it->lat);
    return s;
  }
  std::string bw_factor() const {
    std::string s;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
      s += fmt::format("{}{}:{:.6g}", s.empty() ? "" : ";", it->length, 1.0 / it->bw);
    return s;
  }
  bool has_overhead() const {
    return std::any_of(steps.begin(), steps.end(), [](const Step& x) { return x.additive > 0; });
  }
  // SMPI looks an overhead up by the message's size without the envelope and takes the entry
  // before the first key not below it (the first entry for a size up to its key): an entry keyed
  // at its length - 1 holds from that length on. Lengths 0 and 1 would share key 0: 1 byte takes
  // the additive time of 0 bytes.
  std::string overhead() const {
    std::string s;
    std::int64_t last_key = -1;
    for (const auto& x : steps) {
      const std::int64_t key = std::max<std::int64_t>(0, x.length - 1);
      if (key == last_key) continue;
      last_key = key;
      s = fmt::format("{}:{:.9g}:0{}{}", key, std::max(0.0, x.additive), s.empty() ? "" : ";", s);
    }
    return s;
  }
};

// One route at one length: its measured median (less the clock read), the platform's latency and
// transfer time of (m + 16) bytes on it, its rank pairs, and how far the intercept of its class's
// Hockney range at this length lies from that of the class's first range (the time the curve
// stepped by at its protocol thresholds; 0 in the first range).
struct RouteAtLength {
  double measured = 0, latency = 0, transfer = 0, pairs = 0, step = 0;
};

struct Fit {
  double lat = 1.0, bw = 1.0, additive = 0.0;
};

// SimGrid's precision/timing: a simulated delay comes in whole nanoseconds.
constexpr double kSimgridQuantum = 1e-9;

// The worst route's error beyond SimGrid's last nanosecond, relative to the delay as measured (the
// clock read in it): within a node at 0 B the rest is 1-2 ns, and the cells of one route read 11 or
// 12 ns in a simulated file, so relative to the rest alone, or without the nanosecond, those
// routes would decide every choice by a rounding.
double worst_of(const std::vector<RouteAtLength>& routes, const Fit& f) {
  double w = 0;
  for (const auto& c : routes)
    w = std::max(w, std::max(0.0, std::abs(f.lat * c.latency + f.bw * c.transfer + f.additive - c.measured) -
                                      kSimgridQuantum) /
                        (c.measured + kSmpiClockRead));
  return w;
}

// The factor alone for the delays less `additive`: the weighted median of the routes' ratios (1
// without any).
Fit factor_alone(const std::vector<RouteAtLength>& routes, double additive = 0.0) {
  std::vector<std::pair<double, double>> ratios;
  for (const auto& c : routes) ratios.emplace_back((c.measured - additive) / (c.latency + c.transfer), c.pairs);
  double f = weighted_median(ratios);
  if (!(std::isfinite(f) && f > 0)) f = 1.0;
  return {f, f, additive};
}

// A latency factor and a bandwidth factor for the delays less `additive`: least squares of the
// relative errors (weighted by rank pairs; see worst_of), both scaled after by the weighted median ratio so that
// the median route is met as by the factor alone. Nothing when a factor comes out <= 0 (the routes
// do not tell latency from transfer time at this length).
std::optional<Fit> factors_apart(const std::vector<RouteAtLength>& routes, double additive = 0.0) {
  double spp = 0, spq = 0, sqq = 0, sp = 0, sq = 0;
  for (const auto& c : routes) {
    const double seen = c.measured + kSmpiClockRead, d = (c.measured - additive) / seen;
    if (!(d > 0)) return std::nullopt;
    const double p = c.latency / seen, q = c.transfer / seen;
    spp += c.pairs * p * p, spq += c.pairs * p * q, sqq += c.pairs * q * q, sp += c.pairs * p * d, sq += c.pairs * q * d;
  }
  const double det = spp * sqq - spq * spq;
  if (!(std::abs(det) > 1e-12 * spp * sqq)) return std::nullopt;
  Fit f{(sp * sqq - sq * spq) / det, (sq * spp - sp * spq) / det, additive};
  if (!(f.lat > 0 && f.bw > 0)) return std::nullopt;
  std::vector<std::pair<double, double>> ratios;
  for (const auto& c : routes) ratios.emplace_back((c.measured - additive) / (f.lat * c.latency + f.bw * c.transfer), c.pairs);
  const double s = weighted_median(ratios);
  if (!(std::isfinite(s) && s > 0)) return std::nullopt;
  f.lat *= s, f.bw *= s;
  return f;
}

// The factors and additive time of one length (see Calibration): the factor alone unless it leaves
// a route more than kAdditiveFrom off; then the classes' step (the weighted median of their range
// intercepts' change) as the additive time, with the factor alone of what is left, when that
// brings every route nearer; then the two factors apart, with or without that additive time, when
// they at least halve the worst route's error: a second factor fitted to noise would move the
// worst route by little and set a latency factor that nothing determines. The additive time comes
// from the ranges, not from a line over the routes at this length: at long lengths the routes'
// delays differ by little, and such a line's factor follows their noise (4 % off for 0.2 % of
// wobble).
Fit calibrate_length(const std::vector<RouteAtLength>& routes) {
  if (routes.empty()) return {};
  Fit best = factor_alone(routes);
  double best_worst = worst_of(routes, best);
  if (best_worst <= kAdditiveFrom) return best;
  std::vector<std::pair<double, double>> steps;
  for (const auto& c : routes)
    if (std::isfinite(c.step)) steps.emplace_back(c.step, c.pairs);
  const double a = weighted_median(steps);
  const bool additive = std::isfinite(a) && a != 0;
  if (additive) {
    const Fit f = factor_alone(routes, a);
    const double w = worst_of(routes, f);
    if (w < best_worst) best = f, best_worst = w;
  }
  const double halve = best_worst / 2;
  for (const double x : {0.0, additive ? a : 0.0}) {
    const auto f = factors_apart(routes, x);
    if (!f) continue;
    const double w = worst_of(routes, *f);
    if (w <= halve && w < best_worst) best = *f, best_worst = w;
  }
  return best;
}

}  // namespace

namespace {
// LogGOPSim's time unit: the coarsest power of ten from 1 ns down in which G is an integer of three
// significant digits or more (G = 0: 1 ns). Its name for the header.
double loggopsim_unit(double G) {
  double u = 1e-9;
  if (G > 0 && std::isfinite(G))
    while (G / u < 99.95 && u > 1e-18) u /= 10;
  return u;
}
std::string unit_name(double u) {
  const int e = static_cast<int>(std::lround(-std::log10(u)));  // 9: 1 ns, 10: 100 ps, 11: 10 ps, 12: 1 ps, ...
  static const char* names[] = {"ns", "ps", "fs", "as"};
  const int k = std::min(3, (e - 9 + 2) / 3);
  const int factor = static_cast<int>(std::lround(std::pow(10.0, 3 * k - (e - 9))));
  return fmt::format("{} {}", factor, names[k]);
}
long long in_unit(double s, double u) { return std::isfinite(s) ? std::llround(s / u) : 0; }
}  // namespace

std::string export_loggopsim(const std::vector<ClassParams>& params) {
  if (params.empty()) throw Error("no class with data: nothing to export");
  const ClassParams* pick = &params.front();
  for (const auto& p : params)
    if (p.pairs > pick->pairs) pick = &p;
  auto G_of = [](const ClassParams& p) { return p.loggp.G; };  // one G: the model's
  const double G = G_of(*pick);
  const double u = loggopsim_unit(G);
  std::ostringstream o;
  o << "# LogGOPSim parameters from network_analyze " << version_string() << "\n";
  o << fmt::format("# time unit: {} (-L -o -g and -G per byte are integers of this unit, S is in bytes; give the "
                   "schedules' calc times in it too); the unit is the coarsest power of ten in which G keeps three "
                   "significant digits\n",
                   unit_name(u));
  for (const auto& p : params) {
    o << fmt::format("# {:<13} L={} o_s={:.6g}s o_r={} g={:.6g}s G={:.6g}s/B ({}) pairs={}\n", p.name,
                     p.separable ? fmt::format("{:.6g}s", p.loggp.L) : "not-separable", p.o_s,
                     p.separable ? fmt::format("{:.6g}s", p.o_r) : "not-separable", p.loggp.g, G_of(p),
                     p.have_loggp ? "measured LogGP" : "from delays: o=0, g=L+2o assumed, G=Hockney tw", p.pairs);
  }
  for (const auto& p : params)
    for (const auto& n : p.notes) o << "# note: " << n << "\n";
  // One o for LogGOPSim, so that o + L + o is the one-way delay of the smallest message as measured
  // (the delay file's, else the loggp file's L + o_s + o_r).
  const double one_way = pick->t0 > 0 ? pick->t0 : pick->loggp.L + 2 * pick->loggp.o;
  double L = pick->loggp.L, oo = 0.0;
  if (pick->have_loggp && !pick->separable) {
    oo = pick->o_s;  // L holds o_r
    L = one_way - 2 * oo;
    o << fmt::format("# o = o_s = {:.6g}s: L and o_r are not separable ({}), so L = one-way - 2 o holds o_r - o_s\n",
                     oo, pick->not_separable_reason);
  } else {
    oo = (one_way - L) / 2;
    if (pick->have_loggp)
      o << fmt::format("# overheads measured: o_s = {:.6g}s, o_r = {:.6g}s; LogGOPSim takes one o = (one-way - L)/2 = "
                       "{:.6g}s\n",
                       pick->o_s, pick->o_r, oo);
  }
  if (oo < 0 || L < 0) {
    o << fmt::format("# note: L = {:.6g}s is above the one-way delay {:.6g}s: L = the one-way delay and o = 0 used\n", L,
                     one_way);
    L = one_way;
    oo = 0;
  }
  o << fmt::format("# o + L + o = {:.6g}s: the measured one-way delay of the smallest message ({} B)\n", one_way,
                   pick->t0_length);
  std::int64_t S = -1;
  std::string s_note;
  if (pick->have_loggp) {
    if (pick->fit_break >= 0) {
      S = pick->fit_break;
      s_note = "where the LogGP gap changes its line (the protocol switch)";
    }
  } else {
    for (const auto& r : pick->hockney)
      if (&r != &pick->hockney.front()) {
        S = r.from;
        s_note = "first protocol threshold of the delays";
        break;
      }
  }
  if (S < 0) {
    S = 65535;
    s_note = "no protocol switch seen: LogGOPSim's default";
  }
  o << fmt::format("# class {}; S: {}\n", pick->name, s_note);
  o << fmt::format("-L {} -o {} -g {} -G {} -S {}\n", in_unit(L, u), in_unit(oo, u), in_unit(pick->loggp.g, u),
                   in_unit(G, u), S);
  return o.str();
}

namespace {

// Short-range ts and long-range tw of a class's median curve (NaN when it has no fit).
double class_ts(const Report& r, int c) {
  const ClassFit* fit = r.hockney.find(c);
  return (fit && !fit->ranges.empty()) ? fit->ranges.front().fit.ts : kNaN;
}
double class_tw(const Report& r, int c) {
  const ClassFit* fit = r.hockney.find(c);
  return (fit && !fit->ranges.empty()) ? fit->ranges.back().fit.tw : kNaN;
}

// The SimGrid platform: one host per node group, with its loopback and NIC links, and an uplink
// per group of the upper levels.
struct SimgridPlatform {
  const Topology& topo;
  std::vector<std::string> name;                   // per node group
  std::vector<double> nic_ts, nic_tw;              // per node group
  std::vector<double> loop_ts, loop_tw;            // per node group
  std::vector<double> up_ts, up_tw;                // per level (from 1)

  // The platform's route from node group a to b: its latencies' sum and its slowest link's
  // bandwidth, with the values as written. A message of m bytes takes latency + (m + 16) / bandwidth
  // (SMPI's envelope) before the calibration's factors.
  std::pair<double, double> route(std::size_t a, std::size_t b) const {
    if (a == b) return {lat_value(loop_ts[a]), bw_value(loop_tw[a])};
    const auto& nodes = topo.levels.front().groups;
    double latency = lat_value(nic_ts[a]) + lat_value(nic_ts[b]);
    double slowest = std::min(bw_value(nic_tw[a]), bw_value(nic_tw[b]));
    const int cls = topo.pair_class(nodes[a].front(), nodes[b].front());
    for (int lv = 1; lv < cls; ++lv) {
      latency += 2 * lat_value(up_ts[static_cast<std::size_t>(lv)]);
      slowest = std::min(slowest, bw_value(up_tw[static_cast<std::size_t>(lv)]));
    }
    return {latency, slowest};
  }
};

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

// The measured routes: every ordered pair of node groups (a == b: within a node group) with rank
// pairs, and per length its median over them less SMPI's clock read (NaN without data). Above
// kMaxRoutes routes a regular sample of them (every s-th pair in order), which the factors need,
// not every route.
constexpr std::size_t kMaxRoutes = 20000;
struct MeasuredRoutes {
  std::vector<std::size_t> a, b;
  std::vector<int> cls;
  std::vector<double> pairs;
  std::vector<std::vector<double>> d;  // [length index][route]
  bool sampled = false;
  std::size_t size() const { return a.size(); }
};

MeasuredRoutes measured_routes(const Report& r, const Cube& delays) {
  const Topology& t = r.topology;
  const auto& nodes = t.levels.front().groups;
  const std::size_t G = nodes.size();
  const std::size_t stride = std::max<std::size_t>(1, (G * G + kMaxRoutes - 1) / kMaxRoutes);
  MeasuredRoutes m;
  m.sampled = stride > 1;
  for (std::size_t ab = 0; ab < G * G; ab += stride) {
    const std::size_t a = ab / G, b = ab % G;
    const double rank_pairs =
        static_cast<double>(nodes[a].size()) * static_cast<double>(a == b ? nodes[a].size() - 1 : nodes[b].size());
    if (!(rank_pairs > 0)) continue;
    m.a.push_back(a), m.b.push_back(b), m.pairs.push_back(rank_pairs);
    m.cls.push_back(t.pair_class(nodes[a].front(), nodes[b].front()));
  }
  const auto P = static_cast<std::size_t>(delays.P);
  std::vector<float> buf;
  std::vector<double> v;
  for (std::size_t k = 0; k < delays.count(); ++k) {
    const float* x = delays.slice(k, buf);
    auto& d = m.d.emplace_back(m.size(), kNaN);
    for (std::size_t n = 0; n < m.size(); ++n) {
      v.clear();
      for (int i : nodes[m.a[n]])
        for (int j : nodes[m.b[n]])
          if (i != j) v.push_back(static_cast<double>(x[static_cast<std::size_t>(i) * P + static_cast<std::size_t>(j)]));
      const double med = finite_median(v);
      if (std::isfinite(med)) d[n] = med - kSmpiClockRead;
    }
  }
  return m;
}

// The routes at length index k against the platform: measured, latency, transfer time, weight and
// the class's step (see RouteAtLength).
std::vector<RouteAtLength> routes_at(const Report& r, const MeasuredRoutes& m, const SimgridPlatform& platform,
                                     std::size_t k) {
  const double bytes = static_cast<double>(r.cube.lengths[k]) + kSmpiEnvelope;
  std::vector<RouteAtLength> routes;
  for (std::size_t n = 0; n < m.size(); ++n) {
    const double d = m.d[k][n];
    if (!(d > 0)) continue;
    const ClassFit* fit = r.hockney.find(m.cls[n]);
    double step = kNaN;
    if (fit)
      for (const auto& range : fit->ranges)
        if (range.k0 <= k && k < range.k1) step = range.fit.ts - fit->ranges.front().fit.ts;
    const auto [latency, bandwidth] = platform.route(m.a[n], m.b[n]);
    routes.push_back({d, latency, bytes / bandwidth, m.pairs[n], step});
  }
  return routes;
}

// Per length, the factors and additive time that bring the platform's routes to the measured
// medians (calibrate_length over the routes, each weighted by its rank pairs). SMPI sleeps no
// negative time: when a length's additive time is negative, every route's latency is lowered by
// the largest such deficit (the shift: the NICs by half of it, a loopback by all of it, so that
// every route loses it once) and every length's additive time raised by its latency factor times
// the shift, which leaves every delay as it was. Where the latencies cannot give that much, the
// length that asks most takes the factor alone.
Calibration calibrate(const Report& r, const MeasuredRoutes& m, const SimgridPlatform& platform) {
  const auto& nodes = r.topology.levels.front().groups;
  const std::size_t G = nodes.size();
  Calibration cal;
  std::vector<std::vector<RouteAtLength>> at_length;
  for (std::size_t k = 0; k < r.cube.count(); ++k) {
    auto routes = routes_at(r, m, platform, k);
    const Fit f = calibrate_length(routes);
    cal.steps.push_back({r.cube.lengths[k], f.lat, f.bw, f.additive});
    at_length.push_back(std::move(routes));
  }
  // The most the latencies can give: every route must keep a latency >= 0.
  double room = std::numeric_limits<double>::infinity();
  for (std::size_t g = 0; g < G; ++g) {
    if (nodes[g].size() > 1) room = std::min(room, lat_value(platform.loop_ts[g]));
    if (G > 1) room = std::min(room, 2 * lat_value(platform.nic_ts[g]));
  }
  for (;;) {
    Calibration::Step* worst = nullptr;
    for (auto& x : cal.steps)
      if (x.additive < 0 && (!worst || -x.additive / x.lat > -worst->additive / worst->lat)) worst = &x;
    if (!worst) break;
    const double need = -worst->additive / worst->lat;
    if (need <= room) {
      cal.shift = need;
      break;
    }
    const auto k = static_cast<std::size_t>(worst - cal.steps.data());
    const Fit f = factor_alone(at_length[k]);
    *worst = {worst->length, f.lat, f.bw, 0.0};
  }
  for (auto& x : cal.steps) x.additive += x.lat * cal.shift;
  if (cal.steps.empty() || cal.steps.front().length > 0) cal.steps.insert(cal.steps.begin(), {0, 1.0, 1.0, cal.shift});
  return cal;
}

// The platform with every route's latency lowered by the calibration's shift.
void apply_shift(SimgridPlatform& platform, double shift) {
  if (!(shift > 0)) return;
  for (auto& x : platform.nic_ts) x = std::max(0.0, lat_value(x) - shift / 2);
  for (auto& x : platform.loop_ts) x = std::max(0.0, lat_value(x) - shift);
}

// The worst relative error of any measured route at any length on the platform (shifted) with the
// calibration: what the export gives back.
double worst_route(const Report& r, const MeasuredRoutes& m, SimgridPlatform platform, const Calibration& cal) {
  apply_shift(platform, cal.shift);
  const std::size_t offset = cal.steps.size() - r.cube.count();  // a step for 0 B put in front
  double w = 0;
  for (std::size_t k = 0; k < r.cube.count(); ++k) {
    const auto& x = cal.steps[k + offset];
    w = std::max(w, worst_of(routes_at(r, m, platform, k), {x.lat, x.bw, x.additive}));
  }
  return w;
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

std::string export_csv(const Report& r) {
  std::ostringstream o;
  o << "sender,receiver,sender_host,receiver_host,class,range,from_bytes,to_bytes,ts_s,tw_s_per_byte,bandwidth_Bps,r2,rel_rms,"
       "ts_identifiable,tw_identifiable\n";
  auto host = [&](int x) { return r.hosts.empty() ? std::string() : r.hosts[static_cast<std::size_t>(x)]; };
  for (const auto& p : r.hockney.pairs) {
    const ClassFit* f = r.hockney.find(p.cls);
    if (!f) continue;
    for (std::size_t g = 0; g < p.ranges.size() && g < f->ranges.size(); ++g) {
      const auto& l = p.ranges[g];
      o << fmt::format("{},{},{},{},{},{},{},{},{:.9g},{:.9g},{:.9g},{:.6f},{:.6f},{:d},{:d}\n", p.i, p.j, host(p.i),
                       host(p.j), f->name, g, f->ranges[g].from, f->ranges[g].to, l.ts, l.tw,
                       l.tw_identifiable && l.tw > 0 ? 1.0 / l.tw : kNaN, l.r2, l.rel_rms, l.ts_identifiable ? 1 : 0,
                       l.tw_identifiable ? 1 : 0);
    }
  }
  return o.str();
}

const std::vector<std::pair<std::string, ExportFormat>>& export_formats() {
  static const std::vector<std::pair<std::string, ExportFormat>> f{{"json", ExportFormat::json},
                                                                   {"loggopsim", ExportFormat::loggopsim},
                                                                   {"simgrid", ExportFormat::simgrid},
                                                                   {"csv", ExportFormat::csv}};
  return f;
}

std::string export_text(const Report& r, ExportFormat format, const Cube* delays) {
  switch (format) {
    case ExportFormat::loggopsim: return export_loggopsim(r.params);
    case ExportFormat::simgrid:
      if (!delays) throw Error("export simgrid: the delays are needed");
      return export_simgrid(r, *delays);
    case ExportFormat::csv: return export_csv(r);
    case ExportFormat::json: break;
  }
  return json_text(to_json(r, true), 1) + "\n";
}

std::string make_export(const ExportRequest& req) {
  ReportOptions o;
  o.hosts_file = req.hosts_file;
  o.find_deviation_beside = false;
  Report r = make_report(req.delay_file, o);
  if (!req.loggp_file.empty()) {
    const auto lg = read_loggp(req.loggp_file);
    r.params = class_params(&r.cube, r.topology, &r.hockney, &lg, {});
  }
  if (req.format != ExportFormat::simgrid) return export_text(r, req.format);
  const Cube delays = open_delays(req.delay_file);
  return export_text(r, req.format, &delays);
}

}  // namespace nt::analysis
