// network_analyze: a thin main over nt_analysis (its subcommands: analyze/src/cli/cli.cpp and cli_<name>.cpp).
#include "nt/analysis/cli.hpp"
#include "nt/cli.hpp"

int main(int argc, char** argv) {
  return nt::guarded_main("network_analyze", [&] { return nt::analysis::run(argc, argv); });
}
