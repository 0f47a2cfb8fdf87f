// The fits of a whole cube (fit_classes_and_pairs): per class of the topology its median curve,
// spread and protocol thresholds with a Hockney fit per range; per pair a fit over its class's
// ranges, summed up per class with medians streamed over the pairs (StreamedMedian).
#include "nt/analysis/fits.hpp"
#include "nt/stats.hpp"
#include "nt/analysis/ranks.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace nt::analysis {
namespace {
// Robust relative spread of positive delays: the robust sigma of their logarithms (l: scratch).
double log_spread(const std::vector<double>& x, std::vector<double>& l) {
  if (x.size() < 3) return kNaN;
  l.resize(x.size());
  for (std::size_t q = 0; q < x.size(); ++q) l[q] = std::log(x[q]);
  return population_spread(l).sigma;
}
}  // namespace

namespace {
// Order-preserving key of a finite double (-0 taken as +0).
std::uint64_t median_key(double x) {
  if (x == 0) x = 0.0;
  const auto b = std::bit_cast<std::uint64_t>(x);
  return (b >> 63) ? ~b : b | (std::uint64_t{1} << 63);
}
double from_key(std::uint64_t k) {
  return std::bit_cast<double>((k >> 63) ? k & ~(std::uint64_t{1} << 63) : ~k);
}
constexpr std::size_t kBins = std::size_t{1} << 16;
}  // namespace

void StreamedMedian::offer(double x) {
  if (done_ || !std::isfinite(x)) return;
  if (pass_ == 0) {
    ++n_;
    if (!first_overflow_) {
      all_.push_back(x);
      if (all_.size() <= cap_) return;
      first_overflow_ = true;  // too many: a histogram of the keys' top 16 bits instead
      hist0_.assign(kBins, 0);
      for (double y : all_) ++hist0_[median_key(y) >> 48];
      std::vector<double>().swap(all_);
      return;
    }
    ++hist0_[median_key(x) >> 48];
    return;
  }
  const std::uint64_t key = median_key(x);
  for (Target* t : {&lo_, &hi_})
    if (!t->found) offer_target(*t, key, x);
}

void StreamedMedian::offer_target(Target& t, std::uint64_t key, double x) {
  if ((key >> (64 - t.bits)) != t.prefix) return;
  if (t.collect) t.held.push_back(x);
  else ++t.hist[(key >> (48 - t.bits)) & (kBins - 1)];
}

// After a pass: the target's value when its values were collected, else the next 16 bits of its key.
void StreamedMedian::settle(Target& t) {
  if (t.found) return;
  if (t.collect) {
    auto mid = t.held.begin() + static_cast<std::ptrdiff_t>(t.rank);
    std::nth_element(t.held.begin(), mid, t.held.end());
    t.value = *mid;
    t.found = true;
    std::vector<double>().swap(t.held);
    return;
  }
  std::uint64_t before = 0;
  std::size_t bin = 0;
  while (before + t.hist[bin] <= t.rank) before += t.hist[bin++];
  t.prefix = (t.prefix << 16) | bin;
  t.bits += 16;
  t.rank -= before;
  const std::uint64_t count = t.hist[bin];
  if (t.bits == 64) {
    t.value = from_key(t.prefix);
    t.found = true;
    std::vector<std::uint64_t>().swap(t.hist);
    return;
  }
  t.collect = count <= cap_;
  if (t.collect) std::vector<std::uint64_t>().swap(t.hist);
  else std::fill(t.hist.begin(), t.hist.end(), 0);
}

void StreamedMedian::end_pass() {
  if (done_) return;
  if (pass_++ == 0) {
    if (!first_overflow_) {
      value_ = all_.empty() ? kNaN : median_inplace(all_);
      std::vector<double>().swap(all_);
      done_ = true;
      return;
    }
    // The two middle ranks (one for an odd count), located by the histogram of the top 16 bits.
    lo_.rank = n_ % 2 ? n_ / 2 : n_ / 2 - 1;
    hi_.rank = n_ / 2;
    for (Target* t : {&lo_, &hi_}) {
      t->hist = hist0_;
      t->bits = 0;
      t->prefix = 0;
      // settle() below reads the bin of the top 16 bits as "the next 16 bits" of an empty prefix
      t->collect = false;
      settle(*t);
      if (!t->collect && !t->found) t->hist.assign(kBins, 0);
    }
    std::vector<std::uint64_t>().swap(hist0_);
  } else {
    settle(lo_);
    settle(hi_);
  }
  if (lo_.found && hi_.found) {
    value_ = n_ % 2 ? hi_.value : lo_.value + (hi_.value - lo_.value) / 2.0;
    done_ = true;
  }
}

