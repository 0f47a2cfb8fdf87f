// What the two files of the SimGrid export share (internal to nt_analysis): simgrid_export.cpp
// makes the platform (hosts, NIC, loopback and uplink links, from the Hockney fits or from the
// routes' ends) and writes it; simgrid_calibration.cpp measures the routes and fits SMPI's factors
// per length that bring the platform's routes to the measured delays.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "nt/analysis/report.hpp"
#include "nt/stats.hpp"
#include "simgrid_tuning.hpp"

namespace nt::analysis::simgrid_parts {

// SMPI adds an envelope of 16 bytes to every message (tag, source, communicator): a message of m
// bytes moves m + 16 on the platform's links (SMPI picks its lat/bw factors by m itself).
inline constexpr double kSmpiEnvelope = 16;

// SMPI charges smpi/wtime (set by the export to SimGrid's default, 10 ns) on every clock read, and
// a delay network_test measures holds one: the platform's routes are that much faster than the
// measured delays, so that network_test under SMPI reads the measured ones back (inside a node, at
// 0 B, the 10 ns is most of the delay).
inline constexpr double kSmpiClockRead = 1e-8;

// simgrid_export.cpp: a link's latency and bandwidth as the platform file states them (seconds;
// bytes per second).
double lat_value(double s);
double bw_value(double tw);

// SMPI's size-dependent factors (smpi/lat-factor, smpi/bw-factor: "size:factor;...", the factor of
// the largest size below a message's payload) and per-message overheads (smpi/os, smpi/ois:
// "size:seconds:0;...", the sender sleeps them before the message leaves) that make the
// platform's delay at each measured length equal the measured one. Per length, every route (node
// group pair, the measured median over its rank pairs) against the platform's latency and
// transfer time of that route: d = x * latency + y * (m + 16) / bandwidth + a. This is how SMPI
// itself is calibrated to an MPI library; without it a Hockney line misses the measured curve
// between its ends (a protocol step, a cache). One factor (x = y) when it brings every route
// within kSimgridTuning.additive_from; else a latency factor and a bandwidth factor apart (x != y: SMPI's own
// factors scale the two apart, so that a slow node's routes, or those within a node, which are
// mostly transfer time, come out wrong under one factor) and an additive time a where the curve
// steps by a time rather than a ratio (an overhead charged below a threshold only: SMPI's o_r),
// taken from the classes' Hockney ranges (calibrate_length).
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

// The SimGrid platform: one host per node group with its loopback link, and the links between
// hosts: each node group's NIC (link id: the group's index) and each group's uplink at every upper
// level (ids after the lower levels'), each with a latency and a tw per direction (up: from the
// node towards the top; down: back), so that a slow uplink of one switch, or a NIC slow one way
// only, is a link of the platform and not a change of every route of its level.
struct SimgridPlatform {
  const Topology& topo;
  std::vector<std::string> name;           // per node group
  std::vector<double> loop_ts, loop_tw;    // per node group
  std::vector<double> ts_up, ts_down, tw_up, tw_down;  // per link
  std::vector<std::size_t> first;          // per level: its first link id (level 0: the NICs)

  SimgridPlatform(const Topology& t, std::vector<std::string> names) : topo(t), name(std::move(names)) {
    std::size_t n = 0;
    for (const auto& level : topo.levels) first.push_back(n), n += level.groups.size();
    ts_up.assign(n, 0.0), ts_down.assign(n, 0.0), tw_up.assign(n, kNaN), tw_down.assign(n, kNaN);
  }
  std::size_t links() const { return ts_up.size(); }
  std::size_t link(std::size_t level, std::size_t group) const { return first[level] + group; }
  std::size_t level_of(std::size_t id) const {
    return static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), id) - first.begin()) - 1;
  }
  // The route a -> b (a != b): up a's NIC and a's uplinks below the level where a and b meet, then
  // down b's from the top.
  struct Path {
    std::vector<std::size_t> up, down;
  };
  Path path(std::size_t a, std::size_t b) const {
    const auto& nodes = topo.levels.front().groups;
    const auto ra = static_cast<std::size_t>(nodes[a].front()), rb = static_cast<std::size_t>(nodes[b].front());
    const auto cls = static_cast<std::size_t>(topo.pair_class(nodes[a].front(), nodes[b].front()));
    Path p{{a}, {}};
    for (std::size_t lv = 1; lv < cls; ++lv) p.up.push_back(link(lv, static_cast<std::size_t>(topo.levels[lv].group_of[ra])));
    for (std::size_t lv = cls; lv-- > 1;) p.down.push_back(link(lv, static_cast<std::size_t>(topo.levels[lv].group_of[rb])));
    p.down.push_back(b);
    return p;
  }
  // The route from node group a to b: its latencies' sum and its slowest link's bandwidth in the
  // route's directions, with the values as written. A message of m bytes takes latency + (m + 16)
  // / bandwidth (SMPI's envelope) before the calibration's factors.
  std::pair<double, double> route(std::size_t a, std::size_t b) const {
    if (a == b) return {lat_value(loop_ts[a]), bw_value(loop_tw[a])};
    const Path p = path(a, b);
    double latency = 0, slowest = std::numeric_limits<double>::infinity();
    for (const std::size_t e : p.up) latency += lat_value(ts_up[e]), slowest = std::min(slowest, bw_value(tw_up[e]));
    for (const std::size_t e : p.down) latency += lat_value(ts_down[e]), slowest = std::min(slowest, bw_value(tw_down[e]));
    return {latency, slowest};
  }
};

// The measured routes: every ordered pair of node groups (a == b: within a node group) with rank
// pairs, and per length its median over them less SMPI's clock read (NaN without data). Above
// kSimgridTuning.max_routes routes a regular sample of them (every s-th pair in order), which the
// factors need, not every route.
struct MeasuredRoutes {
  std::vector<std::size_t> a, b;
  std::vector<int> cls;
  std::vector<double> pairs;
  std::vector<std::vector<double>> d;  // [length index][route]
  bool sampled = false;
  std::size_t size() const { return a.size(); }
};

// simgrid_calibration.cpp: the measured routes of the report's delays; the calibration of a
// platform to them; the platform with every route's latency lowered by the calibration's shift;
// the worst relative error of any route on a platform with its calibration.
MeasuredRoutes measured_routes(const Report& r, const Cube& delays);
Calibration calibrate(const Report& r, const MeasuredRoutes& m, const SimgridPlatform& platform);
void apply_shift(SimgridPlatform& platform, double shift);
double worst_route(const Report& r, const MeasuredRoutes& m, SimgridPlatform platform, const Calibration& cal);

}  // namespace nt::analysis::simgrid_parts
