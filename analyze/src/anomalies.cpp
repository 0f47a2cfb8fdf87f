#include "nt/stats.hpp"
#include "nt/analysis/anomalies.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <span>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/error.hpp"

#include "nt/units.hpp"

#include "group_faults.hpp"
#include "loaded.hpp"

namespace nt::analysis {
namespace {
// "12.3 sigmas", or what stands for it when the data has no noise (a simulated cluster): a robust
// sigma of 0 makes every z-score infinite or undefined, which is no number to print.
std::string sigmas_text(double z) { return std::isfinite(z) ? fmt::format("{:.1f} sigmas", z) : "noise-free data"; }

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<std::string> hosts_of(const std::vector<int>& ranks, const std::vector<std::string>& hosts) {
  std::vector<std::string> h;
  if (hosts.empty()) return h;
  for (int r : ranks)
    if (r >= 0 && static_cast<std::size_t>(r) < hosts.size()) h.push_back(hosts[static_cast<std::size_t>(r)]);
  std::sort(h.begin(), h.end());
  h.erase(std::unique(h.begin(), h.end()), h.end());
  return h;
}

// Lengths present in both cubes: (index in a, index in b), ascending.
std::vector<std::pair<std::size_t, std::size_t>> common_lengths(const Cube& a, const Cube& b) {
  std::vector<std::pair<std::size_t, std::size_t>> ks;
  for (std::size_t x = 0; x < a.count(); ++x) {
    const auto it = std::find(b.lengths.begin(), b.lengths.end(), a.lengths[x]);
    if (it != b.lengths.end()) ks.emplace_back(x, static_cast<std::size_t>(it - b.lengths.begin()));
  }
  return ks;
}

std::size_t needed(std::size_t K, double fraction) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(K) - 1e-9)));
}

// Link anomalies merged per pair of node groups: a bad cable between two nodes shows in every
// rank pair between them.
struct LinkHit {
  int i, j;
  double score;
  std::vector<std::int64_t> lengths;
  double sigmas = 0.0;  // median robust z-score of the residual (or of the direction difference)
};

// Link hits merged per pair of node groups. `ordered`: per (sender group, receiver group), for
// one-way findings whose direction matters; else per unordered pair of groups.
std::vector<Anomaly> merge_links(const std::string& kind, const std::vector<LinkHit>& hits, const Topology& t,
                                 const std::vector<std::string>& hosts, std::size_t max_items,
                                 const std::string& what, bool ordered) {
  std::map<std::pair<int, int>, std::vector<const LinkHit*>> by_groups;
  const auto& node_of = t.levels.front().group_of;
  for (const auto& hit : hits) {
    int from = node_of[static_cast<std::size_t>(hit.i)], to = node_of[static_cast<std::size_t>(hit.j)];
    if (!ordered && from > to) std::swap(from, to);
    by_groups[{from, to}].push_back(&hit);
  }
  const std::string group_word = t.node_level_identified ? "node group" : "group";
  std::vector<Anomaly> out;
  for (auto& [key, group_hits] : by_groups) {
    Anomaly finding;
    finding.kind = kind;
    std::set<int> ranks;
    std::set<std::int64_t> lens;
    std::vector<double> scores, sigmas;
    for (const auto* hit : group_hits) {
      ranks.insert(hit->i);
      ranks.insert(hit->j);
      lens.insert(hit->lengths.begin(), hit->lengths.end());
      scores.push_back(hit->score);
      sigmas.push_back(hit->sigmas);
      finding.pairs.emplace_back(hit->i, hit->j);
    }
    finding.ranks.assign(ranks.begin(), ranks.end());
    finding.lengths.assign(lens.begin(), lens.end());
    finding.score = finite_median(scores);
    finding.hosts = hosts_of(finding.ranks, hosts);
    const std::string evidence =
        fmt::format("{:.2f}x, {}, at {} of the lengths", finding.score, sigmas_text(finite_median(sigmas)), finding.lengths.size());
    if (group_hits.size() == 1)
      finding.detail = fmt::format("{} rank {} -> rank {}: {}", what, group_hits.front()->i, group_hits.front()->j, evidence);
    else if (ordered)
      finding.detail = fmt::format("{} {} {} -> {} {} (sender -> receiver, {} rank pairs): {}", what, group_word,
                             key.first, group_word, key.second, group_hits.size(), evidence);
    else if (key.first == key.second)
      finding.detail = fmt::format("{} within {} {}, both directions ({} rank pairs): {}", what, group_word, key.first,
                             group_hits.size(), evidence);
    else
      finding.detail = fmt::format("{} between {}s {} and {}, both directions ({} rank pairs): {}", what, group_word,
                             key.first, key.second, group_hits.size(), evidence);
    out.push_back(std::move(finding));
  }
  std::sort(out.begin(), out.end(), [](const Anomaly& x, const Anomaly& y) { return x.score > y.score; });
  if (out.size() > max_items) out.resize(max_items);
  return out;
}

}  // namespace

