// get: MPI_Get by origin y from target x, completed at the origin.
#include "rma.hpp"

namespace nt::measure {
namespace {
const Registrar kRegistered{kernels::rma_mode(
    {.name = "get", .id = 9, .aliases = {"get_one_to_one"},
     .results_in_rows = false,  // the origin y holds the samples
     .description = "MPI_Get by origin y from target x + MPI_Win_flush (data arrived at y), passive target"},
    kernels::RmaOp::get)};
}  // namespace
}  // namespace nt::measure
