// one_to_one: MPI_Send x -> y, receive at y, every other rank idle; one-way delay x -> y.
#include "common.hpp"

namespace nt::measure {

void register_one_to_one(Registry& r) {
  ModeSpec m;
  m.mode = Mode::one_to_one;
  m.name = "one_to_one";
  m.description = "one-way delay x->y of a blocking send, other ranks idle (receive pre-posted, clocks offset-corrected)";
  m.kind = TaskKind::ordered_pairs;
  m.results_in_rows = true;
  m.concurrent_ok = true;
  m.sync_method = std::string(kernels::kOffsetMethod) +
                  "; per sample the receiver posts its receive and releases the sender with a ready message; "
                  "delay = receive completion (receiver clock - offset) - send start";
  m.run = kernels::one_way;
  r.add(std::move(m));
}

}  // namespace nt::measure
