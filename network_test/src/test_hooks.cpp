// The test hooks of the MPI tests, set through the environment (share/doc/network_test.md names
// them): a rank that hangs, and samples replaced by a known function of the cell.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

#include "runner.hpp"

namespace nt::measure {

namespace {
// NT_DEBUG_STALL=rank:length, read once.
struct DebugStall {
  int rank = -1;
  std::int64_t length = -1;
  DebugStall() {
    long long r = -1, l = -1;
    if (const char* e = std::getenv("NT_DEBUG_STALL"); e && std::sscanf(e, "%lld:%lld", &r, &l) == 2) {
      rank = static_cast<int>(r);
      length = l;
    }
  }
};
}  // namespace

void debug_stall(const Ctx& c, std::int64_t length) {
  static const DebugStall stall;
  if (c.rank == stall.rank && length == stall.length && !runner(c).calibrating)
    for (;;) sleep(1);
}

bool synthetic_samples() {
  static const bool on = std::getenv("NT_DEBUG_SYNTHETIC") != nullptr;
  return on;
}

void fill_synthetic(Ctx& c, std::int64_t length) {
  SampleStore& store = runner(c).store;
  const auto RU = static_cast<std::size_t>(store.stride);
  for (std::size_t j = 0; j < store.used.size(); ++j) {  // every slot: q its peer
    const std::size_t q = store.peers.empty() ? j : static_cast<std::size_t>(store.peers[j]);
    const auto r = static_cast<std::size_t>(c.rank);
    const std::size_t x = c.spec.results_in_rows ? r : q, y = c.spec.results_in_rows ? q : r;
    if (c.settings.precision > 0)
      store.used[j] = c.settings.min_repeats + static_cast<int>((x + 2 * y) % (RU - static_cast<std::size_t>(c.settings.min_repeats) + 1));
    for (std::size_t i = 0; i < RU; ++i) {
      store.values[j * RU + i] = 1e-6 * (1.0 + 0.25 * static_cast<double>(x) + 0.0625 * static_cast<double>(y) +
                                 1e-3 * static_cast<double>(length) + 0.01 * static_cast<double>((i * 7) % 5));
      store.flags[j * RU + i] = static_cast<std::uint8_t>((x + y + i) % 4 == 0 ? kSampleLate : 0);
    }
  }
}

}  // namespace nt::measure
