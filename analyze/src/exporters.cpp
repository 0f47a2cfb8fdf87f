#include "nt/analysis/exporters.hpp"
#include "nt/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
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
// platform's delay at each measured length equal the measured one. Per length, each class's
// measured median curve against the platform's own delay for that class's pairs (median over
// them): one factor f (latency times f, bandwidth over it: the whole delay scales) and one
// additive time a, d(class) = f * platform(class) + a. This is how SMPI itself is calibrated to
// an MPI library; without it a Hockney line misses the measured curve between its ends (a
// protocol step, a cache). A factor alone cannot serve two classes when the curve steps by a
// time rather than a ratio (an overhead charged below a threshold only: SMPI's o_r), so a is
// taken from the classes' Hockney ranges where the factor alone leaves a class more than
// kAdditiveFrom off (calibrate_length).
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

// A factor alone is kept while it brings every class within this share of its measured median.
constexpr double kAdditiveFrom = 0.001;

struct Calibration {
  struct Step {
    std::int64_t length = 0;
    double factor = 1.0;    // latency x factor, bandwidth / factor
    double additive = 0.0;  // seconds the sender sleeps per message (smpi/os, smpi/ois), >= 0
  };
  std::vector<Step> steps;  // ascending lengths, the first 0
  double shift = 0.0;       // seconds taken off every route's latency and given to `additive`
  std::string lat_factor() const {
    std::string s;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
      s += fmt::format("{}{}:{:.6g}", s.empty() ? "" : ";", it->length, it->factor);
    return s;
  }
  std::string bw_factor() const {
    std::string s;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it)
      s += fmt::format("{}{}:{:.6g}", s.empty() ? "" : ";", it->length, 1.0 / it->factor);
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

// One class at one length: its measured median, the platform's delay for its pairs, its pairs, and
// how far the intercept of its Hockney range at this length lies from that of its first range
// (the time the curve stepped by at its protocol thresholds; 0 in the first range).
struct ClassAtLength {
  double measured = 0, modelled = 0, pairs = 0, step = 0;
};

// The factor alone for the delays less `additive`: the weighted median of the classes' ratios (1
// without any).
double factor_alone(const std::vector<ClassAtLength>& classes, double additive = 0.0) {
  std::vector<std::pair<double, double>> ratios;
  for (const auto& c : classes) ratios.emplace_back((c.measured - additive) / c.modelled, c.pairs);
  const double f = weighted_median(ratios);
  return std::isfinite(f) && f > 0 ? f : 1.0;
}

// The factor and additive time of one length (see Calibration): the factor alone unless it leaves
// a class more than kAdditiveFrom off; then the classes' step (the weighted median of their range
// intercepts' change) as the additive time, with the factor alone of what is left, when that
// brings every class nearer. The additive time comes from the ranges, not from a line over the
// classes at this length: at long lengths the classes' delays differ by little, and such a line's
// factor follows their noise (4 % off for 0.2 % of wobble).
std::pair<double, double> calibrate_length(const std::vector<ClassAtLength>& classes) {
  if (classes.empty()) return {1.0, 0.0};
  const double f0 = factor_alone(classes);
  auto worst = [&](double f, double a) {
    double w = 0;
    for (const auto& c : classes) w = std::max(w, std::abs((f * c.modelled + a) / c.measured - 1));
    return w;
  };
  const double worst0 = worst(f0, 0);
  if (worst0 <= kAdditiveFrom) return {f0, 0.0};
  std::vector<std::pair<double, double>> steps;
  for (const auto& c : classes)
    if (std::isfinite(c.step)) steps.emplace_back(c.step, c.pairs);
  const double a = weighted_median(steps);
  if (!std::isfinite(a) || a == 0) return {f0, 0.0};
  const double f = factor_alone(classes, a);
  if (!(worst(f, a) < worst0)) return {f0, 0.0};
  return {f, a};
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

  // The platform's delay of a message of m bytes from node group a to b: its route's latencies
  // plus m and SMPI's envelope over its slowest link, with the values as written.
  double delay(std::size_t a, std::size_t b, double m) const {
    m += kSmpiEnvelope;
    if (a == b) return lat_value(loop_ts[a]) + m / bw_value(loop_tw[a]);
    const auto& nodes = topo.levels.front().groups;
    double latency = lat_value(nic_ts[a]) + lat_value(nic_ts[b]);
    double slowest = std::min(bw_value(nic_tw[a]), bw_value(nic_tw[b]));
    const int cls = topo.pair_class(nodes[a].front(), nodes[b].front());
    for (int lv = 1; lv < cls; ++lv) {
      latency += 2 * lat_value(up_ts[static_cast<std::size_t>(lv)]);
      slowest = std::min(slowest, bw_value(up_tw[static_cast<std::size_t>(lv)]));
    }
    return latency + m / slowest;
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
      lts[a].push_back(pair.ranges.front().ts);
      ltw[a].push_back(pair.ranges.back().tw);
    } else if (pair.cls == 1) {
      pts[{std::min(a, b), std::max(a, b)}].push_back(pair.ranges.front().ts);
      ptw[{std::min(a, b), std::max(a, b)}].push_back(pair.ranges.back().tw);
    }
  }
  const double ts1 = class_ts(r, 1), tw1 = class_tw(r, 1);
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
  for (std::size_t a = 0; a < G; ++a) {
    std::vector<double> values;
    for (auto& [ab, tws] : ptw)
      if (ab.first == a || ab.second == a) values.insert(values.end(), tws.begin(), tws.end());
    const double median = finite_median(values);
    if (std::isfinite(median)) platform.nic_tw[a] = median;
  }
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

// Per length, the factor and additive time that bring the platform's delays to the measured
// medians (calibrate_length over the classes; each class's platform delay the median over its node
// pairs, weighted by their rank pairs). SMPI sleeps no negative time: when a length's additive
// time is negative, every route's latency is lowered by the largest such deficit (the shift: the
// NICs by half of it, a loopback by all of it, so that every route loses it once) and every
// length's additive time raised by its factor times the shift, which leaves every delay as it was.
// Where the latencies cannot give that much, the length that asks most takes the factor alone.
Calibration calibrate(const Report& r, const SimgridPlatform& platform) {
  const Topology& t = r.topology;
  const auto& nodes = t.levels.front().groups;
  const std::size_t G = nodes.size();
  Calibration cal;
  std::vector<std::vector<ClassAtLength>> at_length;
  for (std::size_t k = 0; k < r.cube.count(); ++k) {
    const double m = static_cast<double>(r.cube.lengths[k]);
    std::vector<ClassAtLength> classes;
    for (const auto& fit : r.hockney.classes) {
      if (k >= fit.curve.size() || !(fit.curve[k] > 0)) continue;
      std::vector<std::pair<double, double>> model;  // (delay, rank pairs)
      for (std::size_t a = 0; a < G; ++a)
        for (std::size_t b = 0; b < G; ++b) {
          if (t.pair_class(nodes[a].front(), nodes[b].front()) != fit.cls) continue;
          const double rank_pairs = static_cast<double>(nodes[a].size()) *
                                    static_cast<double>(a == b ? nodes[a].size() - 1 : nodes[b].size());
          if (rank_pairs > 0) model.emplace_back(platform.delay(a, b, m), rank_pairs);
        }
      const double modelled = weighted_median(model);
      double step = kNaN;
      for (const auto& range : fit.ranges)
        if (range.k0 <= k && k < range.k1) step = range.fit.ts - fit.ranges.front().fit.ts;
      if (modelled > 0 && std::isfinite(modelled))
        classes.push_back({fit.curve[k], modelled, static_cast<double>(fit.pairs), step});
    }
    const auto [f, a] = calibrate_length(classes);
    cal.steps.push_back({r.cube.lengths[k], f, a});
    at_length.push_back(std::move(classes));
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
      if (x.additive < 0 && (!worst || -x.additive / x.factor > -worst->additive / worst->factor)) worst = &x;
    if (!worst) break;
    const double need = -worst->additive / worst->factor;
    if (need <= room) {
      cal.shift = need;
      break;
    }
    const auto k = static_cast<std::size_t>(worst - cal.steps.data());
    *worst = {worst->length, factor_alone(at_length[k]), 0.0};
  }
  for (auto& x : cal.steps) x.additive += x.factor * cal.shift;
  if (cal.steps.empty() || cal.steps.front().length > 0) cal.steps.insert(cal.steps.begin(), {0, 1.0, cal.shift});
  return cal;
}

// The platform with every route's latency lowered by the calibration's shift.
void apply_shift(SimgridPlatform& platform, double shift) {
  if (!(shift > 0)) return;
  for (auto& x : platform.nic_ts) x = std::max(0.0, lat_value(x) - shift / 2);
  for (auto& x : platform.loop_ts) x = std::max(0.0, lat_value(x) - shift);
}

// The XML comment on top of the platform, and its config (the calibration).
void write_simgrid_head(std::ostream& o, const Report& r, const SimgridPlatform& platform, const Calibration& cal) {
  const Topology& t = r.topology;
  o << "<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n";
  o << "<!-- SimGrid platform from network_analyze " << version_string() << ", data " << xml_escape(r.source)
    << ".\n     One host per node group found in the delays; latency and bandwidth from Hockney fits\n"
       "     (short-range ts, long-range 1/tw). Host speeds are placeholders (not measured).";
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
  o << "    <prop id=\"smpi/simulate-computation\" value=\"no\"/>\n"
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

std::string export_simgrid(const Report& r) {
  auto platform = simgrid_platform(r);
  const auto cal = calibrate(r, platform);
  apply_shift(platform, cal.shift);
  std::ostringstream o;
  write_simgrid_head(o, r, platform, cal);
  write_simgrid_zone(o, platform);
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

std::string export_text(const Report& r, ExportFormat format) {
  switch (format) {
    case ExportFormat::loggopsim: return export_loggopsim(r.params);
    case ExportFormat::simgrid: return export_simgrid(r);
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
  return export_text(r, req.format);
}

}  // namespace nt::analysis
