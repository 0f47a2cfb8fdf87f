#include "nt/analysis/report.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/json_text.hpp"
#include "nt/hosts.hpp"
#include "nt/result_set.hpp"
#include "nt/loggp.hpp"
#include "nt/raw_file.hpp"
#include "nt/units.hpp"
#include "anomalies/loaded.hpp"
#include "report_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis {
namespace {

using text::lengths_text;
using json = nlohmann::json;

std::string ranks_text(const std::vector<int>& r, std::size_t max = 16) { return text::ranks_text(r, max); }


// A fitted parameter for humans: "not identifiable" when the data cannot determine it (held at
// the bound 0 or within two standard errors of it), never a negative number.
std::string ts_text(const LineFit& f) {
  if (!std::isfinite(f.ts)) return "n/a";
  if (!f.ts_identifiable) return "not ident.";
  return format_seconds(f.ts);
}

std::string bw_text(const LineFit& f) {
  if (!std::isfinite(f.tw)) return "n/a";
  if (!f.tw_identifiable || f.tw <= 0) return "not ident.";
  return format_bandwidth(1.0 / f.tw);
}

nlohmann::json fit_json(const LineFit& f) {
  return {{"ts", json_number<json>(f.ts)},
          {"tw", json_number<json>(f.tw)},
          {"ts_identifiable", f.ts_identifiable},
          {"tw_identifiable", f.tw_identifiable},
          {"bandwidth", json_number<json>(f.tw_identifiable && f.tw > 0 ? 1.0 / f.tw : std::nan(""))},
          {"r2", json_number<json>(f.r2)},
          {"rel_rms", json_number<json>(f.rel_rms)},
          {"quality", fit_quality(f.rel_rms)},
          {"points", f.points}};
}

}  // namespace

Report make_report(const Cube& measured, const ReportOptions& opt, const Cube* async, const Cube* deviation,
                   const Cube* fastest) {
  Report r;
  r.options = opt;
  r.hosts = hosts_for(measured, opt.hosts_file);
  const auto merged_values = isolated_where_retested(measured, deviation);
  const std::optional<Cube> merged = merged_values ? std::optional<Cube>(open_cube(merged_values)) : std::nullopt;
  const Cube& c = merged ? *merged : measured;
  r.source = c.source;
  r.cube = cube_header(c);  // the delays stay with the caller: no second copy of the file
  if (c.mode == Mode::bcast || c.mode == Mode::all_to_all || c.mode == Mode::loggp)
    r.notes.push_back(fmt::format("mode {} is not a point-to-point delay: groups and fits are to be read with care",
                                  mode_name(c.mode)));
  if (c.statistic == Statistic::deviation)
    r.notes.push_back("this is a deviation file: the analysis describes the spread, not the delays");
  r.not_sampled = not_sampled_cells(measured);
  if (r.not_sampled) {
    // Missing by design: not bad values (the Input line and excluded_bad_values count the rest).
    r.cube.bad.missing -= std::min<std::size_t>(r.cube.bad.missing, r.not_sampled->cells);
    r.notes.push_back(fmt::format(
        "measured with --sample-pairs: {} of the {} host pairs, the cells between the other hosts missing ({} cells); a "
        "missing cell counts neither as slow nor as fast, the levels are found from the paths of measured links, and a "
        "fault between two hosts whose pair was not sampled cannot show",
        r.not_sampled->measured_host_pairs, r.not_sampled->host_pairs, r.not_sampled->cells));
  }
  if (measured.file && filled_by_host_pair(measured.file->meta()))
    r.notes.push_back("measured with --host-pairs: every cell between two hosts holds its host pair's one measured "
                      "rank pair (the ranks of a host share its cables), so a fault of one rank's own across hosts "
                      "cannot show; the pairs within each host are all measured");
  // The findings are checked against the whole matrix where a cell is one pair's own delay: not in
  // a collective mode, a deviation file or a file measured under load (its share is still stated).
  const bool pairwise = c.mode != Mode::bcast && c.mode != Mode::all_to_all && c.mode != Mode::loggp &&
                        c.statistic != Statistic::deviation && !measured_under_load(measured);
  const ReportInputs in{c, measured, opt, deviation, fastest, merged_values.get(), pairwise};
  const std::size_t notes_before = r.notes.size();
  levels_and_findings(in, c, r);
  levels_without_pair_findings(in, r, notes_before);
  r.hockney = fit_classes_and_pairs(c, r.topology, opt.thresholds, deviation,
                                    opt.keep_pair_fits || opt.pairs_in_json || c.P <= 16);
  r.params = class_params(&r.cube, r.topology, &r.hockney, nullptr, {});
  if (async) {
    const Cube* one = &c;
    const Cube* as = async;
    if (c.mode == Mode::async_one_to_one && async->mode == Mode::one_to_one) std::swap(one, as);
    if (one->mode != Mode::one_to_one || as->mode != Mode::async_one_to_one)
      r.notes.push_back(fmt::format("duplex check expects one_to_one and async_one_to_one files, got {} and {}",
                                    mode_name(one->mode), mode_name(as->mode)));
    r.duplex = analyze_duplex(*one, *as, r.topology, r.hosts, opt.anomalies);
    r.anomalies.insert(r.anomalies.end(), r.duplex->anomalies.begin(), r.duplex->anomalies.end());
  }
  return r;
}

