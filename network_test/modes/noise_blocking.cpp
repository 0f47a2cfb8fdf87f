// noise_blocking: one_to_one while randomly drawn noise ranks exchange all-to-all traffic.
#include "common.hpp"

namespace nt::measure {
namespace {
const Registrar kRegistered{kernels::noise_mode(
    identify(Mode::noise_blocking,
             {.description =
                  "one_to_one while -p noise ranks (drawn per pair from --seed) exchange -m messages of -l bytes",
              .sync_method = std::string(kernels::kOffsetMethod) + "; per-sample ready handshake as one_to_one"}),
    kernels::one_way)};
}  // namespace
}  // namespace nt::measure
