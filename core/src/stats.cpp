#include "nt/stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace nt {
namespace {

void require(std::span<const double> x, const char* what) {
  if (x.empty()) throw std::invalid_argument(std::string(what) + " of no samples");
}

}  // namespace

double mean(std::span<const double> x) {
  require(x, "mean");
  // Kahan-compensated sum: thousands of nearly equal delays lose digits otherwise.
  double sum = 0.0, c = 0.0;
  for (double v : x) {
    const double y = v - c;
    const double t = sum + y;
    c = (t - sum) - y;
    sum = t;
  }
  return sum / static_cast<double>(x.size());
}

double median_inplace(std::span<double> s) {
  if (s.empty()) throw std::invalid_argument("median of no samples");
  const std::size_t n = s.size();
  const auto mid = s.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(s.begin(), mid, s.end());
  const double upper = *mid;
  if (n % 2 == 1) return upper;
  const double lower = *std::max_element(s.begin(), mid);
  return lower + (upper - lower) / 2.0;
}

double lower_median_inplace(std::span<double> s) {
  if (s.empty()) throw std::invalid_argument("lower median of no samples");
  const auto mid = s.begin() + static_cast<std::ptrdiff_t>((s.size() - 1) / 2);
  std::nth_element(s.begin(), mid, s.end());
  return *mid;
}

double median(std::span<const double> x) {
  require(x, "median");
  std::vector<double> s(x.begin(), x.end());
  return median_inplace(s);
}

double sample_stddev(std::span<const double> x) {
  require(x, "standard deviation");
  if (x.size() < 2) return 0.0;
  const double m = mean(x);
  double ss = 0.0;
  for (double v : x) ss += (v - m) * (v - m);
  return std::sqrt(ss / static_cast<double>(x.size() - 1));
}

Summary summarize(std::span<const double> x) {
  require(x, "summary");
  Summary r;
  r.count = x.size();
  r.mean = mean(x);
  r.median = median(x);
  const auto [mn, mx] = std::minmax_element(x.begin(), x.end());
  r.min = *mn;
  r.max = *mx;
  r.stddev = sample_stddev(x);
  return r;
}

double summary_value(const Summary& s, Statistic st) {
  switch (st) {
    case Statistic::average: return s.mean;
    case Statistic::median: return s.median;
    case Statistic::deviation: return s.stddev;
    case Statistic::min: return s.min;
    case Statistic::max: return s.max;
    case Statistic::all: break;
  }
  throw std::invalid_argument("statistic " + std::string(statistic_name(st)) + " is not a summary value");
}

double finite_median(std::span<const double> x) {
  std::vector<double> f;
  f.reserve(x.size());
  for (double v : x)
    if (std::isfinite(v)) f.push_back(v);
  return f.empty() ? kNaN : median(f);
}

double robust_sigma_of_deviations(std::span<const double> abs_deviations) {
  return 1.4826 * finite_median(abs_deviations);
}

RobustSpread robust_spread(std::span<const double> x) {
  const double m = finite_median(x);
  std::vector<double> d;
  d.reserve(x.size());
  for (double v : x)
    if (std::isfinite(v)) d.push_back(std::fabs(v - m));
  return {m, robust_sigma_of_deviations(d)};
}

}  // namespace nt