namespace {

// Subtracts each row's median from the row (rows in parallel) and adds it to the row's sender
// effect; the largest |median| into `moved`. The class constants are taken off first.
void sweep_rows(const std::vector<std::int8_t>& cls, const std::vector<double>& class_medians, std::size_t n_ranks,
                std::vector<double>& residuals, std::vector<double>& send, double& moved) {
  std::mutex mu;
  parallel_for(n_ranks, [&](std::size_t i0, std::size_t i1) {
    std::vector<double> row;
    double row_moved = 0.0;
    for (std::size_t i = i0; i < i1; ++i) {
      double* residual_row = residuals.data() + i * n_ranks;
      const std::int8_t* class_row = cls.data() + i * n_ranks;
      for (std::size_t j = 0; j < n_ranks; ++j)
        if (class_row[j] >= 0) residual_row[j] -= class_medians[static_cast<std::size_t>(class_row[j])];
      row.clear();
      for (std::size_t j = 0; j < n_ranks; ++j)
        if (std::isfinite(residual_row[j])) row.push_back(residual_row[j]);
      if (row.empty()) continue;
      const double median = median_inplace(row);
      send[i] += median;
      row_moved = std::max(row_moved, std::fabs(median));
      for (std::size_t j = 0; j < n_ranks; ++j) residual_row[j] -= median;
    }
    const std::lock_guard<std::mutex> lock(mu);
    moved = std::max(moved, row_moved);
  });
}

// Subtracts each column's median from the column and adds it to the column's receiver effect;
// the largest |median| into `moved`. Columns in blocks (a block's cells gathered row by row).
void sweep_columns(std::size_t n_ranks, std::vector<double>& residuals, std::vector<double>& recv, double& moved) {
  std::vector<double> column_medians(n_ranks, 0.0);
  constexpr std::size_t kCols = 64;
  parallel_for((n_ranks + kCols - 1) / kCols, [&](std::size_t b0, std::size_t b1) {
    std::vector<std::vector<double>> cols(kCols);
    for (std::size_t blk = b0; blk < b1; ++blk) {
      const std::size_t j0 = blk * kCols, j1 = std::min(n_ranks, j0 + kCols);
      for (auto& col : cols) col.clear();
      for (std::size_t i = 0; i < n_ranks; ++i)
        for (std::size_t j = j0; j < j1; ++j)
          if (std::isfinite(residuals[i * n_ranks + j])) cols[j - j0].push_back(residuals[i * n_ranks + j]);
      for (std::size_t j = j0; j < j1; ++j)
        if (!cols[j - j0].empty()) column_medians[j] = median_inplace(cols[j - j0]);
    }
  });
  parallel_for(n_ranks, [&](std::size_t i0, std::size_t i1) {
    for (std::size_t i = i0; i < i1; ++i)
      for (std::size_t j = 0; j < n_ranks; ++j) residuals[i * n_ranks + j] -= column_medians[j];
  });
  for (std::size_t j = 0; j < n_ranks; ++j) {
    recv[j] += column_medians[j];
    moved = std::max(moved, std::fabs(column_medians[j]));
  }
}

// One length of the median polish: log(delay) = class constant + sender effect + receiver effect +
// residual over the off-diagonal cells of the slice. send and recv (n_ranks each) get the
// effects; residuals (n_ranks^2) the residual, NaN where unknown. Rows, columns and class medians
// over the whole slice, in parallel within the length (so one length at a time is in memory: its
// residuals, read into them one block of senders at a time, never the slice as well).
void polish_length(const Cube& cube, std::size_t k, const std::vector<std::int8_t>& cls, int n_classes,
                   std::vector<double>& residuals, std::vector<double>& send, std::vector<double>& recv) {
  const auto n_ranks = static_cast<std::size_t>(cube.P);
  residuals.resize(n_ranks * n_ranks);
  send.assign(n_ranks, 0.0);
  recv.assign(n_ranks, 0.0);
  std::vector<float> buf;
  const int rb = rows_per_block(cube.P, n_ranks * sizeof(float));
  for (int r0 = 0; r0 < cube.P; r0 += rb) {
    const int r1 = std::min(cube.P, r0 + rb);
    const float* rows = cube.rows(k, r0, r1, buf);
    const std::size_t base = static_cast<std::size_t>(r0) * n_ranks;
    parallel_for(static_cast<std::size_t>(r1 - r0), [&](std::size_t i0, std::size_t i1) {
      for (std::size_t x = i0 * n_ranks; x < i1 * n_ranks; ++x) {
        const double delay = rows[x];
        residuals[base + x] = (cls[base + x] >= 0 && Cube::usable(delay)) ? std::log(delay) : kNaN;
      }
    });
  }
  std::vector<double> tmp, class_medians(static_cast<std::size_t>(n_classes));
  // Up to 5 sweeps; stop once a sweep after the first moves no effect by more than 0.2 % (the
  // precision of a rank effect from a few hundred cells of 5 % noise, and 1/200 of the
  // smallest slowdown reported): usually after 2 sweeps.
  for (int it = 0; it < 5; ++it) {
    double moved = 0.0;
    auto by_class = population_samples(static_cast<std::size_t>(n_classes), [&](auto&& take) {
      for (std::size_t x = 0; x < n_ranks * n_ranks; ++x)
        if (std::isfinite(residuals[x])) take(static_cast<std::size_t>(cls[x]), residuals[x]);
    });
    for (int q = 0; q < n_classes; ++q) {
      auto& samples = by_class[static_cast<std::size_t>(q)];
      class_medians[static_cast<std::size_t>(q)] = samples.empty() ? 0.0 : population_median(samples);
    }
    if (it > 0)
      for (double median : class_medians) moved = std::max(moved, std::fabs(median));
    // Classes, then each row's median; then each column's.
    sweep_rows(cls, class_medians, n_ranks, residuals, send, moved);
    sweep_columns(n_ranks, residuals, recv, moved);
    // Keep the rank effects centred (their median is 0): the class constants take the level
    // (the residual is unchanged: send and recv move down by what the class constants move up).
    tmp = send;
    const double send_median = finite_median(tmp);
    tmp = recv;
    const double recv_median = finite_median(tmp);
    for (auto& effect : send) effect -= send_median;
    for (auto& effect : recv) effect -= recv_median;
    if (moved < 2e-3) break;
  }
}

// What every detector of find_anomalies reads: the delays, their topology, the hosts and the
// options, with the sizes and thresholds derived from them.
struct AnomalyScan {
  const Cube& cube;
  const Topology& topo;
  const std::vector<std::string>& hosts;
  const AnomalyOptions& opt;
  std::size_t n_ranks;       // cube.P
  std::size_t n_lengths;     // cube.count()
  std::size_t need;          // lengths a finding must show at
  double min_log;            // log(opt.min_ratio)
};

// A residual cell beyond a link threshold, kept by the pass over the lengths.
struct ResidualCell {
  std::uint64_t pair;  // i*P + j; for asymmetry i < j
  std::uint32_t k;
  float forward, reverse;  // residual of (i, j), and of (j, i) for asymmetry
};

// What the one pass over the lengths keeps: per length the rank effects, the spread of the
// residuals and of the direction differences, and the cells beyond the link thresholds (every
// other residual is dropped).
struct PolishedLengths {
  RankEffects effects;
  std::vector<double> residual_median, residual_sigma, direction_sigma;
  std::vector<ResidualCell> slow_cells, asym_cells;  // sorted by pair: per pair, its lengths in order
};

// The residual as the analysis keeps it (float); NaN where unknown.
double kept_residual(double residual) {
  const auto as_float = static_cast<float>(residual);
  return std::isfinite(residual) && std::isfinite(as_float) ? static_cast<double>(as_float) : kNaN;
}

// The cells of length k beyond the slow-link threshold and the direction pairs beyond the
// asymmetry threshold, appended in pair order (rows in parallel, blocks joined in order).
void keep_cells_beyond_thresholds(const std::vector<double>& residuals, std::size_t n_ranks, std::size_t k,
                                  double slow_threshold, double asym_threshold, PolishedLengths& pass) {
  std::mutex mu;
  std::vector<std::vector<ResidualCell>> part_slow(n_ranks), part_asym(n_ranks);
  parallel_for(n_ranks, [&](std::size_t i0, std::size_t i1) {
    std::vector<ResidualCell> slow, asym;
    for (std::size_t i = i0; i < i1; ++i)
      for (std::size_t j = 0; j < n_ranks; ++j) {
        if (i == j) continue;
        const double forward = kept_residual(residuals[i * n_ranks + j]);
        if (std::isfinite(forward) && forward > slow_threshold)
          slow.push_back({i * n_ranks + j, static_cast<std::uint32_t>(k), static_cast<float>(forward), 0.0f});
        if (j > i) {
          const double reverse = kept_residual(residuals[j * n_ranks + i]);
          if (std::isfinite(forward) && std::isfinite(reverse) && std::fabs(forward - reverse) > asym_threshold)
            asym.push_back({i * n_ranks + j, static_cast<std::uint32_t>(k), static_cast<float>(forward),
                            static_cast<float>(reverse)});
        }
      }
    const std::lock_guard<std::mutex> lock(mu);
    part_slow[i0] = std::move(slow);
    part_asym[i0] = std::move(asym);
  });
  for (auto& v : part_slow) pass.slow_cells.insert(pass.slow_cells.end(), v.begin(), v.end());
  for (auto& v : part_asym) pass.asym_cells.insert(pass.asym_cells.end(), v.begin(), v.end());
}

// One pass over the lengths: the median polish of each (rank effects), the spread of its
// residuals and of its direction differences, and the cells beyond the link thresholds.
PolishedLengths polish_every_length(const AnomalyScan& scan) {
  const std::size_t n_ranks = scan.n_ranks, n_lengths = scan.n_lengths;
  PolishedLengths pass;
  pass.effects.send.resize(n_lengths);
  pass.effects.recv.resize(n_lengths);
  pass.residual_median.resize(n_lengths);
  pass.residual_sigma.resize(n_lengths);
  pass.direction_sigma.resize(n_lengths);
  const auto cls = pair_classes(scan.topo);
  std::vector<double> residuals;
  for (std::size_t k = 0; k < n_lengths; ++k) {
    polish_length(scan.cube, k, cls, scan.topo.class_count(), residuals, pass.effects.send[k], pass.effects.recv[k]);
    auto sample = population_sample([&](auto&& take) {
      for (std::size_t x = 0; x < n_ranks * n_ranks; ++x)
        if (const double residual = kept_residual(residuals[x]); std::isfinite(residual)) take(residual);
    });
    const auto [median, sigma] = population_spread(sample);
    pass.residual_median[k] = std::isfinite(median) ? median : 0.0;
    pass.residual_sigma[k] = sigma;
    const double slow_threshold =
        std::max(scan.min_log, scan.opt.mad_factor * sigma) + (std::isfinite(median) ? median : 0.0);
    sample = population_sample([&](auto&& take) {
      for (std::size_t i = 0; i < n_ranks; ++i)
        for (std::size_t j = i + 1; j < n_ranks; ++j) {
          const double forward = kept_residual(residuals[i * n_ranks + j]);
          const double reverse = kept_residual(residuals[j * n_ranks + i]);
          if (std::isfinite(forward) && std::isfinite(reverse)) take(forward - reverse);
        }
    });
    const double direction_sigma = population_spread(sample).sigma;
    pass.direction_sigma[k] = direction_sigma;
    keep_cells_beyond_thresholds(residuals, n_ranks, k, slow_threshold,
                                 std::max(scan.min_log, scan.opt.mad_factor * direction_sigma), pass);
  }
  auto by_pair = [](const ResidualCell& x, const ResidualCell& y) { return x.pair < y.pair; };
  std::stable_sort(pass.slow_cells.begin(), pass.slow_cells.end(), by_pair);
  std::stable_sort(pass.asym_cells.begin(), pass.asym_cells.end(), by_pair);
  return pass;
}

// Per length, the robust spread of the send and of the receive effects over the ranks.
struct EffectSpreads {
  std::vector<RobustSpread> send, recv;
};

EffectSpreads effect_spreads(const RankEffects& effects) {
  EffectSpreads spreads;
  for (std::size_t k = 0; k < effects.send.size(); ++k) {
    spreads.send.push_back(robust_spread(effects.send[k]));
    spreads.recv.push_back(robust_spread(effects.recv[k]));
  }
  return spreads;
}

// A rank whose send or receive effect stands out at some lengths (slow: at enough of them).
struct RankHit {
  bool slow = false;
  bool send = false, recv = false;
  std::vector<std::int64_t> lengths;
  std::vector<double> score;
  std::vector<double> sigmas;  // robust z-score of the effect at each of those lengths
};

const char* slow_direction(const RankHit& hit) {
  return hit.send && hit.recv ? "sends and receives" : (hit.send ? "sends" : "receives");
}

// Each rank's lengths where its send or receive effect is beyond min_ratio and mad_factor sigmas.
std::vector<RankHit> find_rank_hits(const AnomalyScan& scan, const RankEffects& effects,
                                    const EffectSpreads& spreads) {
  std::vector<RankHit> hits(scan.n_ranks);
  for (std::size_t k = 0; k < scan.n_lengths; ++k) {
    const auto [send_median, send_sigma] = spreads.send[k];
    const auto [recv_median, recv_sigma] = spreads.recv[k];
    for (std::size_t i = 0; i < scan.n_ranks; ++i) {
      const double ds = effects.send[k][i] - send_median, dr = effects.recv[k][i] - recv_median;
      const bool slow_send = ds >= scan.min_log && ds >= scan.opt.mad_factor * send_sigma;
      const bool slow_recv = dr >= scan.min_log && dr >= scan.opt.mad_factor * recv_sigma;
      if (!slow_send && !slow_recv) continue;
      auto& hit = hits[i];
      hit.send |= slow_send;
      hit.recv |= slow_recv;
      hit.lengths.push_back(scan.cube.lengths[k]);
      const double effect = std::max(slow_send ? ds : 0.0, slow_recv ? dr : 0.0);
      const double sigma = effect == ds ? send_sigma : recv_sigma;
      hit.score.push_back(std::exp(effect));
      hit.sigmas.push_back(sigma > 0 ? effect / sigma : kNaN);
    }
  }
  for (auto& hit : hits) hit.slow = hit.lengths.size() >= scan.need;
  return hits;
}

// A node group judged as a whole from the median effect of its ranks.
struct NodeVerdict {
  bool slow = false;
  std::vector<std::int64_t> lengths;
  std::vector<double> score, sigmas;
};

// Node groups alone in an upper-level group: their links are of their own class only, judged by
// find_slow_lone_nodes.
std::vector<char> lone_node_flags(const Topology& topo) {
  std::vector<char> lone(topo.levels.front().groups.size(), 0);
  for (std::size_t l = 1; l < topo.levels.size(); ++l)
    for (std::size_t lg : lone_node_groups(topo, l))
      lone[static_cast<std::size_t>(
          topo.levels.front().group_of[static_cast<std::size_t>(topo.levels[l].groups[lg].front())])] = 1;
  return lone;
}

// A node as a whole: the median effect of its ranks per length. A node slowed by exactly the
// threshold factor has rank effects scattered around it, so some ranks pass and some do not
// (issue 13: 4-5 separate slow_rank entries); the node's median has sqrt(ranks) less noise and
// is allowed one standard error below the threshold.
NodeVerdict judge_node(const AnomalyScan& scan, const std::vector<int>& node, const RankEffects& effects,
                       const EffectSpreads& spreads, const std::vector<RankHit>& rank_hits) {
  NodeVerdict verdict;
  std::vector<double> ds, dr, effect_all, stderr_all;
  for (std::size_t k = 0; k < scan.n_lengths; ++k) {
    const auto [send_median, send_sigma] = spreads.send[k];
    const auto [recv_median, recv_sigma] = spreads.recv[k];
    ds.clear();
    dr.clear();
    for (int r : node) {
      ds.push_back(effects.send[k][static_cast<std::size_t>(r)] - send_median);
      dr.push_back(effects.recv[k][static_cast<std::size_t>(r)] - recv_median);
    }
    const double node_ds = finite_median(ds), node_dr = finite_median(dr);
    const double std_error =
        std::max(send_sigma, recv_sigma) * 1.2533 / std::sqrt(static_cast<double>(node.size()));
    const double effect = std::max(node_ds, node_dr);
    const double sigma = effect == node_ds ? send_sigma : recv_sigma;
    effect_all.push_back(effect);
    stderr_all.push_back(std_error);
    if (effect >= scan.min_log - 2 * std_error && effect >= scan.opt.mad_factor * sigma) {
      verdict.lengths.push_back(scan.cube.lengths[k]);
      verdict.score.push_back(std::exp(effect));
      verdict.sigmas.push_back(sigma > 0 ? effect / sigma : kNaN);
    }
  }
  // ... and the node is that slow at the long lengths as well, not only at the short ones (a node
  // behind a switch of its own differs by the switch's latency: at the short lengths only).
  // Two standard errors of slack: the median polish leaks a little of a slow node's effect into
  // its peers' (a few per cent of the cell noise), which made a node at exactly the threshold
  // vanish on 1 of 200 seeds with one.
  // Half of its ranks slow on their own also makes the node slow (once, not rank by rank).
  const auto slow_ranks =
      std::count_if(node.begin(), node.end(), [&](int r) { return rank_hits[static_cast<std::size_t>(r)].slow; });
  verdict.slow = verdict.lengths.size() >= scan.need &&
                 (finite_median(std::span<const double>(effect_all).subspan(effect_all.size() / 2)) >=
                      scan.min_log - 2 * finite_median(stderr_all) ||
                  2 * static_cast<std::size_t>(slow_ranks) >= node.size());
  return verdict;
}

std::vector<NodeVerdict> judge_nodes(const AnomalyScan& scan, const RankEffects& effects, const EffectSpreads& spreads,
                                     const std::vector<RankHit>& rank_hits) {
  const auto& nodes = scan.topo.levels.front().groups;
  std::vector<NodeVerdict> verdicts(nodes.size());
  const auto lone = lone_node_flags(scan.topo);
  for (std::size_t gi = 0; gi < nodes.size(); ++gi)
    if (nodes[gi].size() >= 2 && !lone[gi]) verdicts[gi] = judge_node(scan, nodes[gi], effects, spreads, rank_hits);
  return verdicts;
}

// Ranks a link anomaly does not look at: those of slow nodes, lone or not (`explained`: their
// links are the node's evidence; issue 13: a spurious asymmetric pair between two slow nodes,
// issue 32: a slow host's links to its switch mates), and the pairs that cross the boundary of a
// slow switch group (`slow_group`: its index per rank, -1 outside any: that group's evidence).
struct LinkExclusions {
  std::vector<char> explained;
  std::vector<int> slow_group;
  bool skipped(std::size_t i, std::size_t j) const {
    return explained[i] || explained[j] ||
           (slow_group[i] != slow_group[j] && (slow_group[i] >= 0 || slow_group[j] >= 0));
  }
};

Anomaly node_finding(const AnomalyScan& scan, const std::vector<int>& node) {
  Anomaly finding;
  finding.kind = "slow_node";
  finding.ranks = node;
  finding.hosts = hosts_of(node, scan.hosts);
  return finding;
}

void append_hosts(Anomaly& finding) {
  if (!finding.hosts.empty()) finding.detail += " on " + fmt::format("{}", fmt::join(finding.hosts, ","));
}

// A node slow by the median effect of its ranks (not every one of them slow on its own).
Anomaly slow_node_by_median(const AnomalyScan& scan, const std::vector<int>& node, const NodeVerdict& verdict) {
  Anomaly finding = node_finding(scan, node);
  finding.lengths = verdict.lengths;
  finding.score = finite_median(verdict.score);
  finding.detail = fmt::format("the ranks of the group are {:.2f}x their class (median over its {} ranks, {}, "
                               "at {} of {} lengths)",
                               finding.score, node.size(), sigmas_text(finite_median(verdict.sigmas)),
                               finding.lengths.size(), scan.n_lengths);
  append_hosts(finding);
  return finding;
}

// A node every rank of which is slow on its own.
Anomaly slow_node_by_every_rank(const AnomalyScan& scan, const std::vector<int>& node,
                                const std::vector<RankHit>& rank_hits) {
  Anomaly finding = node_finding(scan, node);
  std::set<std::int64_t> lens;
  std::vector<double> scores, sigmas;
  for (int r : node) {
    const auto& hit = rank_hits[static_cast<std::size_t>(r)];
    lens.insert(hit.lengths.begin(), hit.lengths.end());
    scores.insert(scores.end(), hit.score.begin(), hit.score.end());
    sigmas.insert(sigmas.end(), hit.sigmas.begin(), hit.sigmas.end());
  }
  finding.lengths.assign(lens.begin(), lens.end());
  finding.score = finite_median(scores);
  finding.detail = fmt::format("every rank of the group {} slowly ({:.2f}x its class, {}, at {} of {} lengths)",
                               slow_direction(rank_hits[static_cast<std::size_t>(node.front())]), finding.score,
                               sigmas_text(finite_median(sigmas)), finding.lengths.size(), scan.n_lengths);
  append_hosts(finding);
  return finding;
}

Anomaly slow_rank_finding(const AnomalyScan& scan, int rank, const RankHit& hit) {
  Anomaly finding;
  finding.kind = "slow_rank";
  finding.ranks = {rank};
  finding.hosts = hosts_of(finding.ranks, scan.hosts);
  finding.lengths = hit.lengths;
  finding.score = finite_median(hit.score);
  finding.detail = fmt::format("rank {} {} {:.2f}x slower than its class ({}, at {} of {} lengths)", rank,
                               slow_direction(hit), finding.score, sigmas_text(finite_median(hit.sigmas)),
                               finding.lengths.size(), scan.n_lengths);
  return finding;
}

// Slow nodes and slow ranks from the rank effects: per node group, one slow_node when the node
// as a whole is slow, else one slow_rank per slow rank. The ranks of slow nodes are marked in
// exclusions.explained.
void find_slow_ranks_and_nodes(const AnomalyScan& scan, const RankEffects& effects, std::vector<Anomaly>& out,
                               LinkExclusions& exclusions) {
  const auto spreads = effect_spreads(effects);
  const auto rank_hits = find_rank_hits(scan, effects, spreads);
  const auto verdicts = judge_nodes(scan, effects, spreads, rank_hits);
  const auto& nodes = scan.topo.levels.front().groups;
  const auto lone = lone_node_flags(scan.topo);
  for (std::size_t gi = 0; gi < nodes.size(); ++gi) {
    const auto& node = nodes[gi];
    const bool every_rank_slow =
        std::all_of(node.begin(), node.end(), [&](int r) { return rank_hits[static_cast<std::size_t>(r)].slow; });
    if (!every_rank_slow && verdicts[gi].slow) out.push_back(slow_node_by_median(scan, node, verdicts[gi]));
    else if (every_rank_slow && (node.size() >= 2 || scan.topo.nodes_from_hosts))
      out.push_back(slow_node_by_every_rank(scan, node, rank_hits));  // a host of one rank is still a node
    else {
      for (int r : node)
        if (rank_hits[static_cast<std::size_t>(r)].slow)
          out.push_back(slow_rank_finding(scan, r, rank_hits[static_cast<std::size_t>(r)]));
      continue;
    }
    // Alone in an upper-level group, with links of a class it shares (it is alone at the switch
    // level, not above): slow to everyone either way, and the delays cannot tell which.
    if (lone[gi]) out.back().detail += fmt::format("; a lone node {}", kLoneNodeCaveat);
    // Its links are its evidence: a slow cable slows the paths through it by factors that differ
    // with their other links (4x inside its switch, less beyond), which no rank effect takes out
    // (issue 32: one slow host was also 7 slow links, one per switch mate).
    for (int r : node) exclusions.explained[static_cast<std::size_t>(r)] = 1;
  }
}

// A node alone in its upper-level group, not reported yet, and per length the median of its
// links over the median of the reference links.
struct LoneGroup {
  std::size_t level, group;
  std::vector<char> inside;       // per rank
  bool have_class1 = false;       // the other nodes have links of class 1 (the reference)
  std::vector<double> ratio;      // per length; NaN where either side has no delay
};

std::vector<LoneGroup> lone_groups_to_check(const AnomalyScan& scan, const std::set<int>& reported) {
  const std::size_t n_ranks = scan.n_ranks;
  const auto& topo = scan.topo;
  std::vector<LoneGroup> lones;
  for (std::size_t l = 1; l < topo.levels.size(); ++l)
    for (std::size_t lg : lone_node_groups(topo, l)) {
      const auto& group = topo.levels[l].groups[lg];
      if (reported.count(group.front())) continue;
      LoneGroup lone{l, lg, std::vector<char>(n_ranks, 0), false, std::vector<double>(scan.n_lengths, kNaN)};
      for (int r : group) lone.inside[static_cast<std::size_t>(r)] = 1;
      for (std::size_t i = 0; i < n_ranks && !lone.have_class1; ++i)
        for (std::size_t j = 0; j < n_ranks; ++j)
          if (i != j && !lone.inside[i] && !lone.inside[j] &&
              topo.pair_class(static_cast<int>(i), static_cast<int>(j)) == 1) {
            lone.have_class1 = true;
            break;
          }
      lones.push_back(std::move(lone));
    }
  return lones;
}

// Per length (one at a time for all of them), each lone group's links over the reference links.
void measure_lone_ratios(const AnomalyScan& scan, std::vector<LoneGroup>& lones) {
  const std::size_t n_ranks = scan.n_ranks;
  std::vector<float> buf, own, ref;
  for (std::size_t k = 0; k < scan.n_lengths && !lones.empty(); ++k) {
    const float* slice = scan.cube.slice(k, buf);
    for (auto& lone : lones) {
      own.clear();
      ref.clear();
      const auto& in = lone.inside;
      for (std::size_t i = 0; i < n_ranks; ++i)
        for (std::size_t j = 0; j < n_ranks; ++j) {
          if (i == j) continue;
          const float delay = slice[i * n_ranks + j];
          if (!Cube::usable(delay)) continue;
          const int pair_class = scan.topo.pair_class(static_cast<int>(i), static_cast<int>(j));
          if (in[i] != in[j]) own.push_back(delay);
          else if (!in[i] && (lone.have_class1 ? pair_class == 1 : pair_class >= 1)) ref.push_back(delay);
        }
      if (!own.empty() && !ref.empty()) lone.ratio[k] = float_median(own) / float_median(ref);
    }
  }
}

// A node alone in its upper-level group: all of its links form their own class, so the rank
// effect model cannot compare them with anything. Compare them with the inter-node links of the
// other nodes instead (it is a slow node, or a node behind a switch of its own). Its ranks are
// marked in exclusions.explained.
void find_slow_lone_nodes(const AnomalyScan& scan, std::vector<Anomaly>& out, LinkExclusions& exclusions) {
  std::set<int> reported;
  for (const auto& finding : out)
    for (int r : finding.ranks) reported.insert(r);
  const auto& topo = scan.topo;
  const auto& node_of = topo.levels.front().group_of;
  const std::string group_word = topo.node_level_identified ? "node group" : "group";
  auto lones = lone_groups_to_check(scan, reported);
  measure_lone_ratios(scan, lones);
  for (const auto& lone : lones) {
    const auto& group = topo.levels[lone.level].groups[lone.group];
    if (reported.count(group.front())) continue;
    std::vector<std::int64_t> lens;
    std::vector<double> ratios;
    for (std::size_t k = 0; k < scan.n_lengths; ++k) {
      const double ratio = lone.ratio[k];
      if (std::isnan(ratio)) continue;
      if (ratio >= scan.opt.min_ratio) {
        lens.push_back(scan.cube.lengths[k]);
        ratios.push_back(ratio);
      }
    }
    if (lens.size() < scan.need) continue;
    Anomaly finding;
    finding.kind = group.size() >= 2 ? "slow_node" : "slow_rank";
    finding.ranks = group;
    finding.hosts = hosts_of(group, scan.hosts);
    finding.lengths = lens;
    finding.score = finite_median(ratios);
    finding.detail = fmt::format("{} {} is alone in its {} group: its links are {:.2f}x the {} links of the others "
                                 "(at {} of {} lengths); a lone node {}",
                                 group_word, node_of[static_cast<std::size_t>(group.front())],
                                 topo.levels[lone.level].name, finding.score, topo.class_name(1),
                                 finding.lengths.size(), scan.n_lengths, kLoneNodeCaveat);
    out.push_back(std::move(finding));
    for (int r : group) {
      reported.insert(r);
      exclusions.explained[static_cast<std::size_t>(r)] = 1;
    }
  }
}

// Calls f(i, j, first, end) for each pair's run [first, end) of cells (sorted by pair = i*n + j).
template <class Cells, class F>
void for_each_pair_run(const Cells& cells, std::size_t n_ranks, F&& f) {
  for (std::size_t q = 0; q < cells.size();) {
    std::size_t q1 = q;
    while (q1 < cells.size() && cells[q1].pair == cells[q].pair) ++q1;
    f(static_cast<std::size_t>(cells[q].pair / n_ranks), static_cast<std::size_t>(cells[q].pair % n_ranks), q, q1);
    q = q1;
  }
}

// The pairs slow beyond the residual threshold at enough lengths (slow_pairs: theirs, ascending).
std::vector<LinkHit> slow_link_hits(const AnomalyScan& scan, const PolishedLengths& pass,
                                    const LinkExclusions& exclusions, std::vector<std::uint64_t>& slow_pairs) {
  const auto& cells = pass.slow_cells;
  std::vector<LinkHit> hits;
  for_each_pair_run(cells, scan.n_ranks, [&](std::size_t i, std::size_t j, std::size_t q, std::size_t q1) {
    if (!exclusions.skipped(i, j) && q1 - q >= scan.need) {
      LinkHit hit{static_cast<int>(i), static_cast<int>(j), 0, {}};
      std::vector<double> scores, sigmas;
      for (std::size_t u = q; u < q1; ++u) {
        const double residual = static_cast<double>(cells[u].forward);
        const std::size_t k = cells[u].k;
        hit.lengths.push_back(scan.cube.lengths[k]);
        scores.push_back(std::exp(residual));
        sigmas.push_back(pass.residual_sigma[k] > 0
                             ? (residual - pass.residual_median[k]) / pass.residual_sigma[k]
                             : kNaN);
      }
      hit.score = finite_median(scores);
      hit.sigmas = finite_median(sigmas);
      hits.push_back(hit);
      slow_pairs.push_back(cells[q].pair);
    }
  });
  return hits;
}

// Whether (i, j) is among the slow pairs (ascending i*n_ranks + j).
bool is_slow_pair(const std::vector<std::uint64_t>& slow_pairs, std::size_t n_ranks, std::size_t i, std::size_t j) {
  return std::binary_search(slow_pairs.begin(), slow_pairs.end(), static_cast<std::uint64_t>(i * n_ranks + j));
}

// The pairs whose one direction is slower than the other, always the same one, at enough
// lengths (neither direction a slow link), as (sender -> receiver) of the slower direction.
std::vector<LinkHit> asymmetric_pair_hits(const AnomalyScan& scan, const PolishedLengths& pass,
                                          const LinkExclusions& exclusions,
                                          const std::vector<std::uint64_t>& slow_pairs) {
  const std::size_t n_ranks = scan.n_ranks;
  const auto& cells = pass.asym_cells;
  std::vector<LinkHit> hits;
  for_each_pair_run(cells, n_ranks, [&](std::size_t i, std::size_t j, std::size_t first, std::size_t q1) {
    if (is_slow_pair(slow_pairs, n_ranks, i, j) || is_slow_pair(slow_pairs, n_ranks, j, i) ||
        exclusions.skipped(i, j))
      return;
    std::vector<double> scores, sigmas;
    std::vector<std::int64_t> lens;
    int sign = 0;
    for (std::size_t u = first; u < q1; ++u) {
      const double forward = static_cast<double>(cells[u].forward), reverse = static_cast<double>(cells[u].reverse);
      const std::size_t k = cells[u].k;
      lens.push_back(scan.cube.lengths[k]);
      scores.push_back(std::exp(std::fabs(forward - reverse)));
      sigmas.push_back(pass.direction_sigma[k] > 0 ? std::fabs(forward - reverse) / pass.direction_sigma[k] : kNaN);
      sign += forward > reverse ? 1 : -1;
    }
    if (lens.size() >= scan.need && static_cast<std::size_t>(std::abs(sign)) == lens.size()) {
      LinkHit hit = sign > 0 ? LinkHit{static_cast<int>(i), static_cast<int>(j), 0, lens}
                             : LinkHit{static_cast<int>(j), static_cast<int>(i), 0, lens};
      hit.score = finite_median(scores);
      hit.sigmas = finite_median(sigmas);
      hits.push_back(hit);
    }
  });
  return hits;
}

// Slow links and asymmetric pairs, from the residuals of the rank-effect model (the cells beyond
// the thresholds, kept by the pass over the lengths).
void find_slow_and_asymmetric_links(const AnomalyScan& scan, const PolishedLengths& pass,
                                    const LinkExclusions& exclusions, std::vector<Anomaly>& out) {
  const std::size_t n_ranks = scan.n_ranks;
  std::vector<std::uint64_t> slow_pairs;  // ascending
  const auto slow = slow_link_hits(scan, pass, exclusions, slow_pairs);
  auto asym = asymmetric_pair_hits(scan, pass, exclusions, slow_pairs);
  // A slow link whose reverse direction is normal is one-way: an asymmetric pair (sender ->
  // receiver), not a slow cable (issue 13: it was reported as slow_link, receiving group first).
  std::vector<LinkHit> both;
  for (const auto& hit : slow) {
    if (is_slow_pair(slow_pairs, n_ranks, static_cast<std::size_t>(hit.j), static_cast<std::size_t>(hit.i)))
      both.push_back(hit);
    else asym.push_back(hit);
  }
  auto slow_links = merge_links("slow_link", both, scan.topo, scan.hosts, scan.opt.max_links, "slow link", false);
  auto asym_pairs = merge_links("asymmetric_pair", asym, scan.topo, scan.hosts, scan.opt.max_links,
                                "asymmetric, one-way slow (slower direction)", true);
  out.insert(out.end(), slow_links.begin(), slow_links.end());
  out.insert(out.end(), asym_pairs.begin(), asym_pairs.end());
}

// A group fault above the nodes is kept at the level where it lives: a group whose every
// (non-lone) subgroup is slow too is the fault, not its subgroups; a group of which only some
// subgroups are slow is their effect leaking into its median. Coarsest level first.
std::vector<GroupFault> where_faults_live(const Topology& t, std::vector<GroupFault> faults) {
  std::vector<char> keep(faults.size(), 1);
  for (std::size_t l = t.levels.size(); l-- > 2;)
    for (std::size_t a = 0; a < faults.size(); ++a) {
      if (faults[a].level != l || !keep[a]) continue;
      const auto& lev = t.levels[l - 1];
      const auto lone = lone_node_groups(t, l - 1);
      std::set<int> children, slow_children;
      for (int r : faults[a].ranks) children.insert(lev.group_of[static_cast<std::size_t>(r)]);
      for (std::size_t lg : lone) children.erase(static_cast<int>(lg));
      std::vector<std::size_t> inside;
      for (std::size_t b = 0; b < faults.size(); ++b)
        if (keep[b] && faults[b].level == l - 1 && children.count(static_cast<int>(faults[b].group))) {
          inside.push_back(b);
          slow_children.insert(static_cast<int>(faults[b].group));
        }
      if (!inside.empty() && slow_children == children)
        for (std::size_t b : inside) keep[b] = 0;
      else if (!inside.empty()) keep[a] = 0;
    }
  std::vector<GroupFault> kept;
  for (std::size_t a = 0; a < faults.size(); ++a)
    if (keep[a]) kept.push_back(std::move(faults[a]));
  return kept;
}

Anomaly slow_switch_finding(const AnomalyScan& scan, const GroupFault& f) {
  const auto& lev = scan.topo.levels[f.level];
  std::set<int> nodes;
  for (int r : f.ranks) nodes.insert(scan.topo.levels.front().group_of[static_cast<std::size_t>(r)]);
  Anomaly finding;
  finding.kind = "slow_switch";
  finding.ranks = f.ranks;
  finding.hosts = hosts_of(f.ranks, scan.hosts);
  finding.lengths = f.lengths;
  finding.score = f.score;
  finding.detail = fmt::format(
      "the links {} {} group {} ({} nodes) are {:.2f}x those of the other {} groups (up to {:.2f}x; median over its "
      "ranks, {}, at {} of {} lengths): its uplink or its switch",
      f.direction, lev.name, f.group, nodes.size(), f.score, lev.name, f.peak, sigmas_text(f.sigmas),
      f.lengths.size(), scan.n_lengths);
  return finding;
}

// Slow switch groups (group_faults.cpp), one finding each at the level where the fault lives; the
// node findings inside one that its effect explains (a node whose pairs mostly cross a slow uplink
// is that much slower, no more) are dropped, and the pairs that cross its boundary are its
// evidence, not slow links.
void find_slow_switches(const AnomalyScan& scan, std::vector<Anomaly>& out, LinkExclusions& exclusions) {
  GroupFaultOptions gopt;
  gopt.mad_factor = scan.opt.mad_factor;
  gopt.min_ratio = scan.opt.group_min_ratio;
  gopt.need = scan.need;
  gopt.exclude = exclusions.explained;  // the ranks of slow nodes
  const auto faults = where_faults_live(scan.topo, find_slow_groups(scan.cube, scan.topo, gopt));
  for (const auto& f : faults) {
    std::set<int> in(f.ranks.begin(), f.ranks.end());
    std::erase_if(out, [&](const Anomaly& a) {
      const bool inside = (a.kind == "slow_node" || a.kind == "slow_rank") &&
                          std::all_of(a.ranks.begin(), a.ranks.end(), [&](int r) { return in.count(r) > 0; });
      return inside && a.score < f.score * scan.opt.min_ratio;
    });
    for (int r : f.ranks) exclusions.slow_group[static_cast<std::size_t>(r)] = static_cast<int>(out.size());
    out.push_back(slow_switch_finding(scan, f));
  }
}

}  // namespace

