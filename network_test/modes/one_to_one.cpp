// one_to_one: MPI_Send x -> y, receive at y, every other rank idle; one-way delay x -> y.
#include "common.hpp"

namespace nt::measure {
namespace {
const Registrar kRegistered{identify(Mode::one_to_one, {
    .pair_clocks = true,
    .concurrent_ok = true,
    .run = [](Ctx& c, const Task& t, const Batch& b) { kernels::one_way(c, t, b); },
    .description = "one-way delay x->y of a blocking send, other ranks idle (receive pre-posted, clocks offset-corrected)",
    .sync_method = std::string(kernels::kOffsetMethod) +
                   "; per sample the receiver posts its receive and releases the sender with a ready message; "
                   "delay = receive completion (receiver clock - offset) - send start",
})};
}  // namespace
}  // namespace nt::measure