namespace {
std::shared_ptr<const Dataset> open_delay_file(const std::string& file) {
  try {
    return open_dataset(file);
  } catch (const Error&) {
    bool is_loggp = false;
    try {
      (void)read_loggp(file);
      is_loggp = true;
    } catch (const Error&) {
    }
    if (is_loggp)
      throw FileError(file, "is a loggp file, not delays: use 'network_analyze model --loggp " + file + "'");
    throw;
  }
}
}  // namespace

Cube load_delays(const std::string& file) { return load_cube(*open_delay_file(file)); }

Cube open_delays(const std::string& file) { return open_cube(open_delay_file(file)); }

Cube open_delays(const std::string& file, bool keep_pairs, const std::string& what) {
  auto d = open_delay_file(file);
  // Before open_cube's pass over the file: a job that cannot fit is told at once, not after
  // minutes of reading (a 20,000-rank clustered file: 1.6e9 cells per pass). The report keeps
  // every pair's fits up to 16 ranks (at most 26 KB), so they are counted there.
  require_memory(analysis_memory(d->ranks(), d->count(), keep_pairs || d->ranks() <= 16),
                 fmt::format("{} of {} ranks x {} lengths", what, d->ranks(), d->count()));
  return open_cube(std::move(d));
}

std::uint64_t analysis_memory(int P, std::size_t K, bool keep_pairs) {
  // The largest of the passes (share/doc/analyze.md "Memory"): topology's profiles, 8 B per pair
  // and band (B <= 3: a float and its transposed copy); the median polish of one length, 9 B per
  // pair (double residual, read into it a block of senders at a time, and a class byte); and a
  // pass's blocks of rows. Kept pair fits add ~100 B per pair and range. Measured at 8,192 x 8
  // (B = 2): 1.34 GB peak, 1.40 GB here.
  const auto PP = static_cast<std::uint64_t>(P) * static_cast<std::uint64_t>(P);
  const std::uint64_t B = std::max<std::uint64_t>(1, std::min<std::uint64_t>(3, K / 3));
  const std::uint64_t topology = 8 * B * PP, polish = 9 * PP;
  std::uint64_t need = std::max(topology, polish) + 2 * block_bytes() + (std::uint64_t{64} << 20);
  if (keep_pairs) need += 100 * PP;
  return need;
}

Report make_report(const std::string& file, const ReportOptions& opt) {
  Cube c = open_delays(file, opt.keep_pair_fits || opt.pairs_in_json, "the analysis");
  std::optional<Cube> async, dev;
  if (!opt.async_file.empty()) async = open_delays(opt.async_file);
  std::string devfile = opt.deviation_file;
  if (devfile.empty() && opt.find_deviation_beside && c.statistic != Statistic::deviation) {
    if (const auto cand = ResultSet::of(file).find_statistic(Statistic::deviation, file)) devfile = cand->string();
  }
  if (!devfile.empty()) {
    dev = open_delays(devfile);
    if (dev->P != c.P) throw FileError(devfile, fmt::format("has {} ranks, {} has {}", dev->P, file, c.P));
  }
  // The min file beside is an aid (transients): found unreadable, the report goes on without it.
  std::optional<Cube> fastest;
  std::string min_note;
  if (opt.find_min_beside && c.statistic == Statistic::median)
    if (const auto cand = ResultSet::of(file).find_statistic(Statistic::min, file)) {
      try {
        fastest = open_delays(cand->string());
        if (fastest->P != c.P) fastest.reset();
      } catch (const std::exception& e) {
        fastest.reset();
        min_note = fmt::format("the min file beside is unreadable ({}): one-way pairs not checked against the "
                               "fastest samples",
                               e.what());
      }
    }
  Report r = make_report(c, opt, async ? &*async : nullptr, dev ? &*dev : nullptr, fastest ? &*fastest : nullptr);
  if (!min_note.empty()) r.notes.push_back(min_note);
  if (!devfile.empty()) r.notes.push_back("variance from " + devfile);
  return r;
}

