// async_one_to_one: x and y exchange at once (Isend/Irecv) from a common start.
#include "common.hpp"

namespace nt::measure {

void register_async_one_to_one(Registry& r) {
  ModeSpec m;
  m.mode = Mode::async_one_to_one;
  m.name = "async_one_to_one";
  m.description = "x and y exchange at once with Isend/Irecv from a common start; [x][y] = y's completion time";
  m.kind = TaskKind::exchange_pairs;
  m.results_in_rows = false;
  m.concurrent_ok = true;
  m.sync_method = std::string(kernels::kOffsetMethod) +
                  "; the pair starts each exchange at a common time the leader sends ahead on the peer's clock";
  m.run = kernels::exchange;
  r.add(std::move(m));
}

}  // namespace nt::measure
