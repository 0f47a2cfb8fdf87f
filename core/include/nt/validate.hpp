// Which delays are believable: one rule for every program. A delay is bad when it is NaN
// (missing), infinite, negative, or absurd (above kAbsurdDelay). `network_convert info` reports
// bad values with their count and positions, the analysis excludes them with a note, the viewer
// draws them as "no data".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "nt/dataset.hpp"
#include "nt/matrix.hpp"

namespace nt {

// No message between two ranks takes a quarter of an hour; a larger value is corrupt data.
inline constexpr double kAbsurdDelay = 1e3;  // seconds

inline bool is_good_delay(double v) noexcept { return v >= 0.0 && v <= kAbsurdDelay; }  // false for NaN

struct BadValues {
  struct Where {
    std::size_t k = 0;  // matrix index
    int sender = 0, receiver = 0;
    double value = 0;
  };
  std::size_t missing = 0, infinite = 0, negative = 0, absurd = 0;
  std::vector<Where> first;  // the first few, in file order
  std::size_t total() const noexcept { return missing + infinite + negative + absurd; }
  // "3 bad values (2 NaN, 1 negative)" or "" when there are none.
  std::string summary() const;
  // Counts the bad cells of matrix k (the diagonal too unless skip_diagonal).
  void scan(const Matrix& m, std::size_t k, bool skip_diagonal, std::size_t keep_first = 10);
  // The same for senders [x0, x0+nx) of a P-rank matrix k given as rows, [x*P + y]: a matrix
  // scanned block by block of rows, in order, counts and keeps exactly what scan(m) does.
  void scan_rows(const double* rows, int P, int x0, int nx, std::size_t k, bool skip_diagonal,
                 std::size_t keep_first = 10);
};

// Scans every matrix of d (the diagonal of pairwise modes, zero by definition, is skipped).
BadValues scan_values(const Dataset& d);

}  // namespace nt
