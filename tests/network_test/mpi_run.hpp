// The MPI tests' way of running the real network_test: `mpiexec -n P network_test ARGS` with a
// hard limit, in a fresh folder of the test's working directory (each test is its own process),
// and the checks every finished run must pass (check_result). Their files: test_mpi_modes.cpp,
// test_mpi_files.cpp, test_mpi_machine.cpp, test_time_limit.cpp.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "nt/hosts.hpp"
#include "nt/raw_file.hpp"
#include "nt/result_set.hpp"
#include "nt/types.hpp"

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

// Checks the five statistic files and the hosts file of a finished run.
inline void check_result(const std::string& pre, nt::Mode mode, int P, const std::vector<std::int64_t>& lengths,
                         int repeats) {
  using namespace nt;
  SCOPED_TRACE(pre);
  const auto hosts = read_hosts(hosts_path(pre));
  EXPECT_EQ(static_cast<int>(hosts.size()), P);
  const bool zero_diag = diagonal_is_zero(mode);
  std::map<Statistic, std::unique_ptr<RawReader>> files;
  for (Statistic st : standard_statistics()) {
    auto f = std::make_unique<RawReader>(result_path(pre, st));
    EXPECT_EQ(f->ranks(), P);
    EXPECT_EQ(f->params().mode, mode);
    EXPECT_EQ(f->params().statistic, st);
    EXPECT_EQ(f->params().num_repeats, repeats);
    EXPECT_EQ(f->lengths(), lengths);
    EXPECT_EQ(f->meta().format_version, kFormatVersion);
    EXPECT_FALSE(f->meta().sync_method.empty());
    EXPECT_FALSE(f->meta().mpi_version.empty());
    EXPECT_EQ(f->meta().timer, "clock_gettime(CLOCK_MONOTONIC)");
    EXPECT_GT(f->meta().timer_resolution, 0.0);
    EXPECT_NE(f->meta().command_line.find("network_test"), std::string::npos);
    EXPECT_EQ(static_cast<int>(f->meta().hosts.size()), P);
    EXPECT_EQ(static_cast<int>(f->meta().cpus.size()), P);
    for (std::size_t k = 0; k < f->count(); ++k) {
      const Matrix m = f->matrix(k);
      for (int x = 0; x < P; ++x)
        for (int y = 0; y < P; ++y) {
          const double v = m.at(x, y);
          ASSERT_TRUE(std::isfinite(v)) << x << "," << y << " length " << lengths[k];
          if (x == y && zero_diag) {
            EXPECT_EQ(v, 0.0) << "diagonal of a pairwise mode";
          } else if (st == Statistic::deviation) {
            EXPECT_GE(v, 0.0);
          } else {
            EXPECT_GT(v, 0.0) << statistic_name(st) << " " << x << "->" << y << " length " << lengths[k];
            EXPECT_LT(v, 5.0);
          }
        }
    }
    files[st] = std::move(f);
  }
  // min <= median <= max and min <= average <= max cell by cell.
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    const Matrix mn = files[Statistic::min]->matrix(k), mx = files[Statistic::max]->matrix(k),
                 md = files[Statistic::median]->matrix(k), av = files[Statistic::average]->matrix(k);
    for (int x = 0; x < P; ++x)
      for (int y = 0; y < P; ++y) {
        EXPECT_LE(mn.at(x, y), md.at(x, y));
        EXPECT_LE(md.at(x, y), mx.at(x, y));
        EXPECT_LE(mn.at(x, y), av.at(x, y) * (1 + 1e-12));
        EXPECT_LE(av.at(x, y), mx.at(x, y) * (1 + 1e-12));
      }
  }
}

inline const std::vector<std::int64_t> kLengths{0, 1024};
inline const std::string kSweep = "--lengths 0,1024 -n 5 --warmup 2 --seed 7 -q --timeout 60";

