// The clustering algorithm: greedy regions over message lengths, clusters refined by splitting.
// See share/doc/cluster.md for the rules, the proof sketch and the complexity.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "nt/cluster/cluster.hpp"
#include "nt/error.hpp"
#include "nt/schedule.hpp"

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

namespace {

// The window of n values from their e+1 smallest (ascending) and e+1 largest (descending): only
// those can bound it. Prefers the fewest exclusions, then the narrowest window.
Window window_from_extremes(const std::vector<double>& small, const std::vector<double>& large, std::size_t n,
                            std::size_t e, const Tolerance& tol) {
  Window w;
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

// The window when nothing may be excluded, or when everything fits: [min, max].
Window whole_window(double mn, double mx, const Tolerance& tol) {
  Window w;
  w.lo = mn;
  w.hi = mx;
  w.ok = tol.fits(mn, mx);
  return w;
}

}  // namespace

Window select_inliers(std::span<double> vals, int max_excluded, const Tolerance& tol) {
  const std::size_t n = vals.size();
  if (n == 0) return {};
  const auto [mn, mx] = std::minmax_element(vals.begin(), vals.end());
  const Window all = whole_window(*mn, *mx, tol);
  if (max_excluded <= 0 || n == 1 || all.ok) return all;
  const std::size_t e = std::min<std::size_t>(static_cast<std::size_t>(max_excluded), n - 1);
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
  return window_from_extremes(small, large, n, e, tol);
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

// Stable LSD radix sort of order[b, e) by sort_key(v[index]) that computes the keys from v on
// every pass instead of holding records: 4 bytes per element (one index buffer). The same order as
// radix_sort on records, both being stable sorts by the same keys; slower (a gather per pass).
void radix_sort_indices(std::vector<int>& order, std::size_t b, std::size_t e, const double* v) {
  constexpr int kBits = 11, kPasses = 6;
  constexpr std::size_t kBuckets = std::size_t{1} << kBits;
  const std::size_t n = e - b;
  std::vector<std::size_t> count(kBuckets * kPasses, 0);
  for (std::size_t q = b; q < e; ++q) {
    const std::uint64_t key = sort_key(v[order[q]]);
    for (int p = 0; p < kPasses; ++p) ++count[static_cast<std::size_t>(p) * kBuckets + ((key >> (p * kBits)) & (kBuckets - 1))];
  }
  std::vector<int> tmp(n);
  int* src = order.data() + b;
  int* dst = tmp.data();
  for (int p = 0; p < kPasses; ++p) {
    std::size_t* c = count.data() + static_cast<std::size_t>(p) * kBuckets;
    if (std::any_of(c, c + kBuckets, [&](std::size_t k) { return k == n; })) continue;  // one digit value
    std::size_t sum = 0;
    for (std::size_t q = 0; q < kBuckets; ++q) sum += std::exchange(c[q], sum);
    for (std::size_t i = 0; i < n; ++i) dst[c[(sort_key(v[src[i]]) >> (p * kBits)) & (kBuckets - 1)]++] = src[i];
    std::swap(src, dst);
  }
  if (src != order.data() + b) std::copy(src, src + n, order.data() + b);
}

// Sorts order[b, e) by value. Sorting (key, index) records in a contiguous buffer avoids a cache
// miss per comparison; large ranges use the radix sort, ranges beyond `record_limit` the one
// without records (two record buffers would be 2 GB for the 67 M pairs of 8,192 ranks).
void sort_by_value(std::vector<int>& order, std::size_t b, std::size_t e, const double* v, std::size_t record_limit) {
  if (e - b > record_limit) return radix_sort_indices(order, b, e, v);
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

Partition fresh_partition(const double* v, std::size_t M, const Tolerance& tol, const Tolerance& gap,
                          std::size_t record_limit) {
  Partition p;
  p.order.resize(M);
  std::iota(p.order.begin(), p.order.end(), 0);
  sort_by_value(p.order, 0, M, v, record_limit);
  cut_sorted(p.order, 0, M, v, tol, gap, p.segs);
  return p;
}

// select_inliers over the values of segment s, v[order[b..e)]: copied for segments up to
// `copy_limit` values; for larger ones (whose copy could be as big as the matrix) the e+1 smallest
// and largest are kept in bounded heaps while reading the segment.
Window segment_window(const Partition& p, std::size_t s, const double* v, int max_excluded, const Tolerance& tol,
                      std::size_t copy_limit, std::vector<double>& scratch) {
  const auto [b, e] = p.segs[s];
  const std::size_t n = e - b;
  if (n <= copy_limit) {
    scratch.resize(n);
    for (std::size_t q = b; q < e; ++q) scratch[q - b] = v[p.order[q]];
    return select_inliers(scratch, max_excluded, tol);
  }
  double mn = v[p.order[b]], mx = mn;
  for (std::size_t q = b + 1; q < e; ++q) {
    mn = std::min(mn, v[p.order[q]]);
    mx = std::max(mx, v[p.order[q]]);
  }
  const Window all = whole_window(mn, mx, tol);
  if (max_excluded <= 0 || all.ok) return all;
  const std::size_t keep = std::min<std::size_t>(static_cast<std::size_t>(max_excluded), n - 1) + 1;
  std::vector<double> small, large;  // max-heap of the smallest, min-heap of the largest
  for (std::size_t q = b; q < e; ++q) {
    const double x = v[p.order[q]];
    if (small.size() < keep) {
      small.push_back(x);
      std::push_heap(small.begin(), small.end());
    } else if (x < small.front()) {
      std::pop_heap(small.begin(), small.end());
      small.back() = x;
      std::push_heap(small.begin(), small.end());
    }
    if (large.size() < keep) {
      large.push_back(x);
      std::push_heap(large.begin(), large.end(), std::greater<>());
    } else if (x > large.front()) {
      std::pop_heap(large.begin(), large.end(), std::greater<>());
      large.back() = x;
      std::push_heap(large.begin(), large.end(), std::greater<>());
    }
  }
  std::sort(small.begin(), small.end());
  std::sort(large.begin(), large.end(), std::greater<>());
  return window_from_extremes(small, large, n, keep - 1, tol);
}

bool segment_valid(const Partition& p, std::size_t s, const double* v, int exceptions, const Tolerance& tol,
                   std::size_t copy_limit, std::vector<double>& scratch) {
  const auto [b, e] = p.segs[s];
  double lo = v[p.order[b]], hi = lo;
  for (std::size_t q = b + 1; q < e; ++q) {
    const double x = v[p.order[q]];
    lo = std::min(lo, x);
    hi = std::max(hi, x);
  }
  if (tol.fits(lo, hi)) return true;
  if (exceptions == 0) return false;
  return segment_window(p, s, v, exceptions, tol, copy_limit, scratch).ok;
}

// The size model that decides where a region ends (it only affects the file's size, never the
// rules): estimated bytes of what a region stores.
constexpr double kRunBytes = 3.0;     // deflate codes a run of equal offsets of info(n, x, x) in about this many bytes
constexpr double kChunkBytes = 64.0;  // HDF5's overhead per chunk of info
constexpr double kValueBytes = 8.0;   // a value of data (a double)
constexpr double kFreshShare = 0.5;   // a fresh partition is tried once continuing costs more than this share of the last one

// Estimated bytes of one region's deflated info(n, x, x): its runs of equal offsets and its chunks.
double info_cost(const Partition& p, std::size_t P) {
  const std::size_t M = P * P;
  std::vector<int> scratch(M);
  for (std::size_t s = 0; s < p.segs.size(); ++s)
    for (std::size_t q = p.segs[s].first; q < p.segs[s].second; ++q) scratch[static_cast<std::size_t>(p.order[q])] = static_cast<int>(s);
  std::size_t runs = 1;
  for (std::size_t q = 1; q < M; ++q) runs += scratch[q] != scratch[q - 1];
  const std::size_t rows = std::clamp<std::size_t>(kInfoChunkCells / P, 1, P);
  const std::size_t chunks = (P + rows - 1) / rows;
  return kRunBytes * static_cast<double>(runs) + kChunkBytes * static_cast<double>(chunks);
}

void check_finite(const Dataset& in, const Matrix& m, std::size_t k) {
  const auto& v = m.values();
  for (std::size_t q = 0; q < v.size(); ++q)
    if (!std::isfinite(v[q])) {
      const auto P = static_cast<std::size_t>(m.ranks());
      // A sampled file (network_test --sample-pairs) is missing most cells by design: say so.
      const bool sampled = std::isnan(v[q]) && sampled_pairs(in.meta());
      throw FileError(in.source(), fmt::format("matrix {} (message length {} bytes) holds {} at pair ({}, {}); "
                                               "clustering needs finite delays{}",
                                               k, in.lengths()[k], v[q], q / P, q % P,
                                               sampled ? " (a --sample-pairs file: the cells between hosts not "
                                                         "sampled are missing; analyse it with network_analyze)"
                                                       : ""));
    }
}

class Compressor {
 public:
  Compressor(const Dataset& in, const Options& o, const CompressMemory& memory)
      : in_(in), o_(o), tol_(o.cluster_threshold(), o.relative), vtol_(o.threshold, o.relative), mem_(memory) {
    P_ = static_cast<std::size_t>(in.ranks());
    M_ = P_ * P_;
    r_.content.info = in.info();
    r_.content.lengths = in.lengths();
    const double cells = static_cast<double>(M_) * static_cast<double>(in.count());
    // The residuals of every matrix were the biggest part of compress's memory: big ones wait on disk.
    const auto dir_for = [&](double bytes) { return bytes > mem_.spill_bytes ? mem_.scratch_dir : std::filesystem::path(); };
    r_.content.offsets = Slabs<int>(M_, dir_for(4.0 * cells));
    if (o.threshold > 0) {
      // Every value gets a quantised correction against its cluster centre; the step makes the
      // rounding error at most the threshold (checked per value below).
      r_.content.residual = Slabs<std::int16_t>(M_, dir_for(2.0 * cells));
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
    Matrix m = read_matrix(0);
    Partition part = fresh_partition(m.data(), M_, tol_, vtol_, mem_.record_sort_limit);
    std::size_t k0 = 0;
    double last_cost_new = 0;
    std::vector<double> scratch;
    std::vector<std::size_t> invalid;
    std::vector<std::pair<std::size_t, std::size_t>> subs;
    for (std::size_t k = 1; k < N; ++k) {
      m = read_matrix(k);
      const double* v = m.data();
      invalid.clear();
      for (std::size_t s = 0; s < part.segs.size(); ++s)
        if (!segment_valid(part, s, v, o_.exceptions, tol_, mem_.copy_limit, scratch)) invalid.push_back(s);
      if (invalid.empty()) continue;
      // Sorting inside a segment does not change the partition, so it is safe to do tentatively.
      subs.clear();
      for (const std::size_t s : invalid) {
        sort_by_value(part.order, part.segs[s].first, part.segs[s].second, v, mem_.record_sort_limit);
        cut_sorted(part.order, part.segs[s].first, part.segs[s].second, v, tol_, vtol_, subs);
      }
      const double C = static_cast<double>(part.segs.size());
      const double C2 = C - static_cast<double>(invalid.size()) + static_cast<double>(subs.size());
      const bool can_end = k - k0 >= K && N - k >= K;
      const double cost_continue = kValueBytes * (C2 - C) * static_cast<double>(k - k0) + kValueBytes * C2;
      // A fresh partition costs a full sort; skip it while continuing is far cheaper than the
      // last fresh region was (the decision only affects size, never the rules).
      if (can_end && cost_continue > kFreshShare * last_cost_new) {
        Partition fresh = fresh_partition(v, M_, tol_, vtol_, mem_.record_sort_limit);
        const double cost_new = info_cost(fresh, P_) + kValueBytes * static_cast<double>(fresh.segs.size());
        last_cost_new = cost_new;
        if (cost_continue > cost_new) {
          m = Matrix();  // finish_region reads its matrices itself
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
    m = Matrix();
    finish_region(part, k0, N);
    if (!any_residual_) r_.content.residual = Slabs<std::int16_t>();
    ErrorStats& e = r_.errors;
    e.mean_absolute = e.cells ? sum_abs_ / static_cast<double>(e.cells) : 0.0;
    e.mean_relative = e.nonzero_cells ? sum_rel_ / static_cast<double>(e.nonzero_cells) : 0.0;
    return std::move(r_);
  }

 private:
  Matrix read_matrix(std::size_t k) const {
    Matrix m = in_.matrix(k);
    check_finite(in_, m, k);
    return m;
  }

  // The offset in data of every pair's cluster instance in a region of L matrices starting at
  // data[base], appended to the content's offsets; the clusters are numbered by first appearance in
  // row-major order (info then reads naturally). Returns the number of each segment.
  std::vector<int> number_clusters(const Partition& part, Region& reg, std::size_t base, std::size_t L) {
    std::vector<int> cell(M_);  // per pair: its segment, then its cluster, then its offset
    for (std::size_t s = 0; s < part.segs.size(); ++s)
      for (std::size_t q = part.segs[s].first; q < part.segs[s].second; ++q) cell[static_cast<std::size_t>(part.order[q])] = static_cast<int>(s);
    std::vector<int> number(part.segs.size(), -1);
    int next = 0;
    for (std::size_t p = 0; p < M_; ++p) {
      int& c = number[static_cast<std::size_t>(cell[p])];
      if (c < 0) c = next++;
      cell[p] = c;
    }
    reg.clusters = next;
    if (mem_.keep_cluster_of) reg.cluster_of = cell;
    if (base + static_cast<std::size_t>(next) * L > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw Error("clustered data would exceed 2^31 values; the data does not cluster at this threshold");
    for (std::size_t p = 0; p < M_; ++p) cell[p] = static_cast<int>(base + static_cast<std::size_t>(cell[p]) * L);
    r_.content.offsets.append(cell.data());
    return number;
  }

  // Second pass over the matrices of a closed region: cluster numbers, stored means, errors.
  void finish_region(const Partition& part, std::size_t k0, std::size_t k1) {
    Region reg;
    reg.start = k0;
    reg.end = k1;
    const std::size_t L = k1 - k0;
    auto& data = r_.content.data;
    const std::size_t base = data.size();
    const std::vector<int> number = number_clusters(part, reg, base, L);
    data.resize(base + static_cast<std::size_t>(reg.clusters) * L);
    r_.content.region_start.push_back(static_cast<int>(k0));

    std::vector<double> scratch;
    const bool residuals = r_.content.residual.slab_size() > 0;
    for (std::size_t k = k0; k < k1; ++k) {
      const Matrix m = in_.matrix(k);
      const double* v = m.data();
      if (residuals) residual_.assign(M_, 0);
      const int allowed = k == k0 ? 0 : o_.exceptions;
      for (std::size_t s = 0; s < part.segs.size(); ++s) {
        const Window w = segment_window(part, s, v, allowed, tol_, mem_.copy_limit, scratch);
        if (!w.ok) throw Error("internal: cluster lost its validity between the passes");
        const double mean = store_centre(part, s, v, w, data[base + static_cast<std::size_t>(number[s]) * L + (k - k0)]);
        account_errors(part, s, v, w, mean);
      }
      if (residuals) r_.content.residual.append(residual_.data());
    }
    r_.cluster_instances += static_cast<std::size_t>(reg.clusters);
    r_.regions.push_back(std::move(reg));
  }

  // The mean of segment s's values inside its window, clamped to it, into `centre`.
  static double store_centre(const Partition& part, std::size_t s, const double* v, const Window& w, double& centre) {
    double sum = 0;
    std::size_t cnt = 0;
    for (std::size_t q = part.segs[s].first; q < part.segs[s].second; ++q) {
      const double x = v[part.order[q]];
      if (x >= w.lo && x <= w.hi) {
        sum += x;
        ++cnt;
      }
    }
    centre = std::clamp(sum / static_cast<double>(cnt), w.lo, w.hi);
    return centre;
  }

  // The residual of every value of segment s against the cluster centre, and the errors of what a
  // reader reconstructs.
  void account_errors(const Partition& part, std::size_t s, const double* v, const Window& w, double mean) {
    ErrorStats& e = r_.errors;
    for (std::size_t q = part.segs[s].first; q < part.segs[s].second; ++q) {
      const double x = v[part.order[q]];
      const double rec = corrected(mean, x, static_cast<std::size_t>(part.order[q]));
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

  // Chooses the residual of the value x in cell `cell` against its cluster centre c, stores it and
  // returns the value a reader reconstructs. The residual with the smallest error among the
  // rounded one and its neighbours is kept; a value no int16 residual brings within the
  // threshold (a sign change, an extreme outlier) keeps the nearest one and is counted beyond.
  double corrected(double c, double x, std::size_t cell) {
    if (residual_.empty() || x == c) return c;
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
    residual_[cell] = static_cast<std::int16_t>(best);
    any_residual_ = true;
    return apply_residual(c, best, step, o_.relative);
  }

  const Dataset& in_;
  Options o_;
  Tolerance tol_;   // clustering (cluster_factor x threshold)
  Tolerance vtol_;  // the bound every reconstructed value keeps
  CompressMemory mem_;
  bool any_residual_ = false;
  std::size_t P_ = 0, M_ = 0;
  Result r_;
  std::vector<std::int16_t> residual_;  // the residuals of the matrix being finished
  double sum_abs_ = 0, sum_rel_ = 0;
};

}  // namespace

Result compress(const Dataset& in, const Options& o, const CompressMemory& memory) {
  o.validate();
  if (in.ranks() <= 0) throw FileError(in.source(), "holds no ranks");
  if (static_cast<std::uint64_t>(in.ranks()) * static_cast<std::uint64_t>(in.ranks()) >
      static_cast<std::uint64_t>(std::numeric_limits<int>::max()))
    throw UsageError(fmt::format("{} has {} ranks; network_cluster handles at most 46340 (P*P pairs must fit "
                                 "the file's int offsets)", in.source().string(), in.ranks()));
  return Compressor(in, o, memory).run();
}

}  // namespace nt::cluster
