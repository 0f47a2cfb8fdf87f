// Shared command-line and error handling for the non-MPI programs.
#pragma once

#include <functional>
#include <string>

#include "nt/types.hpp"

namespace CLI {
class App;
class Option;
}

namespace nt {

// Runs body(); maps nt::Error to "<program>: error: <message>" on stderr and exit code 2,
// any other exception to "<program>: internal error: ..." and exit code 1.
int guarded_main(const char* program, const std::function<int()>& body);

// Parses with CLI11. Returns -1 to go on, otherwise the exit code to return right away:
// 0 after --help/--version, 2 after a parse error (message printed, with a hint to --help).
int parse_cli(CLI::App& app, int argc, char** argv);

// The whole command line of a program made of subcommands (network_convert, network_cluster):
// adds --version (add_version_flag), requires exactly one subcommand, parses; the subcommand's callback does the
// work. Returns the exit code as parse_cli does (0 when the callback returned normally).
int run_subcommands(CLI::App& app, int argc, char** argv);

// An option taking a mode name (canonical, or an alias of the original: put_one_to_one, ...),
// stored as the Mode. Its default in --help is the mode's name; an unknown name is a parse error
// "unknown mode 'x' (one of one_to_one, ...)" (exit 2).
CLI::Option* add_mode_option(CLI::App& app, const std::string& flags, Mode& mode, const std::string& help);

// An error message as one printable line: control characters (a newline inside a quoted token of
// a corrupt file, say) become \xHH, and overly long messages are cut.
std::string one_line(const std::string& message);

// The suite's version string ("0.1.0").
const char* version_string();

// --version on `app`, printing "<program> <version>" (the app's name: "network_test 0.1.0"), the
// one form of every program.
void add_version_flag(CLI::App& app);

// The one line for a word in a subcommand's place that names none ("unknown subcommand 'reprot'
// (did you mean 'report'?); subcommands: report, duplex, ..."); "" when the command line's first
// word is a subcommand or there is none. parse_cli prints it instead of CLI11's "A subcommand is
// required".
std::string unknown_subcommand(const CLI::App& app, int argc, char** argv);

}  // namespace nt
