// Writes inputs for the command-line tests of network_cluster:
//   cluster_make_input synth PREFIX   synthetic run (24 ranks, 3 nodes, 12 lengths): PREFIX_<stat>.nc + hosts
//   cluster_make_input nan FILE       raw file with a NaN value
//   cluster_make_input one FILE       raw file with one message length
//   cluster_make_input accept PREFIX  the acceptance scenario: 64 ranks in 8 nodes, 32
//                                     lengths, 1% noise, protocol step, slow node (all statistics)
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "nt/raw_file.hpp"
#include "nt/synth.hpp"
#include "scenarios.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cluster_make_input synth|nan|one|accept PATH\n");
    return 2;
  }
  const std::string kind = argv[1], path = argv[2];
  nt::SynthParams p;
  p.nodes = 3;
  p.ranks_per_node = 8;
  p.slow_node = 1;
  p.protocol_step = 6 * 1024;
  p.lengths.clear();
  for (int k = 0; k < 12; ++k) p.lengths.push_back(k * 1024);
  if (kind == "one") p.lengths = {4096};
  if (kind == "accept") p = nt::cluster::test::acceptance_scenario();
  auto r = nt::synthesize(p);
  if (kind == "synth" || kind == "accept") {
    nt::write_synth(path, r, true);
    return 0;
  }
  auto& ds = *r.stats.at(nt::Statistic::median);
  if (kind == "nan") ds.at(3).at(2, 5) = std::numeric_limits<double>::quiet_NaN();
  nt::write_raw(path, ds, true);
  return 0;
}
