// --switch-map FILE: the switch of every host, for the lanes of --concurrent (lanes.cpp): each pair
// of switches is one lane, so one pair at a time crosses each switch's uplinks and no two pairs of
// a round share a link of a two-level tree. Read on rank 0 (the host names are there), every rank's
// switch broadcast; a bad file is one line and exit 2 on every rank.
#include <cctype>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "setup.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"

namespace nt::measure {

namespace {

// A host name without its domain ("node1.cluster.org" -> "node1"): MPI may give either form.
std::string short_name(const std::string& host) { return host.substr(0, host.find('.')); }

// A line of the file as an error message quotes it: at most 60 characters, any that does not print
// as '?' (a binary file given by mistake stays one readable line).
std::string printable(const std::string& line) {
  std::string out = line.substr(0, 60);
  for (char& ch : out)
    if (!std::isprint(static_cast<unsigned char>(ch))) ch = '?';
  return out + (line.size() > 60 ? "..." : "");
}

// The switch of every host the file names: lines "HOST SWITCH", '#' starts a comment.
std::map<std::string, std::string> read_switch_map(const std::string& path) {
  std::error_code ec;
  const bool file = std::filesystem::is_regular_file(path, ec);
  std::ifstream in(path);
  if (!file || !in)
    throw UsageError(fmt::format("--switch-map {}: cannot be read ({})", path,
                                 std::filesystem::exists(path, ec) ? (file ? "no permission" : "not a regular file")
                                                                   : "no such file"));
  std::map<std::string, std::string> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line.erase(std::min(line.size(), line.find('#')));
    std::istringstream words(line);
    std::string host, sw, extra;
    if (!(words >> host)) continue;
    if (!(words >> sw) || (words >> extra))
      throw UsageError(fmt::format("--switch-map {} line {}: expected HOST SWITCH, got '{}'", path, n, printable(line)));
    const auto [it, inserted] = out.emplace(host, sw);
    if (!inserted && it->second != sw)
      throw UsageError(fmt::format("--switch-map {} line {}: host {} is under switch {} and {}", path, n, host,
                                   it->second, sw));
  }
  if (out.empty()) throw UsageError(fmt::format("--switch-map {}: no line HOST SWITCH", path));
  return out;
}

// Every rank's switch, numbered from 0 in order of first appearance (hosts: every rank's name).
std::vector<int> switches_of(const std::string& path, const std::vector<std::string>& hosts) {
  const auto map = read_switch_map(path);
  std::map<std::string, std::string> by_short;
  for (const auto& [host, sw] : map) by_short.emplace(short_name(host), sw);
  std::vector<std::string> names;
  for (std::size_t r = 0; r < hosts.size(); ++r) {
    const std::string* sw = nullptr;
    if (const auto it = map.find(hosts[r]); it != map.end()) sw = &it->second;
    else if (const auto by = by_short.find(short_name(hosts[r])); by != by_short.end()) sw = &by->second;
    if (sw == nullptr)
      throw UsageError(fmt::format("--switch-map {}: host {} (rank {}) is not in the file", path, hosts[r], r));
    names.push_back(*sw);
  }
  return number_by_first_appearance(names);
}

}  // namespace

std::optional<std::vector<int>> gather_switches(MPI_Comm comm, int rank, const Settings& s, const Placement& pl,
                                                int P) {
  std::vector<int> ids(static_cast<std::size_t>(P) + 1, 0);  // the switches, then 1 on an error
  if (rank == 0) {
    std::vector<std::string> hosts;
    for (const auto& r : pl.ranks) hosts.push_back(r.host);
    try {
      const auto each = switches_of(s.schedule.switch_map, hosts);
      std::copy(each.begin(), each.end(), ids.begin());
    } catch (const Error& e) {
      std::cerr << "network_test: error: " << e.what() << '\n';
      ids.back() = 1;
    }
  }
  MPI_Bcast(ids.data(), P + 1, MPI_INT, 0, comm);
  if (ids.back() != 0) return std::nullopt;
  ids.pop_back();
  return ids;
}

}  // namespace nt::measure
