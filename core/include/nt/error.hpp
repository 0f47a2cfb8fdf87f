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

// Exit code used for every user error, on every rank.
inline constexpr int kExitUsage = 2;

}  // namespace nt
