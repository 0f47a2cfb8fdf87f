#include "nt/hosts.hpp"

#include <fstream>

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

}  // namespace nt
