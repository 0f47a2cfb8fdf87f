// Statistics over samples.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace nt {

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
// Sample standard deviation (divides by n-1), computed with a two-pass algorithm.
double sample_stddev(std::span<const double> x);
// Percentile p in [0, 100] by linear interpolation between closest ranks (p=50 is the median).
double percentile(std::span<const double> x, double p);
Summary summarize(std::span<const double> x);
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

// Median absolute deviation (unscaled); robust spread for anomaly detection.
double mad(std::span<const double> x);

}  // namespace nt
