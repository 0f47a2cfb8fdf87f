#include "nt/cli.hpp"

#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "nt/dataset.hpp"
#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/output.hpp"
#include "nt/version.hpp"

namespace nt {

std::string one_line(const std::string& message) {
  std::string out;
  for (const char ch : message) {
    const auto c = static_cast<unsigned char>(ch);
    if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
    if (out.size() > 2000) {
      out += "...";
      break;
    }
  }
  return out;
}

namespace {
int run_guarded(const char* program, const std::function<int()>& body) {
  try {
    const int code = body();
    flush_stdout();  // a report lost to a full disk or a closed pipe is an error
    return code;
  } catch (const Error& e) {
    std::cerr << program << ": error: " << one_line(e.what()) << '\n';
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    // Running out of memory is the job not fitting the limit, not a bug: one
    // line naming the limit, exit 2. Programs check up front with require_memory; this is the net.
    const MemoryLimit limit = effective_memory_limit();
    std::cerr << program << ": error: out of memory under " << limit.source << '\n';
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << one_line(e.what()) << '\n';
    return kExitInternal;
  }
}
}  // namespace

int guarded_main(const char* program, const std::function<int()>& body) {
  const int code = run_guarded(program, body);
  if (nc::library_damaged()) {
    // Our temporaries are gone already (their owners were destroyed while unwinding); skip
    // HDF5's exit handler, which crashes on a file whose close failed.
    std::cout.flush();
    std::cerr.flush();
    std::fflush(nullptr);
    std::_Exit(code);
  }
  return code;
}

int parse_cli(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    const std::string unknown = unknown_subcommand(app, argc, argv);
    std::cerr << app.get_name() << ": error: " << (unknown.empty() ? std::string(e.what()) : unknown)
              << " (run with --help for more information)\n";
    return kExitUsage;
  }
  return -1;
}

int run_subcommands(CLI::App& app, int argc, char** argv) {
  add_version_flag(app);
  app.require_subcommand(1);
  const int rc = parse_cli(app, argc, argv);
  return rc >= 0 ? rc : 0;
}

std::string not_one_of(const std::string& value, const std::vector<std::string>& listed) {
  std::string names;
  for (const auto& n : listed) names += (names.empty() ? "" : ", ") + n;
  return "'" + value + "' is not one of " + names;
}

namespace detail {
CLI::Option* add_choice_option(CLI::App& app, const std::string& flags, std::vector<std::string> names,
                               std::vector<std::string> listed, const std::string& default_name,
                               std::function<void(std::size_t)> pick, const std::string& help) {
  std::string braces;
  for (const auto& n : listed) braces += (braces.empty() ? "" : ",") + n;
  const CLI::Validator to_index(
      [names, listed](std::string& text) -> std::string {
        const auto at = std::find(names.begin(), names.end(), text);
        if (at == names.end()) return not_one_of(text, listed);
        text = std::to_string(at - names.begin());
        return {};
      },
      "{" + braces + "}");
  return app
      .add_option_function<std::size_t>(flags, [pick = std::move(pick)](const std::size_t& i) { pick(i); }, help)
      ->transform(to_index)
      ->type_name("TEXT")
      ->default_str(default_name);
}
}  // namespace detail

Names<Mode> mode_names() {
  Names<Mode> names;
  for (const Mode m : all_modes()) names.emplace_back(std::string(mode_name(m)), m);
  for (const Mode m : all_modes())
    if (const ModeTraits* t = mode_traits(m); t && !t->alias.empty()) names.emplace_back(std::string(t->alias), m);
  return names;
}

CLI::Option* add_mode_option(CLI::App& app, const std::string& flags, Mode& mode, const std::string& help) {
  return add_enum_option(app, flags, mode, mode_names(), help)->type_name("MODE");
}

const char* version_string() { return NT_VERSION; }

void add_version_flag(CLI::App& app) { app.set_version_flag("--version", app.get_name() + " " + version_string()); }

namespace {
// Edit distance (insertions, deletions, substitutions) between two short words.
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// The first word of the command line that is neither an option nor an option's value.
std::string first_word(const CLI::App& app, int argc, char** argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string w = argv[i];
    if (w.empty() || w.front() != '-') return w;
    const CLI::Option* o = app.get_option_no_throw(w);
    if (o && o->get_type_size() > 0 && w.find('=') == std::string::npos) ++i;  // its value
  }
  return {};
}
}  // namespace

std::string unknown_subcommand(const CLI::App& app, int argc, char** argv) {
  const auto subs = app.get_subcommands([](const CLI::App*) { return true; });
  const std::string word = first_word(app, argc, argv);
  if (subs.empty() || word.empty()) return {};
  std::string names, nearest;
  std::size_t best = 3;  // suggest within two edits
  for (const CLI::App* s : subs) {
    if (s->check_name(word)) return {};
    names += (names.empty() ? "" : ", ") + s->get_name();
    if (const std::size_t d = edit_distance(word, s->get_name()); d < best) best = d, nearest = s->get_name();
  }
  return "unknown subcommand '" + word + "'" + (nearest.empty() ? "" : " (did you mean '" + nearest + "'?)") +
         "; subcommands: " + names;
}

}  // namespace nt
