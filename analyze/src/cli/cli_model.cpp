// network_analyze model: LogP/LogGP parameters per class and collective predictions, as text and
// JSON (the model: make_model, model_report.cpp).
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli_parts.hpp"
#include "nt/analysis/cli.hpp"
#include "nt/analysis/model_report.hpp"

namespace nt::analysis {

void add_model_command(CLI::App& app) {
  struct Args {
    ModelRequest req;
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
    const ModelReport m = make_model(q);
    if (a->json != "-") std::cout << to_text(m);
    write_json(a->json, to_json(m), a->force);
  });
}

}  // namespace nt::analysis