namespace {

// One ClassFit per class of the topology: name, pair count, a curve of NaN.
std::vector<ClassFit> empty_class_fits(const Topology& t, const std::vector<std::int8_t>& cls, std::size_t n_lengths) {
  const auto n_classes = static_cast<std::size_t>(t.class_count());
  std::vector<std::size_t> count(n_classes, 0);
  for (std::int8_t q : cls)
    if (q >= 0) ++count[static_cast<std::size_t>(q)];
  std::vector<ClassFit> fits(n_classes);
  for (std::size_t q = 0; q < n_classes; ++q) {
    fits[q].cls = static_cast<int>(q);
    fits[q].name = t.class_name(static_cast<int>(q));
    fits[q].pairs = count[q];
    fits[q].curve.assign(n_lengths, kNaN);
  }
  return fits;
}

// Per length and class: the median curve (into fits), the spread of the pairs and the deviation's
// share (NaN where the class has no delay at that length); one length at a time, the populations'
// samples taken in two scans of the matrix instead of held. Then each class's noise: the median
// spread over the lengths, or the median deviation share when larger.
void measure_class_curves(const Cube& c, const std::vector<std::int8_t>& cls, const Cube* deviation,
                          std::vector<ClassFit>& fits) {
  const auto N = static_cast<std::size_t>(c.P), NC = fits.size();
  const std::size_t K = c.count();
  const bool dev_ok = deviation && deviation->P == c.P && deviation->count() == K;
  std::vector<double> spread_at(K * NC, kNaN), dev_at(K * NC, kNaN);
  std::vector<float> buf, dbuf;
  std::vector<double> scratch;
  for (std::size_t k = 0; k < K; ++k) {
    const float* delays = c.slice(k, buf);
    const float* devs = dev_ok ? deviation->slice(k, dbuf) : nullptr;
    auto bucket = population_samples(NC, [&](auto&& take) {
      for (std::size_t x = 0; x < N * N; ++x)
        if (cls[x] >= 0 && Cube::usable(delays[x]))
          take(static_cast<std::size_t>(cls[x]), static_cast<double>(delays[x]));
    });
    std::vector<std::vector<double>> dev_bucket(NC);
    if (devs)
      dev_bucket = population_samples(NC, [&](auto&& take) {
        for (std::size_t x = 0; x < N * N; ++x) {
          if (cls[x] < 0 || !Cube::usable(delays[x])) continue;
          const double dev = devs[x];
          if (std::isfinite(dev) && dev >= 0)
            take(static_cast<std::size_t>(cls[x]), dev / static_cast<double>(delays[x]));
        }
      });
    for (std::size_t q = 0; q < NC; ++q) {
      auto& samples = bucket[q];
      if (samples.empty()) continue;
      fits[q].curve[k] = population_median(samples);
      spread_at[k * NC + q] = log_spread(samples, scratch);
      if (!dev_bucket[q].empty()) dev_at[k * NC + q] = population_median(dev_bucket[q]);
    }
  }
  std::vector<std::vector<double>> spread(NC), dev_rel(NC);
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t q = 0; q < NC; ++q) {
      if (std::isfinite(spread_at[k * NC + q])) spread[q].push_back(spread_at[k * NC + q]);
      if (std::isfinite(dev_at[k * NC + q])) dev_rel[q].push_back(dev_at[k * NC + q]);
    }
  for (std::size_t q = 0; q < NC; ++q) {
    double noise = 0;
    if (!spread[q].empty()) noise = finite_median(spread[q]);
    if (!dev_rel[q].empty()) noise = std::max(noise, finite_median(dev_rel[q]));
    fits[q].noise = std::isfinite(noise) ? noise : 0.0;
  }
}

// Each class's protocol thresholds in its curve, and a Hockney fit of the curve between them.
void fit_class_ranges(const std::vector<std::int64_t>& lengths, const std::vector<double>& mlen,
                      const ThresholdOptions& opt, std::vector<ClassFit>& fits) {
  const std::size_t K = lengths.size();
  for (auto& fit : fits) {
    if (fit.pairs == 0) continue;
    fit.thresholds = find_thresholds(lengths, fit.curve, opt, fit.noise);
    auto add_range = [&](std::size_t from, std::size_t to) {
      if (from >= to) return;
      RangeFit range;
      range.k0 = from;
      range.k1 = to;
      range.from = lengths[from];
      range.to = lengths[to - 1];
      range.fit = fit_hockney(std::span(mlen).subspan(from, to - from),
                              std::span<const double>(fit.curve).subspan(from, to - from));
      fit.ranges.push_back(range);
    };
    std::size_t k0 = 0;
    for (const auto& threshold : fit.thresholds) {
      std::size_t kb = k0;
      while (kb < K && lengths[kb] < threshold.length) ++kb;
      add_range(k0, kb);
      k0 = kb;
    }
    add_range(k0, K);
  }
}

