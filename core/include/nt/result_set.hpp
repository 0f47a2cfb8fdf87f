// The files of one run, named from its prefix: the one place that knows the siblings.
//
//   <prefix>_average.nc _median.nc _min.nc _max.nc _deviation.nc   the five statistics
//   <prefix>_all.nc                                                 every sample (--raw)
//   <prefix>_hosts.txt                                              one host per line, rank order
//   <prefix>_loggp.nc                                               the loggp mode's parameters
//
// network_test, convert, cluster and synth name their outputs with it; the viewer (deviation map)
// and the analysis (deviation, hosts) find a file's siblings with ResultSet::of(file).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

#include "nt/types.hpp"

namespace nt {

class ResultSet {
 public:
  explicit ResultSet(std::filesystem::path prefix) : prefix_(std::move(prefix)) {}
  // The set a file belongs to: ".../run_median.nc" -> ".../run" (any statistic, _all, _hosts or
  // _loggp suffix with any extension); a file without such a suffix: its name without extension.
  static ResultSet of(const std::filesystem::path& file);

  const std::filesystem::path& prefix() const noexcept { return prefix_; }
  std::filesystem::path statistic(Statistic s) const;  // "<prefix>_<statistic>.nc"
  std::filesystem::path hosts() const;                 // "<prefix>_hosts.txt"
  std::filesystem::path loggp() const;                 // "<prefix>_loggp.nc"
  // The five statistic files in standard_statistics() order, then the hosts file.
  std::vector<std::filesystem::path> standard_files() const;

  // `path` when it is an existing regular file that is not `self` (compared as files, so that
  // "./a_median.nc" and "a_median.nc" are the same), else nullopt.
  static std::optional<std::filesystem::path> existing(const std::filesystem::path& path,
                                                       const std::filesystem::path& self = {});
  std::optional<std::filesystem::path> find_statistic(Statistic s, const std::filesystem::path& self = {}) const {
    return existing(statistic(s), self);
  }
  std::optional<std::filesystem::path> find_hosts() const { return existing(hosts()); }
  std::optional<std::filesystem::path> find_loggp() const { return existing(loggp()); }

 private:
  std::filesystem::path prefix_;
};

}  // namespace nt
