// Shared command-line and error handling for the non-MPI programs.
#pragma once

#include <functional>
#include <string>

namespace CLI {
class App;
}

namespace nt {

// Runs body(); maps nt::Error to "<program>: error: <message>" on stderr and exit code 2,
// any other exception to "<program>: internal error: ..." and exit code 1.
int guarded_main(const char* program, const std::function<int()>& body);

// Parses with CLI11. Returns -1 to go on, otherwise the exit code to return right away:
// 0 after --help/--version, 2 after a parse error (message printed, with a hint to --help).
int parse_cli(CLI::App& app, int argc, char** argv);

// An error message as one printable line: control characters (a newline inside a quoted token of
// a corrupt file, say) become \xHH, and overly long messages are cut.
std::string one_line(const std::string& message);

// The suite's version string ("0.1.0").
const char* version_string();

}  // namespace nt
