// Findings within a node of a run whose ranks outnumbered their cores (network_test records
// `oversubscribed: MODE: N of P ranks`): the pairs within a node exchange through its memory, not
// the network, and when ranks share cores a pair's delay there is the CPU scheduler's (a rank
// waiting for its turn on a core adds up to a time slice to one direction). A slow link or one-way
// pair whose every pair lies within one node is then no network fault: moved to a note that says so.
#include <algorithm>

#include <fmt/format.h>

#include "nt/analysis/anomalies.hpp"

#include "anomalies_parts.hpp"

namespace nt::analysis {

std::optional<std::string> drop_findings_on_shared_cores(const Metadata& meta, const Topology& t,
                                                         std::vector<Anomaly>& found) {
  const int shared = oversubscribed_ranks(meta);
  if (shared == 0 || t.levels.empty()) return std::nullopt;
  const auto& node_of = t.levels.front().group_of;
  auto within_a_node = [&](const Anomaly& a) {
    if (a.kind != AnomalyKind::slow_link && a.kind != AnomalyKind::asymmetric_pair) return false;
    return !a.pairs.empty() && std::all_of(a.pairs.begin(), a.pairs.end(), [&](const auto& p) {
      return node_of.at(static_cast<std::size_t>(p.first)) == node_of.at(static_cast<std::size_t>(p.second));
    });
  };
  const auto moved = anomaly_parts::take_out(found, within_a_node, [](const Anomaly& a) {
    return fmt::format("{} {}->{}", name_of(a.kind), a.pairs.front().first, a.pairs.front().second);
  });
  if (moved.empty()) return std::nullopt;
  return fmt::format(
      "{} finding(s) within a node left out ({}): {} ranks of this run shared their cores with more ranks than "
      "there were cores (the file's oversubscribed attribute), so delays within a node are the CPU scheduler's, "
      "not the network's; measure with a rank per core to see them",
      moved.size(), fmt::join(moved, ", "), shared);
}

}  // namespace nt::analysis
