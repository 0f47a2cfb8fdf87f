// put: MPI_Put from origin x into target y, completed at the target.
#include "rma.hpp"

namespace nt::measure {
namespace {
class Put final : public kernels::RmaRun {
 public:
  explicit Put(Ctx& c)
      : RmaRun(c, [](Ctx& cx, MPI_Win w, int target, int len) {
          MPI_Put(cx.sbuf.data(), len, MPI_CHAR, target, 0, len, MPI_CHAR, w);
        }) {}
  void run(Ctx& c, const Task& t) override { pair(c, t.x, t.y); }
};

const Registrar kRegistered{{
    .name = "put",
    .id = 8,
    .aliases = {"put_one_to_one"},
    .description = "MPI_Put from origin x into target y + MPI_Win_flush (complete at the target), passive target",
    .sync_method = "none needed: origin clock; one window of the largest length, MPI_Win_lock(shared) per pair, "
                   "each sample MPI_Put + MPI_Win_flush (completes at origin and target)",
    .concurrent_ok = true,
    .start = [](Ctx& c) -> std::unique_ptr<ModeRun> { return std::make_unique<Put>(c); },
}};
}  // namespace
}  // namespace nt::measure
