// network_analyze's command line: one add_<name>_command per subcommand (analyze/src/cli/cli_<name>.cpp:
// its options, the outputs it refuses before the work, the files it writes after) and the program
// that gathers them (analyze/src/cli/cli.cpp). analyze/main.cpp only calls run().
#pragma once

namespace CLI {
class App;
}

namespace nt::analysis {

// The subcommands. Those whose exit code says what they found (report --check, compare) set
// exit_code; the others leave it at 0.
void add_report_command(CLI::App& app, int& exit_code);
void add_duplex_command(CLI::App& app);
void add_model_command(CLI::App& app);
void add_export_command(CLI::App& app);
void add_compare_command(CLI::App& app, int& exit_code);

// The whole program (--threads, the subcommands, --help and the exit codes); used by main().
// Returns the exit code; nt::Error escapes to the caller (guarded_main maps it to exit 2).
int run(int argc, char** argv);

}  // namespace nt::analysis