namespace {

// The Sensitivity as JSON: ratios, null where a kind was not judged.
nlohmann::json sensitivity_json(const Sensitivity& s) {
  nlohmann::json g = nlohmann::json::object();
  for (const auto& [level, ratio] : s.group) g[level] = json_number<json>(ratio);
  return {{"slow_rank_or_node", json_number<json>(s.rank)},
          {"slow_link", json_number<json>(s.link)},
          {"asymmetric_pair", json_number<json>(s.one_way)},
          {"slow_switch", g}};
}

// One block after the anomalies: what "none" (or the findings' absence elsewhere) means.
std::string sensitivity_text(const Sensitivity& s) {
  auto ratio = [](double x) { return std::isfinite(x) ? fmt::format("{:.2f}x", x) : std::string("not judged"); };
  std::string o = fmt::format(
      "  sensitivity: the smallest slowdown a finding could have shown at these lengths and this noise: slow rank "
      "or node {}, slow link {}, one-way pair {}",
      ratio(s.rank), ratio(s.link), ratio(s.one_way));
  for (const auto& [level, x] : s.group) o += fmt::format(", slow {} group {}", level, ratio(x));
  return o + "\n";
}

nlohmann::json explanation_json(const Explanation& e) {
  if (!e.checked) return {{"checked", false}, {"note", e.note}};
  return {{"checked", true},
          {"findings_revised", e.changed_findings},
          {"cells", e.cells},
          {"explained_share", json_number<json>(e.explained_share)},
          {"slower_than_predicted_share", json_number<json>(e.slow_share)},
          {"levels_share", json_number<json>(e.levels_share)},
          {"tolerance", e.tolerance},
          {"unexplained_pairs", e.unexplained_pairs},
          {"findings_added", e.added},
          {"findings_dropped", e.dropped},
          {"warning", e.warning.empty() ? json(nullptr) : json(e.warning)}};
}

// One line after the sensitivity: how much of the matrix the report accounts for.
std::string explanation_text(const Explanation& e) {
  if (!e.checked) return std::string();  // why: in the notes
  const auto [lo, hi] = std::minmax_element(e.tolerance.begin(), e.tolerance.end());
  std::string o = fmt::format(
      "  explanation: the levels and the findings predict {:.1f} % of the cells within {}; {:.1f} % are slower than "
      "predicted",
      100 * e.explained_share,
      *lo == *hi ? fmt::format("{:.2f}x", *lo) : fmt::format("{:.2f}x-{:.2f}x (the noise per length)", *lo, *hi),
      100 * e.slow_share);
  if (e.changed_findings && (e.added || !e.dropped.empty()))
    o += fmt::format("; the check added {} finding(s) and dropped {} that its cells do not bear out (the JSON's "
                     "findings_dropped says why)",
                     e.added, e.dropped.size());
  return o + "\n";
}

}  // namespace

bool check_node_level_against_hosts(Topology& t, const HostAgreement& a) {
  if (!a.known || a.exact || !t.node_level_identified || t.levels.empty()) return false;
  const auto& group_of = t.levels.front().group_of;
  for (const auto& host : a.host_groups)
    for (int r : host)
      if (group_of[static_cast<std::size_t>(r)] != group_of[static_cast<std::size_t>(host.front())]) return false;
  t.node_level_identified = false;
  t.levels.front().name = "group";
  t.notes.push_back(
      "WARNING: the node level cannot be identified from the delays: every finest group holds whole hosts and some "
      "hold several (ranks on different hosts look alike, e.g. one rank per node), so these groups are switches or "
      "sets of nodes; their classes are named within-group and between-groups");
  return true;
}

