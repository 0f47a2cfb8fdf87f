// Slow links and asymmetric pairs, from the residual cells the median polish kept.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {
namespace {

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

// Whether the longer lengths contradict a one-way hit (sender hit.i -> receiver hit.j): a transient,
// not a fault. A one-way fault of a link adds time to every message that crosses it, a latency the
// same at every length, a bandwidth more at longer ones; so at each length longer than one the hit
// shows at, its slow direction still adds at least half the time it added there (SMPI's latency
// factors vary by 1.2x between lengths), less the noise of the direction differences at that length
// (mad_factor robust sigmas, as a time). A stall of a link during a pair's back-to-back samples
// slows its median at one length only (on noisy data such stalls made most one-length findings,
// e.g. 6x at 1 KiB and 1.00x at 64 KiB). Shorter lengths are not asked: a fault of the large messages'
// protocol alone (a rendezvous path) may add nothing to the small ones.
bool longer_lengths_contradict(const AnomalyScan& scan, const PolishedLengths& pass, const LinkHit& hit) {
  if (hit.lengths.size() >= scan.n_lengths) return false;
  const Cube& c = scan.cube;
  double shown = 0.0;  // the most time the slow direction added at a length it shows at, so far
  for (std::size_t k = 0; k < scan.n_lengths; ++k) {
    float slow = 0.0F, fast = 0.0F;
    c.block(k, hit.i, hit.i + 1, hit.j, hit.j + 1, &slow);
    c.block(k, hit.j, hit.j + 1, hit.i, hit.i + 1, &fast);
    if (!Cube::usable(static_cast<double>(slow)) || !Cube::usable(static_cast<double>(fast))) continue;
    const double added = static_cast<double>(slow) - static_cast<double>(fast);
    if (std::find(hit.lengths.begin(), hit.lengths.end(), c.lengths[k]) != hit.lengths.end()) {
      shown = std::max(shown, added);
      continue;
    }
    const double sigma = std::isfinite(pass.direction_sigma[k]) ? pass.direction_sigma[k] : 0.0;
    const double noise = scan.opt.mad_factor * sigma * static_cast<double>(std::min(slow, fast));
    if (added < kTuning.one_way_keep * shown - noise) return true;
  }
  return false;
}

}  // namespace

void find_slow_and_asymmetric_links(const AnomalyScan& scan, const PolishedLengths& pass,
                                    const LinkExclusions& exclusions, std::vector<Anomaly>& out,
                                    std::vector<Anomaly>& blocks, double& one_way_cut) {
  const std::size_t n_ranks = scan.n_ranks;
  std::vector<std::uint64_t> slow_pairs;  // ascending
  const auto slow = slow_link_hits(scan, pass, exclusions, slow_pairs);
  auto asym = asymmetric_pair_hits(scan, pass, exclusions, slow_pairs);
  // A slow link whose reverse direction is normal is one-way: an asymmetric pair (sender ->
  // receiver), not a slow cable (a slow_link would name the receiving group first, wrongly).
  std::vector<LinkHit> both;
  for (const auto& hit : slow) {
    if (is_slow_pair(slow_pairs, n_ranks, static_cast<std::size_t>(hit.j), static_cast<std::size_t>(hit.i)))
      both.push_back(hit);
    else asym.push_back(hit);
  }
  std::erase_if(asym, [&](const LinkHit& hit) { return longer_lengths_contradict(scan, pass, hit); });
  blocks = slow_blocks(scan, both);
  auto one_way = one_way_slow_blocks(scan, asym);
  blocks.insert(blocks.end(), one_way.begin(), one_way.end());
  auto slow_links = merge_links(AnomalyKind::slow_link, both, scan.topo, scan.hosts, scan.opt.max_links, "slow link", false);
  // The one-way pairs are grouped into blocks before max_links applies (a cap before would cut a
  // block into the part that was listed); the pairs left single are listed as they were: the
  // max_links strongest of all (one_way_cut: the score of the last of those; cap_one_way_pairs).
  auto asym_pairs = merge_links(AnomalyKind::asymmetric_pair, asym, scan.topo, scan.hosts,
                                kOneWayPairsKept * scan.opt.max_links, "asymmetric, one-way slow (slower direction)", true);
  one_way_cut = asym_pairs.size() > scan.opt.max_links && scan.opt.max_links > 0 ? asym_pairs[scan.opt.max_links - 1].score
                                                                                 : 0.0;
  out.insert(out.end(), slow_links.begin(), slow_links.end());
  out.insert(out.end(), asym_pairs.begin(), asym_pairs.end());
}

}  // namespace nt::analysis::anomaly_parts
