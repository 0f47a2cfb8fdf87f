// Helpers shared by the analyze unit tests: partitions to compare groups regardless of order, and
// the scan for negative fit values in the text and JSON a user sees.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <filesystem>

#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/compare.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/report.hpp"
#include "nt/dataset.hpp"
#include "nt/raw_file.hpp"

namespace nt::test {

// Partition as a set of sorted groups, from a label per element or from groups.
// A kind enum's name table (name, kind): every name is the one name_of prints, parses back
// with parse, and is listed once; returns the names.
template <class Names, class Parse>
std::set<std::string> expect_names_round_trip(const Names& names, Parse parse) {
  std::set<std::string> seen;
  for (const auto& [name, kind] : names) {
    EXPECT_EQ(nt::analysis::name_of(kind), name);
    EXPECT_EQ(parse(name), kind);
    EXPECT_TRUE(seen.insert(name).second) << name;
  }
  return seen;
}

inline std::set<std::vector<int>> partition(const std::vector<int>& label) {
  std::map<int, std::vector<int>> m;
  for (std::size_t i = 0; i < label.size(); ++i) m[label[i]].push_back(static_cast<int>(i));
  std::set<std::vector<int>> s;
  for (auto& [k, v] : m) s.insert(v);
  return s;
}
inline std::set<std::vector<int>> partition(const std::vector<std::vector<int>>& g) { return {g.begin(), g.end()}; }

// The elements whose label is x, ascending.
inline std::vector<int> ranks_with(const std::vector<int>& label, int x) {
  std::vector<int> v;
  for (std::size_t i = 0; i < label.size(); ++i)
    if (label[i] == x) v.push_back(static_cast<int>(i));
  return v;
}

// Every number under j must be >= 0 (or null); `where` names the path in the failure.
inline void expect_no_negative(const nlohmann::json& j, const std::string& where) {
  if (j.is_number()) {
    EXPECT_GE(j.get<double>(), 0.0) << where;
  } else if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) expect_no_negative(it.value(), where + "." + it.key());
  } else if (j.is_array()) {
    for (std::size_t q = 0; q < j.size(); ++q) expect_no_negative(j[q], where + "[" + std::to_string(q) + "]");
  }
}

// No negative number printed in a text output (a '-' right before a digit after a space or bracket).
inline void expect_no_negative_text(const std::string& text) {
  EXPECT_FALSE(std::regex_search(text, std::regex("[ (\\[]-[0-9]"))) << "a negative number in the text:\n" << text;
}

// Writes an in-memory cube as a raw NetCDF file (its float delays exactly; NaN stays NaN).
// extra: text attributes of the file (Metadata::extra), as network_test writes them; hosts: each
// rank's host name (none: the file names no hosts).
inline void write_cube(const nt::analysis::Cube& c, const std::filesystem::path& path,
                       const std::map<std::string, std::string>& extra = {},
                       std::vector<std::string> hosts = {}) {
  nt::FileInfo info;
  info.meta.extra = extra;
  info.meta.hosts = std::move(hosts);
  info.params.proc_num = c.P;
  info.params.mode = c.mode;
  info.params.statistic = c.statistic;
  info.params.num_repeats = 1;
  info.meta.sweep = "list";
  nt::MemoryDataset d(info);
  const auto N = static_cast<std::size_t>(c.P);
  for (std::size_t k = 0; k < c.count(); ++k) {
    std::vector<double> m(N * N);
    for (std::size_t x = 0; x < N * N; ++x) m[x] = static_cast<double>(c.v[k * N * N + x]);
    d.append(c.lengths[k], nt::Matrix(c.P, std::move(m)));
  }
  nt::write_raw(path, d, /*overwrite=*/true);
}

// The report of a file loaded whole (load_delays, the cube in memory) and of the same
// file read one length (or one block of rows) at a time (open_delays), with the default blocks and
// with blocks of 4096 bytes (every pass cut into blocks of a row or a few, the medians over the
// pairs in several passes), must be the same JSON.
inline void expect_streamed_report_equal(const nt::analysis::Cube& c, const std::filesystem::path& file,
                                         nt::analysis::ReportOptions o, const std::string& what) {
  o.find_deviation_beside = false;
  o.pairs_in_json = true;
  write_cube(c, file);
  const auto j = nt::analysis::to_json(nt::analysis::make_report(nt::analysis::load_delays(file.string()), o), true);
  for (const char* block : {"", "4096"}) {
    if (*block) ::setenv("NT_ANALYZE_BLOCK_BYTES", block, 1);
    auto s = nt::analysis::to_json(nt::analysis::make_report(nt::analysis::open_delays(file.string()), o), true);
    ::unsetenv("NT_ANALYZE_BLOCK_BYTES");
    // a JSON patch from one to the other: empty when they are equal, else where they differ
    const std::string diff = nlohmann::json::diff(j, s).dump();
    EXPECT_TRUE(j == s) << what << (*block ? ", blocks of 4096 bytes" : ", default blocks") << ": "
                        << diff.substr(0, 1500);
  }
}

}  // namespace nt::test
