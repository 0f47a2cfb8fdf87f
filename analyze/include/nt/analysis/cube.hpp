// The delays of a dataset sorted by message length: the input of every analysis. Either all in
// memory (load_cube, tests, compare) or read from the file on demand, one length or one block of
// rows at a time (open_cube: `report` and `model` of files larger than memory; share/doc/analyze.md
// "Memory"). The analysis reads them only through rows()/slice()/block(), so both give the same
// answers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
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
  // Set by open_cube: the delays stay in the file (v is empty) and are read on demand;
  // file_index[k] is the file's index of the k-th length in ascending order.
  std::shared_ptr<const Dataset> file;
  std::vector<std::size_t> file_index;

  std::size_t count() const noexcept { return lengths.size(); }
  bool streamed() const noexcept { return static_cast<bool>(file); }
  // Senders [r0, r1) of the matrix of length index k, (r1 - r0) x P floats ([(i - r0)*P + j]), NaN for
  // bad delays: a pointer into v for a cube in memory, else the rows read into `buf` (the pointer
  // is valid while buf is unchanged). Not thread-safe for a streamed cube (one reader).
  const float* rows(std::size_t k, int r0, int r1, std::vector<float>& buf) const;
  const float* slice(std::size_t k, std::vector<float>& buf) const { return rows(k, 0, P, buf); }
  // Senders [r0, r1) x receivers [c0, c1) of length index k into out, [(i - r0)*(c1 - c0) + j - c0].
  void block(std::size_t k, int r0, int r1, int c0, int c1, float* out) const;
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

// The same cube, its delays left in the file: the header, the sorted lengths and the bad values
// (one pass over the file, one block of rows at a time). Throws like load_cube.
Cube open_cube(std::shared_ptr<const Dataset> d);

// Everything of `c` but its delays (v stays empty, no file): what a report keeps of its input.
Cube cube_header(const Cube& c);

// The message lengths both cubes hold, ascending: per common length (index in a, index in b). The
// one rule for every analysis of two files of a run or of two runs (compare, duplex, variance).
std::vector<std::pair<std::size_t, std::size_t>> common_lengths(const Cube& a, const Cube& b);

// The float the analysis holds for a delay of the file: NaN for a bad one (nt::is_good_delay).
float analysis_value(double x) noexcept;

// Bytes a pass over a streamed cube may hold in blocks of rows (default 128 MiB;
// NT_ANALYZE_BLOCK_BYTES changes it: tests use a small value to cut even small files into blocks).
std::size_t block_bytes();
// Rows per block when each row costs `bytes_per_row`: at least 1, at most P.
int rows_per_block(int P, std::size_t bytes_per_row);

// population_median's sample of populations visited twice instead of held: visit(take) calls
// take(q, x) for every member x of population q < n, in the same order both times. Returns per
// population all members when there are at most 2^18, else the 2^18 evenly spaced ones
// population_median keeps (same positions), so that population_median / population_spread of the
// result equal those of the whole population.
inline constexpr std::size_t kPopulationSample = std::size_t{1} << 18;
template <class Visit>
std::vector<std::vector<double>> population_samples(std::size_t n, Visit&& visit) {
  std::vector<std::size_t> count(n, 0);
  visit([&](std::size_t q, double) { ++count[q]; });
  std::vector<std::vector<double>> out(n);
  std::vector<std::size_t> seen(n, 0), next(n, 0);
  for (std::size_t q = 0; q < n; ++q) out[q].reserve(count[q] < kPopulationSample ? count[q] : kPopulationSample);
  visit([&](std::size_t q, double x) {
    const std::size_t pos = seen[q]++;
    if (count[q] <= kPopulationSample) {
      out[q].push_back(x);
    } else if (pos == next[q]) {  // positions t * count / 2^18, t = 0, 1, ...
      out[q].push_back(x);
      const std::size_t t = out[q].size();
      next[q] = t < kPopulationSample ? t * count[q] / kPopulationSample : count[q];
    }
  });
  return out;
}
template <class Visit>
std::vector<double> population_sample(Visit&& visit) {
  auto s = population_samples(1, [&](auto&& take) { visit([&](double x) { take(std::size_t{0}, x); }); });
  return std::move(s.front());
}

// The median of values held as float, equal to nt::finite_median of the same values as doubles (x
// is reordered; NaN are not expected). NaN when empty.
double float_median(std::vector<float>& x);

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
