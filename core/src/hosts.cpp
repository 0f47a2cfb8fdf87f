#include "nt/hosts.hpp"

#include <fstream>
#include <map>
#include <regex>

#include "nt/error.hpp"
#include "nt/output.hpp"

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

fs::path hosts_path(const fs::path& prefix) { return fs::path(prefix.string() + "_hosts.txt"); }

fs::path prefix_of(const fs::path& data_file) {
  static const std::regex suffix(R"(_(average|median|min|max|deviation|all|loggp|hosts)(\.[A-Za-z0-9]+)?$)");
  const std::string s = data_file.string();
  std::smatch m;
  if (std::regex_search(s, m, suffix)) return fs::path(s.substr(0, static_cast<std::size_t>(m.position(0))));
  // No statistic suffix: strip the extension.
  fs::path p = data_file;
  return p.replace_extension();
}

std::optional<fs::path> find_hosts_beside(const fs::path& data_file) {
  const fs::path h = hosts_path(prefix_of(data_file));
  std::error_code ec;
  if (fs::is_regular_file(h, ec)) return h;
  return std::nullopt;
}

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

}  // namespace nt