// The class statistics over the pair fits of each class and range: counts and min/max in the
// first pass, the streamed medians of ts, tw, r2 and rel_rms in every pass until they are known.
struct PairFitStatistics {
  std::vector<std::vector<ClassFit::Spread>> spread;                 // [class][range]
  std::vector<std::vector<std::array<StreamedMedian, 4>>> medians;   // [class][range][ts, tw, r2, rel_rms]
  std::vector<std::vector<std::array<double, 4>>> bounds;            // min and max of ts and tw

  explicit PairFitStatistics(const std::vector<ClassFit>& fits) : spread(fits.size()), medians(fits.size()),
                                                                   bounds(fits.size()) {
    // Values held per median: 4M (32 MB) with the default blocks; NT_ANALYZE_BLOCK_BYTES=4096
    // gives 128, so that the tests take the several-pass path on small files.
    const std::size_t cap = std::max<std::size_t>(64, block_bytes() / 32);
    for (std::size_t q = 0; q < fits.size(); ++q) {
      spread[q].resize(fits[q].ranges.size());
      medians[q].assign(fits[q].ranges.size(),
                        {StreamedMedian(cap), StreamedMedian(cap), StreamedMedian(cap), StreamedMedian(cap)});
      bounds[q].assign(fits[q].ranges.size(), {kNaN, kNaN, kNaN, kNaN});
    }
  }

  void take(std::size_t q, std::size_t g, const LineFit& fit, bool first_pass) {
    if (!fit.ok()) return;
    if (first_pass) {
      auto& counts = spread[q][g];
      ++counts.fitted;
      if (!fit.ts_identifiable) ++counts.ts_unidentifiable;
      if (!fit.tw_identifiable) ++counts.tw_unidentifiable;
      auto& range = bounds[q][g];
      if (std::isfinite(fit.ts)) {
        range[0] = std::isnan(range[0]) ? fit.ts : std::min(range[0], fit.ts);
        range[1] = std::isnan(range[1]) ? fit.ts : std::max(range[1], fit.ts);
      }
      if (std::isfinite(fit.tw)) {
        range[2] = std::isnan(range[2]) ? fit.tw : std::min(range[2], fit.tw);
        range[3] = std::isnan(range[3]) ? fit.tw : std::max(range[3], fit.tw);
      }
    }
    auto& median = medians[q][g];
    median[0].offer(fit.ts);
    median[1].offer(fit.tw);
    median[2].offer(fit.r2);
    median[3].offer(fit.rel_rms);
  }

  // Ends a pass of every median; true once all of them are known.
  bool end_pass() {
    bool all_done = true;
    for (auto& of_class : medians)
      for (auto& of_range : of_class)
        for (auto& median : of_range) {
          median.end_pass();
          all_done = all_done && median.done();
        }
    return all_done;
  }

  // The spread of class q's pair fits in each of its ranges.
  void finish(std::size_t q, ClassFit& fit) const {
    for (std::size_t g = 0; g < fit.ranges.size(); ++g) {
      ClassFit::Spread result = spread[q][g];
      const auto& range = bounds[q][g];
      const auto& median = medians[q][g];
      if (std::isfinite(range[0])) {
        result.ts_median = median[0].value();
        result.ts_min = range[0];
        result.ts_max = range[1];
      }
      if (std::isfinite(range[2])) {
        result.tw_median = median[1].value();
        result.tw_min = range[2];
        result.tw_max = range[3];
      } else {
        result.tw_median = result.tw_min = result.tw_max = kNaN;
      }
      if (result.fitted > 0) {
        result.r2_median = median[2].value();
        result.rel_rms_median = median[3].value();
      }
      fit.pair_spread.push_back(result);
    }
  }
};

// The Hockney fits of the pairs of senders r0..r1 over the ranges of their class
// ([(q*N + j)*max_ranges + range], q the sender's index in the block), senders in parallel.
void fit_pair_block(const Cube& c, const std::vector<std::int8_t>& cls, const std::vector<ClassFit>& fits,
                    const std::vector<double>& mlen, int r0, int r1, std::size_t max_ranges,
                    std::vector<std::vector<float>>& bufs, std::vector<LineFit>& block_fits) {
  const auto N = static_cast<std::size_t>(c.P);
  const std::size_t K = c.count();
  std::vector<const float*> rows(K);
  for (std::size_t k = 0; k < K; ++k) rows[k] = c.rows(k, r0, r1, bufs[k]);
  parallel_for(static_cast<std::size_t>(r1 - r0), [&](std::size_t q0, std::size_t q1) {
    std::vector<double> series(K);
    for (std::size_t q = q0; q < q1; ++q)
      for (std::size_t j = 0; j < N; ++j) {
        const std::size_t i = static_cast<std::size_t>(r0) + q;
        if (i == j) continue;
        for (std::size_t k = 0; k < K; ++k) series[k] = rows[k][q * N + j];
        const auto& ranges = fits[static_cast<std::size_t>(cls[i * N + j])].ranges;
        for (std::size_t g = 0; g < ranges.size(); ++g)
          block_fits[(q * N + j) * max_ranges + g] =
              fit_hockney(std::span(mlen).subspan(ranges[g].k0, ranges[g].k1 - ranges[g].k0),
                          std::span<const double>(series).subspan(ranges[g].k0, ranges[g].k1 - ranges[g].k0));
      }
  });
}

