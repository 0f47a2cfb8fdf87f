// network_analyze duplex: the half-duplex check of a one_to_one and an async_one_to_one file of
// one run, as text and JSON (the check: duplex.cpp).
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "cli_parts.hpp"
#include "nt/analysis/cli.hpp"
#include "nt/analysis/report.hpp"

namespace nt::analysis {

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
    ReportOptions o;
    o.async_file = a->async;
    o.find_deviation_beside = false;
    o.keep_pair_fits = false;
    const Report r = make_report(a->one, o);
    if (a->json != "-") std::cout << duplex_text(r, a->one, a->async);
    write_json(a->json, duplex_json(r, a->one, a->async), a->force);
  });
}

}  // namespace nt::analysis
