// Helpers shared by the analyze unit tests: partitions to compare groups regardless of order, and
// the scan for negative fit values in the text and JSON a user sees (issue 13).
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace nt::test {

// Partition as a set of sorted groups, from a label per element or from groups.
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

}  // namespace nt::test
