#include "nt/sweep.hpp"

#include <cassert>

namespace nt {

std::int64_t linear_sweep_size(std::int64_t begin, std::int64_t end, std::int64_t step) {
  assert(begin >= 0 && end >= begin && step > 0);
  return (end - begin) / step + 1;
}

std::vector<std::int64_t> linear_sweep(std::int64_t begin, std::int64_t end, std::int64_t step) {
  const auto n = linear_sweep_size(begin, end, step);
  assert(n <= kMaxSweepLengths);
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(n));
  for (std::int64_t v = begin; v <= end; v += step) out.push_back(v);
  return out;
}

}  // namespace nt
