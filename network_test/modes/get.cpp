// get: MPI_Get by origin y from target x, completed at the origin.
#include "rma.hpp"

namespace nt::measure {
namespace {
const Registrar kRegistered{kernels::rma_mode(
    identify(Mode::get,
             {.results_in_rows = false,  // the origin y holds the samples
              .description = "MPI_Get by origin y from target x + MPI_Win_flush (data arrived at y), passive target"}),
    kernels::RmaOp::get)};
}  // namespace
}  // namespace nt::measure
