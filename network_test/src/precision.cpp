// --precision REL: per task, samples are taken in batches until the distribution-free 95 %
// confidence interval of the median of every cell of the task lies within REL of the median, or
// the maximum (-n) is reached. The first batch is --min-repeats samples; the next one is sized
// from the interval's width (it narrows as 1/sqrt(n)). The members of the task agree after
// every batch: each sends the leader the worst ratio of interval to target over the cells it
// holds, the leader sends back the size of the next batch (0: done).
#include <algorithm>
#include <cmath>
#include <limits>

#include "runner.hpp"

namespace nt::measure {

std::pair<std::size_t, std::size_t> median_ci_indices(std::size_t n) {
  // Ranks j and k (1-based) of the order statistics around the median: P(x_(j) <= m <= x_(k))
  // >= 95 % by the binomial(n, 1/2) distribution, normal approximation.
  const double half = 1.959964 * std::sqrt(static_cast<double>(n)) / 2.0;
  const auto nd = static_cast<double>(n);
  const double j = std::floor(nd / 2.0 - half);
  const double k = std::ceil(nd / 2.0 + half + 1.0);
  if (j < 1.0 || k > nd) return {1, 0};  // empty: not enough samples for a finite interval
  return {static_cast<std::size_t>(j) - 1, static_cast<std::size_t>(k) - 1};
}

namespace {
// max(median - lo, hi - median) / (rel * median) over the samples; infinite when the interval
// is not finite yet or the median is not positive.
double ci_ratio(std::vector<double>& v, double rel) {
  const auto [lo, hi] = median_ci_indices(v.size());
  if (lo > hi) return std::numeric_limits<double>::infinity();
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  const double med = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  if (!(med > 0)) return std::numeric_limits<double>::infinity();
  return std::max(med - v[lo], v[hi] - med) / (rel * med);
}

// The cells (peers of sample_row) this rank measures in task t.
std::vector<int> held_peers(const Ctx& c, const Task& t) {
  const int r = c.rank;
  switch (c.spec.kind) {
    case TaskKind::ordered_pairs: {
      const int holder = c.spec.results_in_rows ? t.x : t.y;
      return r == holder ? std::vector<int>{c.spec.results_in_rows ? t.y : t.x} : std::vector<int>{};
    }
    case TaskKind::exchange_pairs:
      if (r == t.x) return {t.y};
      if (r == t.y) return {t.x};
      return {};
    case TaskKind::per_root:
      return t.has(r) ? std::vector<int>{t.x} : std::vector<int>{};
    case TaskKind::all_ranks: {
      std::vector<int> all(static_cast<std::size_t>(c.size));
      for (int q = 0; q < c.size; ++q) all[static_cast<std::size_t>(q)] = q;
      return all;
    }
  }
  return {};
}
}  // namespace

bool median_precise(std::vector<double>& v, double rel) { return ci_ratio(v, rel) <= 1.0; }

int next_batch(int taken, double worst, int max_n) {
  if (!(worst > 1.0) || taken >= max_n) return 0;
  // Width ~ 1/sqrt(n): n * worst^2 samples in all would reach the target; ask 20 % more, at
  // least a quarter of what we have, and at most as many as we have (the total at most doubles).
  // The cap matters: an order-statistic interval of few samples ends at their extremes, so one
  // outlier among the first 10 made worst ~5 and the next batch the whole rest of -n, although
  // 20-40 samples would have pushed the outlier out of the interval.
  const double want = std::isfinite(worst) ? 1.2 * taken * (worst * worst - 1.0) : taken;
  const double most = std::min<double>(taken, max_n - taken);
  return static_cast<int>(std::clamp(std::ceil(want), std::min(most, std::max(2.0, taken / 4.0)), most));
}

void run_adaptive(Ctx& c, const Task& t, const Batch& all, const std::function<void(const Batch&)>& run_batch) {
  SampleStore& store = runner(c).store;
  const int max_n = store.stride, first = std::min(c.settings.min_repeats, max_n);
  const double rel = c.settings.precision;
  const auto peers = held_peers(c, t);
  Batch b = all;
  int taken = 0, batch = first;
  while (batch > 0) {
    b.base = taken;
    b.R = batch;
    run_batch(b);
    taken += batch;
    b.W = std::min(all.W, 1);  // the path is warm; one unrecorded round after the pause to agree
    double worst = 0;
    std::vector<double> v;
    for (int q : peers) {
      const double* row = store.cell(static_cast<std::size_t>(q));
      v.assign(row, row + taken);
      worst = std::max(worst, ci_ratio(v, rel));
    }
    if (c.rank == t.leader) {
      for (int m : t.members)
        if (m != c.rank) worst = std::max(worst, c.recv_double(m, kTagPrecision));
      const int next = next_batch(taken, worst, max_n);
      for (int m : t.members)
        if (m != c.rank) c.send(&next, 1, MPI_INT, m, kTagPrecision);
      batch = next;
    } else {
      c.send_double(worst, t.leader, kTagPrecision);
      c.recv(&batch, 1, MPI_INT, t.leader, kTagPrecision);
    }
  }
  for (int q : peers) store.used[store.held(static_cast<std::size_t>(q))] = taken;
}

}  // namespace nt::measure
