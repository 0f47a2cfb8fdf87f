// The numbers a report used, echoed in its JSON (`thresholds_used`): the options of each stage as the
// command line left them, and the fixed table of the method (tuning.hpp). share/doc/analyze.md
// lists the same names with what they mean.
#include <nlohmann/json.hpp>

#include "nt/analysis/report.hpp"
#include "nt/analysis/tuning.hpp"

namespace nt::analysis {

nlohmann::json thresholds_json(const ReportOptions& opt) {
  const TopologyOptions& t = opt.topology;
  const AnomalyOptions& a = opt.anomalies;
  const ThresholdOptions& b = opt.thresholds;
  const Tuning& f = kTuning;
  nlohmann::json j;
  j["topology"] = {{"min_ratio", t.min_ratio},                 {"floor_ratio", t.floor_ratio},
                   {"noise_factor", t.noise_factor},           {"bands", t.bands},
                   {"max_levels", t.max_levels},               {"candidates", t.candidates},
                   {"tree_margin", f.tree_margin},             {"tree_share", f.tree_share},
                   {"first_tree_margin", f.first_tree_margin}, {"first_tree_share", f.first_tree_share},
                   {"slow_member_ratio", f.slow_member_ratio}, {"filled_bias", f.filled_bias},
                   {"odd_share", f.odd_share},                 {"tie_log", f.tie_log},
                   {"node_level_ratio", f.node_level_ratio},   {"node_level_lengths", f.node_level_lengths},
                   {"spread_parties", f.spread_parties},       {"spread_sigmas", f.spread_sigmas},
                   {"spread_noise_ratio", f.spread_noise_ratio}, {"band_lengths", f.band_lengths},
                   {"offset_all_up_to", f.offset_all_up_to},   {"offset_cells", f.offset_cells},
                   {"set_sample", f.set_sample},               {"large_set", f.large_set}};
  j["anomalies"] = {{"min_ratio", a.min_ratio},                     {"group_min_ratio", a.group_min_ratio},
                    {"mad_factor", a.mad_factor},                   {"min_length_fraction", a.min_length_fraction},
                    {"duplex_ratio", a.duplex_ratio},               {"variance_ratio", a.variance_ratio},
                    {"variance_min_cv", a.variance_min_cv},         {"max_links", a.max_links},
                    {"alike_ratio", f.alike_ratio},                 {"through_ratio", f.through_ratio},
                    {"one_way_keep", f.one_way_keep},               {"block_one_node", f.block_one_node},
                    {"block_margin", f.block_margin},               {"slope_gap", f.slope_gap},
                    {"node_cluster_share", f.node_cluster_share},   {"end_tie", f.end_tie},
                    {"fastest_share", f.fastest_share},             {"lone_row_share", f.lone_row_share},
                    {"lone_min_nodes", f.lone_min_nodes},           {"median_se_factor", f.median_se_factor},
                    {"polish_tolerance", f.polish_tolerance},       {"polish_sweeps", f.polish_sweeps},
                    {"one_way_time_cells", f.one_way_time_cells},   {"hop_share", f.hop_share},
                    {"boundary_share", f.boundary_share}};
  j["explanation"] = {{"floor", a.explain_floor},                 {"sigmas", a.explain_sigmas},
                      {"judge_max", a.explain_judge_max},         {"warn_share", a.explain_warn_share},
                      {"max_added", a.explain_max_added},         {"min_cells", a.explain_min_cells},
                      {"min_share", a.explain_min_share},         {"max_cells", a.explain_max_cells},
                      {"levels_fit", a.explain_levels_fit},       {"region_fill", f.region_fill},
                      {"stray_share", f.stray_share},             {"alike_factor_share", f.alike_factor_share},
                      {"claim_gain_share", f.claim_gain_share},   {"overclaim_share", f.overclaim_share}};
  j["fits"] = {{"penalty", b.penalty},           {"min_jump", b.min_jump},
               {"min_f", b.min_f},               {"good_rms", f.fit_good_rms},
               {"fair_rms", f.fit_fair_rms},     {"segment_min", f.segment_min},
               {"break_check", f.break_check},   {"break_sigmas", f.break_sigmas},
               {"break_hold", f.break_hold}};
  j["loaded"] = {{"min_cells", f.loaded_min_cells},  {"contention_cv", f.contention_cv},
                 {"moved_share", f.moved_share},     {"alone_ratio", f.alone_ratio},
                 {"steady_spread", f.steady_spread}, {"noise_times", f.noise_times}};
  j["compare"] = {{"noise_floor", f.compare_noise_floor}, {"link_tolerance", f.link_tolerance},
                  {"changed_share", f.changed_share},     {"unchanged_share", f.unchanged_share},
                  {"moved_hosts_share", f.moved_hosts_share}};
  return j;
}

}  // namespace nt::analysis
