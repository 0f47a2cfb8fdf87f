// Error types shared by every program of the suite.
//
// nt::Error and its subclasses are "the user's fault" errors: bad options, missing or corrupt
// files, impossible parameters. Programs report them as one line and exit with code 2
// (see nt/cli.hpp). Anything else escaping main is a bug.
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>

namespace nt {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A bad command line or an impossible parameter combination.
class UsageError : public Error {
 public:
  using Error::Error;
};

// A file that is missing, unreadable, of the wrong kind, or corrupt. The message names the file.
class FileError : public Error {
 public:
  FileError(const std::filesystem::path& file, const std::string& what)
      : Error(file.string() + ": " + what), file_(file) {}
  const std::filesystem::path& file() const noexcept { return file_; }

 private:
  std::filesystem::path file_;
};

// The exit codes of the programs, each defined here once.
inline constexpr int kExitOk = 0;
inline constexpr int kExitInternal = 1;    // an internal error (a bug)
inline constexpr int kExitUsage = 2;       // every user error, on every rank: one line on stderr
inline constexpr int kExitFindings = 3;    // network_analyze report --check, compare: something to report
inline constexpr int kExitTimeout = 3;     // network_test: a pair outlasted --timeout and the job was ended
inline constexpr int kExitIncomplete = 4;  // a run cut short (network_test --time-limit), and the analysis of one

}  // namespace nt
