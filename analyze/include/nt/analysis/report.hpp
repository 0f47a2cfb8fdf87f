// The whole analysis of one delay file, as JSON for tools and as text for people.
#pragma once

#include <memory>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/fits.hpp"
#include "nt/analysis/models.hpp"
#include "nt/analysis/topology.hpp"

namespace nt::analysis {

struct ReportOptions {
  std::string hosts_file;              // compare with these hosts instead of the file's
  std::string async_file;              // async_one_to_one of the same run: duplex check
  std::string deviation_file;          // deviation of the same run; "" = look beside the input
  bool find_deviation_beside = true;
  bool find_min_beside = true;         // the min file of the same run beside the input (transients)
  bool pairs_in_json = false;          // per-pair Hockney fits in the JSON (always when P <= 16)
  // Keep every pair's Hockney fit in Report::hockney.pairs (exports need them); false keeps them
  // only for the JSON (pairs_in_json, or P <= 16): P^2 fits are the largest part of a big report.
  bool keep_pair_fits = true;
  TopologyOptions topology;
  AnomalyOptions anomalies;
  ThresholdOptions thresholds;
};

// The cells a sampled file (network_test --sample-pairs) leaves missing by design: those between
// hosts whose pair was not sampled (nt::sampled_host_pairs from the file's `schedule`), at every
// length. Not bad values: the report counts them apart.
struct NotSampled {
  std::uint64_t cells = 0;                         // rank pairs x lengths
  std::size_t host_pairs = 0, measured_host_pairs = 0;
};
// Those of a cube (nothing when it is not a sampled file).
std::optional<NotSampled> not_sampled_cells(const Cube& c);

struct Report {
  std::string source;
  std::optional<NotSampled> not_sampled;  // a sampled file: its cells missing by design
  Cube cube;  // the input's shape (P, lengths, mode, bad values): cube_header, v is empty
  std::vector<std::string> hosts;
  Topology topology;
  HostAgreement agreement;
  std::vector<Anomaly> anomalies;
  Sensitivity sensitivity;  // the smallest slowdown each kind of finding could have shown
  Explanation explanation;  // how much of the matrix the levels and the findings account for
  HockneyResult hockney;
  std::vector<ClassParams> params;
  std::optional<DuplexResult> duplex;
  std::vector<std::string> notes;
  ReportOptions options;  // what it was made with: its thresholds are echoed in the JSON
};

// fastest: the min file of the same run (one-way pairs its fastest samples do not show are a
// transient, drop_transient_pairs).
Report make_report(const Cube& c, const ReportOptions& opt, const Cube* async = nullptr,
                   const Cube* deviation = nullptr, const Cube* fastest = nullptr);
// Opens a delay file through nt::open_dataset (a loggp file gets a message pointing to `model`).
Cube load_delays(const std::string& file);
// The same, its delays left in the file (open_cube): what report and model analyse.
Cube open_delays(const std::string& file);
// The same after checking, from the file's header, that `what` (the analysis or the model) fits
// the memory limit (require_memory: exit 2 when not) before the pass over the file.
Cube open_delays(const std::string& file, bool keep_pairs, const std::string& what);
// Bytes the analysis of a streamed cube of P ranks and K lengths needs at most (the formula of
// share/doc/analyze.md "Memory"); open_delays(file, keep_pairs, what) checks them.
std::uint64_t analysis_memory(int P, std::size_t K, bool keep_pairs);
// Opens the files named in opt (and FILE) through nt::open_dataset and analyses them.
Report make_report(const std::string& file, const ReportOptions& opt);

nlohmann::json to_json(const Report& r, bool with_pairs);
// The numbers a report used, by stage (`thresholds_used` in its JSON): the options and the fixed table
// (nt/analysis/tuning.hpp).
nlohmann::json thresholds_json(const ReportOptions& opt);
std::string to_text(const Report& r);

// With host names: when every finest group holds whole hosts and some group holds several (ranks on
// different hosts look alike, e.g. one rank per node), the groups are not nodes: clears
// node_level_identified, renames the level "group" and adds a warning, as check_node_level does
// without host names. Returns whether it did.
bool check_node_level_against_hosts(Topology& t, const HostAgreement& a);

// The levels: [{"level", "groups", "lone_nodes": [group index...], "lone_node_caveat"}, ...]
// (the last two on levels above the nodes that have a lone node; see lone_node_groups).
nlohmann::json hierarchy_json(const Topology& t);

// `duplex`: the half-duplex check of a report made with an async file (r.duplex set), as JSON and text.
nlohmann::json duplex_json(const Report& r, const std::string& one_to_one_file, const std::string& async_file);
std::string duplex_text(const Report& r, const std::string& one_to_one_file, const std::string& async_file);

nlohmann::json to_json(const Anomaly& a);
nlohmann::json to_json(const ClassParams& p);

}  // namespace nt::analysis
