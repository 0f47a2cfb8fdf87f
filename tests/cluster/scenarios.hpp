// Synthetic inputs shared by the unit tests (test_cluster.cpp) and the command-line tests
// (make_input.cpp), so that both run the same scenarios.
#pragma once

#include "nt/synth.hpp"

namespace nt::cluster::test {

// The acceptance scenario of network_cluster: 64 ranks in 8 nodes, 32 lengths 0..63488 bytes, 1 % noise
// per sample, a protocol step at 32 KiB and a slow node.
inline SynthParams acceptance_scenario() {
  SynthParams p;
  p.nodes = 8;
  p.ranks_per_node = 8;
  p.noise = 0.01;
  p.slow_node = 5;
  p.lengths.clear();
  for (int k = 0; k < 32; ++k) p.lengths.push_back(k * 2048);
  p.protocol_step = 16 * 2048;
  p.seed = 11;
  return p;
}

}  // namespace nt::cluster::test
