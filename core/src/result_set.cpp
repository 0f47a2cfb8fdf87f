#include "nt/result_set.hpp"

#include <string>
#include <string_view>

namespace nt {

namespace fs = std::filesystem;

namespace {
// The suffixes a member of a set carries before its extension.
bool is_member_suffix(std::string_view s) {
  if (s == "hosts" || s == "loggp") return true;
  return statistic_from_name(s).has_value();
}
}  // namespace

ResultSet ResultSet::of(const fs::path& file) {
  const std::string name = file.filename().string();
  const auto us = name.rfind('_');
  if (us != std::string::npos && us > 0) {
    std::string_view rest(name);
    rest.remove_prefix(us + 1);
    const auto dot = rest.find('.');
    const std::string_view suffix = rest.substr(0, dot);
    const bool plain_ext = dot == std::string_view::npos ||
                           (dot + 1 < rest.size() && rest.find('.', dot + 1) == std::string_view::npos &&
                            rest.substr(dot + 1).find_first_not_of(
                                "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == std::string_view::npos);
    if (plain_ext && is_member_suffix(suffix)) return ResultSet(file.parent_path() / name.substr(0, us));
  }
  fs::path p = file;
  return ResultSet(p.replace_extension());
}

fs::path ResultSet::statistic(Statistic s) const {
  return fs::path(prefix_.string() + "_" + std::string(statistic_name(s)) + ".nc");
}
fs::path ResultSet::hosts() const { return fs::path(prefix_.string() + "_hosts.txt"); }
fs::path ResultSet::loggp() const { return fs::path(prefix_.string() + "_loggp.nc"); }

std::vector<fs::path> ResultSet::standard_files() const {
  std::vector<fs::path> v;
  for (auto s : standard_statistics()) v.push_back(statistic(s));
  v.push_back(hosts());
  return v;
}

std::optional<fs::path> ResultSet::existing(const fs::path& path, const fs::path& self) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  if (!self.empty() && fs::equivalent(path, self, ec)) return std::nullopt;
  return path;
}

}  // namespace nt
