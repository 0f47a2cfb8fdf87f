// Hockney fits t = ts + m*tw and protocol thresholds (message lengths where the delay curve steps).
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "nt/analysis/cube.hpp"
#include "nt/analysis/topology.hpp"

namespace nt::analysis {

struct LineFit {
  double ts = 0.0;       // s, never negative
  double tw = 0.0;       // s per byte, never negative (NaN when only one length)
  double r2 = 0.0;       // coefficient of determination, clamped to [0, 1]
  double rel_rms = 0.0;  // RMS of the relative residuals
  int points = 0;
  // False when the data cannot determine the parameter: the unconstrained optimum lay below 0 (the
  // fit then holds it at 0), the estimate is smaller than twice its standard error, or (tw) all
  // lengths are equal. The value is then only an upper-bound-like placeholder, not a measurement.
  bool ts_identifiable = false;
  bool tw_identifiable = false;
  bool ok() const { return points > 0; }
};

// Least squares with relative weights (1/t^2), so that short messages count as much as long ones,
// under ts >= 0 and tw >= 0 (the two-parameter non-negative least squares: when the free optimum is
// infeasible, the better of the two boundary fits ts = 0 and tw = 0). Points with unusable t are
// skipped. One point gives ts = t, tw = NaN.
LineFit fit_hockney(std::span<const double> m, std::span<const double> t);

// One word for a fit's relative RMS residual: "good" (<= 3 %), "fair" (<= 10 %), "poor" (more), and
// "exact" for a residual below 1e-9. Used instead of r2, which is meaningless (or negative) for flat
// curves and fits held at a bound.
const char* fit_quality(double rel_rms);

struct Threshold {
  std::int64_t length = 0;           // first length of the new regime
  std::int64_t previous_length = 0;  // last length of the old one: the switch lies in between
  double jump = 0.0;                 // relative step of the fitted lines at `length`, < 0 downward
  double slope_change = std::numeric_limits<double>::quiet_NaN();  // tw after / tw before - 1 (NaN: not both determined)
  bool slope = false;                // a change of slope (the lines cross at the switch), not a step
};

struct ThresholdOptions {
  double penalty = 0.002;  // cost of one more segment, in squared relative error
  double min_jump = 0.08;  // smallest relative step reported
  double min_f = 10.0;     // F statistic one line vs two lines around a break must exceed
};

// Segmented least squares (dynamic programming, segments of >= 3 points, relative errors) on a
// delay curve sorted by length; a break is reported when the lines step, up or down, by >= min_jump
// and by 3x the relative scatter of both segments, or, without such a step, when their slopes
// differ by as much (Threshold::slope). Needs at least 6 usable points.
// `noise` is the relative noise of the curve's class (robust spread of the pairs' delays around the
// class curve, or the deviation file's spread, whichever is larger): a change must exceed it and
// hold at the following lengths. A step: each of the next min(3, rest) points lies beyond the old
// regime's line, on the step's side, by at least half the step, and the new regime's line lies
// beyond the last two old points on that side by as much. A change of slope: the old line misses
// every one of the next points on the change's side (the last by the bar), and the new line taken
// back passes the last two old points on that side by less than half the bar. Threshold::jump is
// signed.
std::vector<Threshold> find_thresholds(std::span<const std::int64_t> lengths, std::span<const double> t,
                                       const ThresholdOptions& opt = {}, double noise = 0.0);

struct RangeFit {
  std::int64_t from = 0, to = 0;  // lengths covered, inclusive
  std::size_t k0 = 0, k1 = 0;     // matrix indices [k0, k1)
  LineFit fit;
};

struct ClassFit {
  int cls = 0;
  std::string name;
  std::size_t pairs = 0;
  std::vector<double> curve;             // median delay over the class's pairs, per length
  std::vector<Threshold> thresholds;
  std::vector<RangeFit> ranges;          // fit of the median curve per range (short ... long)
  // Per range: median, min and max over the pairs of the per-pair ts and tw, and the median r2.
  struct Spread {
    double ts_median = 0, ts_min = 0, ts_max = 0, tw_median = 0, tw_min = 0, tw_max = 0, r2_median = 0;
    double rel_rms_median = 0;
    std::size_t ts_unidentifiable = 0, tw_unidentifiable = 0, fitted = 0;  // pair counts
  };
  std::vector<Spread> pair_spread;
  double noise = 0.0;  // relative noise of the class used for the thresholds (see find_thresholds)
};

struct PairFit {
  int i = 0, j = 0, cls = 0;
  std::vector<LineFit> ranges;  // the ranges of its class
};

struct HockneyResult {
  std::vector<ClassFit> classes;  // non-empty classes only
  std::vector<PairFit> pairs;     // every off-diagonal pair
  const ClassFit* find(int cls) const;
};

// `deviation`, when given (same ranks and lengths), raises each class's noise to the median relative
// deviation of its cells. The class curves take one pass over the lengths; the pair fits passes
// over blocks of senders (every length of a block at a time): one when every class's pair
// statistics fit in memory, up to five for exact medians over millions of pairs. `keep_pairs`
// false leaves HockneyResult::pairs empty (P^2 fits are the largest part of a big report).
HockneyResult fit_classes_and_pairs(const Cube& c, const Topology& t, const ThresholdOptions& opt = {},
                                    const Cube* deviation = nullptr, bool keep_pairs = true);

// The exact median (as nt::finite_median) of a multiset too large to hold, offered in passes: each
// pass offers every value again, in any order; after at most 5 passes done() is true. Holds at most
// `cap` values (and two 65,536-bin histograms while the population is larger).
class StreamedMedian {
 public:
  explicit StreamedMedian(std::size_t cap = std::size_t{1} << 22) : cap_(cap) {}
  void offer(double x);       // non-finite values are skipped, as finite_median does
  void end_pass();
  bool done() const { return done_; }
  double value() const { return value_; }  // NaN when there were no finite values

 private:
  struct Target {
    std::uint64_t rank = 0;        // rank (0-based) among the values with the known key prefix
    std::uint64_t prefix = 0;      // the key's top `bits` bits
    int bits = 0;
    bool collect = false;          // this pass collects the values with the prefix
    bool found = false;
    double value = 0;
    std::vector<std::uint64_t> hist;
    std::vector<double> held;
  };
  void offer_target(Target& t, std::uint64_t key, double x);
  void settle(Target& t);
  std::size_t cap_;
  int pass_ = 0;
  std::uint64_t n_ = 0;
  bool done_ = false, first_overflow_ = false;
  double value_ = 0;
  std::vector<double> all_;         // first pass: every value while at most cap
  std::vector<std::uint64_t> hist0_;  // first pass: top 16 bits of every key
  Target lo_, hi_;
};

}  // namespace nt::analysis
