// What the two source files of `network_analyze compare` share (internal to nt_analysis):
// compare.cpp finds the changes of delay; compare_hosts.cpp matches the hosts of the two runs, finds
// the changes of hosts, switch groups and protocol thresholds, and writes a comparison as text and
// JSON.
#pragma once

#include <cstddef>
#include <limits>
#include <map>
#include <string>
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
// A change judged on its size alone (per length, a log ratio): +1 or -1 when it is at least
// min_log that way at half of the lengths of one band (the rule of every finding), else 0.
int size_change(const std::vector<double>& effect, double min_log);

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

}  // namespace nt::analysis::compare_parts
