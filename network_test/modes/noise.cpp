// noise: async_one_to_one while randomly drawn noise ranks exchange all-to-all traffic.
#include "common.hpp"

namespace nt::measure {
namespace {
const Registrar kRegistered{kernels::noise_mode(
    identify(Mode::noise,
             {
                 .kind = TaskKind::exchange_pairs,
                 .results_in_rows = false,
                 .description = "async_one_to_one while -p noise ranks (drawn per pair from --seed) exchange -m "
                                "messages of -l bytes",
                 .sync_method = std::string(kernels::kOffsetMethod) + "; common start per exchange as async_one_to_one",
             }),
    kernels::exchange)};
}  // namespace
}  // namespace nt::measure