std::vector<Anomaly> find_anomalies(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                                    const AnomalyOptions& opt) {
  std::vector<Anomaly> out;
  if (c.P < 3) return out;  // nothing to compare a rank with
  const AnomalyScan scan{c,
                         t,
                         hosts,
                         opt,
                         static_cast<std::size_t>(c.P),
                         c.count(),
                         needed(c.count(), opt.min_length_fraction),
                         std::log(opt.min_ratio)};
  const auto pass = polish_every_length(scan);
  LinkExclusions exclusions{std::vector<char>(scan.n_ranks, 0), std::vector<int>(scan.n_ranks, -1)};
  find_slow_ranks_and_nodes(scan, pass.effects, out, exclusions);
  find_slow_switches(scan, out, exclusions);
  find_slow_lone_nodes(scan, out, exclusions);
  find_slow_and_asymmetric_links(scan, pass, exclusions, out);
  slow_links_to_slow_nodes(t, hosts, out);
  return out;
}

std::vector<Anomaly> find_variance_anomalies(const Cube& values, const Cube& deviation,
                                             const std::vector<std::string>& hosts, const AnomalyOptions& opt) {
  std::vector<Anomaly> out;
  if (values.P != deviation.P || values.P < 3) return out;
  const auto N = static_cast<std::size_t>(values.P);
  const auto ks = common_lengths(values, deviation);
  if (ks.empty()) return out;
  std::vector<double> cv_rank(N, kNaN);
  // Per block of ranks: their rows and columns of both files at every common length.
  const int P = values.P;
  const int rb = rows_per_block(P, N * ks.size() * (2 * sizeof(double) + 4 * sizeof(float)));
  std::vector<float> vr, dr, vc, dc;
  for (int r0 = 0; r0 < P; r0 += rb) {
    const int r1 = std::min(P, r0 + rb);
    const auto nr = static_cast<std::size_t>(r1 - r0);
    std::vector<std::vector<double>> tmp(nr);
    vc.resize(N * nr);
    dc.resize(N * nr);
    for (auto [a, b] : ks) {
      const float* V = values.rows(a, r0, r1, vr);
      const float* D = deviation.rows(b, r0, r1, dr);
      values.block(a, 0, P, r0, r1, vc.data());
      deviation.block(b, 0, P, r0, r1, dc.data());
      for (std::size_t q = 0; q < nr; ++q) {
        const std::size_t r = static_cast<std::size_t>(r0) + q;
        for (std::size_t o = 0; o < N; ++o) {
          if (o == r) continue;
          // (r, o) from the rows, (o, r) from the columns
          for (auto [v, d] : {std::pair{static_cast<double>(V[q * N + o]), static_cast<double>(D[q * N + o])},
                              std::pair{static_cast<double>(vc[o * nr + q]), static_cast<double>(dc[o * nr + q])}})
            if (Cube::usable(v) && std::isfinite(d) && d >= 0) tmp[q].push_back(d / v);
        }
      }
    }
    for (std::size_t q = 0; q < nr; ++q)
      if (!tmp[q].empty()) cv_rank[static_cast<std::size_t>(r0) + q] = finite_median(tmp[q]);
  }
  const auto [m, s] = robust_spread(cv_rank);
  for (std::size_t r = 0; r < N; ++r) {
    const double cv = cv_rank[r];
    if (!std::isfinite(cv)) continue;
    if (cv >= opt.variance_min_cv && cv >= opt.variance_ratio * m && cv - m >= opt.mad_factor * s) {
      Anomaly a;
      a.kind = "high_variance";
      a.ranks = {static_cast<int>(r)};
      a.hosts = hosts_of(a.ranks, hosts);
      for (auto [ka, kb] : ks) a.lengths.push_back(values.lengths[ka]);
      a.score = m > 0 ? cv / m : cv;
      a.detail = fmt::format("rank {}: coefficient of variation {:.3f}, typical {:.3f} ({:.2f}x, {:.1f} sigmas, at {} lengths)",
                             r, cv, m, a.score, s > 0 ? (cv - m) / s : kNaN, a.lengths.size());
      out.push_back(std::move(a));
    }
  }
  return out;
}

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
  finding.kind = "half_duplex";
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
  auto links = merge_links("half_duplex", hits, t, hosts, opt.max_links, "half duplex", false);
  result.anomalies.insert(result.anomalies.end(), links.begin(), links.end());
  return result;
}

}  // namespace nt::analysis
