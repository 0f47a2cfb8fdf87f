// network_analyze report: a run's topology, anomalies, thresholds and fits as text, JSON, HTML, the
// --check/--summary line and the Prometheus textfile (the analysis: make_report, report.cpp).
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_parts.hpp"
#include "nt/analysis/cli.hpp"
#include "nt/analysis/health.hpp"
#include "nt/analysis/html.hpp"
#include "nt/analysis/ranks.hpp"
#include "nt/analysis/report.hpp"
#include "nt/error.hpp"
#include "nt/error.hpp"

namespace nt::analysis {

namespace {

struct ReportArgs {
  std::string file, json, html, prometheus;
  ReportOptions opt;
  bool force = false, quiet = false, no_deviation = false, check = false, summary = false;
};

// The outputs of report: the INCOMPLETE line first in each (text, JSON "incomplete", HTML), the
// one-line summary with --check or --summary, the Prometheus textfile. Returns the exit code.
int write_report_outputs(const ReportArgs& a, const Health& h) {
  const auto& done = h.completeness;
  if (!a.quiet && !a.summary && a.json != "-") {
    if (!done.complete()) std::cout << done.line << "\n" << (h.report ? "\n" : "");
    if (h.report) std::cout << to_text(*h.report);
  }
  if ((a.check || a.summary) && a.json != "-") std::cout << summary_line(h);
  if (!a.json.empty()) {
    nlohmann::json j = h.report ? to_json(*h.report, a.opt.pairs_in_json)
                                : nlohmann::json{{"program", "network_analyze"}, {"file", a.file}};
    add_status(j, h.status(), done);
    write_json(a.json, j, a.force);
  }
  if (!a.html.empty()) write_out(a.html, html_with_status(h.report ? report_html(*h.report) : "", done), a.force);
  if (!a.prometheus.empty()) write_out(a.prometheus, prometheus_text(h), a.force);
  if (done.empty) return kExitIncomplete;  // no report could be made, --check or not
  return a.check ? h.exit_code() : kExitOk;
}

void add_report_options(CLI::App& c, ReportArgs& a) {
  c.add_option("FILE", a.file, "delay file (raw, legacy, text, NetCDF-4 or clustered)")->required();
  c.add_option("--hosts", a.opt.hosts_file, "hosts file to compare the groups with (never used to make them)");
  c.add_option("--json", a.json, "write the JSON report here ('-' for stdout)");
  c.add_option("--async", a.opt.async_file, "async_one_to_one file of the same run: half-duplex check");
  c.add_option("--deviation", a.opt.deviation_file,
               "deviation file of the same run (default: <prefix>_deviation.nc when present)");
  c.add_flag("--no-deviation", a.no_deviation, "do not look for a deviation file beside FILE");
  c.add_flag("--pairs", a.opt.pairs_in_json, "per-pair Hockney fits in the JSON (always for <= 16 ranks)");
  c.add_option("--min-ratio", a.opt.anomalies.min_ratio, "smallest slowdown reported as an anomaly")
      ->check(CLI::Range(1.01, 1000.0))
      ->capture_default_str();
  c.add_option("--html", a.html, "write a self-contained one-page HTML report here (no network access needed)");
  c.add_flag("--check", a.check,
             fmt::format("health check: exit {} when the report lists anomalies, {} when the run is incomplete, {} "
                         "otherwise; prints the one-line summary (after the text report, alone with --quiet)",
                         kExitFindings, kExitIncomplete, kExitOk));
  c.add_flag("--summary", a.summary,
             "print only the one-line summary for monitoring (status, findings per kind, hosts named, lengths)");
  c.add_option("--prometheus", a.prometheus,
               "write the run's health as a Prometheus textfile here (node_exporter textfile collector; "
               "--force to replace last night's)");
  c.add_flag("--force", a.force, "overwrite the JSON, HTML and Prometheus files");
  c.add_flag("--quiet", a.quiet, "no text report on stdout (with --check: the summary line only)");
}

}  // namespace

void add_report_command(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ReportArgs>();
  auto* c = app.add_subcommand("report", "Topology groups, anomalies, protocol thresholds and Hockney fits of FILE");
  add_report_options(*c, *a);
  c->callback([a, &exit_code] {
    a->opt.find_deviation_beside = !a->no_deviation;
    a->opt.keep_pair_fits = false;  // only what the JSON shows (--pairs, or P <= 16)
    for (const auto& out : {a->json, a->html, a->prometheus})
      check_out(out, a->force, {a->file, a->opt.hosts_file, a->opt.async_file});
    if (a->html == "-") throw nt::UsageError("--html needs a file name");
    if (a->prometheus == "-") throw nt::UsageError("--prometheus needs a file name");
    if (!a->json.empty() && a->json == a->html) throw nt::UsageError("--json and --html name the same file");
    start_ranks();  // under mpiexec: the ranks share the passes, rank 0 writes
    Health h{a->file, nullptr, {}};
    std::optional<Report> r;
    try {
      h.completeness = run_completeness(a->file);
      if (!h.completeness.empty) r = make_report(a->file, a->opt);
    } catch (const nt::Error& e) {  // on one rank only: the others must not wait for it
      abort_ranks_if_sharing(std::string("network_analyze: error: ") + e.what());
      throw;
    }
    if (rank() != 0) return;
    h.report = r ? &*r : nullptr;
    exit_code = write_report_outputs(*a, h);
  });
}

}  // namespace nt::analysis
