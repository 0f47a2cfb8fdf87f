// The calibration of the SimGrid export (simgrid_export.cpp): the measured routes between node
// groups, and per length SMPI's latency and bandwidth factors and additive time that bring the
// platform's routes to the measured medians (see Calibration in simgrid_parts.hpp).
#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "nt/stats.hpp"
#include "simgrid_parts.hpp"

namespace nt::analysis::simgrid_parts {
namespace {

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
// a route more than kSimgridTuning.additive_from off; then the classes' step (the weighted median of their range
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
  if (best_worst <= kSimgridTuning.additive_from) return best;
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

MeasuredRoutes measured_routes(const Report& r, const Cube& delays) {
  const Topology& t = r.topology;
  const auto& nodes = t.levels.front().groups;
  const std::size_t G = nodes.size();
  const std::size_t stride = std::max<std::size_t>(1, (G * G + kSimgridTuning.max_routes - 1) / kSimgridTuning.max_routes);
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

namespace {

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

}  // namespace

// Per length, the factors and additive time that bring the platform's routes to the measured
// medians (calibrate_length over the routes, each weighted by its rank pairs). SMPI sleeps no
// negative time: when a length's additive time is negative, every route's latency is lowered by
// the largest such deficit (the shift: each NIC direction by half of it, a loopback by all of it, so that
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
    if (G > 1) room = std::min(room, 2 * std::min(lat_value(platform.ts_up[g]), lat_value(platform.ts_down[g])));
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
  for (std::size_t g = 0; g < platform.name.size(); ++g)
    for (auto* ts : {&platform.ts_up, &platform.ts_down}) (*ts)[g] = std::max(0.0, lat_value((*ts)[g]) - shift / 2);
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

}  // namespace nt::analysis::simgrid_parts
