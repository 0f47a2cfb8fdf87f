// network_analyze compare: what changed between two runs, as text, JSON and HTML, with the exit
// code of its findings (the comparison: compare_runs, compare.cpp and compare_hosts.cpp).
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "cli_parts.hpp"
#include "nt/analysis/cli.hpp"
#include "nt/analysis/compare.hpp"
#include "nt/analysis/health.hpp"
#include "nt/analysis/html.hpp"
#include "nt/error.hpp"

namespace nt::analysis {

namespace {

// A run named for compare: its file, or a directory's one_to_one_median.nc (compare_input), or
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
  return compare_input(path);
}

}  // namespace

void add_compare_command(CLI::App& app, int& exit_code) {
  struct Args {
    std::string baseline, current, json, html;
    CompareOptions opt;
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
    const Completeness of_base = run_completeness(base), of_cur = run_completeness(cur);
    Completeness done = of_cur.complete() ? of_base : of_cur;
    std::optional<Comparison> r;
    if (!of_base.empty && !of_cur.empty) r = compare_runs(base, cur, a->opt);
    if (r && done.complete()) done = common_lengths_completeness(*r, of_base.stored);
    const int code = !done.complete() ? kExitIncomplete : r->findings.empty() ? kExitOk : kExitFindings;
    if (!a->quiet && a->json != "-") {
      if (!done.complete()) std::cout << done.line << "\n" << (r ? "\n" : "");
      if (r) std::cout << to_text(*r);
    }
    if (!a->json.empty()) {
      nlohmann::json j = r ? to_json(*r)
                           : nlohmann::json{{"program", "network_analyze"}, {"command", "compare"},
                                            {"baseline", base}, {"current", cur}};
      add_status(j, code == kExitOk ? "ok" : code == kExitFindings ? "findings" : "incomplete", done);
      write_json(a->json, j, a->force);
    }
    if (!a->html.empty()) write_out(a->html, html_with_status(r ? compare_html(*r) : "", done), a->force);
    exit_code = code;
  });
}

}  // namespace nt::analysis
