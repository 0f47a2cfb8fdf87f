// network_analyze export: parameters for other tools (loggopsim, SimGrid, CSV, JSON) to a file or
// stdout (the formats: exporters.cpp).
#include <memory>

#include <CLI/CLI.hpp>

#include "cli_parts.hpp"
#include "nt/analysis/cli.hpp"
#include "nt/analysis/exporters.hpp"
#include "nt/cli.hpp"

namespace nt::analysis {

void add_export_command(CLI::App& app) {
  struct Args {
    ExportRequest req;
    std::string out = "-";
    bool force = false;
  };
  auto a = std::make_shared<Args>();
  auto* c = app.add_subcommand("export", "Export parameters for other tools");
  c->add_option("FILE", a->req.delay_file, "delay file")->required();
  nt::add_enum_option(*c, "--format", a->req.format, export_formats(), "what to write")->required()->default_str("");
  c->add_option("-o,--output", a->out, "output file ('-' for stdout, the default)");
  c->add_option("--loggp", a->req.loggp_file, "loggp file: measured LogGP parameters for loggopsim/json");
  c->add_option("--hosts", a->req.hosts_file, "hosts file");
  c->add_flag("--force", a->force, "overwrite the output file");
  c->callback([a] {
    check_out(a->out, a->force, {a->req.delay_file, a->req.loggp_file, a->req.hosts_file});
    write_out(a->out, make_export(a->req), a->force);
  });
}

}  // namespace nt::analysis
