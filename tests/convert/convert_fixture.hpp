// The fixture of the unit tests of nt_convert (test_convert.cpp, test_convert_commands.cpp): a
// per-test temporary directory, a hand-made dataset of awkward values, bitwise comparison.
#pragma once

#include <gtest/gtest.h>

#include <netcdf.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>

#include "legacy_fixture.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"
#include "nt/stats.hpp"
#include "nt/synth.hpp"
#include "nt/text_format.hpp"
#include "nt/units.hpp"
#include "nt/convert/convert.hpp"

namespace fs = std::filesystem;

namespace nt::convert::test {

class ConvertTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           (std::string("nt_convert_") + info->name() + "_" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    if (!HasFailure()) fs::remove_all(dir_);
  }
  fs::path p(const std::string& name) const { return dir_ / name; }

  // A hand-made dataset whose values have all 53 bits in use, plus specials.
  static std::unique_ptr<MemoryDataset> awkward(int ranks = 3) {
    FileInfo info;
    info.params.proc_num = ranks;
    info.params.mode = Mode::all_to_all;
    info.params.statistic = Statistic::median;
    info.params.begin_length = 0;
    info.params.end_length = 200;
    info.params.step_length = 100;
    info.params.num_repeats = 5;
    for (int r = 0; r < ranks; ++r) info.meta.hosts.push_back("host" + std::to_string(r / 2));
    auto d = std::make_unique<MemoryDataset>(info, "memory", "awkward");
    std::uint64_t bits = 0x3EB0C6F7A0B5ED8DULL;  // ~1e-6
    for (int k = 0; k < 3; ++k) {
      Matrix m(ranks);
      for (double& v : m.values()) {
        bits = bits * 6364136223846793005ULL + 1442695040888963407ULL;
        // Exponent kept in [1e-9, 1e-3], mantissa random.
        const std::uint64_t mant = bits >> 12;
        const std::uint64_t exp = 0x3E1ULL + ((bits >> 3) % 20);
        v = std::bit_cast<double>((exp << 52) | mant);
      }
      m.at(0, 0) = std::numeric_limits<double>::denorm_min();
      m.at(1, 1) = 0.1 + 0.2;
      d->append(100 * k, std::move(m));
    }
    return d;
  }

  static void expect_bitwise_equal(const Dataset& a, const Dataset& b) {
    ASSERT_EQ(a.ranks(), b.ranks());
    ASSERT_EQ(a.lengths(), b.lengths());
    for (std::size_t k = 0; k < a.count(); ++k) {
      const auto ma = a.matrix(k), mb = b.matrix(k);
      for (std::size_t c = 0; c < ma.values().size(); ++c)
        ASSERT_EQ(std::bit_cast<std::uint64_t>(ma.values()[c]), std::bit_cast<std::uint64_t>(mb.values()[c]))
            << "matrix " << k << " cell " << c << ": " << ma.values()[c] << " vs " << mb.values()[c];
    }
  }

  static std::vector<std::string> lines_of(const fs::path& f) {
    std::ifstream in(f);
    std::vector<std::string> out;
    std::string line;
    while (std::getline(in, line)) out.push_back(line);
    return out;
  }

  fs::path dir_;
};

}  // namespace nt::convert::test
