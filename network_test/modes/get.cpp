// get: MPI_Get by origin y from target x, completed at the origin.
#include "rma.hpp"

namespace nt::measure {
namespace {
class Get final : public kernels::RmaRun {
 public:
  explicit Get(Ctx& c)
      : RmaRun(c, [](Ctx& cx, MPI_Win w, int target, int len) {
          MPI_Get(cx.rbuf.data(), len, MPI_CHAR, target, 0, len, MPI_CHAR, w);
        }) {}
  void run(Ctx& c, const Task& t) override { pair(c, t.y, t.x); }
};

const Registrar kRegistered{{
    .name = "get",
    .id = 9,
    .aliases = {"get_one_to_one"},
    .description = "MPI_Get by origin y from target x + MPI_Win_flush (data arrived at y), passive target",
    .sync_method = "none needed: origin clock; one window of the largest length, MPI_Win_lock(shared) per pair, "
                   "each sample MPI_Get + MPI_Win_flush",
    .results_in_rows = false,
    .concurrent_ok = true,
    .start = [](Ctx& c) -> std::unique_ptr<ModeRun> { return std::make_unique<Get>(c); },
}};
}  // namespace
}  // namespace nt::measure
