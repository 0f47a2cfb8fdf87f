// All delays of a dataset in memory, sorted by message length: the input of every analysis.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "nt/stats.hpp"
#include "nt/validate.hpp"
#include "nt/dataset.hpp"

namespace nt::analysis {

struct Cube {
  int P = 0;
  std::vector<std::int64_t> lengths;  // ascending (stable for duplicates)
  // [(k*P + i)*P + j], seconds, x=i sender, y=j receiver. Single precision (relative rounding
  // 6e-8, far below any measured delay's noise): the whole file in memory at half its size.
  std::vector<float> v;
  Mode mode = Mode::one_to_one;
  Statistic statistic = Statistic::median;
  std::vector<std::string> hosts;     // from the file (may be empty)
  std::string source;
  BadValues bad;                      // bad delays of the file, replaced by NaN (excluded)

  std::size_t count() const noexcept { return lengths.size(); }
  double at(std::size_t k, int i, int j) const {
    return static_cast<double>(v[(k * static_cast<std::size_t>(P) + static_cast<std::size_t>(i)) * static_cast<std::size_t>(P) +
             static_cast<std::size_t>(j)]);
  }
  float& at(std::size_t k, int i, int j) {
    return v[(k * static_cast<std::size_t>(P) + static_cast<std::size_t>(i)) * static_cast<std::size_t>(P) +
             static_cast<std::size_t>(j)];
  }
  // A usable delay: finite and positive.
  static bool usable(double x) noexcept { return x > 0 && x < 1e300; }
};

// Reads every matrix of `d` (one at a time, so the file is never in memory twice) and sorts them
// by length; delays are stored as float (a delay beyond float's range is a bad value). Throws nt::Error when the
// dataset holds no matrix or fewer than 2 ranks.
Cube load_cube(const Dataset& d);

// Everything of `c` but its delays (v stays empty): what a report keeps of its input.
Cube cube_header(const Cube& c);

// Median of a large population of cells (a class at one length, every residual of a length): of all
// values up to 2^18 of them, else of 2^18 evenly spaced ones (x is reordered and shrunk). The
// sample's median is within ~0.25 % of a robust sigma of the full one (1.25 / sqrt(2^18)): for
// levels and thresholds over millions of cells, never for one pair. NaN when x is empty.
double population_median(std::vector<double>& x);
// The analysis's robust spread (nt::robust_spread: median, 1.4826 MAD) of the finite values of
// such a population, from the same sample (x is reordered, shrunk and overwritten).
RobustSpread population_spread(std::vector<double>& x);

// Threads parallel_for uses: set_threads(n) for n >= 1, set_threads(0) (the default) for the
// CPUs of the process's affinity mask (sched_getaffinity: a batch job's allocation).
void set_threads(std::size_t n);
std::size_t threads();

// Runs body(begin, end) over [0, n) split into contiguous chunks on threads() threads.
void parallel_for(std::size_t n, const std::function<void(std::size_t, std::size_t)>& body);

// The hosts to compare with: `override_file` when given, else the dataset's own.
std::vector<std::string> hosts_for(const Cube& c, const std::string& override_file);

}  // namespace nt::analysis
