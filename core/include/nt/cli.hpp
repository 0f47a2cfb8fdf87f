// Shared command-line and error handling for the non-MPI programs.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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

// The names of an option's values, in the order --help and errors list them: every accepted name
// with the value it stands for (an enum). The first name of each value is its canonical one; later
// names of the same value are aliases, accepted but not listed.
template <class E>
using Names = std::vector<std::pair<std::string, E>>;

// The one line of a value that is none of the names: "'x' is not one of a, b, c" (CLI11 puts the
// option's name before it: "--view: 'pie' is not one of matrix, row, ...").
std::string not_one_of(const std::string& value, const std::vector<std::string>& listed);

namespace detail {
// add_enum_option without the value's type: pick(i) stores the value of names[i].
CLI::Option* add_choice_option(CLI::App& app, const std::string& flags, std::vector<std::string> names,
                               std::vector<std::string> listed, const std::string& default_name,
                               std::function<void(std::size_t)> pick, const std::string& help);
}  // namespace detail

// The one way a program takes an option whose value is one of a few names (a mode, a format, a
// view, a schedule...): the name becomes its value in `value`; an unknown name is a parse error,
// one line "PROGRAM: error: --flag: 'x' is not one of a, b, c" and exit 2 (parse_cli). --help
// shows the listed names and the default (the name of `value` as it is when the option is added).
template <class E>
CLI::Option* add_enum_option(CLI::App& app, const std::string& flags, E& value, const Names<E>& names,
                             const std::string& help) {
  std::vector<std::string> all, listed;
  std::string default_name;
  for (std::size_t i = 0; i < names.size(); ++i) {
    all.push_back(names[i].first);
    bool first = true;
    for (std::size_t j = 0; j < i && first; ++j) first = !(names[j].second == names[i].second);
    if (first) listed.push_back(names[i].first);
    if (first && default_name.empty() && names[i].second == value) default_name = names[i].first;
  }
  return detail::add_choice_option(
      app, flags, std::move(all), std::move(listed), default_name,
      [&value, names](std::size_t i) { value = names[i].second; }, help);
}

// The canonical name of `value` in `names` (the first that stands for it: what --help lists), for
// the files and messages that say it; "" when no name does.
template <class E>
std::string name_of(const Names<E>& names, const E& value) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return {};
}
// The value a name of `names` stands for (name_of's inverse, aliases too); nothing for any other.
template <class E>
std::optional<E> value_of(const Names<E>& names, const std::string& name) {
  for (const auto& [n, v] : names)
    if (n == name) return v;
  return std::nullopt;
}

// The mode names (canonical, then the original's aliases: put_one_to_one, ...) as Names.
Names<Mode> mode_names();

// An option taking a mode name, stored as the Mode (add_enum_option over mode_names()).
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
