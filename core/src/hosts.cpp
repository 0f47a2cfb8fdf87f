#include "nt/hosts.hpp"

#include <fstream>
#include <map>

#include "nt/error.hpp"
#include "nt/output.hpp"
#include "nt/result_set.hpp"

namespace fs = std::filesystem;

namespace nt {

std::vector<std::string> read_hosts(const fs::path& path) {
  std::ifstream in(path);
  if (!in) throw FileError(path, "cannot open hosts file");
  std::vector<std::string> hosts;
  std::string line;
  while (std::getline(in, line)) {
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    if (line.empty()) continue;
    hosts.push_back(line);
  }
  return hosts;
}

void write_hosts(std::ostream& out, const std::vector<std::string>& hosts) {
  for (const auto& h : hosts) out << h << '\n';
}

void write_hosts(const fs::path& path, const std::vector<std::string>& hosts, bool overwrite) {
  write_file_atomically(path, overwrite, [&](std::ostream& out) { write_hosts(out, hosts); });
}

fs::path hosts_path(const fs::path& prefix) { return ResultSet(prefix).hosts(); }

std::vector<int> match_ranks_by_host(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  if (a.empty() || b.empty()) return {};
  std::map<std::string, std::vector<int>> in_b;
  for (std::size_t r = 0; r < b.size(); ++r) in_b[b[r]].push_back(static_cast<int>(r));
  std::map<std::string, std::size_t> seen;
  std::vector<int> out(a.size(), -1);
  for (std::size_t r = 0; r < a.size(); ++r) {
    const std::size_t m = seen[a[r]]++;
    const auto it = in_b.find(a[r]);
    if (it != in_b.end() && m < it->second.size()) out[r] = it->second[m];
  }
  return out;
}

std::vector<int> number_by_first_appearance(const std::vector<std::string>& names) {
  std::map<std::string, int> ids;
  std::vector<int> out;
  out.reserve(names.size());
  for (const auto& n : names) out.push_back(ids.try_emplace(n, static_cast<int>(ids.size())).first->second);
  return out;
}

}  // namespace nt
