// The full-duplex check: a simultaneous exchange (async_one_to_one) against one message
// (one_to_one) per class of links, and the links of a class that stand out.
#include "anomalies_parts.hpp"

#include <cmath>
#include <set>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/stats.hpp"

namespace nt::analysis {

using anomaly_parts::hosts_of;
using anomaly_parts::LinkHit;

namespace {

// Per rank pair, the median over the compared lengths of async / one_to_one (NaN where unknown),
// in blocks of senders: their rows of both files at the compared lengths.
std::vector<double> exchange_ratios(const Cube& one, const Cube& async,
                                    const std::vector<std::pair<std::size_t, std::size_t>>& ks) {
  const int P = one.P;
  const auto n_ranks = static_cast<std::size_t>(P);
  std::vector<double> ratio(n_ranks * n_ranks, kNaN), per_length;
  const int rb = rows_per_block(P, n_ranks * ks.size() * 2 * sizeof(float));
  std::vector<std::vector<float>> one_buf(ks.size()), async_buf(ks.size());
  std::vector<const float*> one_rows(ks.size()), async_rows(ks.size());
  for (int r0 = 0; r0 < P; r0 += rb) {
    const int r1 = std::min(P, r0 + rb);
    for (std::size_t q = 0; q < ks.size(); ++q) {
      one_rows[q] = one.rows(ks[q].first, r0, r1, one_buf[q]);
      async_rows[q] = async.rows(ks[q].second, r0, r1, async_buf[q]);
    }
    for (std::size_t i = static_cast<std::size_t>(r0); i < static_cast<std::size_t>(r1); ++i)
      for (std::size_t j = 0; j < n_ranks; ++j) {
        if (i == j) continue;
        per_length.clear();
        const std::size_t at = (i - static_cast<std::size_t>(r0)) * n_ranks + j;
        for (std::size_t q = 0; q < ks.size(); ++q) {
          const double single = one_rows[q][at], exchange = async_rows[q][at];
          if (Cube::usable(single) && Cube::usable(exchange)) per_length.push_back(exchange / single);
        }
        if (!per_length.empty()) ratio[i * n_ranks + j] = finite_median(per_length);
      }
  }
  return ratio;
}

// Every link of class q half duplex: one finding on all of the class's ranks.
Anomaly half_duplex_class(const Topology& t, const std::vector<std::string>& hosts, std::size_t n_ranks, int q,
                          const DuplexClass& verdict, std::size_t pairs, const std::vector<std::int64_t>& lengths) {
  Anomaly finding;
  finding.kind = AnomalyKind::half_duplex;
  std::set<int> ranks;
  for (std::size_t i = 0; i < n_ranks; ++i)
    for (std::size_t j = 0; j < n_ranks; ++j)
      if (i != j && t.pair_class(static_cast<int>(i), static_cast<int>(j)) == q) {
        ranks.insert(static_cast<int>(i));
        ranks.insert(static_cast<int>(j));
      }
  finding.ranks.assign(ranks.begin(), ranks.end());
  finding.hosts = hosts_of(finding.ranks, hosts);
  finding.lengths = lengths;
  finding.score = verdict.median_ratio;
  finding.detail = fmt::format("every {} link: a simultaneous exchange takes {:.2f}x one message (median over {} "
                               "pairs, at {} lengths)",
                               verdict.name, verdict.median_ratio, pairs, lengths.size());
  return finding;
}

}  // namespace

DuplexResult analyze_duplex(const Cube& one, const Cube& async, const Topology& t,
                            const std::vector<std::string>& hosts, const AnomalyOptions& opt) {
  DuplexResult result;
  if (one.P != async.P)
    throw Error(fmt::format("duplex check: the one_to_one file has {} ranks, the async file {}", one.P, async.P));
  const auto n_ranks = static_cast<std::size_t>(one.P);
  auto ks = common_lengths(one, async);
  if (ks.empty()) throw Error("duplex check: the two files have no message length in common");
  // Long messages only: the upper half of the common lengths (bandwidth shows there).
  ks.erase(ks.begin(), ks.begin() + static_cast<std::ptrdiff_t>(ks.size() / 2));
  for (auto [in_one, in_async] : ks) result.lengths.push_back(one.lengths[in_one]);
  const auto ratio = exchange_ratios(one, async, ks);
  auto in_class = [&](std::size_t i, std::size_t j, int q) {
    return i != j && t.pair_class(static_cast<int>(i), static_cast<int>(j)) == q;
  };
  std::vector<LinkHit> hits;
  for (int q = 0; q < t.class_count(); ++q) {
    std::vector<double> log_ratios;
    for (std::size_t i = 0; i < n_ranks; ++i)
      for (std::size_t j = 0; j < n_ranks; ++j)
        if (in_class(i, j, q) && std::isfinite(ratio[i * n_ranks + j]))
          log_ratios.push_back(std::log(ratio[i * n_ranks + j]));
    if (log_ratios.empty()) continue;
    const auto [median, sigma] = robust_spread(log_ratios);
    DuplexClass verdict;
    verdict.cls = q;
    verdict.name = t.class_name(q);
    verdict.median_ratio = std::exp(median);
    verdict.half_duplex = verdict.median_ratio >= opt.duplex_ratio;
    result.classes.push_back(verdict);
    if (verdict.half_duplex) {
      result.anomalies.push_back(half_duplex_class(t, hosts, n_ranks, q, verdict, log_ratios.size(), result.lengths));
      continue;
    }
    // Else the links of the class that stand out.
    for (std::size_t i = 0; i < n_ranks; ++i)
      for (std::size_t j = 0; j < n_ranks; ++j) {
        if (!in_class(i, j, q)) continue;
        const double pair_ratio = ratio[i * n_ranks + j];
        if (!std::isfinite(pair_ratio)) continue;
        const double excess = std::log(pair_ratio) - median;
        if (pair_ratio >= opt.duplex_ratio && excess >= opt.mad_factor * sigma &&
            excess >= std::log(opt.duplex_ratio) / 2)
          hits.push_back({static_cast<int>(i), static_cast<int>(j), pair_ratio, result.lengths,
                          sigma > 0 ? excess / sigma : kNaN});
      }
  }
  auto links = merge_links(AnomalyKind::half_duplex, hits, t, hosts, opt.max_links, "half duplex", false);
  result.anomalies.insert(result.anomalies.end(), links.begin(), links.end());
  return result;
}

}  // namespace nt::analysis
