#include "nt/stats.hpp"
#include "nt/analysis/fits.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace nt::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

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
  if (rel_rms <= 0.03) return "good";
  if (rel_rms <= 0.10) return "fair";
  return "poor";
}

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
  if (K < 6) return out;
  std::vector<Sums> pre(K + 1);
  for (std::size_t k = 0; k < K; ++k) {
    pre[k + 1] = pre[k];
    pre[k + 1].add(m[k], y[k]);
  }
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> best(K + 1, inf);
  std::vector<std::size_t> from(K + 1, 0);
  best.front() = 0;
  // Segments of at least 3 points, so that every line is over-determined.
  constexpr std::size_t kMin = 3;
  for (std::size_t j = kMin; j <= K; ++j)
    for (std::size_t i = 0; i + kMin <= j; ++i) {
      if (!std::isfinite(best[i])) continue;
      const double c = best[i] + (pre[j] - pre[i]).sse() + opt.penalty;
      if (c < best[j]) {
        best[j] = c;
        from[j] = i;
      }
    }
  std::vector<std::size_t> starts;
  for (std::size_t j = K; j > 0; j = from[j]) starts.push_back(from[j]);
  std::reverse(starts.begin(), starts.end());  // segment start indices, first is 0
  for (std::size_t s = 1; s < starts.size(); ++s) {
    const std::size_t a0 = starts[s - 1], b0 = starts[s];
    const std::size_t b1 = s + 1 < starts.size() ? starts[s + 1] : K;
    double tsa, twa, tsb, twb;
    const bool la = (pre[b0] - pre[a0]).solve(tsa, twa);
    const bool lb = (pre[b1] - pre[b0]).solve(tsb, twb);
    const double at = m[b0];
    const double ya = tsa + (la ? twa * at : 0.0);
    const double yb = tsb + (lb ? twb * at : 0.0);
    if (!(ya > 0)) continue;
    const double jump = yb / ya - 1.0;
    // A protocol switch makes messages slower, never faster: a negative step is noise or a
    // measurement artefact, not a threshold.
    if (!(jump > 0)) continue;
    // The step must stand out of the scatter of both segments around their lines, and of the
    // class's own noise.
    auto scatter = [&](std::size_t a, std::size_t b) {
      return std::sqrt((pre[b] - pre[a]).sse() / static_cast<double>(b - a));
    };
    const double noise = std::max({scatter(a0, b0), scatter(b0, b1), noise_in});
    if (jump < opt.min_jump || jump < 3.0 * std::max(scatter(a0, b0), scatter(b0, b1)) || jump <= noise) continue;
    // One line over both segments must fit clearly worse than two (F test, 2 extra parameters):
    // a kink or a wobble of the median curve is not a step.
    {
      const double sse_split = (pre[b0] - pre[a0]).sse() + (pre[b1] - pre[b0]).sse();
      const double sse_one = (pre[b1] - pre[a0]).sse();
      const double dof = static_cast<double>(b1 - a0) - 4.0;
      const double gain = sse_one - sse_split;
      if (!(gain > 1e-12 * std::max(sse_one, 1e-300))) continue;
      if (dof > 0 && sse_split > 0 && (gain / 2.0) / (sse_split / dof) < opt.min_f) continue;
    }
    bool holds = true;
    // It must hold: the next lengths (up to 3) all lie above the old regime's line by half the step
    // (in seconds: a shift of ts keeps its size while the relative step shrinks with m).
    const std::size_t check = std::min<std::size_t>(3, K - b0);
    if (check < 2) continue;
    for (std::size_t q = b0; q < b0 + check; ++q) {
      const double old_line = tsa + (la ? twa * m[q] : 0.0);
      if (!(y[q] - old_line >= 0.5 * (yb - ya))) holds = false;
    }
    // And it must be a step, not a kink: the new regime's line, taken back to the last lengths of
    // the old one, lies above them by half the step too (a flat segment followed by the linear
    // part of one Hockney line gives a "jump" between the lines, but no such offset).
    for (std::size_t q = b0 >= 2 ? b0 - 2 : 0; q < b0 && holds; ++q) {
      const double new_line = tsb + (lb ? twb * m[q] : 0.0);
      if (!(new_line - y[q] >= 0.5 * (yb - ya))) holds = false;
    }
    if (holds) out.push_back({len[b0], len[b0 - 1], jump});
  }
  return out;
}

