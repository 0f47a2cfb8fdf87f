// Gathered writing, the fallback when the ranks cannot write in parallel: rank 0 gathers every
// statistic (and every sample with --raw), one at a time, and appends them to its files.
#include <algorithm>
#include <vector>

#include "nt/matrix.hpp"
#include "nt/stats.hpp"
#include "sweep.hpp"

namespace nt::measure {

void Sweep::densify(std::vector<double>& stats, std::vector<int>& used, std::vector<double>& raw,
                    std::vector<std::uint8_t>& flags) const {
  const auto& store = runner(c_).store;
  stats.assign(NS_ * PU_, kNaN);
  for (std::size_t j = 0; j < L_; ++j)
    for (std::size_t i = 0; i < NS_; ++i) stats[i * PU_ + peer_at(j)] = local_[i * L_ + j];
  used.assign(PU_, 0);
  raw.assign(PU_ * RU_, kNaN);
  flags.assign(PU_ * RU_, kSampleNotTaken);
  for (std::size_t j = 0; j < store.used.size(); ++j) {  // every slot; q its peer
    const std::size_t q = store.peers.empty() ? j : static_cast<std::size_t>(store.peers[j]);
    used[q] = store.used[j];
    std::copy_n(store.values.data() + j * RU_, RU_, raw.data() + q * RU_);
    std::copy_n(store.flags.data() + j * RU_, RU_, flags.data() + q * RU_);
  }
}

void Sweep::gather_and_write(std::size_t k, const long* flagged_all, std::size_t task_bytes) {
  const int P = c_.size;
  // The line over every peer (a sparse one expanded: the fallback gathers P x P on rank 0 anyway).
  std::vector<double> dense_stats, dense_raw;
  std::vector<int> dense_used;
  std::vector<std::uint8_t> dense_flags;
  const auto& store = runner(c_).store;
  const double* stats = local_.data();
  const int* used = store.used.data();
  const double* values = store.values.data();
  const std::uint8_t* flags = store.flags.data();
  if (sparse_) {
    densify(dense_stats, dense_used, dense_raw, dense_flags);
    stats = dense_stats.data();
    used = dense_used.data();
    values = dense_raw.data();
    flags = dense_flags.data();
  }
  if (adaptive_) gather(used, P, MPI_INT, used_gathered_.data(), "sample counts");
  if (raw_) {
    gather(values, P * store.stride, MPI_DOUBLE, raw_gathered_.data(), "samples");
    gather(flags, P * store.stride, MPI_UINT8_T, flags_gathered_.data(), "sample flags");
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
    gather(stats + i * PU_, P, MPI_DOUBLE, gathered_.data(), "results");
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
