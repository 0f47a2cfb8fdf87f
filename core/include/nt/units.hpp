// Human-readable numbers with units for reports and UIs (files always store seconds).
#pragma once

#include <cstdint>
#include <string>

namespace nt {

// 1.5e-6 -> "1.50 µs"; chooses s, ms, µs or ns.
std::string format_seconds(double seconds);
// 1536 -> "1.5 KiB"
std::string format_bytes(std::int64_t bytes);
// bytes per second -> "1.23 GB/s" (decimal units, as network vendors quote them)
std::string format_bandwidth(double bytes_per_second);

}  // namespace nt
