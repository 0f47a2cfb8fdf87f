// high_variance: ranks whose coefficient of variation (deviation file over value file) stands out.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "nt/stats.hpp"

namespace nt::analysis {

using anomaly_parts::hosts_of;

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
      a.kind = AnomalyKind::high_variance;
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

}  // namespace nt::analysis
