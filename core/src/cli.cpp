#include "nt/cli.hpp"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/netcdf.hpp"
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
    return body();
  } catch (const Error& e) {
    std::cerr << program << ": error: " << one_line(e.what()) << '\n';
    return kExitUsage;
  } catch (const std::bad_alloc&) {
    std::cerr << program << ": error: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << program << ": internal error: " << one_line(e.what()) << '\n';
    return 1;
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
    std::cerr << app.get_name() << ": error: " << e.what() << " (run with --help for more information)\n";
    return kExitUsage;
  }
  return -1;
}

const char* version_string() { return NT_VERSION; }

}  // namespace nt
