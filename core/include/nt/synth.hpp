// Realistic synthetic raw files for demos and tests (network_convert synth).
//
// Delay model for a message of m bytes from rank i to rank j:
//   t = latency(level) + m / bandwidth(level) [+ protocol_extra when m >= protocol_step]
// where level is intra-node, inter-node (same switch) or inter-switch; ranks of the slow node
// have every send and receive multiplied by slow_factor. Each of `repeats` samples is
// t * (1 + noise * |N(0,1)|) (delays only grow under noise), and the statistics are computed
// from the samples exactly as network_test does. Before sampling, t of every cell (pair and
// length) is multiplied by an independent lognormal factor exp(cell_noise * N(0,1)): the medians
// of a real run differ from pair to pair by about this much, while per-sample noise alone averages
// away in the median. cell_noise = 0 gives the old, nearly noise-free medians.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "nt/dataset.hpp"

namespace nt {

struct SynthParams {
  int nodes = 4;
  int ranks_per_node = 2;
  int nodes_per_switch = 0;          // 0: one switch for all nodes
  double intra_latency = 0.5e-6;     // s
  double intra_bandwidth = 10e9;     // bytes/s
  double inter_latency = 2.0e-6;     // s
  double inter_bandwidth = 1.0e9;    // bytes/s
  double switch_latency = 1.0e-6;    // extra s between switches
  double switch_bandwidth = 0.0;     // bytes/s between switches; 0: same as inter-node
  std::int64_t protocol_step = -1;   // length where the protocol switches; -1: none
  double protocol_extra = 3.0e-6;    // s added at and above protocol_step
  int slow_node = -1;                // node index, -1: none
  double slow_factor = 3.0;
  bool shuffle = false;              // random rank placement instead of block placement
  double noise = 0.01;               // relative, per sample
  double cell_noise = 0.01;          // relative, per cell (lognormal sigma); 0: none
  int repeats = 8;
  std::uint64_t seed = 1;
  Mode mode = Mode::one_to_one;
  std::vector<std::int64_t> lengths = {0, 1024, 2048, 4096};
};

struct SynthResult {
  std::map<Statistic, std::unique_ptr<MemoryDataset>> stats;  // the five standard statistics
  std::vector<std::string> hosts;                              // per rank
  std::vector<int> node_of_rank;                               // ground truth
  std::vector<int> switch_of_node;
};

// Throws UsageError for impossible parameters (no nodes, negative latencies, ...).
SynthResult synthesize(const SynthParams& p);
// Writes <prefix>_<stat>.nc for each statistic and <prefix>_hosts.txt.
void write_synth(const std::string& prefix, const SynthResult& r, bool overwrite);
// The same files, byte for byte, written as they are generated (length by length, row by row)
// instead of held: memory is a few rows of P values (synth_stream_bytes), not 5 n P^2 doubles.
// network_convert synth uses it; synthesize() stays for callers that want the values.
void synthesize_to(const SynthParams& p, const std::string& prefix, bool overwrite);
// What synthesize_to holds, for nt::require_memory.
std::uint64_t synth_stream_bytes(const SynthParams& p);

}  // namespace nt
