// The health of a run as a monitoring system reads it: whether the run is complete
// (nt::sweep_completeness, the rule network_convert info and the viewer show), too few common
// lengths in a comparison, the one-line summary of `report --check` and the Prometheus textfile
// (node_exporter's textfile collector format) of `report --prometheus`.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "nt/analysis/compare.hpp"
#include "nt/analysis/report.hpp"
#include "nt/dataset.hpp"

namespace nt::analysis {

// Why the data of a run or a comparison is not a whole check: `line` is "" when it is, else one
// line starting "INCOMPLETE: " (the first line of every output). `empty`: nothing was measured.
struct Completeness {
  std::string line;
  bool empty = false;
  std::size_t stored = 0, planned = 0;  // lengths held and planned (0: unknown)
  bool complete() const noexcept { return line.empty(); }
};
Completeness run_completeness(const Dataset& d, const std::string& name);
// Opens `file` (header only) and checks it: what report and compare run first.
Completeness run_completeness(const std::string& file);
// The fewest common lengths a comparison needs: one band (kTuning.band_lengths), or all of a
// baseline of fewer (`baseline_lengths`: what the baseline's file holds; c's reports hold the
// common ones only).
Completeness common_lengths_completeness(const Comparison& c, std::size_t baseline_lengths);

// The health of one report: `r` is null when nothing was measured (no report can be made).
struct Health {
  std::string file;
  const Report* report = nullptr;
  Completeness completeness;
  int exit_code() const noexcept;   // kExitOk, kExitFindings or kExitIncomplete (nt/error.hpp)
  std::string status() const;       // "ok", "findings" or "incomplete"
};

// One line for monitoring: "network_analyze check: status=findings findings=1 slow_node=1
// hosts=node5 lengths=5 file=...". Host names are those the findings name.
std::string summary_line(const Health& h);
// The same health as a Prometheus textfile: # HELP / # TYPE lines, no timestamps, per host
// network_tests_host_findings and network_tests_host_slow, per kind network_tests_findings.
std::string prometheus_text(const Health& h);

// "status" (and "incomplete", the line, when there is one) added to a report or comparison JSON.
void add_status(nlohmann::json& j, const std::string& status, const Completeness& c);
// The HTML page with the INCOMPLETE line first in its body; a page holding only the line for a
// run that measured nothing (html is empty).
std::string html_with_status(std::string html, const Completeness& c);

}  // namespace nt::analysis