nlohmann::json hierarchy_json(const Topology& t) {
  auto h = nlohmann::json::array();
  for (std::size_t l = 0; l < t.levels.size(); ++l) {
    nlohmann::json x{{"level", t.levels[l].name}, {"groups", t.levels[l].groups}};
    if (const auto lone = lone_node_groups(t, l); !lone.empty()) {
      x["lone_nodes"] = lone;
      x["lone_node_caveat"] = kLoneNodeCaveat;
    }
    h.push_back(std::move(x));
  }
  return h;
}

nlohmann::json duplex_json(const Report& r, const std::string& one, const std::string& async) {
  nlohmann::json j;
  j["file"] = one;
  j["async_file"] = async;
  j["groups"] = r.topology.levels.front().groups;
  auto cl = nlohmann::json::array();
  for (const auto& c : r.duplex->classes)
    cl.push_back({{"class", c.name}, {"async_over_one_to_one", json_number<json>(c.median_ratio)}, {"half_duplex", c.half_duplex}});
  j["lengths"] = r.duplex->lengths;
  j["classes"] = cl;
  auto an = nlohmann::json::array();
  for (const auto& a : r.duplex->anomalies) an.push_back(to_json(a));
  j["anomalies"] = an;
  return j;
}

std::string duplex_text(const Report& r, const std::string& one, const std::string& async) {
  std::string o = fmt::format("Duplex check: {} vs {} at {} lengths\n", one, async, r.duplex->lengths.size());
  for (const auto& c : r.duplex->classes)
    o += fmt::format("  {:<14} async/one_to_one {:.2f}  {}\n", c.name, c.median_ratio, c.half_duplex ? "HALF DUPLEX" : "full duplex");
  if (r.duplex->anomalies.empty()) o += "  half-duplex links: none\n";
  for (const auto& a : r.duplex->anomalies) o += fmt::format("  {} score {:.2f}: {}\n", name_of(a.kind), a.score, a.detail);
  return o;
}

nlohmann::json to_json(const Anomaly& a) {
  nlohmann::json j{{"kind", name_of(a.kind)}, {"ranks", a.ranks}, {"hosts", a.hosts}, {"lengths", a.lengths},
                   {"score", json_number<json>(a.score)}, {"detail", a.detail}};
  if (!a.pairs.empty()) {
    auto p = nlohmann::json::array();
    for (auto [x, y] : a.pairs) p.push_back({x, y});
    j["pairs"] = p;
  }
  if (!a.direction.empty()) j["direction"] = a.direction;
  return j;
}

nlohmann::json to_json(const ClassParams& p) {
  nlohmann::json j{{"class", p.name},
                   {"pairs", p.pairs},
                   {"L_plus_2o", json_number<json>(p.loggp.L + 2 * p.loggp.o)},
                   {"one_way_delay", json_number<json>(p.t0)},
                   {"at_length", p.t0_length},
                   {"loggp_measured", p.have_loggp},
                   {"L", json_number<json>(p.loggp.L)},
                   {"o", json_number<json>(p.loggp.o)},
                   {"o_s", json_number<json>(p.o_s)},
                   {"o_r", json_number<json>(p.o_r)},
                   {"g", json_number<json>(p.loggp.g)},
                   {"G", json_number<json>(p.loggp.G)}};
  if (!p.notes.empty()) j["notes"] = p.notes;
  if (p.have_loggp && !p.separable) {
    j["L"] = nullptr;
    j["o_r"] = nullptr;
    j["separable"] = false;
    j["not_separable_reason"] = p.not_separable_reason;
    j["L_plus_o_r"] = json_number<json>(p.L_plus_o_r);
  } else if (p.have_loggp) {
    j["separable"] = true;
  }
  if (p.have_loggp) {
    j["loggp_residual"] = json_number<json>(p.loggp_residual);
    j["fit_break"] = p.fit_break;
    auto ranges = json::array();
    for (const auto& r : p.gap_ranges)
      ranges.push_back({{"from", r.from}, {"to", r.to >= 0 ? json(r.to) : json(nullptr)}, {"g", json_number<json>(r.g)},
                        {"G", json_number<json>(r.G)}});
    j["gap_ranges"] = ranges;
    j["gap_overhead_bound"] = json_number<json>(p.overhead_bound);
    j["gap_model"] = "gap(s) = max(gap_overhead_bound, g + G s) with g, G of the range holding s";
  } else {
    j["assumed"] = "o and g are not identifiable from delays alone: o = 0 and g = L + 2o unless given";
  }
  return j;
}

