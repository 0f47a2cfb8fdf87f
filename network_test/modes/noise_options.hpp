// The noise options (-l -m -p) are global legacy options; the noise modes document them.
#pragma once
#include <vector>

#include "nt/measure/measure.hpp"

namespace nt::measure {
inline std::vector<OptionDoc> noise_option_docs() {
  return {{"-l,--noise-length BYTES", "length of each noise message (default 1024)"},
          {"-m,--noise-messages N", "messages each noise rank sends to every other noise rank per round (default 10)"},
          {"-p,--noise-procs N", "noise ranks per pair, 1..P-2 (default 1)"}};
}
}  // namespace nt::measure
