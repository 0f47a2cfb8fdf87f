// The analysed groups file (network_analyze report --json): its "groups" and "hierarchy" lists.
#include "nt/viewer/document.hpp"

#include <fstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nt/error.hpp"

namespace nt::viewer {

namespace {
// The groups of list `arr` (named `where` in messages): ranks in 0..ranks-1, each at most once.
std::vector<std::vector<int>> parse_groups(const nlohmann::json& arr, const std::filesystem::path& path, int ranks,
                                           const char* where) {
  if (!arr.is_array()) throw nt::FileError(path, fmt::format("\"{}\" must be a list of lists of ranks", where));
  std::vector<std::vector<int>> groups;
  std::vector<char> seen(static_cast<std::size_t>(ranks), 0);
  for (const auto& g : arr) {
    if (!g.is_array()) throw nt::FileError(path, fmt::format("every entry of \"{}\" must be a list of ranks", where));
    std::vector<int> of;
    for (const auto& r : g) {
      if (!r.is_number_integer()) throw nt::FileError(path, fmt::format("ranks in \"{}\" must be integers", where));
      const long long v = r.get<long long>();
      if (v < 0 || v >= ranks)
        throw nt::FileError(path, fmt::format("rank {} in \"{}\" is outside 0..{}", v, where, ranks - 1));
      if (seen[static_cast<std::size_t>(v)]++)
        throw nt::FileError(path, fmt::format("rank {} appears twice in \"{}\"", v, where));
      of.push_back(static_cast<int>(v));
    }
    groups.push_back(std::move(of));
  }
  return groups;
}
nlohmann::json load_json(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw nt::FileError(path, "cannot open the groups file");
  try {
    nlohmann::json j;
    in >> j;
    return j;
  } catch (const nlohmann::json::exception& e) {
    throw nt::FileError(path, std::string("not valid JSON: ") + e.what());
  }
}
}  // namespace

std::vector<std::vector<int>> read_groups(const std::filesystem::path& path, int ranks) {
  const nlohmann::json j = load_json(path);
  if (!j.is_object() || !j.contains("groups") || !j["groups"].is_array())
    throw nt::FileError(path, "expected a JSON object with a \"groups\" list of lists of ranks");
  return parse_groups(j["groups"], path, ranks, "groups");
}

std::vector<std::pair<std::string, std::vector<std::vector<int>>>> read_hierarchy(const std::filesystem::path& path,
                                                                                 int ranks) {
  const nlohmann::json j = load_json(path);
  if (!j.is_object()) throw nt::FileError(path, "expected a JSON object with \"groups\" or \"hierarchy\"");
  std::vector<std::pair<std::string, std::vector<std::vector<int>>>> levels;
  if (j.contains("hierarchy")) {
    if (!j["hierarchy"].is_array()) throw nt::FileError(path, "\"hierarchy\" must be a list of levels");
    for (const auto& l : j["hierarchy"]) {
      if (!l.is_object() || !l.contains("groups"))
        throw nt::FileError(path, "every level of \"hierarchy\" needs \"groups\"");
      const std::string name = l.contains("level") && l["level"].is_string() ? l["level"].get<std::string>()
                                                                             : fmt::format("level {}", levels.size());
      levels.emplace_back(name, parse_groups(l["groups"], path, ranks, "hierarchy"));
    }
  }
  if (levels.empty()) {
    if (!j.contains("groups"))
      throw nt::FileError(path, "expected a JSON object with a \"groups\" list of lists of ranks");
    levels.emplace_back("group", parse_groups(j["groups"], path, ranks, "groups"));
  }
  return levels;
}

}  // namespace nt::viewer