namespace {

// The protocol thresholds and the Hockney fits of each class (and of each pair: with_pairs, or
// up to 16 ranks) into j["thresholds"] and j["hockney"].
void add_hockney_json(nlohmann::json& j, const Report& r, bool with_pairs) {
  const Cube& c = r.cube;
  auto th = nlohmann::json::array();
  auto hc = nlohmann::json::array();
  for (const auto& f : r.hockney.classes) {
    auto steps = nlohmann::json::array();
    std::vector<std::int64_t> lens;
    for (const auto& t : f.thresholds) {
      json step = {{"length", t.length}, {"previous_length", t.previous_length}, {"jump", json_number<json>(t.jump)},
                   {"kind", t.slope ? "slope" : "step"}};
      if (t.slope) step["slope_change"] = json_number<json>(t.slope_change);
      steps.push_back(step);
      lens.push_back(t.length);
    }
    th.push_back({{"class", f.name}, {"lengths", lens}, {"steps", steps}, {"class_noise", json_number<json>(f.noise)}});
    auto ranges = nlohmann::json::array();
    for (std::size_t g = 0; g < f.ranges.size(); ++g) {
      const auto& rg = f.ranges[g];
      nlohmann::json x = fit_json(rg.fit);
      x["name"] = f.ranges.size() == 1 ? "all" : (g == 0 ? "short" : (g + 1 == f.ranges.size() ? "long" : "middle"));
      x["from"] = rg.from;
      x["to"] = rg.to;
      if (g < f.pair_spread.size()) {
        const auto& s = f.pair_spread[g];
        x["pairs"] = {{"ts_median", json_number<json>(s.ts_median)},
                      {"ts_min", json_number<json>(s.ts_min)},
                      {"ts_max", json_number<json>(s.ts_max)},
                      {"tw_median", json_number<json>(s.tw_median)},
                      {"tw_min", json_number<json>(s.tw_min)},
                      {"tw_max", json_number<json>(s.tw_max)},
                      {"r2_median", json_number<json>(s.r2_median)},
                      {"rel_rms_median", json_number<json>(s.rel_rms_median)},
                      {"fitted", s.fitted}, {"ts_not_identifiable", s.ts_unidentifiable},
                      {"tw_not_identifiable", s.tw_unidentifiable}};
      }
      ranges.push_back(x);
    }
    hc.push_back({{"class", f.name}, {"pairs", f.pairs}, {"ranges", ranges}});
  }
  j["thresholds"] = th;
  j["hockney"] = {{"model", "t = ts + m*tw, least squares on relative errors with ts >= 0 and tw >= 0; "
                            "a parameter with *_identifiable false is not determined by the data"},
                  {"classes", hc}};
  if (with_pairs || c.P <= 16) {
    auto ps = nlohmann::json::array();
    for (const auto& p : r.hockney.pairs) {
      auto rs = nlohmann::json::array();
      for (const auto& f : p.ranges) rs.push_back(fit_json(f));
      ps.push_back({{"sender", p.i}, {"receiver", p.j}, {"class", r.topology.class_name(p.cls)}, {"ranges", rs}});
    }
    j["hockney"]["pairs"] = ps;
  }
}

}  // namespace

