// What the source files of `network_analyze compare` share (internal to nt_analysis): compare.cpp
// models the changes of delay (class shifts, switch blocks, host effects, link residuals and their
// noise); compare_changes.cpp finds the changes in that model (classes, nodes, switch groups,
// links); compare_hosts.cpp matches the hosts of the two runs, finds the changes of hosts, switch
// groups and protocol thresholds, and writes a comparison as text and JSON.
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "nt/hosts.hpp"
#include "nt/stats.hpp"
#include "nt/analysis/compare.hpp"

namespace nt::analysis::compare_parts {


// Median of the finite values (x is reordered); NaN when none.
double finite_median(std::vector<double>& x);
// The switch partition of the common hosts in one run: the finest level whose groups hold several
// of the hosts without holding them all (labels per host), or all zeros when there is none.
std::vector<int> switch_partition(const Topology& t, const std::vector<std::vector<int>>& ranks);
// The groups of a labelling (indices per label, sorted): two labellings of one partition are equal.
std::vector<std::vector<int>> partition_of(const std::vector<int>& labels);
// Up to `max` host names, comma separated, then the count.
std::string host_list(const std::vector<std::string>& h, std::size_t max = 8);
// Adds common host a, with its ranks in both runs, to a finding.
void add_host(Finding& finding, const Comparison& out, std::size_t a);
// The comparison's bands of K lengths: as many as the topology's (`bands`, TopologyOptions) at
// most, of kTuning.band_lengths lengths at least, one band when there are fewer.
std::vector<std::pair<std::size_t, std::size_t>> bands_of(std::size_t K, int bands);
// A change judged on its size alone (per length, a log ratio): +1 or -1 when it is at least
// min_log that way at half of the lengths of one band (the rule of every finding), else 0.
int size_change(const std::vector<double>& effect, double min_log, int bands);

// compare_hosts.cpp: the common hosts of the two runs with their ranks in each (out.hosts,
// ranks_baseline, ranks_current; by rank number where names are missing), the hosts of one run
// only (out.missing, out.added). B and C are the runs, out.base and out.cur their reports.
nt::HostMatch match_hosts(const Cube& B, const Cube& C, Comparison& out);
// The hosts of one run only; a host on another switch (after the delay
// findings, which it must not hide); the protocol thresholds of each class.
void find_missing_and_added_hosts(Comparison& out, const nt::HostMatch& host_ranks);
// log_ratios: per length, log(current / baseline) of each host pair ([k*H*H + a*H + b]).
void find_topology_change(Comparison& out, const std::vector<float>& log_ratios, double min_log);
void find_threshold_changes(Comparison& out);

// Per length, an effect (log ratio) and its z-score; decides whether it is a change: at least
// log(min_ratio) and min_sigmas either way, at half of the lengths of some band (at least 2 when
// the band has 2). Returns +1 (slower), -1 (faster) or 0, with the lengths, ratio and sigmas.
struct Decision {
  int sign = 0;
  std::vector<std::size_t> ks;
  double ratio = 1.0, sigmas = 0.0;
};
Decision decide(const std::vector<double>& effect, const std::vector<double>& z, double min_log, double min_sigmas,
                const std::vector<std::pair<std::size_t, std::size_t>>& bands);

// The change of each host pair, per length, as class shift + switch block + sender effect +
// receiver effect + link residual, with the noise of each part.
struct ChangeModel {
  std::size_t H = 0, K = 0, HH = 0;  // common hosts, common lengths, host pairs
  int NC = 0;                        // classes
  std::vector<int> cls;              // class of each host pair (baseline's topology, representative ranks)
  std::vector<int> sw;               // switch group of each host (baseline)
  std::size_t NS = 0;                // switch groups
  std::vector<std::vector<double>> class_shift, class_sigma;  // [class][k]
  std::vector<std::vector<double>> send, recv, intra;         // [k][host]
  std::vector<double> send_sigma, recv_sigma, intra_sigma;    // [k]
  std::vector<float> R;                                       // link residuals [k*HH + a*H + b]
  std::vector<std::vector<double>> block;                     // [k][X*NS + Y]: change between switch groups
  std::vector<double> block_floor;  // [k]: noise of a block's median from its links' noise
};

// What the detectors of compare_cubes share: the comparison they add to, the options, the fitted
// change model, and the threshold and bands of every decision.
struct CompareScan {
  Comparison& out;
  const CompareOptions& opt;
  const ChangeModel& model;
  double min_log;
  std::vector<std::pair<std::size_t, std::size_t>> bands;
  Decision judge(const std::vector<double>& effect, const std::vector<double>& z) const {
    return decide(effect, z, min_log, opt.min_sigmas, bands);
  }
};

// compare_changes.cpp, in this order: the classes (out.classes) and the classes that changed as a
// whole; a note when the runs have no noise; nodes whose sender, receiver or intra-node effect
// changed; the links between switch groups; the links between hosts.
void find_class_changes(const CompareScan& scan);
void note_noise_floor(Comparison& out);
void find_node_changes(const CompareScan& scan);
void find_switch_block_changes(const CompareScan& scan);
void find_link_changes(const CompareScan& scan);

}  // namespace nt::analysis::compare_parts
