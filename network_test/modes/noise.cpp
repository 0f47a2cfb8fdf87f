// noise: async_one_to_one while randomly drawn noise ranks exchange all-to-all traffic.
#include "common.hpp"
#include "noise_options.hpp"

namespace nt::measure {

void register_noise(Registry& r) {
  ModeSpec m;
  m.mode = Mode::noise;
  m.name = "noise";
  m.description = "async_one_to_one while -p noise ranks (drawn per pair from --seed) exchange -m messages of -l bytes";
  m.kind = TaskKind::exchange_pairs;
  m.results_in_rows = false;
  m.uses_noise = true;
  m.min_ranks = 3;
  m.sync_method = std::string(kernels::kOffsetMethod) + "; common start per exchange as async_one_to_one";
  m.options = noise_option_docs();
  m.run = kernels::exchange;
  r.add(std::move(m));
}

}  // namespace nt::measure