const ClassFit* HockneyResult::find(int cls) const {
  for (const auto& c : classes)
    if (c.cls == cls) return &c;
  return nullptr;
}

namespace {
// Robust relative spread of positive delays: the robust sigma of their logarithms (l: scratch).
double log_spread(const std::vector<double>& x, std::vector<double>& l) {
  if (x.size() < 3) return kNaN;
  l.resize(x.size());
  for (std::size_t q = 0; q < x.size(); ++q) l[q] = std::log(x[q]);
  return population_spread(l).sigma;
}
}  // namespace

HockneyResult fit_classes_and_pairs(const Cube& c, const Topology& t, const ThresholdOptions& opt,
                                    const Cube* deviation) {
  HockneyResult r;
  const int P = c.P;
  const std::size_t K = c.count();
  const int nc = t.class_count();
  std::vector<int> cls(static_cast<std::size_t>(P) * static_cast<std::size_t>(P), -1);
  std::vector<std::size_t> count(static_cast<std::size_t>(nc), 0);
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j)
      if (i != j) {
        const int k = t.pair_class(i, j);
        cls[static_cast<std::size_t>(i * P + j)] = k;
        ++count[static_cast<std::size_t>(k)];
      }
  std::vector<double> mlen(K);
  for (std::size_t k = 0; k < K; ++k) mlen[k] = static_cast<double>(c.lengths[k]);
  std::vector<ClassFit> fits(static_cast<std::size_t>(nc));
  for (int k = 0; k < nc; ++k) {
    fits[static_cast<std::size_t>(k)].cls = k;
    fits[static_cast<std::size_t>(k)].name = t.class_name(k);
    fits[static_cast<std::size_t>(k)].pairs = count[static_cast<std::size_t>(k)];
    fits[static_cast<std::size_t>(k)].curve.assign(K, kNaN);
  }
  const bool dev_ok = deviation && deviation->P == P && deviation->count() == K;
  // Per length and class: the median curve, the spread of the pairs and the deviation's share
  // (NaN where the class has no delay at that length). Lengths in parallel, medians in place.
  std::vector<double> sp_k(K * static_cast<std::size_t>(nc), kNaN), dev_k(K * static_cast<std::size_t>(nc), kNaN);
  parallel_for(K, [&](std::size_t ka, std::size_t kb) {
    std::vector<std::vector<double>> bucket(static_cast<std::size_t>(nc)), dev_bucket(static_cast<std::size_t>(nc));
    std::vector<double> scratch;
    for (std::size_t k = ka; k < kb; ++k) {
      for (auto& b : bucket) b.clear();
      for (auto& b : dev_bucket) b.clear();
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j) {
          const int q = cls[static_cast<std::size_t>(i * P + j)];
          if (q < 0 || !Cube::usable(c.at(k, i, j))) continue;
          bucket[static_cast<std::size_t>(q)].push_back(c.at(k, i, j));
          if (dev_ok && std::isfinite(deviation->at(k, i, j)) && deviation->at(k, i, j) >= 0)
            dev_bucket[static_cast<std::size_t>(q)].push_back(deviation->at(k, i, j) / c.at(k, i, j));
        }
      for (int q = 0; q < nc; ++q) {
        auto& b = bucket[static_cast<std::size_t>(q)];
        if (b.empty()) continue;
        fits[static_cast<std::size_t>(q)].curve[k] = population_median(b);
        sp_k[k * static_cast<std::size_t>(nc) + static_cast<std::size_t>(q)] = log_spread(b, scratch);
        if (!dev_bucket[static_cast<std::size_t>(q)].empty())
          dev_k[k * static_cast<std::size_t>(nc) + static_cast<std::size_t>(q)] = population_median(dev_bucket[static_cast<std::size_t>(q)]);
      }
    }
  });
  std::vector<std::vector<double>> spread(static_cast<std::size_t>(nc)), dev_rel(static_cast<std::size_t>(nc));
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t q = 0; q < static_cast<std::size_t>(nc); ++q) {
      if (std::isfinite(sp_k[k * static_cast<std::size_t>(nc) + q])) spread[q].push_back(sp_k[k * static_cast<std::size_t>(nc) + q]);
      if (std::isfinite(dev_k[k * static_cast<std::size_t>(nc) + q])) dev_rel[q].push_back(dev_k[k * static_cast<std::size_t>(nc) + q]);
    }
  for (int q = 0; q < nc; ++q) {
    double n = 0;
    if (!spread[static_cast<std::size_t>(q)].empty()) n = finite_median(spread[static_cast<std::size_t>(q)]);
    if (!dev_rel[static_cast<std::size_t>(q)].empty()) n = std::max(n, finite_median(dev_rel[static_cast<std::size_t>(q)]));
    fits[static_cast<std::size_t>(q)].noise = std::isfinite(n) ? n : 0.0;
  }
  for (auto& f : fits) {
    if (f.pairs == 0) continue;
    f.thresholds = find_thresholds(c.lengths, f.curve, opt, f.noise);
    std::size_t k0 = 0;
    auto add_range = [&](std::size_t a, std::size_t b) {
      if (a >= b) return;
      RangeFit rf;
      rf.k0 = a;
      rf.k1 = b;
      rf.from = c.lengths[a];
      rf.to = c.lengths[b - 1];
      rf.fit = fit_hockney(std::span(mlen).subspan(a, b - a), std::span<const double>(f.curve).subspan(a, b - a));
      f.ranges.push_back(rf);
    };
    for (const auto& th : f.thresholds) {
      std::size_t kb = k0;
      while (kb < K && c.lengths[kb] < th.length) ++kb;
      add_range(k0, kb);
      k0 = kb;
    }
    add_range(k0, K);
  }
  // Per pair fits over the ranges of its class (senders in parallel; pairs in (i, j) order).
  r.pairs.resize(static_cast<std::size_t>(P) * static_cast<std::size_t>(P - 1));
  parallel_for(static_cast<std::size_t>(P), [&](std::size_t i0, std::size_t i1) {
    std::vector<double> series(K);
    for (int i = static_cast<int>(i0); i < static_cast<int>(i1); ++i)
      for (int j = 0; j < P; ++j) {
        if (i == j) continue;
        PairFit& pf = r.pairs[static_cast<std::size_t>(i) * static_cast<std::size_t>(P - 1) + static_cast<std::size_t>(j < i ? j : j - 1)];
        pf.i = i;
        pf.j = j;
        pf.cls = cls[static_cast<std::size_t>(i * P + j)];
        for (std::size_t k = 0; k < K; ++k) series[k] = c.at(k, i, j);
        for (const auto& rg : fits[static_cast<std::size_t>(pf.cls)].ranges)
          pf.ranges.push_back(fit_hockney(std::span(mlen).subspan(rg.k0, rg.k1 - rg.k0),
                                          std::span<const double>(series).subspan(rg.k0, rg.k1 - rg.k0)));
      }
  });
  for (auto& f : fits) {
    if (f.pairs == 0) continue;
    for (std::size_t g = 0; g < f.ranges.size(); ++g) {
      std::vector<double> ts, tw, r2, rr;
      ClassFit::Spread s;
      for (const auto& p : r.pairs)
        if (p.cls == f.cls && g < p.ranges.size() && p.ranges[g].ok()) {
          const auto& x = p.ranges[g];
          ++s.fitted;
          if (std::isfinite(x.ts)) ts.push_back(x.ts);
          if (std::isfinite(x.tw)) tw.push_back(x.tw);
          if (!x.ts_identifiable) ++s.ts_unidentifiable;
          if (!x.tw_identifiable) ++s.tw_unidentifiable;
          r2.push_back(x.r2);
          rr.push_back(x.rel_rms);
        }
      if (!ts.empty()) {
        s.ts_median = finite_median(ts);
        s.ts_min = *std::min_element(ts.begin(), ts.end());
        s.ts_max = *std::max_element(ts.begin(), ts.end());
      }
      if (!tw.empty()) {
        s.tw_median = finite_median(tw);
        s.tw_min = *std::min_element(tw.begin(), tw.end());
        s.tw_max = *std::max_element(tw.begin(), tw.end());
      } else {
        s.tw_median = s.tw_min = s.tw_max = kNaN;
      }
      if (!r2.empty()) s.r2_median = finite_median(r2);
      if (!rr.empty()) s.rel_rms_median = finite_median(rr);
      f.pair_spread.push_back(s);
    }
    r.classes.push_back(std::move(f));
  }
  return r;
}

}  // namespace nt::analysis
