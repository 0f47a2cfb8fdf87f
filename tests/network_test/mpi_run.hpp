// The MPI tests' way of running the real network_test: `mpiexec -n P network_test ARGS` with a
// hard limit, in a fresh folder of the test's working directory (each test is its own process).
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace fs = std::filesystem;

struct RunResult {
  int code = -1;
  std::string out;
};

// Runs `mpiexec -n P network_test ARGS` with a hard limit; returns exit code and stdout+stderr.
inline RunResult run_nt(int P, const std::string& args, const std::string& env = {}, int limit_s = 90) {
  const std::string cmd = env + " timeout -s KILL " + std::to_string(limit_s) + " " NT_MPIEXEC " -n " +
                          std::to_string(P) + " " NT_NETWORK_TEST " " + args + " 2>&1";
  RunResult r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), static_cast<int>(buf.size()), p)) r.out += buf.data();
  const int st = pclose(p);
  r.code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

inline fs::path dir() {
  static const fs::path d = [] {
    fs::path p = fs::current_path() / "nt_mpi_runs";
    fs::remove_all(p);
    fs::create_directories(p);
    return p;
  }();
  return d;
}

inline std::string prefix(const std::string& name) { return (dir() / name).string(); }

// Runs `network_test -f prefix(name) ARGS` on P ranks (ENV before the command), which must
// succeed; returns its output.
inline std::string run_ok(const std::string& name, int P, const std::string& args, const std::string& env = {}) {
  const RunResult r = run_nt(P, "-f " + prefix(name) + " " + args, env);
  EXPECT_EQ(r.code, 0) << r.out;
  return r.out;
}

inline std::size_t count(const std::string& haystack, const std::string& needle) {
  std::size_t n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + 1)) ++n;
  return n;
}

