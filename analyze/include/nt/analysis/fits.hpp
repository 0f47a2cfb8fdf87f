// Hockney fits t = ts + m*tw and protocol thresholds (message lengths where the delay curve steps).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "nt/analysis/cube.hpp"
#include "nt/analysis/topology.hpp"

namespace nt::analysis {

struct LineFit {
  double ts = 0.0;       // s
  double tw = 0.0;       // s per byte (NaN when only one length)
  double r2 = 0.0;       // coefficient of determination (1 for an exact fit)
  double rel_rms = 0.0;  // RMS of the relative residuals
  int points = 0;
  bool ok() const { return points > 0; }
};

// Least squares with relative weights (1/t^2), so that short messages count as much as long ones.
// Points with unusable t are skipped. One point gives ts = t, tw = NaN.
LineFit fit_hockney(std::span<const double> m, std::span<const double> t);

struct Threshold {
  std::int64_t length = 0;           // first length of the new regime
  std::int64_t previous_length = 0;  // last length of the old one: the switch lies in between
  double jump = 0.0;                 // relative step of the fitted lines at `length`
};

struct ThresholdOptions {
  double penalty = 0.002;  // cost of one more segment, in squared relative error
  double min_jump = 0.08;  // smallest relative step reported
};

// Segmented least squares (dynamic programming, segments of >= 3 points, relative errors) on a
// delay curve sorted by length; a break is reported when the lines step by >= min_jump and by 3x
// the relative scatter of both segments. Needs at least 6 usable points.
std::vector<Threshold> find_thresholds(std::span<const std::int64_t> lengths, std::span<const double> t,
                                       const ThresholdOptions& opt = {});

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
  struct Spread { double ts_median = 0, ts_min = 0, ts_max = 0, tw_median = 0, tw_min = 0, tw_max = 0, r2_median = 0; };
  std::vector<Spread> pair_spread;
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

HockneyResult fit_classes_and_pairs(const Cube& c, const Topology& t, const ThresholdOptions& opt = {});

}  // namespace nt::analysis
