#include "nt/hosts.hpp"

#include <fstream>
#include <regex>

#include "nt/error.hpp"

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

void check_writable(const fs::path& path, bool overwrite) {
  std::error_code ec;
  if (!overwrite && fs::exists(path, ec))
    throw FileError(path, "exists already; use --force to overwrite it");
  const fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) throw FileError(path, "directory " + dir.string() + " does not exist");
}

void write_hosts(const fs::path& path, const std::vector<std::string>& hosts, bool overwrite) {
  check_writable(path, overwrite);
  std::ofstream out(path, std::ios::trunc);
  if (!out) throw FileError(path, "cannot write hosts file");
  for (const auto& h : hosts) out << h << '\n';
  out.flush();
  if (!out) throw FileError(path, "write failed");
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

}  // namespace nt
