// Synthetic clusters of nt::synthesize for the analysis unit tests (test_analysis.cpp,
// test_analysis_fits.cpp): the lengths, the cluster's parameters, its cube, its true class line.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis_test_util.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/fits.hpp"
#include "nt/analysis/topology.hpp"
#include "nt/synth.hpp"

namespace nt::test::synth_clusters {

namespace na = nt::analysis;

inline std::vector<std::int64_t> geometric(int max_pow) {
  std::vector<std::int64_t> l{0};
  for (int e = 0; e <= max_pow; ++e) l.push_back(std::int64_t{1} << e);
  return l;
}

// A synthetic cluster of nodes x ranks_per_node; lengths 0, 1, 2, 4, ..., 2^max_pow (-1: the
// default lengths); with a seed, the ranks are placed at random (shuffled) by that seed.
inline nt::SynthParams cluster(int nodes, int ranks_per_node, int max_pow, std::optional<std::uint64_t> shuffle_seed = {}) {
  nt::SynthParams p;
  p.nodes = nodes;
  p.ranks_per_node = ranks_per_node;
  if (max_pow >= 0) p.lengths = geometric(max_pow);
  if (shuffle_seed) {
    p.shuffle = true;
    p.seed = *shuffle_seed;
  }
  return p;
}

struct Synth {
  nt::SynthResult r;
  na::Cube cube;
};

inline Synth make(nt::SynthParams p, nt::Statistic s = nt::Statistic::median) {
  Synth x;
  x.r = nt::synthesize(p);
  x.cube = na::load_cube(*x.r.stats.at(s));
  return x;
}

// The synthetic truth of a class (0: intra-node, else inter-node): latency and seconds per byte.
inline double true_ts(const nt::SynthParams& p, int cls) { return cls == 0 ? p.intra_latency : p.inter_latency; }
inline double true_tw(const nt::SynthParams& p, int cls) { return 1.0 / (cls == 0 ? p.intra_bandwidth : p.inter_bandwidth); }

// The class and pair fits of a synthetic cluster, classed by the topology found in it.
inline na::HockneyResult fits_of(const Synth& s) { return na::fit_classes_and_pairs(s.cube, na::find_topology(s.cube)); }

inline std::vector<int> ranks_of_node(const nt::SynthResult& r, int node) { return nt::test::ranks_with(r.node_of_rank, node); }


}  // namespace nt::test::synth_clusters
