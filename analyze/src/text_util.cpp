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

// "01-04,07" from numbers written with the same width.
std::string ranges_text(std::vector<std::pair<std::uint64_t, std::string>> nums) {
  std::sort(nums.begin(), nums.end());
  std::string out;
  for (std::size_t a = 0; a < nums.size();) {
    std::size_t b = a;
    while (b + 1 < nums.size() && nums[b + 1].first == nums[b].first + 1) ++b;
    if (!out.empty()) out += ",";
    out += b > a ? nums[a].second + "-" + nums[b].second : nums[a].second;
    a = b + 1;
  }
  return out;
}

}  // namespace

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
