// async_one_to_one: x and y exchange at once (Isend/Irecv) from a common start.
#include "common.hpp"

namespace nt::measure {
namespace {
const Registrar kRegistered{identify(Mode::async_one_to_one, {
    .kind = TaskKind::exchange_pairs,
    .results_in_rows = false,
    .pair_clocks = true,
    .concurrent_ok = true,
    .run = [](Ctx& c, const Task& t, const Batch& b) { kernels::exchange(c, t, b); },
    .description = "x and y exchange at once with Isend/Irecv from a common start; [x][y] = y's completion time",
    .sync_method = std::string(kernels::kOffsetMethod) +
                   "; the pair starts each exchange at a common time the leader sends ahead on the peer's clock",
})};
}  // namespace
}  // namespace nt::measure
