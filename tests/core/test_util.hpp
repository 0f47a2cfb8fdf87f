// Helpers shared by the core tests: a scratch directory per test and small datasets.
#pragma once

#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "nt/dataset.hpp"

namespace nt::test {

// The whole content of a file ("" when it cannot be read).
inline std::string file_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline std::filesystem::path scratch_root() {
  return std::filesystem::temp_directory_path() / ("nt_core_tests." + std::to_string(::getpid()));
}

// Removes this process's scratch directories when its tests end.
class ScratchCleanup : public ::testing::Environment {
 public:
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(scratch_root(), ec);
  }
};
inline const auto* const kScratchCleanup = ::testing::AddGlobalTestEnvironment(new ScratchCleanup);

inline std::filesystem::path scratch_dir() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  // Per process: two runs of the suite at once (CI beside a developer, two worktrees) must not
  // remove each other's files.
  auto dir = scratch_root() / (std::string(info->test_suite_name()) + "." + info->name());
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A P-rank dataset whose cell (i, j) at length index k is a distinct, awkward double.
inline std::unique_ptr<MemoryDataset> make_dataset(int P, std::vector<std::int64_t> lengths,
                                                    Mode mode = Mode::one_to_one) {
  FileInfo info;
  info.params.proc_num = P;
  info.params.mode = mode;
  info.params.statistic = Statistic::median;
  info.params.begin_length = static_cast<int>(lengths.front());
  info.params.end_length = static_cast<int>(lengths.back());
  info.params.step_length = lengths.size() > 1 ? static_cast<int>(lengths[1] - lengths[0]) : 0;
  info.params.num_repeats = 7;
  for (int r = 0; r < P; ++r) info.meta.hosts.push_back("host" + std::to_string(r / 2));
  auto d = std::make_unique<MemoryDataset>(info);
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    Matrix m(P);
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j)
        m.at(i, j) = i == j ? 0.0 : (1.0 + i * 0.1 + j * 0.01 + static_cast<double>(k)) * 1e-6 / 3.0;
    d->append(lengths[k], std::move(m));
  }
  return d;
}

}  // namespace nt::test
