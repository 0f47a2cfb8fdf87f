// Parallel writing of a length: every rank's row of every file (a rank that holds a column
// exchanges it into rows first), written by its node's writer (or by itself with NT_WRITE=ranks)
// into the files of row_files.cpp, then each record committed by rank 0.
#include <algorithm>
#include <span>

#include <fmt/format.h>

#include "nt/stats.hpp"
#include "sweep.hpp"

namespace nt::measure {

void Sweep::rows_of_this_rank() {
  // This rank's row r: cell (r, q) for every q, of every statistic, its count and samples.
  row_stats_.resize(NS_ * PU_);
  row_used_.resize(adaptive_ ? PU_ : 0);
  row_raw_.resize(raw_ ? PU_ * RU_ : 0);
  row_flags_.resize(raw_ ? PU_ * RU_ : 0);
  row_isolated_.resize(retest_ ? NS_ * PU_ : 0);
  const auto& store = runner(c_).store;
  if (c_.spec.results_in_rows) {
    std::copy(local_.begin(), local_.end(), row_stats_.begin());
    if (retest_) std::copy(isolated_.begin(), isolated_.end(), row_isolated_.begin());
    if (adaptive_) std::copy(store.used.begin(), store.used.end(), row_used_.begin());
    if (raw_) {
      std::copy(store.values.begin(), store.values.end(), row_raw_.begin());
      std::copy(store.flags.begin(), store.flags.end(), row_flags_.begin());
    }
    return;
  }
  // Rank r holds column r: cell (q, r) for every q. To peer q: everything of cell (q, r)
  // packed as doubles (statistics, count, samples, flags, isolated statistics); from q: cell (r, q).
  const std::size_t iso = NS_ + 1 + (raw_ ? 2 * RU_ : 0), per = iso + (retest_ ? NS_ : 0);
  xfer_.resize(2 * per * PU_);
  double* send = xfer_.data();
  double* recv = xfer_.data() + per * PU_;
  for (std::size_t q = 0; q < PU_; ++q) {
    double* o = send + q * per;
    for (std::size_t i = 0; i < NS_; ++i) o[i] = local_[i * PU_ + q];
    o[NS_] = store.used[q];
    for (std::size_t i = 0; raw_ && i < RU_; ++i) {
      o[NS_ + 1 + i] = store.values[q * RU_ + i];
      o[NS_ + 1 + RU_ + i] = store.flags[q * RU_ + i];
    }
    for (std::size_t i = 0; retest_ && i < NS_; ++i) o[iso + i] = isolated_[i * PU_ + q];
  }
  MPI_Request req;
  MPI_Ialltoall(send, static_cast<int>(per), MPI_DOUBLE, recv, static_cast<int>(per), MPI_DOUBLE, c_.comm, &req);
  wait(req, "columns exchanged into rows");
  for (std::size_t q = 0; q < PU_; ++q) {
    const double* in = recv + q * per;
    for (std::size_t i = 0; i < NS_; ++i) row_stats_[i * PU_ + q] = in[i];
    if (adaptive_) row_used_[q] = static_cast<int>(in[NS_]);
    for (std::size_t i = 0; raw_ && i < RU_; ++i) {
      row_raw_[q * RU_ + i] = in[NS_ + 1 + i];
      row_flags_[q * RU_ + i] = static_cast<std::uint8_t>(in[NS_ + 1 + RU_ + i]);
    }
    for (std::size_t i = 0; retest_ && i < NS_; ++i) row_isolated_[i * PU_ + q] = in[iso + i];
  }
}

void Sweep::put_rows(std::size_t k, int x) {
  const auto t0 = host_seconds();
  for (std::size_t i = 0; i < rows_->stats.size(); ++i)  // open_outputs made them in this order
    rows_->stats[i].put_row(k, x, std::span<const double>(row_stats_.data() + i * PU_, PU_), row_used_, {},
                            retest_ ? std::span<const double>(row_isolated_.data() + i * PU_, PU_)
                                    : std::span<const double>());
  if (rows_->all) rows_->all->put_row(k, x, row_raw_, {}, row_flags_);
  cost_.write_seconds += host_seconds() - t0;
}

// Node rank m > 0 hands its row to the node's writer (node rank 0), which writes the rows of its
// node one after another into the buffers of its own: no buffer beyond one row on any rank.
void Sweep::row_to_writer() {
  MPI_Comm node = rows_->node;
  MPI_Request req[5];
  int n = 0;
  MPI_Isend(row_stats_.data(), static_cast<int>(row_stats_.size()), MPI_DOUBLE, 0, kTagRows, node, &req[n++]);
  if (retest_)
    MPI_Isend(row_isolated_.data(), static_cast<int>(row_isolated_.size()), MPI_DOUBLE, 0, kTagRows, node, &req[n++]);
  if (adaptive_) MPI_Isend(row_used_.data(), static_cast<int>(PU_), MPI_INT, 0, kTagRows, node, &req[n++]);
  if (raw_) {
    MPI_Isend(row_raw_.data(), static_cast<int>(row_raw_.size()), MPI_DOUBLE, 0, kTagRows, node, &req[n++]);
    MPI_Isend(row_flags_.data(), static_cast<int>(row_flags_.size()), MPI_UINT8_T, 0, kTagRows, node, &req[n++]);
  }
  for (int i = 0; i < n; ++i) wait(req[i], "node's writer to take its row");
}

void Sweep::rows_of_the_node(std::size_t k) {
  MPI_Comm node = rows_->node;
  for (std::size_t m = 1; m < rows_->members.size(); ++m) {
    const int from = static_cast<int>(m);
    MPI_Request req;
    MPI_Irecv(row_stats_.data(), static_cast<int>(row_stats_.size()), MPI_DOUBLE, from, kTagRows, node, &req);
    wait(req, "rows of its node");
    if (retest_) {
      MPI_Irecv(row_isolated_.data(), static_cast<int>(row_isolated_.size()), MPI_DOUBLE, from, kTagRows, node, &req);
      wait(req, "rows of its node");
    }
    if (adaptive_) {
      MPI_Irecv(row_used_.data(), static_cast<int>(PU_), MPI_INT, from, kTagRows, node, &req);
      wait(req, "rows of its node");
    }
    if (raw_) {
      MPI_Irecv(row_raw_.data(), static_cast<int>(row_raw_.size()), MPI_DOUBLE, from, kTagRows, node, &req);
      wait(req, "rows of its node");
      MPI_Irecv(row_flags_.data(), static_cast<int>(row_flags_.size()), MPI_UINT8_T, from, kTagRows, node, &req);
      wait(req, "rows of its node");
    }
    put_rows(k, rows_->members[m]);
  }
}

// Sparse (the schedules of sampled or host pairs): each rank packs the cells of its line it holds
// and its node's writer expands one row at a time, one statistic at a time: P doubles on the
// writer, never a row of every statistic on every rank.
void Sweep::pack_line(std::vector<double>& out) const {
  const auto& store = runner(c_).store;
  const std::size_t per = per_cell();
  out.resize(L_ * per);
  for (std::size_t j = 0; j < L_; ++j) {
    double* o = out.data() + j * per;
    const std::size_t q = peer_at(j), slot = store.slot(q);
    const bool held = slot != SampleStore::kNoSlot;
    o[0] = static_cast<double>(q);
    for (std::size_t i = 0; i < NS_; ++i) o[1 + i] = local_[i * L_ + j];
    o[1 + NS_] = held ? store.used[slot] : 0;
    for (std::size_t i = 0; raw_ && i < RU_; ++i) {
      o[2 + NS_ + i] = held ? store.values[slot * RU_ + i] : kNaN;
      o[2 + NS_ + RU_ + i] = held ? store.flags[slot * RU_ + i] : kSampleNotTaken;
    }
  }
}

void Sweep::put_packed_row(std::size_t k, int x, const double* in, std::size_t cells) {
  const std::size_t per = per_cell();
  row_stats_.resize(PU_);
  row_used_.assign(adaptive_ ? PU_ : 0, 0);
  row_raw_.assign(raw_ ? PU_ * RU_ : 0, kNaN);
  row_flags_.assign(raw_ ? PU_ * RU_ : 0, kSampleNotTaken);
  for (std::size_t j = 0; j < cells; ++j) {
    const double* c = in + j * per;
    const auto q = static_cast<std::size_t>(c[0]);
    if (adaptive_) row_used_[q] = static_cast<int>(c[1 + NS_]);
    for (std::size_t i = 0; raw_ && i < RU_; ++i) {
      row_raw_[q * RU_ + i] = c[2 + NS_ + i];
      row_flags_[q * RU_ + i] = static_cast<std::uint8_t>(c[2 + NS_ + RU_ + i]);
    }
  }
  const auto t0 = host_seconds();
  for (std::size_t i = 0; i < rows_->stats.size(); ++i) {  // open_outputs made them in this order
    std::fill(row_stats_.begin(), row_stats_.end(), kNaN);
    for (std::size_t j = 0; j < cells; ++j) row_stats_[static_cast<std::size_t>(in[j * per])] = in[j * per + 1 + i];
    rows_->stats[i].put_row(k, x, row_stats_, row_used_);
  }
  if (rows_->all) rows_->all->put_row(k, x, row_raw_, {}, row_flags_);
  cost_.write_seconds += host_seconds() - t0;
}

void Sweep::write_sparse_rows(std::size_t k) {
  pack_line(xfer_);
  const std::size_t per = per_cell();
  if (rows_->writer) put_packed_row(k, c_.rank, xfer_.data(), L_);
  if (rows_->per_rank) return;
  MPI_Comm node = rows_->node;
  if (rows_->node_rank != 0) {
    const int n = static_cast<int>(xfer_.size());
    MPI_Request req[2];
    MPI_Isend(&n, 1, MPI_INT, 0, kTagRows, node, &req[0]);
    MPI_Isend(xfer_.data(), n, MPI_DOUBLE, 0, kTagRows, node, &req[1]);
    for (auto& r : req) wait(r, "node's writer to take its row");
    return;
  }
  for (std::size_t m = 1; m < rows_->members.size(); ++m) {
    const int from = static_cast<int>(m);
    int n = 0;
    MPI_Request req;
    MPI_Irecv(&n, 1, MPI_INT, from, kTagRows, node, &req);
    wait(req, "rows of its node");
    xfer_.resize(static_cast<std::size_t>(n));
    MPI_Irecv(xfer_.data(), n, MPI_DOUBLE, from, kTagRows, node, &req);
    wait(req, "rows of its node");
    put_packed_row(k, rows_->members[m], xfer_.data(), static_cast<std::size_t>(n) / per);
  }
}

void Sweep::write_rows(std::size_t k, const long* flagged_all, std::size_t task_bytes) {
  // The writers write and their node's rank 0 syncs the rows of the node; after a barrier rank 0
  // commits each record (its length, then numrecs): a record counts only once all of its rows are
  // on disk.
  if (sparse_) {
    write_sparse_rows(k);
  } else {
    rows_of_this_rank();
    if (rows_->writer) put_rows(k, c_.rank);
    if (!rows_->per_rank) {
      if (rows_->node_rank != 0)
        row_to_writer();
      else
        rows_of_the_node(k);
    }
  }
  if (rows_->per_rank)
    idle_barrier(c_, rows_->node, idle_deadline(c_, ahead_),
                 fmt::format("timeout: rank {} waited too long for the rows of the other ranks of this node of "
                             "length {}", c_.rank, length_));
  if (rows_->node_rank == 0) {
    const auto t2 = host_seconds();
    for (auto& f : rows_->stats) f.sync();
    if (rows_->all) rows_->all->sync();
    cost_.write_seconds += host_seconds() - t2;
  }
  idle_barrier(c_, c_.comm, idle_deadline(c_, ahead_),
               fmt::format("timeout: rank {} waited too long for the rows of the other ranks of length {}", c_.rank,
                           length_));
  count_data(task_bytes);
  if (c_.rank != 0) return;
  const auto t1 = host_seconds();
  for (auto& f : rows_->stats) f.commit(k, length_);
  if (rows_->all) rows_->all->commit(k, length_);
  cost_.write_seconds += host_seconds() - t1;
  if (counts_) counts_->push_back({length_, flagged_all[0], flagged_all[1], retested_});
  if (progress_) progress_->update(k, length_);
}

}  // namespace nt::measure
