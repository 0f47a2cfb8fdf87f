// The hosts file: one hostname per line, in rank order.
#pragma once

#include <filesystem>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace nt {

std::vector<std::string> read_hosts(const std::filesystem::path& path);
void write_hosts(const std::filesystem::path& path, const std::vector<std::string>& hosts, bool overwrite);
// One name a line, into any stream (e.g. an output under construction).
void write_hosts(std::ostream& out, const std::vector<std::string>& hosts);
// "<prefix>_hosts.txt" (ResultSet(prefix).hosts(); siblings of a file: ResultSet::of(file)).
std::filesystem::path hosts_path(const std::filesystem::path& prefix);

// The one rule for pairing the ranks of two runs (network_analyze compare, the viewer's compare
// and pair-plot overlays). By host name when both runs name the host of every rank (`a` holds
// ranks_a names, `b` ranks_b): the k-th rank (in rank order) of host h in one run is paired with
// the k-th rank of h in the other; a host only one run has, or a rank beyond the other run's
// count on its host, has no partner. By rank number only when a run names no hosts and the rank
// counts are equal (callers say so: the placement may differ): every rank is then named as in the
// run that names hosts, or by `stand_in` when neither does (default: each rank a host of its own).
// Not at all (By::none) when a run names no hosts and the counts differ.
struct HostMatch {
  enum class By { host, number, none };
  By by = By::none;
  std::map<std::string, std::vector<int>> ranks_a, ranks_b;  // every host of each run -> its ranks, in rank order
  std::vector<std::string> common, only_a, only_b;            // hosts of both runs / of one run only, by name
  // For every rank of run a: its partner in run b, or -1 (empty when By::none).
  std::vector<int> rank_map() const;
};
HostMatch match_hosts(const std::vector<std::string>& a, int ranks_a, const std::vector<std::string>& b, int ranks_b,
                      const std::vector<std::string>& stand_in = {});
// Numbers names from 0 in order of first appearance, equal names the same number: the host (or
// machine) of every rank, given its name in rank order.
std::vector<int> number_by_first_appearance(const std::vector<std::string>& names);


}  // namespace nt
