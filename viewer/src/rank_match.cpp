#include "rank_match.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/result_set.hpp"

namespace nt::viewer::detail {

namespace {
// Why the ranks of `a` cannot be matched by host to those of `b` (for messages).
std::string no_host_match(const nt::Dataset& a, const std::filesystem::path& pa, const nt::Dataset& b,
                          const std::filesystem::path& pb, int matched) {
  for (const auto& [d, p] : {std::pair{&a, &pa}, std::pair{&b, &pb}})
    if (d->meta().hosts.size() != static_cast<std::size_t>(d->ranks()))
      return fmt::format("{} names no host per rank (no {} beside it)", file_name(*p),
                         file_name(nt::ResultSet::of(*p).hosts()));
  return fmt::format("only {} of the {} ranks of {} run on a host of {}", matched, a.ranks(), file_name(pa), file_name(pb));
}

// The ranks of the compare, with how they were matched: nt::match_hosts, the rule of network_analyze
// compare. By host when both runs name the host of every rank (the ranks on a host the other run
// lacks show no data); by number only when a run names no hosts and the rank counts agree, with a
// note that the placement may differ. UsageError otherwise (fewer than two ranks on a common host,
// or no hosts and other counts).
std::pair<std::vector<int>, std::string> match_ranks(const nt::Dataset& a, const std::filesystem::path& pa,
                                                     const nt::Dataset& b, const std::filesystem::path& pb) {
  const int P = a.ranks(), Q = b.ranks();
  const nt::HostMatch match = nt::match_hosts(a.meta().hosts, P, b.meta().hosts, Q);
  if (match.by == nt::HostMatch::By::none)
    throw nt::UsageError(fmt::format("cannot compare {} ({} ranks) with {} ({} ranks): the rank counts differ and the "
                                     "ranks cannot be matched by host: {}",
                                     pa.string(), P, pb.string(), Q, no_host_match(a, pa, b, pb, 0)));
  const std::vector<int> map = match.rank_map();
  if (match.by == nt::HostMatch::By::number) return {map, "ranks matched by number (no host names: the placement may differ)"};
  const int matched = static_cast<int>(std::count_if(map.begin(), map.end(), [](int r) { return r >= 0; }));
  bool identity = true;
  for (int i = 0; i < P; ++i) identity = identity && map[static_cast<std::size_t>(i)] == i;
  if (matched == P)
    return {map, identity && P == Q ? "ranks matched by host (same placement)"
                                    : fmt::format("ranks matched by host ({} ranks here, {} there)", P, Q)};
  if (matched >= 2) return {map, fmt::format("ranks matched by host: {} of {} ranks (the others show no data)", matched, P)};
  throw nt::UsageError(fmt::format("cannot compare {} ({} ranks) with {} ({} ranks): the ranks cannot be matched by "
                                   "host: {}",
                                   pa.string(), P, pb.string(), Q, no_host_match(a, pa, b, pb, matched)));
}
}  // namespace

std::vector<int> host_match(const nt::Dataset& a, const nt::Dataset& b) {
  const nt::HostMatch match = nt::match_hosts(a.meta().hosts, a.ranks(), b.meta().hosts, b.ranks());
  return match.by == nt::HostMatch::By::host ? match.rank_map() : std::vector<int>{};
}

CompareMatch match_compare(const nt::Dataset& a, const std::filesystem::path& pa, const nt::Dataset& b,
                           const std::filesystem::path& pb) {
  CompareMatch m;
  std::tie(m.rank, m.how) = match_ranks(a, pa, b, pb);
  const auto& la = a.lengths();
  m.length.assign(la.size(), -1);
  std::size_t common = 0;
  for (std::size_t k = 0; k < la.size(); ++k)
    if ((m.length[k] = b.index_of_length(la[k])) >= 0) ++common;
  if (common == 0)
    throw nt::UsageError(fmt::format("cannot compare {} with {}: no message length in common ({} .. {} vs {} .. {})",
                                     pa.string(), pb.string(), la.front(), la.back(), b.lengths().front(),
                                     b.lengths().back()));
  if (common < la.size()) m.how += fmt::format("; {} of {} lengths in common", common, la.size());
  return m;
}

}  // namespace nt::viewer::detail
