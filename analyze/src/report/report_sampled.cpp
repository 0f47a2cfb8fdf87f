// The cells a sampled file leaves missing by design (network_test --sample-pairs): between hosts
// whose pair was not sampled. The draw is the file's (`schedule`: K, landmarks, neighbours, seed),
// the hosts numbered in order of first appearance over the ranks, as network_test numbers them;
// the cells are counted from the hosts' rank counts, O(hosts + sampled pairs).
#include <map>
#include <set>

#include "nt/analysis/report.hpp"
#include "nt/params.hpp"
#include "nt/schedule.hpp"

namespace nt::analysis {

std::optional<NotSampled> not_sampled_cells(const Cube& c) {
  if (!c.file || !sampled_pairs(c.file->meta())) return std::nullopt;
  const auto schedule = schedule_of(c.file->meta());
  if (!schedule || c.hosts.size() != static_cast<std::size_t>(c.P)) return std::nullopt;
  std::map<std::string, int> number;
  std::vector<std::uint64_t> ranks;  // per host
  for (const auto& h : c.hosts) {
    const auto [it, added] = number.emplace(h, static_cast<int>(number.size()));
    if (added) ranks.push_back(0);
    ++ranks[static_cast<std::size_t>(it->second)];
  }
  const auto H = static_cast<int>(ranks.size());
  NotSampled n;
  n.host_pairs = static_cast<std::size_t>(H) * static_cast<std::size_t>(H - 1) / 2;
  std::uint64_t all = 0, total = 0;  // ordered rank pairs across hosts: all, and of sampled host pairs
  for (const auto r : ranks) total += r;
  for (const auto r : ranks) all += r * (total - r);
  std::uint64_t measured = 0;
  for (const auto& [a, b] : sampled_host_pairs(H, schedule->sample)) {
    measured += 2 * ranks[static_cast<std::size_t>(a)] * ranks[static_cast<std::size_t>(b)];
    ++n.measured_host_pairs;
  }
  n.cells = (all - measured) * static_cast<std::uint64_t>(c.count());
  return n;
}

}  // namespace nt::analysis
