// put: MPI_Put from origin x into target y, completed at the target.
#include "rma.hpp"

namespace nt::measure {
namespace {
const Registrar kRegistered{kernels::rma_mode(
    identify(Mode::put, {.description = "MPI_Put from origin x into target y + MPI_Win_flush (complete at the target), "
                                        "passive target"}),
    kernels::RmaOp::put)};
}  // namespace
}  // namespace nt::measure
