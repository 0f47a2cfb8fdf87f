// The profiles topology discovery compares: per band of lengths, log(delay / median delay of the
// length) of every pair of ranks, and the medians of these between groups of ranks.
#include "topology_parts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "nt/analysis/ranks.hpp"

namespace nt::analysis::topology_parts {

namespace {

// Per length, the median off-diagonal delay (one length at a time); NaN where none.
std::vector<double> median_delays(const Cube& c) {
  const auto n_ranks = static_cast<std::size_t>(c.P);
  std::vector<double> medians(c.count(), kNaN);
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    const float* slice = c.slice(k, buf);
    auto sample = population_sample([&](auto&& take) {
      for (std::size_t i = 0; i < n_ranks; ++i)
        for (std::size_t j = 0; j < n_ranks; ++j)
          if (i != j && Cube::usable(slice[i * n_ranks + j])) take(static_cast<double>(slice[i * n_ranks + j]));
    });
    if (!sample.empty()) medians[k] = population_median(sample);
  }
  return medians;
}

// The profile rows of senders r0..r1 in band k0..k1 (senders in parallel): per receiver, the
// median over the band's lengths of log(delay / that length's median delay).
void band_profile_rows(const std::vector<const float*>& rows, const std::vector<double>& norm, std::size_t k0,
                       std::size_t k1, std::size_t n_ranks, int r0, int r1, std::vector<float>& profile) {
  const std::size_t nb = k1 - k0;
  parallel_for(static_cast<std::size_t>(r1 - r0), [&](std::size_t q0, std::size_t q1) {
    std::vector<double> logs(n_ranks * nb), tmp;
    std::vector<std::size_t> cnt(n_ranks);
    for (std::size_t i = static_cast<std::size_t>(r0) + q0; i < static_cast<std::size_t>(r0) + q1; ++i) {
      std::fill(cnt.begin(), cnt.end(), std::size_t{0});
      for (std::size_t k = k0; k < k1; ++k) {
        if (!(std::isfinite(norm[k]) && norm[k] > 0)) continue;
        const float* row = rows[k - k0] + (i - static_cast<std::size_t>(r0)) * n_ranks;
        for (std::size_t j = 0; j < n_ranks; ++j)
          if (j != i && Cube::usable(row[j]))
            logs[j * nb + cnt[j]++] = std::log(static_cast<double>(row[j]) / norm[k]);
      }
      for (std::size_t j = 0; j < n_ranks; ++j) {
        if (cnt[j] == 0) continue;
        tmp.assign(logs.begin() + static_cast<std::ptrdiff_t>(j * nb),
                   logs.begin() + static_cast<std::ptrdiff_t>(j * nb + cnt[j]));
        profile[i * n_ranks + j] = static_cast<float>(median_inplace(tmp));
      }
    }
  });
}

}  // namespace

// The rank profiles: per band and sender, the band's rows of that sender, then the median per
// receiver over the band's lengths; read in blocks of senders (every length of the band for one
// block at a time).
ProfilesOf<float> rank_profiles(const Cube& c, std::size_t B) {
  const int P = c.P;
  const auto N = static_cast<std::size_t>(P);
  const std::size_t K = c.count();
  // Log of each delay over the median off-diagonal delay of its length.
  const auto norm = median_delays(c);
  ProfilesOf<float> prof(B, std::vector<float>(N * N, std::numeric_limits<float>::quiet_NaN()));
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t k0 = b * K / B, k1 = (b + 1) * K / B, nb = k1 - k0;
    const int rb = rows_per_block(P, nb * N * sizeof(float));
    std::vector<std::vector<float>> bufs(nb);
    std::vector<const float*> blk(nb);
    for (int r0 = 0; r0 < P; r0 += rb) {
      const int r1 = std::min(P, r0 + rb);
      // Under mpiexec the block's owner alone reads and computes its profile rows, then sends them.
      const auto blk_no = static_cast<std::size_t>(r0 / rb);
      float* out = prof[b].data() + static_cast<std::size_t>(r0) * N;
      const std::size_t out_bytes = static_cast<std::size_t>(r1 - r0) * N * sizeof(float);
      if (owns_block(blk_no)) {
        for (std::size_t k = k0; k < k1; ++k) blk[k - k0] = c.rows(k, r0, r1, bufs[k - k0]);
        band_profile_rows(blk, norm, k0, k1, N, r0, r1, prof[b]);
      }
      share_block(blk_no, out, out_bytes);
    }
  }
  return prof;
}

// The profiles of groups of ranks: per band, the median of the rank profile cells between two
// groups.
Profiles group_profiles(const ProfilesOf<float>& prof, const std::vector<std::vector<int>>& groups, std::size_t N) {
  const std::size_t B = prof.size(), G = groups.size();
  Profiles gp(B, std::vector<double>(G * G, kNaN));
  parallel_for(G, [&](std::size_t A0, std::size_t A1) {
    std::vector<double> tmp;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t A = A0; A < A1; ++A)
        for (std::size_t C = 0; C < G; ++C) {
          if (A == C) continue;
          tmp.clear();
          for (int a : groups[A])
            for (int cc : groups[C]) {
              const double cell = prof[b][static_cast<std::size_t>(a) * N + static_cast<std::size_t>(cc)];
              if (std::isfinite(cell)) tmp.push_back(cell);
            }
          if (!tmp.empty()) gp[b][A * G + C] = median_inplace(tmp);
        }
  });
  return gp;
}

// The directions of one pair, a -> c against c -> a: the lower quartile of |difference| over a
// sample of at most ~500,000 pairs, scaled to a sigma.
template <class T>
std::vector<double> direction_noise(const ProfilesOf<T>& prof, std::size_t N) {
  std::vector<double> sigma;
  const std::size_t step = std::max<std::size_t>(1, N * N / 1000000);
  std::vector<double> d;
  for (const auto& band : prof) {
    d.clear();
    for (std::size_t a = 0; a < N; ++a)
      for (std::size_t c = a + 1; c < N; c += step) {
        const double x = dbl(band[a * N + c]) - dbl(band[c * N + a]);
        if (std::isfinite(x)) d.push_back(std::fabs(x));
      }
    if (d.empty()) {
      sigma.push_back(0.0);
      continue;
    }
    const auto q = d.begin() + static_cast<std::ptrdiff_t>(d.size() / 4);
    std::nth_element(d.begin(), q, d.end());
    sigma.push_back(*q / 0.3186);
  }
  return sigma;
}

template std::vector<double> direction_noise<float>(const ProfilesOf<float>&, std::size_t);
template std::vector<double> direction_noise<double>(const Profiles&, std::size_t);

}  // namespace nt::analysis::topology_parts
