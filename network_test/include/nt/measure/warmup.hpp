// The warm-up that stops when the pair is warm (share/doc/network_test.md, "Warm-up"): a task's
// iterations 1, 2, ... each have a round trip q_i (timed on one rank's clock); its R samples are
// the iterations from the first s > min_warmup whose round trip agrees with the next one's, or
// from W + 1 when none of the first W does (--warmup W is the most warm-up iterations). With
// W = 0 the samples are the first R iterations, as before.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace nt::measure {

// Two round trips agree when they differ by at most this share of the smaller plus kWarmSlack.
inline constexpr double kWarmTolerance = 0.10;
inline constexpr double kWarmSlack = 0.25e-6;  // seconds: the clock's and the poll's jitter

class WarmupRule {
 public:
  // max_warmup: --warmup (W); samples: R; min_warmup: iterations that are never samples (1 at a
  // pair's first task, 0 after).
  WarmupRule(int max_warmup, int samples, int min_warmup)
      : W_(std::max(0, max_warmup)), R_(std::max(1, samples)), min_(std::max(0, min_warmup)) {}
  static bool agree(double a, double b) {
    return std::abs(a - b) <= kWarmTolerance * std::min(a, b) + kWarmSlack;
  }
  // The round trip of the next iteration; true when the task has its samples (no more iterations).
  bool add(double q) {
    q_.push_back(q);
    const int i = static_cast<int>(q_.size());
    if (s_ == 0) {
      const int j = i - 1;  // does iteration j agree with iteration i = j + 1?
      if (j >= min_ + 1 && j <= W_ && agree(q_[static_cast<std::size_t>(j - 1)], q)) s_ = j;
      if (s_ == 0 && i >= W_ + 1) {
        s_ = W_ + 1;  // the cap: W warm-up iterations, as a fixed warm-up
        capped_ = W_ > min_;
      }
    }
    return s_ > 0 && i >= s_ + R_ - 1;
  }
  int first_sample() const { return s_ - 1; }   // 0-based index of the first sample iteration
  int warmups() const { return s_ - 1; }        // iterations before the samples
  int iterations() const { return static_cast<int>(q_.size()); }
  bool capped() const { return capped_; }       // no two round trips agreed within the cap
  int max_iterations() const { return W_ + R_ + 1; }

 private:
  int W_, R_, min_;
  int s_ = 0;  // 1-based first sample iteration (0: not known yet)
  bool capped_ = false;
  std::vector<double> q_;
};

}  // namespace nt::measure
