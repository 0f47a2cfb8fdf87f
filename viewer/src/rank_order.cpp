// The order of the ranks on a view's axes: by rank, by host name, or by the analysed groups.
#include "nt/viewer/document.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include "nt/error.hpp"

namespace nt::viewer {

namespace {
// "node10" after "node9": digit runs compare by value.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i1 = i, j1 = j;
      while (i1 < a.size() && a[i1] == '0') ++i1;
      while (j1 < b.size() && b[j1] == '0') ++j1;
      std::size_t i2 = i1, j2 = j1;
      while (i2 < a.size() && std::isdigit(static_cast<unsigned char>(a[i2]))) ++i2;
      while (j2 < b.size() && std::isdigit(static_cast<unsigned char>(b[j2]))) ++j2;
      if (i2 - i1 != j2 - j1) return i2 - i1 < j2 - j1;
      const int c = a.compare(i1, i2 - i1, b, j1, j2 - j1);
      if (c != 0) return c < 0;
      i = i2;
      j = j2;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}
}  // namespace

std::vector<int> rank_order(Order order, int P, const std::vector<std::string>& hosts,
                            const std::vector<std::pair<std::string, std::vector<std::vector<int>>>>& hierarchy) {
  std::vector<int> o(static_cast<std::size_t>(P));
  for (int i = 0; i < P; ++i) o[static_cast<std::size_t>(i)] = i;
  if (order == Order::rank) return o;
  if (order == Order::host) {
    if (static_cast<int>(hosts.size()) != P)
      throw nt::UsageError("--order host: the file knows no host names (no hosts variable or <prefix>_hosts.txt)");
    std::stable_sort(o.begin(), o.end(), [&](int a, int b) {
      const auto& ha = hosts[static_cast<std::size_t>(a)];
      const auto& hb = hosts[static_cast<std::size_t>(b)];
      return ha != hb && natural_less(ha, hb);
    });
    return o;
  }
  if (hierarchy.empty()) throw nt::UsageError("--order groups needs the analysed groups (--groups REPORT.json)");
  // key[level][rank]: index of the group holding the rank at that level (ungrouped: last).
  // A group's index is its position in the sort of the level, i.e. in order of the smallest
  // rank it holds, so the picture does not depend on how the analysis numbered its groups.
  std::vector<std::vector<int>> key;
  for (auto it = hierarchy.rbegin(); it != hierarchy.rend(); ++it) {
    std::vector<int> k(static_cast<std::size_t>(P), std::numeric_limits<int>::max());
    const auto& groups = it->second;
    std::vector<std::size_t> gi(groups.size());
    for (std::size_t g = 0; g < gi.size(); ++g) gi[g] = g;
    auto low = [&](std::size_t g) { return groups[g].empty() ? P : *std::min_element(groups[g].begin(), groups[g].end()); };
    std::stable_sort(gi.begin(), gi.end(), [&](std::size_t a, std::size_t b) { return low(a) < low(b); });
    for (std::size_t rank_of_g = 0; rank_of_g < gi.size(); ++rank_of_g)
      for (int r : groups[gi[rank_of_g]]) k[static_cast<std::size_t>(r)] = static_cast<int>(rank_of_g);
    key.push_back(std::move(k));
  }
  std::stable_sort(o.begin(), o.end(), [&](int a, int b) {
    for (const auto& k : key)
      if (k[static_cast<std::size_t>(a)] != k[static_cast<std::size_t>(b)])
        return k[static_cast<std::size_t>(a)] < k[static_cast<std::size_t>(b)];
    return a < b;
  });
  return o;
}

const std::vector<int>& Document::order_for(Order o) {
  if (order_cache_.size() != static_cast<std::size_t>(ranks()) || order_cached_ != o) {
    order_cache_ = rank_order(o, ranks(), data_->info().meta.hosts, hierarchy_);
    order_cached_ = o;
  }
  return order_cache_;
}

}  // namespace nt::viewer
