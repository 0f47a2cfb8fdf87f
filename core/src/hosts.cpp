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

namespace {
std::map<std::string, std::vector<int>> ranks_of_hosts(const std::vector<std::string>& names) {
  std::map<std::string, std::vector<int>> out;
  for (std::size_t r = 0; r < names.size(); ++r) out[names[r]].push_back(static_cast<int>(r));
  return out;
}
}  // namespace

HostMatch match_hosts(const std::vector<std::string>& a, int ranks_a, const std::vector<std::string>& b, int ranks_b,
                      const std::vector<std::string>& stand_in) {
  const bool named_a = !a.empty() && a.size() == static_cast<std::size_t>(ranks_a);
  const bool named_b = !b.empty() && b.size() == static_cast<std::size_t>(ranks_b);
  HostMatch m;
  if (!named_a || !named_b) {
    if (ranks_a != ranks_b) return m;
    m.by = HostMatch::By::number;
    std::vector<std::string> names = named_a ? a : (named_b ? b : stand_in);
    if (names.size() != static_cast<std::size_t>(ranks_a)) {
      names.clear();
      for (int r = 0; r < ranks_a; ++r) names.push_back(std::to_string(r));
    }
    m.ranks_a = m.ranks_b = ranks_of_hosts(names);
  } else {
    m.by = HostMatch::By::host;
    m.ranks_a = ranks_of_hosts(a);
    m.ranks_b = ranks_of_hosts(b);
  }
  for (const auto& [host, ranks] : m.ranks_a) (m.ranks_b.count(host) ? m.common : m.only_a).push_back(host);
  for (const auto& [host, ranks] : m.ranks_b)
    if (!m.ranks_a.count(host)) m.only_b.push_back(host);
  return m;
}

std::vector<int> HostMatch::rank_map() const {
  std::size_t P = 0;
  for (const auto& [host, ranks] : ranks_a) P += ranks.size();
  std::vector<int> out(P, -1);
  for (const auto& host : common) {
    const auto& here = ranks_a.at(host);
    const auto& there = ranks_b.at(host);
    for (std::size_t k = 0; k < here.size() && k < there.size(); ++k) out[static_cast<std::size_t>(here[k])] = there[k];
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
