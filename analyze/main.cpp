// network_analyze: topology, anomalies, protocol thresholds, Hockney/LogP/LogGP parameters,
// collective predictions and exports, from the files network_test writes. A thin main: one
// add_X_command per subcommand; the analysis and its text and JSON are in nt_analysis.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "nt/analysis/compare.hpp"
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/health.hpp"
#include "nt/analysis/html.hpp"
#include "nt/analysis/model_report.hpp"
#include "nt/analysis/ranks.hpp"
#include "nt/analysis/report.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/json_text.hpp"
#include "nt/output.hpp"

namespace na = nt::analysis;

namespace {

void write_out(const std::string& path, const std::string& text, bool force) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  nt::write_file_atomically(path, force, [&](std::ostream& f) { f << text; });
}

void write_json(const std::string& path, const nlohmann::json& j, bool force) {
  if (!path.empty()) write_out(path, nt::json_text(j, 1) + "\n", force);
}

// Checked before the (possibly long) analysis: the output may be written, and is no input.
void check_out(const std::string& path, bool force, const std::vector<std::filesystem::path>& inputs) {
  if (path.empty() || path == "-") return;
  nt::check_output(path, force);
  nt::refuse_same_file(path, inputs);
}

// The exit codes, said once for --help and the man page (made from it).
constexpr const char* kExitCodes =
    "Exit status: 0 success (report --check, compare: nothing to report); 1 internal error (a bug); 2 bad "
    "input (one line on stderr); 3 findings (report --check: anomalies; compare: changes beyond the runs' "
    "noise); 4 incomplete (report --check, compare: a run cut short with fewer lengths than planned, too few "
    "common lengths to compare; report always: a run in which nothing was measured), said by the first line of "
    "every output and winning over 3.";

struct ReportArgs {
  std::string file, json, html, prometheus;
  na::ReportOptions opt;
  bool force = false, quiet = false, no_deviation = false, check = false, summary = false;
};

// The outputs of report: the INCOMPLETE line first in each (text, JSON "incomplete", HTML), the
// one-line summary with --check or --summary, the Prometheus textfile. Returns the exit code.
int write_report_outputs(const ReportArgs& a, const na::Health& h) {
  const auto& done = h.completeness;
  if (!a.quiet && !a.summary && a.json != "-") {
    if (!done.complete()) std::cout << done.line << "\n" << (h.report ? "\n" : "");
    if (h.report) std::cout << na::to_text(*h.report);
  }
  if ((a.check || a.summary) && a.json != "-") std::cout << na::summary_line(h);
  if (!a.json.empty()) {
    nlohmann::json j = h.report ? na::to_json(*h.report, a.opt.pairs_in_json)
                                : nlohmann::json{{"program", "network_analyze"}, {"file", a.file}};
    na::add_status(j, h.status(), done);
    write_json(a.json, j, a.force);
  }
  if (!a.html.empty()) write_out(a.html, na::html_with_status(h.report ? na::report_html(*h.report) : "", done), a.force);
  if (!a.prometheus.empty()) write_out(a.prometheus, na::prometheus_text(h), a.force);
  if (done.empty) return na::kIncompleteExitCode;  // no report could be made, --check or not
  return a.check ? h.exit_code() : 0;
}

void add_report_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ReportArgs>();
  auto* c = app.add_subcommand("report", "Topology groups, anomalies, protocol thresholds and Hockney fits of FILE");
  c->add_option("FILE", a->file, "delay file (raw, legacy, text, NetCDF-4 or clustered)")->required();
  c->add_option("--hosts", a->opt.hosts_file, "hosts file to compare the groups with (never used to make them)");
  c->add_option("--json", a->json, "write the JSON report here ('-' for stdout)");
  c->add_option("--async", a->opt.async_file, "async_one_to_one file of the same run: half-duplex check");
  c->add_option("--deviation", a->opt.deviation_file,
                "deviation file of the same run (default: <prefix>_deviation.nc when present)");
  c->add_flag("--no-deviation", a->no_deviation, "do not look for a deviation file beside FILE");
  c->add_flag("--pairs", a->opt.pairs_in_json, "per-pair Hockney fits in the JSON (always for <= 16 ranks)");
  c->add_option("--min-ratio", a->opt.anomalies.min_ratio, "smallest slowdown reported as an anomaly")
      ->check(CLI::Range(1.01, 1000.0))
      ->capture_default_str();
  c->add_option("--html", a->html, "write a self-contained one-page HTML report here (no network access needed)");
  c->add_flag("--check", a->check,
              "health check: exit 3 when the report lists anomalies, 4 when the run is incomplete, 0 otherwise; "
              "prints the one-line summary (after the text report, alone with --quiet)");
  c->add_flag("--summary", a->summary,
              "print only the one-line summary for monitoring (status, findings per kind, hosts named, lengths)");
  c->add_option("--prometheus", a->prometheus,
                "write the run's health as a Prometheus textfile here (node_exporter textfile collector; "
                "--force to replace last night's)");
  c->add_flag("--force", a->force, "overwrite the JSON, HTML and Prometheus files");
  c->add_flag("--quiet", a->quiet, "no text report on stdout (with --check: the summary line only)");
  c->callback([a, &exit_code] {
    a->opt.find_deviation_beside = !a->no_deviation;
    a->opt.keep_pair_fits = false;  // only what the JSON shows (--pairs, or P <= 16)
    for (const auto& out : {a->json, a->html, a->prometheus})
      check_out(out, a->force, {a->file, a->opt.hosts_file, a->opt.async_file});
    if (a->html == "-") throw nt::UsageError("--html needs a file name");
    if (a->prometheus == "-") throw nt::UsageError("--prometheus needs a file name");
    if (!a->json.empty() && a->json == a->html) throw nt::UsageError("--json and --html name the same file");
    na::start_ranks();  // under mpiexec: the ranks share the passes, rank 0 writes
    na::Health h{a->file, nullptr, {}};
    std::optional<na::Report> r;
    try {
      h.completeness = na::run_completeness(a->file);
      if (!h.completeness.empty) r = na::make_report(a->file, a->opt);
    } catch (const nt::Error& e) {  // on one rank only: the others must not wait for it
      na::abort_ranks_if_sharing(std::string("network_analyze: error: ") + e.what());
      throw;
    }
    if (na::rank() != 0) return;
    h.report = r ? &*r : nullptr;
    exit_code = write_report_outputs(*a, h);
  });
}

