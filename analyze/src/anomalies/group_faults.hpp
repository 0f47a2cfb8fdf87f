// The slow switch detector (group_faults.cpp): faults above the nodes, found on the pairs that
// leave or enter a group of an upper level of the topology.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nt/analysis/cube.hpp"
#include "nt/analysis/topology.hpp"

namespace nt::analysis {

struct GroupFaultOptions {
  double min_ratio = 0;      // smallest slowdown of a group's outside links (AnomalyOptions::group_min_ratio)
  double mad_factor = 0;     // robust sigmas of the other groups' effects (AnomalyOptions::mad_factor)
  std::size_t need = 1;      // lengths it must show at (else the bandwidth rule)
  std::vector<char> exclude; // per rank (or empty): ranks of slow nodes, left out of every effect
};

struct GroupFault {
  std::size_t level = 0, group = 0;     // t.levels[level].groups[group]
  std::vector<int> ranks;
  std::vector<std::int64_t> lengths;    // where it is slow
  double score = 0;                     // median ratio over those lengths
  double peak = 0;                      // largest ratio over all lengths
  double sigmas = 0;                    // median robust z over those lengths (NaN: noise-free)
  std::string direction;                // "leaving and entering", "leaving", "entering"
};

// Slow groups of every upper level with at least 3 groups (with two, a slow one is their
// distance), lone-node groups left to the node checks; finest level first. Memory: one slice and
// the pair classes (P^2 bytes) beside O(P) per level.
// sensitivity (when given): per level, the smallest slowdown of a group's outside links it could
// have shown (a ratio; NaN for a level not judged).
std::vector<GroupFault> find_slow_groups(const Cube& c, const Topology& t, const GroupFaultOptions& opt,
                                         std::vector<double>* sensitivity = nullptr);

// Per pair class (pair_classes(t)), the median log delay of one slice of N x N delays (sampled for
// large classes).
// `slow_group` (per rank, -1: none; empty: none): the pairs across a boundary of it left out.
std::vector<double> class_log_medians(const float* slice, const Topology& t, const std::vector<std::int8_t>& cls,
                                      std::size_t N, const std::vector<int>& slow_group = {});

// Per rank, the index of the fault whose group holds it (-1: none); a later fault's overwrites an
// earlier's (find_slow_groups lists the finest level first).
std::vector<int> fault_group_of(std::size_t n_ranks, const std::vector<GroupFault>& faults);

// Whether the pair (i, j) crosses the boundary of a slow switch group: `group` holds per rank the
// index of the slow group it is in (-1: none). Such pairs are that group's evidence.
inline bool crosses_slow_group(const std::vector<int>& group, std::size_t i, std::size_t j) {
  return group[i] != group[j] && (group[i] >= 0 || group[j] >= 0);
}

// exp of the need-th smallest of the per-length thresholds (logs; NaN where not judged), or of the
// smallest when fewer lengths were judged: the smallest slowdown that passes at enough lengths.
double smallest_passing(std::vector<double> log_thresholds, std::size_t need);

}  // namespace nt::analysis
