#include "text_util.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace nt::analysis::text {

namespace {

// A name split into its prefix and its trailing number (digits as written, to keep leading zeros).
struct Split {
  std::string prefix, digits;
};

Split split_name(const std::string& name) {
  std::size_t d = name.size();
  while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9') --d;
  if (d == name.size() || name.size() - d > 18) return {name, ""};
  return {name.substr(0, d), name.substr(d)};
}

// The runs of consecutive values of an ascending list, as [first, last] indices.
template <class T, class Value>
std::vector<std::pair<std::size_t, std::size_t>> runs(const std::vector<T>& v, Value value) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t a = 0; a < v.size();) {
    std::size_t b = a;
    while (b + 1 < v.size() && value(v[b + 1]) == value(v[b]) + 1) ++b;
    out.emplace_back(a, b);
    a = b + 1;
  }
  return out;
}

// "01-04,07" from numbers written with the same width.
std::string ranges_text(std::vector<std::pair<std::uint64_t, std::string>> nums) {
  std::sort(nums.begin(), nums.end());
  std::string out;
  for (auto [a, b] : runs(nums, [](const auto& n) { return n.first; })) {
    if (!out.empty()) out += ",";
    out += b > a ? nums[a].second + "-" + nums[b].second : nums[a].second;
  }
  return out;
}

}  // namespace

std::string rank_runs_text(const std::vector<int>& r) {
  const auto rs = runs(r, [](int x) { return static_cast<std::int64_t>(x); });
  std::string out;
  for (std::size_t n = 0; n < rs.size(); ++n) {
    if (n == 8) return out + fmt::format(",... ({} ranks)", r.size());
    const auto [a, b] = rs[n];
    if (!out.empty()) out += ",";
    out += b > a ? fmt::format("{}-{}", r[a], r[b]) : fmt::format("{}", r[a]);
  }
  return out;
}

std::string hosts_text(const std::vector<std::string>& hosts, std::size_t max) {
  // Per (prefix, width of the number; 0 when it has none), its numbers, in order of first sight.
  std::vector<std::pair<std::string, std::size_t>> order;
  std::map<std::pair<std::string, std::size_t>, std::vector<std::pair<std::uint64_t, std::string>>> groups;
  for (const auto& h : hosts) {
    const auto [prefix, digits] = split_name(h);
    const bool padded = digits.size() > 1 && digits.front() == '0';
    const std::pair<std::string, std::size_t> key{prefix, digits.empty() ? 0 : (padded ? digits.size() : 1)};
    auto& g = groups[key];
    if (g.empty()) order.push_back(key);
    if (!digits.empty()) g.emplace_back(std::stoull(digits), digits);
    else g.emplace_back(0, "");
  }
  std::vector<std::string> items;
  for (const auto& key : order) {
    auto& g = groups[key];
    g.erase(std::unique(g.begin(), g.end()), g.end());
    if (key.second == 0) items.push_back(key.first);
    else if (g.size() == 1) items.push_back(key.first + g.front().second);
    else items.push_back(key.first + "[" + ranges_text(g) + "]");
  }
  if (items.size() <= max) return fmt::format("{}", fmt::join(items, ","));
  items.resize(max);
  return fmt::format("{},... ({} hosts)", fmt::join(items, ","), hosts.size());
}

}  // namespace nt::analysis::text
