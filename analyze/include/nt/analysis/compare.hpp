// `network_analyze compare BASELINE CURRENT`: what changed between two runs of the same mode, and
// nothing else. Ranks are matched by host name (another rank placement compares node by node):
// per common length, every ordered pair of hosts gets the median delay over its rank pairs in
// each run, and the change is log(current / baseline). Per length and class (intra-node,
// inter-node, inter-switch... of the baseline's topology) the median change is the class's shift;
// what is left is split into a node effect (median over the host's links, both directions) and a
// link residual. A node, a link or a class is reported when its change is at least min_ratio
// (either way) AND min_sigmas robust sigmas (nt::robust_spread over the hosts, the links of the
// class: the comparison's own noise) at half of the lengths of one band (short, middle, long
// third) or more. Topology (hosts missing, added, on another switch) and protocol thresholds are
// compared from the two reports.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "nt/analysis/report.hpp"

namespace nt::analysis {

struct CompareOptions {
  std::string baseline_hosts, current_hosts;  // hosts files instead of the runs' own
  double min_ratio = 1.2;    // smallest change reported (1.2: 20 % slower or faster)
  double min_sigmas = 5.0;   // and this many robust sigmas of the comparison's noise
  ReportOptions report;      // the analysis of each run (topology, thresholds)
};

// What a finding of compare is; its name (name_of) is what every output says.
enum class FindingKind {
  node_slower, node_faster, link_slower, link_faster, intra_node_slower, intra_node_faster,
  switch_link_slower, switch_link_faster, switch_slower, switch_faster, class_slower, class_faster,
  threshold_changed, node_moved, node_missing, node_added, topology_changed,
};
const Names<FindingKind>& finding_kind_names();
std::string name_of(FindingKind kind);
std::optional<FindingKind> finding_kind(const std::string& name);  // by name_of's name
// A change of named hosts: node_*, link_*, intra_node_*, switch_* (not a class, a threshold or the
// topology as a whole).
bool is_host_change(FindingKind kind);
bool is_link_change(FindingKind kind);   // link_slower, link_faster
bool is_class_change(FindingKind kind);  // class_slower, class_faster

struct Finding {
  FindingKind kind = FindingKind::node_slower;
  std::vector<std::string> hosts;          // the hosts involved (a link: sender, receiver)
  std::vector<int> ranks_baseline, ranks_current;  // their ranks in each run
  double ratio = 1.0;                      // current / baseline (median over the lengths where it shows)
  double sigmas = 0.0;                     // median robust z-score there (0: not a delay change)
  std::vector<std::int64_t> lengths;       // where it shows
  std::string direction;                   // links: "both" or "one-way"
  std::string detail;                      // one line for people
};

struct ClassChange {
  std::string name;
  std::size_t host_pairs = 0;
  double ratio = 1.0;     // median over lengths of the class's median change
  double noise = 0.0;     // median over lengths of the robust sigma of the links' change (relative)
};

struct Comparison {
  std::string baseline, current;
  Mode mode = Mode::one_to_one;
  Statistic statistic = Statistic::median;
  int P_baseline = 0, P_current = 0;
  bool by_host = true;             // ranks matched by host name (else by rank number)
  bool placement_differs = false;  // some host holds other ranks in the two runs
  std::vector<std::string> hosts;  // the common hosts (index = host in the matrices below)
  std::vector<std::vector<int>> ranks_baseline, ranks_current;  // per common host
  std::vector<std::string> missing, added;  // hosts of the baseline only / of the current run only
  std::vector<std::int64_t> lengths;        // common lengths
  std::vector<ClassChange> classes;
  std::vector<Finding> findings;
  std::vector<float> ratio_matrix;  // H x H [a*H+b]: median over lengths of current/baseline (NaN: none)
  Report base, cur;                 // the analysis of each run
  std::vector<std::string> notes;
};

// Throws nt::UsageError / FileError (exit 2) for inputs that cannot be compared: other modes or
// statistics, no common length, no common host, host names on one side only where the node groups
// differ, different rank counts without host names.
Comparison compare_cubes(const Cube& baseline, const Cube& current, const CompareOptions& opt = {});
// BASELINE and CURRENT are delay files, or run directories (their one_to_one_median.nc).
Comparison compare_runs(const std::string& baseline, const std::string& current, const CompareOptions& opt = {});
// The file compare_runs reads for `path`: itself, or DIR/one_to_one_median.nc for a directory.
std::string compare_input(const std::string& path);

nlohmann::json to_json(const Comparison& c);
std::string to_text(const Comparison& c);

}  // namespace nt::analysis