nlohmann::json to_json(const Report& r, bool with_pairs) {
  const Cube& c = r.cube;
  nlohmann::json j;
  j["program"] = "network_analyze";
  j["version"] = version_string();
  j["file"] = r.source;
  j["mode"] = std::string(mode_name(c.mode));
  j["statistic"] = std::string(statistic_name(c.statistic));
  j["ranks"] = c.P;
  j["lengths"] = c.lengths;
  j["excluded_bad_values"] = {{"total", c.bad.total()}, {"nan", c.bad.missing}, {"infinite", c.bad.infinite},
                              {"negative", c.bad.negative}, {"absurd", c.bad.absurd}};
  if (r.not_sampled)
    j["not_sampled"] = {{"cells", r.not_sampled->cells}, {"host_pairs", r.not_sampled->host_pairs},
                        {"measured_host_pairs", r.not_sampled->measured_host_pairs}};
  j["groups"] = r.topology.levels.front().groups;
  j["hierarchy"] = hierarchy_json(r.topology);
  j["node_level_identified"] = r.topology.node_level_identified;
  j["node_level_source"] = r.topology.nodes_from_hosts ? "hosts" : "delays";
  j["hosts"] = {{"known", r.agreement.known},
                {"names", r.hosts},
                {"agreement",
                 {{"exact", r.agreement.exact},
                  {"adjusted_rand", json_number<json>(r.agreement.adjusted_rand)},
                  {"summary", r.agreement.summary},
                  {"host_groups", r.agreement.host_groups},
                  {"mismatches", r.agreement.mismatches}}}};
  auto an = nlohmann::json::array();
  for (const auto& a : r.anomalies) an.push_back(to_json(a));
  j["anomalies"] = an;
  j["sensitivity"] = sensitivity_json(r.sensitivity);
  j["explanation"] = explanation_json(r.explanation);
  j["thresholds_used"] = thresholds_json(r.options);
  add_hockney_json(j, r, with_pairs);
  auto lp = nlohmann::json::array();
  for (const auto& p : r.params) lp.push_back(to_json(p));
  j["logp"] = lp;
  if (r.duplex) {
    auto cl = nlohmann::json::array();
    for (const auto& d : r.duplex->classes)
      cl.push_back({{"class", d.name}, {"async_over_one_to_one", json_number<json>(d.median_ratio)}, {"half_duplex", d.half_duplex}});
    j["duplex"] = {{"lengths", r.duplex->lengths}, {"classes", cl}};
  }
  j["notes"] = r.notes;
  return j;
}

namespace {

// The topology section of the text report: the groups of each level and how they agree with the
// host names.
void write_topology_text(std::ostream& o, const Report& r) {
  o << topology_title(r.topology) << "\n";
  for (std::size_t li = 0; li < r.topology.levels.size(); ++li) {
    const auto& l = r.topology.levels[li];
    const auto lone_groups = lone_node_groups(r.topology, li);
    o << fmt::format("  {} level: {} group(s)\n", l.name, l.groups.size());
    std::size_t shown = 0;
    for (std::size_t g = 0; g < l.groups.size() && shown < 32; ++g, ++shown) {
      std::string hs;
      if (!r.hosts.empty()) {
        std::vector<std::string> names;
        for (int x : l.groups[g]) names.push_back(r.hosts[static_cast<std::size_t>(x)]);
        std::sort(names.begin(), names.end());
        names.erase(std::unique(names.begin(), names.end()), names.end());
        if (names.size() > 4) names.resize(4), names.push_back("...");
        hs = fmt::format("  [{}]", fmt::join(names, ","));
      }
      const bool lone = std::find(lone_groups.begin(), lone_groups.end(), g) != lone_groups.end();
      o << fmt::format("    {:>4}: ranks {}{}{}\n", g, ranks_text(l.groups[g]), hs,
                       lone ? fmt::format("  (lone node: {})", kLoneNodeCaveat) : "");
    }
    if (l.groups.size() > shown) o << fmt::format("    ... {} more\n", l.groups.size() - shown);
  }
  o << fmt::format("  host names: {}", r.agreement.summary);
  if (r.agreement.known) o << fmt::format(" (adjusted Rand index {:.3f})", r.agreement.adjusted_rand);
  o << "\n";
  for (std::size_t i = 0; i < r.agreement.mismatches.size() && i < 10; ++i) o << "    " << r.agreement.mismatches[i] << "\n";
}

// The Hockney section of the text report: per class and range, the fit of the median curve and the
// spread of the pair fits.
void write_hockney_text(std::ostream& o, const Report& r) {
  o << "\nHockney t = ts + m*tw per class (fit of the class median curve, ts >= 0, tw >= 0; pairs: median [min, max])\n";
  o << fmt::format("  {:<14} {:<24} {:>10} {:>12} {:>8} {:>7}   {}\n", "class", "range", "ts", "bandwidth", "rel.rms",
                   "quality", "pairs ts");
  bool any_unident = false;
  for (const auto& f : r.hockney.classes)
    for (std::size_t g = 0; g < f.ranges.size(); ++g) {
      const auto& rg = f.ranges[g];
      any_unident = any_unident || !rg.fit.ts_identifiable || !rg.fit.tw_identifiable;
      std::string spread;
      if (g < f.pair_spread.size()) {
        const auto& s = f.pair_spread[g];
        spread = fmt::format("{} [{}, {}]", format_seconds(s.ts_median), format_seconds(s.ts_min), format_seconds(s.ts_max));
        if (s.ts_unidentifiable > 0 || s.tw_unidentifiable > 0)
          spread += fmt::format("; not identifiable in {} of {} pairs (ts) / {} (tw)", s.ts_unidentifiable, s.fitted,
                                s.tw_unidentifiable);
      }
      o << fmt::format("  {:<14} {:<24} {:>10} {:>12} {:>7.2f}% {:>7}   {}\n", g == 0 ? f.name : "",
                       fmt::format("{} .. {}", format_bytes(rg.from), format_bytes(rg.to)), ts_text(rg.fit),
                       bw_text(rg.fit), 100 * rg.fit.rel_rms, fit_quality(rg.fit.rel_rms), spread);
    }
  if (any_unident)
    o << "  not ident.: the delays of that range do not determine the parameter (its best value is 0 or within\n"
         "  two standard errors of 0): measure a wider range of lengths, or read it from another range\n";
}

}  // namespace