// Per pair fits over the ranges of its class, in blocks of senders (every length of a block read
// at a time, senders of a block in parallel); the class statistics over the pairs from them. A
// pass is repeated until the exact medians over the pairs are known (one pass unless a class has
// more than 4M pairs). The pairs' fits into `pairs` when keep_pairs.
PairFitStatistics fit_pairs(const Cube& c, const std::vector<std::int8_t>& cls, const std::vector<ClassFit>& fits,
                            const std::vector<double>& mlen, bool keep_pairs, std::vector<PairFit>& pairs) {
  const int P = c.P;
  const auto N = static_cast<std::size_t>(P);
  const std::size_t K = c.count();
  std::size_t max_ranges = 1;
  for (const auto& fit : fits) max_ranges = std::max(max_ranges, fit.ranges.size());
  if (keep_pairs) pairs.resize(N * (N - 1));
  PairFitStatistics stats(fits);
  const int rb = rows_per_block(P, N * (K * sizeof(float) + max_ranges * sizeof(LineFit)));
  std::vector<std::vector<float>> bufs(K);
  std::vector<LineFit> block_fits;
  for (int pass = 0;; ++pass) {
    for (int r0 = 0; r0 < P; r0 += rb) {
      const int r1 = std::min(P, r0 + rb);
      const auto nr = static_cast<std::size_t>(r1 - r0);
      // Under mpiexec the block's owner alone reads and fits it, then sends the fits; every rank
      // then takes them in the serial order (the streamed medians see the same sequence).
      const auto blk_no = static_cast<std::size_t>(r0 / rb);
      block_fits.assign(nr * N * max_ranges, LineFit{});
      if (owns_block(blk_no)) fit_pair_block(c, cls, fits, mlen, r0, r1, max_ranges, bufs, block_fits);
      share_block(blk_no, block_fits.data(), block_fits.size() * sizeof(LineFit));
      for (std::size_t q = 0; q < nr; ++q)
        for (std::size_t j = 0; j < N; ++j) {
          const std::size_t i = static_cast<std::size_t>(r0) + q;
          if (i == j) continue;
          const auto qc = static_cast<std::size_t>(cls[i * N + j]);
          const std::size_t n_ranges = fits[qc].ranges.size();
          const LineFit* of_pair = &block_fits[(q * N + j) * max_ranges];
          if (pass == 0 && keep_pairs) {
            PairFit& pair = pairs[i * (N - 1) + (j < i ? j : j - 1)];
            pair.i = static_cast<int>(i);
            pair.j = static_cast<int>(j);
            pair.cls = static_cast<int>(qc);
            pair.ranges.assign(of_pair, of_pair + n_ranges);
          }
          for (std::size_t g = 0; g < n_ranges; ++g) stats.take(qc, g, of_pair[g], pass == 0);
        }
    }
    if (stats.end_pass()) break;
  }
  return stats;
}

}  // namespace

HockneyResult fit_classes_and_pairs(const Cube& c, const Topology& t, const ThresholdOptions& opt,
                                    const Cube* deviation, bool keep_pairs) {
  HockneyResult result;
  const std::vector<std::int8_t> cls = pair_classes(t);
  std::vector<double> mlen(c.count());
  for (std::size_t k = 0; k < c.count(); ++k) mlen[k] = static_cast<double>(c.lengths[k]);
  std::vector<ClassFit> fits = empty_class_fits(t, cls, c.count());
  measure_class_curves(c, cls, deviation, fits);
  fit_class_ranges(c.lengths, mlen, opt, fits);
  const auto stats = fit_pairs(c, cls, fits, mlen, keep_pairs, result.pairs);
  for (std::size_t q = 0; q < fits.size(); ++q) {
    if (fits[q].pairs == 0) continue;
    stats.finish(q, fits[q]);
    result.classes.push_back(std::move(fits[q]));
  }
  return result;
}

}  // namespace nt::analysis
