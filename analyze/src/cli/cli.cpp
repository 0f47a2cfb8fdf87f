// network_analyze's program: --threads, the subcommands (one file each, analyze/src/cli/cli_<name>.cpp)
// and the exit codes; and the output files the subcommands share (cli_parts.hpp).
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "cli_parts.hpp"
#include "nt/analysis/cli.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/json_text.hpp"
#include "nt/output.hpp"

namespace nt::analysis {

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

void check_out(const std::string& path, bool force, const std::vector<std::filesystem::path>& inputs) {
  if (path.empty() || path == "-") return;
  nt::check_output(path, force);
  nt::refuse_same_file(path, inputs);
}

namespace {

// The exit codes, said once for --help and the man page (made from it).
std::string exit_codes_text() {
  return fmt::format(
      "Exit status: {} success (report --check, compare: nothing to report); {} internal error (a bug); {} bad "
      "input (one line on stderr); {} findings (report --check: anomalies; compare: changes beyond the runs' "
      "noise); {} incomplete (report --check, compare: a run cut short with fewer lengths than planned, too few "
      "common lengths to compare; report always: a run in which nothing was measured), said by the first line of "
      "every output and winning over {}.",
      kExitOk, kExitInternal, kExitUsage, kExitFindings, kExitIncomplete, kExitFindings);
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"network_analyze: topology, anomalies, thresholds, Hockney/LogP/LogGP parameters, predictions, exports"};
  app.name("network_analyze");
  nt::add_version_flag(app);
  app.require_subcommand(1);
  app.add_option_function<std::size_t>(
         "--threads", [](const std::size_t& n) { set_threads(n); },
         "threads of the analysis (default: the CPUs this process may run on, from its affinity mask)")
      ->check(CLI::Range(1, 4096));
  app.fallthrough();  // --threads also after the subcommand
  int exit_code = 0;
  add_report_command(app, exit_code);
  add_duplex_command(app);
  add_model_command(app);
  add_export_command(app);
  add_compare_command(app, exit_code);
  app.footer(exit_codes_text());
  // The subcommand's callback runs the analysis inside parse; nt::Error from it reaches guarded_main.
  if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
  return exit_code;
}

}  // namespace nt::analysis
