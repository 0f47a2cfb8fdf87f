// The rank-effect model of find_anomalies: per length, a median polish of log(delay) into class
// constants, sender and receiver effects and residuals (share/doc/design.md §7).
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {
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
  // Up to kTuning.polish_sweeps sweeps; stop once a sweep after the first moves no effect by more
  // than kTuning.polish_tolerance (0.2 %: the precision of a rank effect from a few hundred cells of
  // 5 % noise, and 1/200 of the smallest slowdown reported): usually after 2 sweeps.
  for (int it = 0; it < kTuning.polish_sweeps; ++it) {
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
    if (moved < kTuning.polish_tolerance) break;
  }
}

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

}  // namespace

// One pass over the lengths: the median polish of each (rank effects), the spread of its
// residuals and of its direction differences, and the cells beyond the link thresholds.
PolishedLengths polish_every_length(const AnomalyScan& scan, const std::vector<int>& slow_group) {
  const std::size_t n_ranks = scan.n_ranks, n_lengths = scan.n_lengths;
  PolishedLengths pass;
  pass.effects.send.resize(n_lengths);
  pass.effects.recv.resize(n_lengths);
  pass.residual_median.resize(n_lengths);
  pass.residual_sigma.resize(n_lengths);
  pass.direction_sigma.resize(n_lengths);
  pass.link_threshold.resize(n_lengths);
  pass.asym_threshold.resize(n_lengths);
  auto cls = pair_classes(scan.topo);
  if (!slow_group.empty())  // a slow switch group's evidence: no class of the model
    for (std::size_t i = 0; i < n_ranks; ++i)
      for (std::size_t j = 0; j < n_ranks; ++j)
        if (crosses_slow_group(slow_group, i, j)) cls[i * n_ranks + j] = -1;
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
    pass.link_threshold[k] = std::max(scan.min_log, scan.opt.mad_factor * sigma);
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
    pass.asym_threshold[k] = std::max(scan.min_log, scan.opt.mad_factor * direction_sigma);
    keep_cells_beyond_thresholds(residuals, n_ranks, k, pass.link_threshold[k] + pass.residual_median[k],
                                 pass.asym_threshold[k], pass);
  }
  auto by_pair = [](const ResidualCell& x, const ResidualCell& y) { return x.pair < y.pair; };
  std::stable_sort(pass.slow_cells.begin(), pass.slow_cells.end(), by_pair);
  std::stable_sort(pass.asym_cells.begin(), pass.asym_cells.end(), by_pair);
  return pass;
}

}  // namespace nt::analysis::anomaly_parts
