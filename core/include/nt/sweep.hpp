// The one rule for a linear sweep of message lengths (begin, begin + step, ..., up to end), shared by
// network_test (-b/-e/-s) and network_convert synth (--begin/--end/--step).
#pragma once

#include <cstdint>
#include <vector>

namespace nt {

// More lengths than this in one sweep is a typing error (e.g. -s 1 up to 2 GiB), not a sweep anyone
// can run or store: both programs refuse such a sweep (and network_test a --lengths list that long).
inline constexpr std::int64_t kMaxSweepLengths = 100000;

// How many lengths begin, begin + step, ... <= end has. Requires 0 <= begin <= end and step > 0.
std::int64_t linear_sweep_size(std::int64_t begin, std::int64_t end, std::int64_t step);

// Those lengths, in increasing order. Requires what linear_sweep_size requires and at most
// kMaxSweepLengths lengths (callers check first, to refuse with their own option names).
std::vector<std::int64_t> linear_sweep(std::int64_t begin, std::int64_t end, std::int64_t step);

}  // namespace nt
