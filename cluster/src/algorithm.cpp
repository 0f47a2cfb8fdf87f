// The clustering algorithm: greedy regions over message lengths, clusters refined by splitting.
// See share/doc/cluster.md for the rules, the proof sketch and the complexity.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "nt/cluster/cluster.hpp"
#include "nt/error.hpp"

namespace nt::cluster {

void Options::validate() const {
  if (!std::isfinite(threshold) || threshold < 0)
    throw UsageError(fmt::format("--threshold {} must be a finite number >= 0", threshold));
  if (relative && threshold >= 1)
    throw UsageError(fmt::format("--threshold {} with --relative must be below 1 (it is a fraction: 0.05 = 5%)",
                                 threshold));
  if (exceptions < 0) throw UsageError(fmt::format("--exceptions {} must be >= 0", exceptions));
  if (min_region < 1) throw UsageError(fmt::format("--min-region {} must be >= 1", min_region));
  if (!std::isfinite(cluster_factor) || cluster_factor < 1)
    throw UsageError(fmt::format("--cluster-factor {} must be a finite number >= 1", cluster_factor));
}

double Options::cluster_threshold() const {
  const double t = threshold * cluster_factor;
  return relative ? std::min(t, std::max(threshold, 0.5)) : t;
}

Tolerance::Tolerance(double threshold, bool relative)
    : t_(threshold), tm_(threshold * (1.0 - 1e-9)), rel_(relative) {}

double Tolerance::allowed(double v) const { return rel_ ? t_ * std::fabs(v) : t_; }

bool Tolerance::within(double v, double reconstructed) const {
  return std::fabs(reconstructed - v) <= allowed(v);
}

bool Tolerance::fits(double lo, double hi) const {
  if (lo == hi) return true;
  if (!(lo < hi)) return false;
  if (!rel_) return hi - lo <= tm_;
  if (lo > 0) return hi - lo <= tm_ * lo;
  if (hi < 0) return hi - lo <= tm_ * -hi;
  return false;  // relative tolerance around 0 (or across it) allows nothing but exact equality
}

Window select_inliers(std::span<double> vals, int max_excluded, const Tolerance& tol) {
  Window w;
  const std::size_t n = vals.size();
  if (n == 0) return w;
  if (max_excluded <= 0 || n == 1) {
    const auto [mn, mx] = std::minmax_element(vals.begin(), vals.end());
    w.lo = *mn;
    w.hi = *mx;
    w.ok = tol.fits(w.lo, w.hi);
    return w;
  }
  {  // the common case: everything fits, nothing to exclude
    const auto [mn, mx] = std::minmax_element(vals.begin(), vals.end());
    if (tol.fits(*mn, *mx)) {
      w.lo = *mn;
      w.hi = *mx;
      w.ok = true;
      return w;
    }
  }
  const std::size_t e = std::min<std::size_t>(static_cast<std::size_t>(max_excluded), n - 1);
  // Only the e+1 smallest and e+1 largest values can bound the window.
  thread_local std::vector<double> small, large;  // ascending; descending (reused buffers)
  if (n <= 2 * e + 2) {
    std::sort(vals.begin(), vals.end());
    small.assign(vals.begin(), vals.begin() + static_cast<std::ptrdiff_t>(e + 1));
    large.assign(vals.rbegin(), vals.rbegin() + static_cast<std::ptrdiff_t>(e + 1));
  } else {
    const auto b = vals.begin();
    const auto m = static_cast<std::ptrdiff_t>(e + 1);
    std::nth_element(b, b + m - 1, vals.end());
    std::sort(b, b + m);
    small.assign(b, b + m);
    std::nth_element(b + m, vals.end() - m, vals.end());
    std::sort(vals.end() - m, vals.end());
    large.assign(vals.rbegin(), vals.rbegin() + m);
  }
  for (std::size_t t = 0; t <= e; ++t) {
    bool found = false;
    for (std::size_t i = 0; i <= t; ++i) {
      const std::size_t j = t - i;
      if (i + j >= n) continue;
      const double lo = small[i], hi = large[j];
      if (lo > hi || !tol.fits(lo, hi)) continue;
      if (!found || hi - lo < w.hi - w.lo) {
        w.lo = lo;
        w.hi = hi;
      }
      found = true;
    }
    if (found) {
      w.ok = true;
      int out = 0;  // duplicates of a bound count as inliers
      for (std::size_t i = 0; i < e + 1; ++i) out += small[i] < w.lo;
      for (std::size_t j = 0; j < e + 1; ++j) out += large[j] > w.hi;
      w.excluded = out;
      return w;
    }
  }
  return w;
}

namespace {

// A partition of the P*P pairs: clusters are contiguous segments of a permutation.
struct Partition {
  std::vector<int> order;
  std::vector<std::pair<std::size_t, std::size_t>> segs;  // [begin, end) into order
};

// Order-preserving map of a double to an unsigned key (negative values flipped).
inline std::uint64_t sort_key(double d) {
  std::uint64_t b = 0;
  std::memcpy(&b, &d, sizeof b);
  return (b >> 63) ? ~b : (b | 0x8000000000000000ull);
}

struct Keyed {
  std::uint64_t key;
  int idx;
};

// LSD radix sort on 11-bit digits; digits that are equal for every key (most of them, for
// delays of similar magnitude) are skipped. Stable.
void radix_sort(std::vector<Keyed>& a, std::vector<Keyed>& tmp) {
  constexpr int kBits = 11, kPasses = 6;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  std::vector<std::size_t> count(kBuckets * kPasses, 0);
  for (const Keyed& x : a)
    for (int p = 0; p < kPasses; ++p) ++count[static_cast<std::size_t>(p) * kBuckets + ((x.key >> (p * kBits)) & (kBuckets - 1))];
  tmp.resize(a.size());
  for (int p = 0; p < kPasses; ++p) {
    std::size_t* c = count.data() + static_cast<std::size_t>(p) * kBuckets;
    if (std::any_of(c, c + kBuckets, [&](std::size_t n) { return n == a.size(); })) continue;  // one digit value
    std::size_t sum = 0;
    for (std::size_t q = 0; q < kBuckets; ++q) sum += std::exchange(c[q], sum);
    for (const Keyed& x : a) tmp[c[(x.key >> (p * kBits)) & (kBuckets - 1)]++] = x;
    a.swap(tmp);
  }
}

// Sorts order[b, e) by value. Sorting (key, index) records in a contiguous buffer avoids a cache
// miss per comparison; large ranges use the radix sort.
void sort_by_value(std::vector<int>& order, std::size_t b, std::size_t e, const double* v) {
  thread_local std::vector<Keyed> buf, tmp;
  buf.resize(e - b);
  for (std::size_t q = b; q < e; ++q) buf[q - b] = {sort_key(v[order[q]]), order[q]};
  if (e - b >= 4096) {
    radix_sort(buf, tmp);
  } else {
    std::sort(buf.begin(), buf.end(), [](const Keyed& x, const Keyed& y) { return x.key < y.key || (x.key == y.key && x.idx < y.idx); });
  }
  for (std::size_t q = b; q < e; ++q) order[q] = buf[q - b].idx;
}

// Greedy cut of order[b, e) (sorted by v): maximal runs that fit. Optimal in one dimension
// because fits() is monotone.
// Cuts sorted values into runs that fit `tol`. A step between neighbours that does not fit `gap`
// (the value bound) always starts a new run: separate levels stay separate clusters. When a run
// outgrows `tol` it is cut at its widest step, not at the arbitrary point where it overflowed, so
// a level of noisy values is not split in its middle. Every run fits `tol` (the rules only need
// that), whatever the cut points.
void cut_sorted(const std::vector<int>& order, std::size_t b, std::size_t e, const double* v, const Tolerance& tol,
                const Tolerance& gap, std::vector<std::pair<std::size_t, std::size_t>>& out) {
  const auto step = [&](std::size_t t) {  // relative or absolute size of the step before t
    const double lo = v[order[t - 1]], hi = v[order[t]];
    return lo > 0 ? (hi - lo) / lo : hi - lo;
  };
  std::size_t s = b;
  for (std::size_t q = b + 1; q < e; ++q) {
    if (!gap.fits(v[order[q - 1]], v[order[q]])) {
      out.emplace_back(s, q);
      s = q;
      continue;
    }
    while (!tol.fits(v[order[s]], v[order[q]])) {
      std::size_t best = q;
      double widest = -1;
      for (std::size_t t = s + 1; t <= q; ++t)
        if (const double w = step(t); w > widest) {
          widest = w;
          best = t;
        }
      out.emplace_back(s, best);
      s = best;
    }
  }
  if (s < e) out.emplace_back(s, e);
}

Partition fresh_partition(const double* v, std::size_t M, const Tolerance& tol, const Tolerance& gap) {
  Partition p;
  p.order.resize(M);
  std::iota(p.order.begin(), p.order.end(), 0);
  sort_by_value(p.order, 0, M, v);
  cut_sorted(p.order, 0, M, v, tol, gap, p.segs);
  return p;
}

bool segment_valid(const Partition& p, std::size_t s, const double* v, int exceptions, const Tolerance& tol,
                   std::vector<double>& scratch) {
  const auto [b, e] = p.segs[s];
  double lo = v[p.order[b]], hi = lo;
  for (std::size_t q = b + 1; q < e; ++q) {
    const double x = v[p.order[q]];
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (tol.fits(lo, hi)) return true;
  if (exceptions == 0) return false;
  scratch.resize(e - b);
  for (std::size_t q = b; q < e; ++q) scratch[q - b] = v[p.order[q]];
  return select_inliers(scratch, exceptions, tol).ok;
}

// Estimated bytes of one region's deflated info(n, x, x): deflate codes each run of equal
// offsets in a few bytes, plus HDF5's per-chunk overhead.
double info_cost(const Partition& p, std::size_t P, std::vector<int>& scratch) {
  const std::size_t M = P * P;
  scratch.resize(M);
  for (std::size_t s = 0; s < p.segs.size(); ++s)
    for (std::size_t q = p.segs[s].first; q < p.segs[s].second; ++q) scratch[static_cast<std::size_t>(p.order[q])] = static_cast<int>(s);
  std::size_t runs = 1;
  for (std::size_t q = 1; q < M; ++q) runs += scratch[q] != scratch[q - 1];
  const std::size_t rows = std::clamp<std::size_t>(16384 / P, 1, P);
  const std::size_t chunks = (P + rows - 1) / rows;
  return 3.0 * static_cast<double>(runs) + 64.0 * static_cast<double>(chunks);
}

void check_finite(const Dataset& in, const Matrix& m, std::size_t k) {
  const auto& v = m.values();
  for (std::size_t q = 0; q < v.size(); ++q)
    if (!std::isfinite(v[q])) {
      const auto P = static_cast<std::size_t>(m.ranks());
      throw FileError(in.source(), fmt::format("matrix {} (message length {} bytes) holds {} at pair ({}, {}); "
                                               "clustering needs finite delays",
                                               k, in.lengths()[k], v[q], q / P, q % P));
    }
}

class Compressor {
 public:
  Compressor(const Dataset& in, const Options& o)
      : in_(in), o_(o), tol_(o.cluster_threshold(), o.relative), vtol_(o.threshold, o.relative) {
    P_ = static_cast<std::size_t>(in.ranks());
    M_ = P_ * P_;
    r_.content.info = in.info();
    r_.content.lengths = in.lengths();
    if (o.threshold > 0) {
      // Every value gets a quantised correction against its cluster centre; the step makes the
      // rounding error at most the threshold (checked per value below).
      r_.content.residual.assign(in.count() * M_, 0);
      r_.content.residual_relative = o.relative;
      r_.content.residual_step = (o.relative ? 2.0 * std::log1p(o.threshold) : 2.0 * o.threshold) * (1.0 - 1e-9);
    }
  }

  Result run() {
    const std::size_t N = in_.count();
    const auto K = static_cast<std::size_t>(o_.min_region);
    if (N == 0) throw FileError(in_.source(), "holds no matrices; nothing to cluster");
    if (N < K)
      throw UsageError(fmt::format("{} holds only {} message length(s) but --min-region {} needs at least {}; "
                                   "use --min-region {} to store them as one region",
                                   in_.source().string(), N, K, K, N));
    Matrix m = in_.matrix(0);
    check_finite(in_, m, 0);
    Partition part = fresh_partition(m.data(), M_, tol_, vtol_);
    std::size_t k0 = 0;
    double last_cost_new = 0;
    std::vector<double> scratch;
    std::vector<int> iscratch;
    std::vector<std::size_t> invalid;
    std::vector<std::pair<std::size_t, std::size_t>> subs;
    for (std::size_t k = 1; k < N; ++k) {
      m = in_.matrix(k);
      check_finite(in_, m, k);
      const double* v = m.data();
      invalid.clear();
      for (std::size_t s = 0; s < part.segs.size(); ++s)
        if (!segment_valid(part, s, v, o_.exceptions, tol_, scratch)) invalid.push_back(s);
      if (invalid.empty()) continue;
      // Sorting inside a segment does not change the partition, so it is safe to do tentatively.
      subs.clear();
      for (const std::size_t s : invalid) {
        sort_by_value(part.order, part.segs[s].first, part.segs[s].second, v);
        cut_sorted(part.order, part.segs[s].first, part.segs[s].second, v, tol_, vtol_, subs);
      }
      const double C = static_cast<double>(part.segs.size());
      const double C2 = C - static_cast<double>(invalid.size()) + static_cast<double>(subs.size());
      const bool can_end = k - k0 >= K && N - k >= K;
      const double cost_continue = 8.0 * (C2 - C) * static_cast<double>(k - k0) + 8.0 * C2;
      // A fresh partition costs a full sort; skip it while continuing is far cheaper than the
      // last fresh region was (the decision only affects size, never the rules).
      if (can_end && cost_continue > 0.5 * last_cost_new) {
        Partition fresh = fresh_partition(v, M_, tol_, vtol_);
        const double cost_new = info_cost(fresh, P_, iscratch) + 8.0 * static_cast<double>(fresh.segs.size());
        last_cost_new = cost_new;
        if (cost_continue > cost_new) {
          finish_region(part, k0, k);
          part = std::move(fresh);
          k0 = k;
          continue;
        }
      }
      // Split: replace every invalid segment by its pieces (each fits at k, and at every earlier
      // length of the region because it is a subset of a cluster that did).
      for (std::size_t q = 0; q < invalid.size(); ++q) part.segs[invalid[q]] = {0, 0};
      part.segs.erase(std::remove(part.segs.begin(), part.segs.end(), std::pair<std::size_t, std::size_t>{0, 0}),
                      part.segs.end());
      part.segs.insert(part.segs.end(), subs.begin(), subs.end());
    }
    finish_region(part, k0, N);
    if (!any_residual_) r_.content.residual.clear();
    ErrorStats& e = r_.errors;
    e.mean_absolute = e.cells ? sum_abs_ / static_cast<double>(e.cells) : 0.0;
    e.mean_relative = e.nonzero_cells ? sum_rel_ / static_cast<double>(e.nonzero_cells) : 0.0;
    return std::move(r_);
  }

 private:
  // Second pass over the matrices of a closed region: cluster numbers, stored means, errors.
  void finish_region(const Partition& part, std::size_t k0, std::size_t k1) {
    Region reg;
    reg.start = k0;
    reg.end = k1;
    const std::size_t L = k1 - k0;
    std::vector<int> seg_of(M_);
    for (std::size_t s = 0; s < part.segs.size(); ++s)
      for (std::size_t q = part.segs[s].first; q < part.segs[s].second; ++q) seg_of[static_cast<std::size_t>(part.order[q])] = static_cast<int>(s);
    // Number clusters by first appearance in row-major order: info then reads naturally.
    std::vector<int> number(part.segs.size(), -1);
    reg.cluster_of.resize(M_);
    int next = 0;
    for (std::size_t p = 0; p < M_; ++p) {
      int& c = number[static_cast<std::size_t>(seg_of[p])];
      if (c < 0) c = next++;
      reg.cluster_of[p] = c;
    }
    reg.clusters = next;
    auto& data = r_.content.data;
    const std::size_t base = data.size();
    if (base + static_cast<std::size_t>(next) * L > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw Error("clustered data would exceed 2^31 values; the data does not cluster at this threshold");
    data.resize(base + static_cast<std::size_t>(next) * L);
    r_.content.region_start.push_back(static_cast<int>(k0));
    auto& offs = r_.content.offsets;
    const std::size_t o0 = offs.size();
    offs.resize(o0 + M_);
    for (std::size_t p = 0; p < M_; ++p) offs[o0 + p] = static_cast<int>(base + static_cast<std::size_t>(reg.cluster_of[p]) * L);

    std::vector<double> scratch;
    ErrorStats& e = r_.errors;
    for (std::size_t k = k0; k < k1; ++k) {
      const Matrix m = in_.matrix(k);
      const double* v = m.data();
      const int allowed = k == k0 ? 0 : o_.exceptions;
      for (std::size_t s = 0; s < part.segs.size(); ++s) {
        const auto [b, en] = part.segs[s];
        scratch.resize(en - b);
        for (std::size_t q = b; q < en; ++q) scratch[q - b] = v[part.order[q]];
        const Window w = select_inliers(scratch, allowed, tol_);
        if (!w.ok) throw Error("internal: cluster lost its validity between the passes");
        double sum = 0;
        std::size_t cnt = 0;
        for (std::size_t q = b; q < en; ++q) {
          const double x = v[part.order[q]];
          if (x >= w.lo && x <= w.hi) {
            sum += x;
            ++cnt;
          }
        }
        const double mean = std::clamp(sum / static_cast<double>(cnt), w.lo, w.hi);
        const auto c = static_cast<std::size_t>(number[s]);
        data[base + c * L + (k - k0)] = mean;
        for (std::size_t q = b; q < en; ++q) {
          const double x = v[part.order[q]];
          const double rec = corrected(mean, x, k * M_ + static_cast<std::size_t>(part.order[q]));
          const double err = std::fabs(rec - x);
          ++e.cells;
          sum_abs_ += err;
          e.max_absolute = std::max(e.max_absolute, err);
          if (x != 0) {
            const double rel = err / std::fabs(x);
            ++e.nonzero_cells;
            sum_rel_ += rel;
            e.max_relative = std::max(e.max_relative, rel);
          }
          if (!vtol_.within(x, rec)) ++e.beyond;
          if (x < w.lo || x > w.hi) ++e.exceptions;
        }
      }
    }
    r_.cluster_instances += static_cast<std::size_t>(next);
    r_.regions.push_back(std::move(reg));
  }

  // Chooses the residual of the value x in cell `cell` against its cluster centre c, stores it and
  // returns the value a reader reconstructs. The residual with the smallest error among the
  // rounded one and its neighbours is kept; a value no int16 residual brings within the
  // threshold (a sign change, an extreme outlier) keeps the nearest one and is counted beyond.
  double corrected(double c, double x, std::size_t cell) {
    auto& res = r_.content.residual;
    if (res.empty() || x == c) return c;
    const double step = r_.content.residual_step;
    double ideal;
    if (o_.relative) {
      if (!(c != 0 && (x > 0) == (c > 0) && x != 0)) return c;
      ideal = std::log(x / c) / step;
    } else {
      ideal = (x - c) / step;
    }
    constexpr double kMax = std::numeric_limits<std::int16_t>::max();
    const double r0 = std::clamp(std::round(ideal), -kMax, kMax);
    int best = 0;
    double best_err = std::fabs(c - x);
    for (const double cand : {r0, r0 - 1, r0 + 1}) {
      if (cand < -kMax || cand > kMax) continue;
      const double err = std::fabs(apply_residual(c, static_cast<int>(cand), step, o_.relative) - x);
      if (err < best_err) {
        best_err = err;
        best = static_cast<int>(cand);
      }
    }
    if (best == 0) return c;
    res[cell] = static_cast<std::int16_t>(best);
    any_residual_ = true;
    return apply_residual(c, best, step, o_.relative);
  }

  const Dataset& in_;
  Options o_;
  Tolerance tol_;   // clustering (cluster_factor x threshold)
  Tolerance vtol_;  // the bound every reconstructed value keeps
  bool any_residual_ = false;
  std::size_t P_ = 0, M_ = 0;
  Result r_;
  double sum_abs_ = 0, sum_rel_ = 0;
};

}  // namespace

Result compress(const Dataset& in, const Options& o) {
  o.validate();
  if (in.ranks() <= 0) throw FileError(in.source(), "holds no ranks");
  if (static_cast<std::uint64_t>(in.ranks()) * static_cast<std::uint64_t>(in.ranks()) >
      static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw UsageError(fmt::format("{} has {} ranks; network_cluster handles at most 46340 (P*P pairs must fit "
                                 "the file's int offsets)", in.source().string(), in.ranks()));
  return Compressor(in, o).run();
}

}  // namespace nt::cluster
