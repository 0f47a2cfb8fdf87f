// Gathered writing, the fallback when the ranks cannot write in parallel: rank 0 gathers every
// statistic (and every sample with --raw), one at a time, and appends them to its files.
#include <algorithm>
#include <vector>

#include "nt/matrix.hpp"
#include "sweep.hpp"

namespace nt::measure {

void Sweep::gather_and_write(std::size_t k, const long* flagged_all, std::size_t task_bytes) {
  const int P = c_.size;
  if (adaptive_) gather(runner(c_).store.used.data(), P, MPI_INT, used_gathered_.data(), "sample counts");
  if (raw_) {
    gather(runner(c_).store.values.data(), P * runner(c_).store.stride, MPI_DOUBLE, raw_gathered_.data(), "samples");
    gather(runner(c_).store.flags.data(), P * runner(c_).store.stride, MPI_UINT8_T, flags_gathered_.data(), "sample flags");
  }
  if (c_.rank == 0 && adaptive_) {
    used_record_.assign(PU_ * PU_, 0);
    for (std::size_t r = 0; r < PU_; ++r)
      for (std::size_t q = 0; q < PU_; ++q) {
        const auto [x, y] = cell(r, q);
        used_record_[x * PU_ + y] = used_gathered_[r * PU_ + q];
      }
  }
  // Rank 0's matrix of a gathered statistic (rows or columns of the ranks) in our orientation.
  auto oriented = [&](const std::vector<double>& g) {
    if (c_.spec.results_in_rows) return g;
    Matrix m(P);
    for (std::size_t r = 0; r < PU_; ++r)
      for (std::size_t q = 0; q < PU_; ++q) m.at(static_cast<int>(q), static_cast<int>(r)) = g[r * PU_ + q];
    return m.values();
  };
  std::vector<double> isolated;
  for (std::size_t i = 0; i < NS_; ++i) {
    if (c_.rank == 0) gathered_.resize(PU_ * PU_);
    if (retest_) {
      gather(isolated_.data() + i * PU_, P, MPI_DOUBLE, gathered_.data(), "isolated results");
      if (c_.rank == 0) isolated = oriented(gathered_);
    }
    gather(local_.data() + i * PU_, P, MPI_DOUBLE, gathered_.data(), "results");
    if (c_.rank != 0) continue;
    const auto t0 = host_seconds();
    for (auto& [stat, writer] : out_->stats) {
      if (stat != gather_order_[i] || writer.records() > k) continue;  // written by the interrupted run (--resume)
      writer.append(length_, oriented(gathered_), used_record_, {}, isolated);
    }
    cost_.write_seconds += host_seconds() - t0;
  }
  count_data(task_bytes);
  if (c_.rank != 0) return;
  if (counts_) counts_->push_back({length_, flagged_all[0], flagged_all[1], retested_});
  if (raw_ && out_->all && out_->all->records() <= k) write_raw_record();
  if (progress_) progress_->update(k, length_);
}

void Sweep::write_raw_record() {
  const auto t0 = host_seconds();
  raw_record_.assign(PU_ * PU_ * RU_, 0.0);
  flags_record_.assign(PU_ * PU_ * RU_, 0);
  for (std::size_t r = 0; r < PU_; ++r)
    for (std::size_t q = 0; q < PU_; ++q) {
      const auto [x, y] = cell(r, q);
      std::copy_n(raw_gathered_.data() + (r * PU_ + q) * RU_, RU_, raw_record_.data() + (x * PU_ + y) * RU_);
      std::copy_n(flags_gathered_.data() + (r * PU_ + q) * RU_, RU_, flags_record_.data() + (x * PU_ + y) * RU_);
    }
  out_->all->append(length_, raw_record_, {}, flags_record_);
  cost_.write_seconds += host_seconds() - t0;
}

}  // namespace nt::measure
