// Statistics over samples.
#pragma once

#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "nt/types.hpp"

namespace nt {

// The value of what has none: a missing cell, a sample not taken, a statistic of no values.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Summary {
  std::size_t count = 0;
  double mean = 0, median = 0, min = 0, max = 0;
  double stddev = 0;  // sample standard deviation (n-1); 0 for fewer than 2 samples
};

double mean(std::span<const double> x);
// True median: the middle value, or the mean of the two middle values for even counts.
double median(std::span<const double> x);
// The same median, reordering x in place instead of copying it (for hot loops over scratch buffers).
double median_inplace(std::span<double> x);
// The lower median: the ceil(n/2)-th smallest (of two values the smaller), reordering x in place.
double lower_median_inplace(std::span<double> x);
// Sample standard deviation (divides by n-1), computed with a two-pass algorithm.
double sample_stddev(std::span<const double> x);
Summary summarize(std::span<const double> x);
// The value a statistic file stores for a summary (average: mean, deviation: stddev, ...): the one
// mapping from a summary to the five standard statistics, used by network_test and synth.
// Throws std::invalid_argument for Statistic::all (every sample, not a summary).
double summary_value(const Summary& s, Statistic st);
// Empty input throws std::invalid_argument in all of the above.

// Median of the finite values (NaN and infinities skipped); NaN when there are none. For
// analysis over matrices whose diagonal or missing cells are NaN.
double finite_median(std::span<const double> x);

// The robust sigma used by the analysis: 1.4826 x the median absolute deviation (the standard
// deviation for normal data), over the finite values (NaN and infinities skipped).
struct RobustSpread {
  double median;  // NaN when there are no finite values
  double sigma;   // 1.4826 x median |x - median|; NaN when there are no finite values
};
RobustSpread robust_spread(std::span<const double> x);
// The same sigma from absolute deviations already taken about some centre (|x - centre|).
double robust_sigma_of_deviations(std::span<const double> abs_deviations);

}  // namespace nt