void add_duplex_command(CLI::App& app) {
  struct Args {
    std::string one, async, json;
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand("duplex", "Half-duplex check from a one_to_one and an async_one_to_one file of one run");
  c->add_option("ONE_TO_ONE", a->one, "one_to_one file")->required();
  c->add_option("ASYNC", a->async, "async_one_to_one file")->required();
  c->add_option("--json", a->json, "write the JSON here ('-' for stdout)");
  c->add_flag("--force", a->force, "overwrite the JSON file");
  c->callback([a] {
    check_out(a->json, a->force, {a->one, a->async});
    na::ReportOptions o;
    o.async_file = a->async;
    o.find_deviation_beside = false;
    o.keep_pair_fits = false;
    const na::Report r = na::make_report(a->one, o);
    if (a->json != "-") std::cout << na::duplex_text(r, a->one, a->async);
    write_json(a->json, na::duplex_json(r, a->one, a->async), a->force);
  });
}

void add_model_command(CLI::App& app) {
  struct Args {
    na::ModelRequest req;
    std::string json;
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand("model", "LogP/LogGP parameters per class and collective predictions");
  c->add_option("FILE", a->req.delay_file, "delay file (one_to_one); optional with --loggp");
  c->add_option("--loggp", a->req.loggp_file, "<prefix>_loggp.nc from network_test's loggp mode");
  c->add_option("--bcast", a->req.bcast_file, "measured bcast file to compare the predictions with");
  c->add_option("--class", a->req.class_name, "class whose parameters drive the predictions (default: the coarsest)");
  c->add_option("--o", a->req.options.o, "LogP overhead o in seconds (default: measured, or 0)");
  c->add_option("--g", a->req.options.g, "LogP gap g in seconds (default: measured, or L + 2o)");
  c->add_option("--hosts", a->req.hosts_file, "hosts file");
  c->add_option("--json", a->json, "write the JSON here ('-' for stdout)");
  c->add_flag("--force", a->force, "overwrite the JSON file");
  c->callback([a] {
    const auto& q = a->req;
    check_out(a->json, a->force, {q.delay_file, q.loggp_file, q.bcast_file, q.hosts_file});
    const na::ModelReport m = na::make_model(q);
    if (a->json != "-") std::cout << na::to_text(m);
    write_json(a->json, na::to_json(m), a->force);
  });
}

void add_export_command(CLI::App& app) {
  struct Args {
    na::ExportRequest req;
    std::string out = "-";
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand("export", "Export parameters for other tools");
  c->add_option("FILE", a->req.delay_file, "delay file")->required();
  nt::add_enum_option(*c, "--format", a->req.format, na::export_formats(), "what to write")
      ->required()
      ->default_str("");
  c->add_option("-o,--output", a->out, "output file ('-' for stdout, the default)");
  c->add_option("--loggp", a->req.loggp_file, "loggp file: measured LogGP parameters for loggopsim/json");
  c->add_option("--hosts", a->req.hosts_file, "hosts file");
  c->add_flag("--force", a->force, "overwrite the output file");
  c->callback([a] {
    check_out(a->out, a->force, {a->req.delay_file, a->req.loggp_file, a->req.hosts_file});
    write_out(a->out, na::make_export(a->req), a->force);
  });
}

// A run named for compare: its file, or a directory's one_to_one_median.nc (na::compare_input), or
// the one *_median.nc of a directory without it (scripts/simulate writes run_*.nc).
std::string run_file(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(path, ec) && !fs::exists(fs::path(path) / "one_to_one_median.nc", ec)) {
    std::vector<fs::path> medians;
    for (const auto& e : fs::directory_iterator(path, ec)) {
      const std::string n = e.path().filename().string();
      if (n.size() > 10 && n.compare(n.size() - 10, 10, "_median.nc") == 0) medians.push_back(e.path());
    }
    if (medians.size() == 1) return medians.front().string();
    if (medians.size() > 1)
      throw nt::FileError(path, "is a directory with " + std::to_string(medians.size()) +
                                    " *_median.nc files and no one_to_one_median.nc: name the delay file to compare");
  }
  return na::compare_input(path);
}

void add_compare_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string baseline, current, json, html;
    na::CompareOptions opt;
    bool force = false, quiet = false;
  };
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand(
      "compare",
      "What changed between two runs (nodes, links, classes, thresholds, topology), ranks matched by host name. "
      "Exit 0: no change beyond the runs' noise; 3: findings; 4: a run incomplete or too few common lengths");
  c->add_option("BASELINE", a->baseline,
                "delay file of the earlier run, or its directory (DIR/one_to_one_median.nc, or its one *_median.nc)")
      ->required();
  c->add_option("CURRENT", a->current, "delay file of the new run, or its directory")->required();
  c->add_option("--baseline-hosts", a->opt.baseline_hosts, "hosts file of BASELINE (default: <prefix>_hosts.txt)");
  c->add_option("--current-hosts", a->opt.current_hosts, "hosts file of CURRENT (default: <prefix>_hosts.txt)");
  c->add_option("--min-ratio", a->opt.min_ratio, "smallest change reported, either way (1.2: 20 %)")
      ->check(CLI::Range(1.01, 1000.0))
      ->capture_default_str();
  c->add_option("--min-sigmas", a->opt.min_sigmas, "robust z-score a change must reach over the runs' noise")
      ->check(CLI::Range(1.0, 1000.0))
      ->capture_default_str();
  c->add_option("--json", a->json, "write the JSON comparison here ('-' for stdout)");
  c->add_option("--html", a->html, "write a self-contained one-page HTML comparison here");
  c->add_flag("--force", a->force, "overwrite the JSON and HTML files");
  c->add_flag("--quiet", a->quiet, "no text on stdout");
  c->callback([a, &exit_code] {
    const std::vector<std::filesystem::path> in{a->baseline, a->current, a->opt.baseline_hosts, a->opt.current_hosts};
    check_out(a->json, a->force, in);
    check_out(a->html, a->force, in);
    if (a->html == "-") throw nt::UsageError("--html needs a file name");
    if (!a->json.empty() && a->json == a->html) throw nt::UsageError("--json and --html name the same file");
    a->opt.report.find_deviation_beside = false;
    const std::string base = run_file(a->baseline), cur = run_file(a->current);
    const na::Completeness of_base = na::run_completeness(base), of_cur = na::run_completeness(cur);
    na::Completeness done = of_cur.complete() ? of_base : of_cur;
    std::optional<na::Comparison> r;
    if (!of_base.empty && !of_cur.empty) r = na::compare_runs(base, cur, a->opt);
    if (r && done.complete()) done = na::common_lengths_completeness(*r, of_base.stored);
    const int code = !done.complete() ? na::kIncompleteExitCode : r->findings.empty() ? 0 : na::kFindingsExitCode;
    if (!a->quiet && a->json != "-") {
      if (!done.complete()) std::cout << done.line << "\n" << (r ? "\n" : "");
      if (r) std::cout << na::to_text(*r);
    }
    if (!a->json.empty()) {
      nlohmann::json j = r ? na::to_json(*r)
                           : nlohmann::json{{"program", "network_analyze"}, {"command", "compare"},
                                            {"baseline", base}, {"current", cur}};
      na::add_status(j, code == 0 ? "ok" : code == na::kFindingsExitCode ? "findings" : "incomplete", done);
      write_json(a->json, j, a->force);
    }
    if (!a->html.empty()) write_out(a->html, na::html_with_status(r ? na::compare_html(*r) : "", done), a->force);
    exit_code = code;
  });
}

int run(int argc, char** argv) {
  CLI::App app{"network_analyze: topology, anomalies, thresholds, Hockney/LogP/LogGP parameters, predictions, exports"};
  app.name("network_analyze");
  nt::add_version_flag(app);
  app.require_subcommand(1);
  app.add_option_function<std::size_t>(
         "--threads", [](const std::size_t& n) { na::set_threads(n); },
         "threads of the analysis (default: the CPUs this process may run on, from its affinity mask)")
      ->check(CLI::Range(1, 4096));
  app.fallthrough();  // --threads also after the subcommand
  int exit_code = 0;
  add_report_command(app, exit_code);
  add_duplex_command(app);
  add_model_command(app);
  add_export_command(app);
  add_compare_command(app, exit_code);
  app.footer(kExitCodes);
  // The subcommand's callback runs the analysis inside parse; nt::Error from it reaches guarded_main.
  if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
  return exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  return nt::guarded_main("network_analyze", [&] { return run(argc, argv); });
}