std::string to_text(const Report& r) {
  const Cube& c = r.cube;
  std::ostringstream o;
  o << fmt::format("network_analyze report: {}\n  mode {}, statistic {}, {} ranks, lengths {}\n\n", r.source,
                   mode_name(c.mode), statistic_name(c.statistic), c.P, lengths_text(c.lengths));
  if (r.not_sampled)
    o << fmt::format("Input: {} cells not sampled (--sample-pairs: {} of {} host pairs measured), read as missing\n{}",
                     r.not_sampled->cells, r.not_sampled->measured_host_pairs, r.not_sampled->host_pairs,
                     c.bad.total() > 0 ? "" : "\n");
  if (c.bad.total() > 0) {
    o << fmt::format("Input: {} excluded from the analysis (network_convert info lists them)", c.bad.summary());
    if (!c.bad.first.empty())
      o << fmt::format("; the first is {} -> {}", c.bad.first.front().sender, c.bad.first.front().receiver);
    o << "\n\n";
  }
  write_topology_text(o, r);
  o << "\nAnomalies";
  if (r.anomalies.empty()) o << ": none\n";
  else o << fmt::format(" ({})\n", r.anomalies.size());
  for (const auto& a : r.anomalies) {
    o << fmt::format("  {:<16} score {:6.2f}x  ranks {}", name_of(a.kind), a.score, text_of_ranks(a.ranks));
    if (!a.direction.empty() && a.direction != "both")
      o << fmt::format("  ({} only)", a.direction == "send" ? "sending" : "receiving");
    if (!a.hosts.empty()) o << fmt::format("  hosts {}", text::hosts_text(a.hosts));
    o << fmt::format("\n  {:<16} {}; lengths {}\n", "", a.detail, lengths_text(a.lengths));
  }
  o << sensitivity_text(r.sensitivity);
  o << explanation_text(r.explanation);
  o << "\nProtocol thresholds (lengths where the delay curve steps)\n";
  for (const auto& f : r.hockney.classes) {
    o << fmt::format("  {:<14}", f.name);
    if (f.thresholds.empty()) o << fmt::format("none (steps must exceed the class noise {:.1f}%)\n", 100 * f.noise);
    else {
      std::vector<std::string> s;
      for (const auto& t : f.thresholds)
        s.push_back(fmt::format("{} (after {}, {} {:+.0f}%, class noise {:.1f}%)", format_bytes(t.length),
                                format_bytes(t.previous_length), t.slope ? "slope" : "step",
                                100 * (t.slope ? t.slope_change : t.jump), 100 * f.noise));
      o << fmt::format("{}\n", fmt::join(s, "; "));
    }
  }
  write_hockney_text(o, r);
  o << "\nLogP from the delays: L + 2o = delay of the shortest message\n";
  for (const auto& p : r.params)
    o << fmt::format("  {:<14} L + 2o = {} (at {}, {} pairs)\n", p.name, format_seconds(p.t0), format_bytes(p.t0_length), p.pairs);
  if (r.duplex) {
    o << fmt::format("\nDuplex check (async_one_to_one / one_to_one at {})\n", lengths_text(r.duplex->lengths));
    for (const auto& d : r.duplex->classes)
      o << fmt::format("  {:<14} ratio {:.2f}  {}\n", d.name, d.median_ratio, d.half_duplex ? "HALF DUPLEX" : "full duplex");
  }
  if (!r.notes.empty()) {
    o << "\nNotes\n";
    for (const auto& n : r.notes) o << "  " << n << "\n";
  }
  return o.str();
}

}  // namespace nt::analysis
