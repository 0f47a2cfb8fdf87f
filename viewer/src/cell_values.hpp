// The rules for one cell of a view, shared by the document's block reads (document_values.cpp)
// and the streamed views' probes (document_probe.cpp): bad delays are no data, and how a
// difference or ratio view compares two runs.
#pragma once

#include <limits>
#include <vector>

#include "nt/validate.hpp"

namespace nt::viewer::detail {

// Bad delays (NaN, infinite, negative, absurd: nt/validate.hpp) are no data: drawn as such and
// never part of a scale or a difference.
inline double good_or_nan(double v) { return nt::is_good_delay(v) ? v : std::numeric_limits<double>::quiet_NaN(); }

inline std::vector<double>& as_missing(std::vector<double>& v) {
  for (double& x : v)
    if (!nt::is_good_delay(x)) x = std::numeric_limits<double>::quiet_NaN();
  return v;
}

// The value a difference or ratio view shows for x here and o in the compared run (no data:
// NaN). Equal values (the diagonal's 0 and 0 too) are a ratio of 1: no change.
inline double compared(bool difference, double x, double o) {
  return difference ? x - o
         : x == o   ? 1.0
         : o > 0    ? x / o
                    : std::numeric_limits<double>::quiet_NaN();
}

}  // namespace nt::viewer::detail
