// The fit of one delay curve: a Hockney line t = ts + m*tw (fit_hockney, fit_quality) and the
// protocol thresholds where the curve steps or bends (find_thresholds); fits_classes.cpp fits every
// class and pair of a cube with them.
#include "nt/analysis/fits.hpp"
#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

namespace nt::analysis {
namespace {


struct Sums {
  long double S = 0, Sx = 0, Sxx = 0, Sy = 0, Sxy = 0, Syy = 0;
  int n = 0;
  void add(double m, double t) {
    const long double w = 1.0L / (static_cast<long double>(t) * t);
    S += w;
    Sx += w * m;
    Sxx += w * m * m;
    Sy += w * t;
    Sxy += w * m * t;
    Syy += w * t * t;
    ++n;
  }
  Sums operator-(const Sums& o) const {
    return {S - o.S, Sx - o.Sx, Sxx - o.Sxx, Sy - o.Sy, Sxy - o.Sxy, Syy - o.Syy, n - o.n};
  }
  // Weighted least squares line; returns false when all lengths are equal (tw undefined).
  bool solve(double& ts, double& tw) const {
    const long double det = S * Sxx - Sx * Sx;
    if (n < 2 || !(det > 1e-12L * S * Sxx)) {
      ts = static_cast<double>(Sy / S);
      tw = kNaN;
      return false;
    }
    tw = static_cast<double>((S * Sxy - Sx * Sy) / det);
    ts = static_cast<double>((Sy - static_cast<long double>(tw) * Sx) / S);
    return true;
  }
  double sse() const {
    double ts, tw;
    long double r;
    if (solve(ts, tw)) r = Syy - static_cast<long double>(ts) * Sy - static_cast<long double>(tw) * Sxy;
    else r = Syy - Sy * Sy / S;
    return std::max(0.0, static_cast<double>(r));
  }
};

}  // namespace

LineFit fit_hockney(std::span<const double> m, std::span<const double> t) {
  LineFit f;
  Sums s;
  for (std::size_t k = 0; k < m.size() && k < t.size(); ++k)
    if (Cube::usable(t[k])) s.add(m[k], t[k]);
  f.points = s.n;
  if (s.n == 0) {
    f.ts = f.tw = kNaN;
    return f;
  }
  const bool line = s.solve(f.ts, f.tw);
  if (!line) {
    f.ts_identifiable = f.ts > 0;  // one length: ts is the (weighted) mean delay, tw unknown
  } else if (f.ts >= 0 && f.tw >= 0) {
    // Free optimum is feasible; a parameter within two standard errors of 0 is not determined.
    const long double det = s.S * s.Sxx - s.Sx * s.Sx;
    const double sigma2 = s.n > 2 ? s.sse() / (s.n - 2) : 0.0;
    const double se_tw = std::sqrt(std::max(0.0, static_cast<double>(sigma2 * s.S / det)));
    const double se_ts = std::sqrt(std::max(0.0, static_cast<double>(sigma2 * s.Sxx / det)));
    f.ts_identifiable = f.ts > 0 && f.ts > 2 * se_ts;
    f.tw_identifiable = f.tw > 0 && f.tw > 2 * se_tw;
  } else {
    // Non-negative least squares in two parameters: the optimum lies on a bound; take the better of
    // tw = 0 (ts = weighted mean) and ts = 0 (line through the origin). The bound parameter is not
    // identifiable from these data.
    const double ts_a = static_cast<double>(s.Sy / s.S);
    const double sse_a = static_cast<double>(s.Syy - s.Sy * s.Sy / s.S);
    double tw_b = kNaN, sse_b = std::numeric_limits<double>::infinity();
    if (s.Sxx > 0) {
      tw_b = static_cast<double>(s.Sxy / s.Sxx);
      sse_b = static_cast<double>(s.Syy - s.Sxy * s.Sxy / s.Sxx);
    }
    if (sse_a <= sse_b || !(tw_b >= 0)) {
      f.ts = ts_a;
      f.tw = 0.0;
      f.ts_identifiable = ts_a > 0;
      f.tw_identifiable = false;
    } else {
      f.ts = 0.0;
      f.tw = tw_b;
      f.ts_identifiable = false;
      f.tw_identifiable = tw_b > 0;
    }
  }
  double ss_res = 0, ss_tot = 0, rel = 0, mean = 0;
  for (std::size_t k = 0; k < m.size() && k < t.size(); ++k)
    if (Cube::usable(t[k])) mean += t[k];
  mean /= s.n;
  for (std::size_t k = 0; k < m.size() && k < t.size(); ++k) {
    if (!Cube::usable(t[k])) continue;
    const double pred = f.ts + (line ? m[k] * f.tw : 0.0);
    ss_res += (t[k] - pred) * (t[k] - pred);
    ss_tot += (t[k] - mean) * (t[k] - mean);
    rel += ((t[k] - pred) / t[k]) * ((t[k] - pred) / t[k]);
  }
  f.rel_rms = std::sqrt(rel / s.n);
  // r2 of a weighted (relative) fit can fall below 0 in absolute terms; it is only a secondary
  // figure, kept within [0, 1] (rel_rms and fit_quality are what the report shows).
  f.r2 = ss_tot > 0 ? std::clamp(1.0 - ss_res / ss_tot, 0.0, 1.0) : (ss_res <= 1e-30 ? 1.0 : 0.0);
  return f;
}

const char* fit_quality(double rel_rms) {
  if (!std::isfinite(rel_rms)) return "n/a";
  if (rel_rms < 1e-9) return "exact";
  if (rel_rms <= kTuning.fit_good_rms) return "good";
  if (rel_rms <= kTuning.fit_fair_rms) return "fair";
  return "poor";
}

namespace {

// The best split of the curve into lines (pre: prefix sums of its points; each segment of at least
// 3 points, so that every line is over-determined, costs `penalty` on top of its squared error):
// the start index of each segment, the first 0.
std::vector<std::size_t> segment_starts(const std::vector<Sums>& pre, double penalty) {
  const std::size_t K = pre.size() - 1;
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(K + 1, inf);
  std::vector<std::size_t> from(K + 1, 0);
  best.front() = 0;
  const std::size_t kMin = kTuning.segment_min;
  for (std::size_t j = kMin; j <= K; ++j)
    for (std::size_t i = 0; i + kMin <= j; ++i) {
      if (!std::isfinite(best[i])) continue;
      const double cost = best[i] + (pre[j] - pre[i]).sse() + penalty;
      if (cost < best[j]) {
        best[j] = cost;
        from[j] = i;
      }
    }
  std::vector<std::size_t> starts;
  for (std::size_t j = K; j > 0; j = from[j]) starts.push_back(from[j]);
  std::reverse(starts.begin(), starts.end());
  return starts;
}

// One line over the segments [a0, b0) and [b0, b1) fits clearly worse than one line each (F test,
// 2 extra parameters): a kink or a wobble of the median curve is not a step.
bool two_lines_fit_better(const std::vector<Sums>& pre, std::size_t a0, std::size_t b0, std::size_t b1,
                          double min_f) {
  const double sse_split = (pre[b0] - pre[a0]).sse() + (pre[b1] - pre[b0]).sse();
  const double sse_one = (pre[b1] - pre[a0]).sse();
  const double dof = static_cast<double>(b1 - a0) - 4.0;
  const double gain = sse_one - sse_split;
  if (!(gain > 1e-12 * std::max(sse_one, 1e-300))) return false;
  return !(dof > 0 && sse_split > 0 && (gain / 2.0) / (sse_split / dof) < min_f);
}

// The threshold between the segments [a0, b0) and [b0, b1) of a curve (m: lengths in bytes, y:
// delays, len: lengths; pre: prefix sums of its points), if any: a step or a change of slope that
// stands out of the noise (see find_thresholds).
std::optional<Threshold> threshold_between(const std::vector<double>& m, const std::vector<double>& y,
                                           const std::vector<std::int64_t>& len, const std::vector<Sums>& pre,
                                           std::size_t a0, std::size_t b0, std::size_t b1,
                                           const ThresholdOptions& opt, double noise_in) {
  const std::size_t K = m.size();
  double tsa, twa, tsb, twb;
  const bool la = (pre[b0] - pre[a0]).solve(tsa, twa);
  const bool lb = (pre[b1] - pre[b0]).solve(tsb, twb);
  const double at = m[b0];
  const double ya = tsa + (la ? twa * at : 0.0);
  const double yb = tsb + (lb ? twb * at : 0.0);
  if (!(ya > 0)) return std::nullopt;
  // Either way: a step up (a protocol switch that costs more: rendezvous' handshake) or down (an
  // overhead charged below a threshold only, as SMPI's o_r below its eager threshold, or a
  // faster protocol for long messages). Whether it is one is for the noise to say, below.
  const double jump = yb / ya - 1.0;
  const double size = std::abs(jump);
  const double step = std::abs(yb - ya), sign = jump > 0 ? 1.0 : -1.0;
  if (!(size > 0)) return std::nullopt;
  // A change must stand out of the scatter of both segments around their lines (break_sigmas), of the
  // class's own noise, and be min_jump at least; one line over both segments must fit clearly
  // worse than two.
  auto scatter = [&](std::size_t a, std::size_t b) {
    return std::sqrt((pre[b] - pre[a]).sse() / static_cast<double>(b - a));
  };
  const double noise = std::max({scatter(a0, b0), scatter(b0, b1), noise_in});
  const double bar = std::max(opt.min_jump, kTuning.break_sigmas * std::max(scatter(a0, b0), scatter(b0, b1)));
  auto beyond = [&](double x) { return x >= bar && x > noise; };
  if (!two_lines_fit_better(pre, a0, b0, b1, opt.min_f)) return std::nullopt;
  const std::size_t check = std::min<std::size_t>(kTuning.break_check, K - b0);
  if (check < 2) return std::nullopt;
  const double slope_change =
      la && lb && twa > 0 && twb > 0 ? twb / twa - 1.0 : std::numeric_limits<double>::quiet_NaN();
  // A step holds: the next lengths (up to 3) all lie beyond the old regime's line, on the step's
  // side, by half the step (in seconds: a shift of ts keeps its size while the relative step
  // shrinks with m); and it is a step, not a kink: the new regime's line, taken back to the last
  // two lengths of the old one, lies beyond them on the step's side by half the step too (a flat
  // segment followed by the linear part of one Hockney line gives a "jump" between the lines,
  // but no such offset).
  bool holds = beyond(size);
  for (std::size_t q = b0; q < b0 + check && holds; ++q)
    if (!(sign * (y[q] - (tsa + (la ? twa * m[q] : 0.0))) >= kTuning.break_hold * step)) holds = false;
  for (std::size_t q = b0 >= 2 ? b0 - 2 : 0; q < b0 && holds; ++q)
    if (!(sign * ((tsb + (lb ? twb * m[q] : 0.0)) - y[q]) >= kTuning.break_hold * step)) holds = false;
  if (holds) return Threshold{len[b0], len[b0 - 1], jump, slope_change, false};
  // No step, but maybe a change of slope (a kink: SMPI's bandwidth factor changing at 64 KiB, a
  // copy protocol for long messages): both lines' slopes determined and apart by the bar; the
  // old line misses every one of the next lengths (up to 3) on the side of the change, the last
  // by the bar; the new line taken back to the last two old lengths passes them on that side by
  // less than half the bar (the lines cross at the switch). The bend of one Hockney line from
  // its flat part to its linear part is one line (the F test), and a curve that wobbles misses
  // on both sides.
  if (!std::isfinite(slope_change) || !beyond(std::abs(slope_change))) return std::nullopt;
  const double side = slope_change > 0 ? 1.0 : -1.0;
  bool kink = true;
  for (std::size_t q = b0; q < b0 + check && kink; ++q) {
    const double miss = side * (y[q] - (tsa + twa * m[q])) / y[q];
    if (!(miss > 0) || (q + 1 == b0 + check && !beyond(miss))) kink = false;
  }
  for (std::size_t q = b0 >= 2 ? b0 - 2 : 0; q < b0 && kink; ++q)
    if (!(side * (tsb + twb * m[q] - y[q]) / y[q] < kTuning.break_hold * bar)) kink = false;
  if (kink) return Threshold{len[b0], len[b0 - 1], jump, slope_change, true};
  return std::nullopt;
}

}  // namespace

std::vector<Threshold> find_thresholds(std::span<const std::int64_t> lengths, std::span<const double> t,
                                       const ThresholdOptions& opt, double noise_in) {
  std::vector<double> m, y;
  std::vector<std::int64_t> len;
  for (std::size_t k = 0; k < lengths.size() && k < t.size(); ++k)
    if (Cube::usable(t[k])) {
      m.push_back(static_cast<double>(lengths[k]));
      y.push_back(t[k]);
      len.push_back(lengths[k]);
    }
  const std::size_t K = m.size();
  std::vector<Threshold> out;
  if (K < 2 * kTuning.segment_min) return out;
  std::vector<Sums> pre(K + 1);
  for (std::size_t k = 0; k < K; ++k) {
    pre[k + 1] = pre[k];
    pre[k + 1].add(m[k], y[k]);
  }
  // Segment start indices, the first 0.
  const auto starts = segment_starts(pre, opt.penalty);
  for (std::size_t s = 1; s < starts.size(); ++s) {
    const std::size_t a0 = starts[s - 1], b0 = starts[s];
    const std::size_t b1 = s + 1 < starts.size() ? starts[s + 1] : K;
    if (auto threshold = threshold_between(m, y, len, pre, a0, b0, b1, opt, noise_in)) out.push_back(*threshold);
  }
  return out;
}

const ClassFit* HockneyResult::find(int cls) const {
  for (const auto& c : classes)
    if (c.cls == cls) return &c;
  return nullptr;
}

}  // namespace nt::analysis
