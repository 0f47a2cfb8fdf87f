// noise_blocking: one_to_one while randomly drawn noise ranks exchange all-to-all traffic.
#include "common.hpp"
#include "noise_options.hpp"

namespace nt::measure {

void register_noise_blocking(Registry& r) {
  ModeSpec m;
  m.mode = Mode::noise_blocking;
  m.name = "noise_blocking";
  m.description = "one_to_one while -p noise ranks (drawn per pair from --seed) exchange -m messages of -l bytes";
  m.kind = TaskKind::ordered_pairs;
  m.results_in_rows = true;
  m.uses_noise = true;
  m.min_ranks = 3;
  m.sync_method = std::string(kernels::kOffsetMethod) + "; per-sample ready handshake as one_to_one";
  m.options = noise_option_docs();
  m.run = kernels::one_way;
  r.add(std::move(m));
}

}  // namespace nt::measure
