#include "nt/units.hpp"

#include <cmath>

#include <fmt/format.h>

namespace nt {

std::string format_seconds(double s) {
  if (std::isnan(s)) return "n/a";
  const double a = std::fabs(s);
  if (a == 0.0) return "0 s";
  if (a >= 1.0) return fmt::format("{:.3g} s", s);
  if (a >= 1e-3) return fmt::format("{:.3g} ms", s * 1e3);
  if (a >= 1e-6) return fmt::format("{:.3g} µs", s * 1e6);
  return fmt::format("{:.3g} ns", s * 1e9);
}

std::string format_bytes(std::int64_t b) {
  const double a = std::fabs(static_cast<double>(b));
  if (a < 1024) return fmt::format("{} B", b);
  if (a < 1024.0 * 1024) return fmt::format("{:.4g} KiB", static_cast<double>(b) / 1024);
  if (a < 1024.0 * 1024 * 1024) return fmt::format("{:.4g} MiB", static_cast<double>(b) / (1024.0 * 1024));
  return fmt::format("{:.4g} GiB", static_cast<double>(b) / (1024.0 * 1024 * 1024));
}

std::string format_bandwidth(double bps) {
  if (!std::isfinite(bps)) return "n/a";
  if (bps >= 1e9) return fmt::format("{:.3g} GB/s", bps / 1e9);
  if (bps >= 1e6) return fmt::format("{:.3g} MB/s", bps / 1e6);
  if (bps >= 1e3) return fmt::format("{:.3g} kB/s", bps / 1e3);
  return fmt::format("{:.3g} B/s", bps);
}

}  // namespace nt
