// The sweep's parts, private to the driver: the files the ranks write their rows into
// (row_files.cpp) and one rank's sweep, the class whose steps sweep.cpp (measure and summarise),
// write_rows.cpp (parallel writing) and write_gathered.cpp (rank 0 gathers and writes) hold.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "run.hpp"

namespace nt::measure {

// Time spent writing is host time (under SMPI, Ctx::now is the simulated clock, which file I/O
// does not advance).
double host_seconds();


// The parallel writers: one rank per node (node rank 0) holds one RawRowWriter per result file,
// open on the files rank 0 created (or reopened for --resume), in the order of out->stats, then
// the _all file, and writes the rows of every rank of its node; with NT_WRITE=ranks every rank
// holds them and writes its own rows. One writer per node keeps the open files at 5 per node
// instead of 5 per rank (a node of 128 ranks opened 640; the 4,096 ranks of a simulation, all in
// one process, passed its limit of 20,000 and fell back to gathering on rank 0) and the writers
// of a file at one per node.
struct RowFiles {
  std::vector<RawRowWriter> stats;
  std::optional<RawRowWriter> all;
  // The ranks of this node: node rank 0 syncs each file for all of them (fsync flushes every
  // dirty page of the file in the node's cache, whoever wrote it).
  MPI_Comm node = MPI_COMM_NULL;
  int node_rank = 0;
  bool writer = false;        // this rank has the files open and writes rows
  bool per_rank = false;      // NT_WRITE=ranks: every rank writes its own rows
  std::vector<int> members;   // node writer: the world ranks of the node, in node rank order
  RowFiles() = default;
  RowFiles(RowFiles&& o) noexcept
      : stats(std::move(o.stats)), all(std::move(o.all)), node(std::exchange(o.node, MPI_COMM_NULL)),
        node_rank(o.node_rank), writer(o.writer), per_rank(o.per_rank), members(std::move(o.members)) {}
  RowFiles& operator=(RowFiles&&) = delete;
  ~RowFiles() {
    if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  }
};

// Collective. Every writer opens the files rank 0 has open, by the absolute paths rank 0 sends,
// and proves it sees the same file (digest of the header). Anything else (a writer that cannot
std::optional<RowFiles> open_row_files(Ctx& c, Output* out);

// One rank's sweep: the buffers it keeps from length to length (at their largest, what the rank
// holds besides MPI's own) and the steps of one length: measure, summarise, write.
class Sweep {
 public:
  Sweep(Ctx& c, Output* out, Progress* progress, FlagCounts* counts)
      : c_(c), out_(out), progress_(progress), counts_(counts),
        PU_(static_cast<std::size_t>(c.size)), RU_(static_cast<std::size_t>(runner(c).store.stride)), raw_(c.settings.raw),
        adaptive_(c.settings.precision > 0), retest_(c.settings.schedule.retested()),
        sparse_(c.settings.schedule.by_host_pair() && !retest_ && c.spec.results_in_rows),
        rows_(init_store_and_open(c, out)),
        raw_gathered_(!rows_ && c.rank == 0 && raw_ ? PU_ * PU_ * RU_ : 0),
        flags_gathered_(!rows_ && c.rank == 0 && raw_ ? PU_ * PU_ * RU_ : 0),
        used_gathered_(!rows_ && c.rank == 0 && adaptive_ ? PU_ * PU_ : 0) {}

  // Measures length k of the sweep and writes it.
  void run_length(std::size_t k);
  const SweepCost& cost() const { return cost_; }

 private:
  static std::optional<RowFiles> init_store_and_open(Ctx& c, Output* out) {
    runner(c).store.peers.clear();  // prepare_line sizes the store for each length
    return open_row_files(c, out);
  }
  // Length k's store and line: a slot per peer and a cell per peer, or with sparse_ the peers the
  // schedule measures (slots) and those whose cells can hold a value (line_).
  void prepare_line(std::size_t k);
  std::size_t peer_at(std::size_t j) const { return line_.empty() ? j : static_cast<std::size_t>(line_[j]); }
  // Sparse writing (line_ not empty, rows): this rank's line packed as cells of `per_cell()` doubles
  // (peer, statistics, count, samples, flags), and a packed line put as row x of record k.
  std::size_t per_cell() const { return NS_ + 2 + (raw_ ? 2 * RU_ : 0); }
  void pack_line(std::vector<double>& out) const;
  void put_packed_row(std::size_t k, int x, const double* in, std::size_t cells);
  void write_sparse_rows(std::size_t k);
  // The fallback's dense line: local_ and the store over every peer (NaN, not taken: no sample).
  void densify(std::vector<double>& stats, std::vector<int>& used, std::vector<double>& raw,
               std::vector<std::uint8_t>& flags) const;
  // Summaries of every peer's samples into local_ ([statistic * P + peer]); samples not taken
  // (--precision) become NaN with kSampleNotTaken. Returns this rank's late and preempted counts.
  std::array<long, 2> summarize_samples();
  void wait(MPI_Request& req, const char* what);
  void gather(const void* send, int count, MPI_Datatype type, void* recv, const char* what);
  // Parallel writing: this rank's row of every file, written by its node's writer (or itself with
  // NT_WRITE=ranks), then the records committed by rank 0.
  void rows_of_this_rank();
  void put_rows(std::size_t k, int x);  // the row buffers as row x of record k of every file
  void row_to_writer();
  void rows_of_the_node(std::size_t k);
  void write_rows(std::size_t k, const long* flagged_all, std::size_t task_bytes);
  // Fallback: rank 0 gathers every statistic (and the samples with --raw) and writes them.
  void gather_and_write(std::size_t k, const long* flagged_all, std::size_t task_bytes);
  void write_raw_record();
  // Where rank r's cell for peer q goes: r held its row (sender) or its column (receiver).
  std::pair<std::size_t, std::size_t> cell(std::size_t r, std::size_t q) const {
    return c_.spec.results_in_rows ? std::make_pair(r, q) : std::make_pair(q, r);
  }
  void count_data(std::size_t task_bytes);

  Ctx& c_;
  Output* out_;
  Progress* progress_;
  FlagCounts* counts_;
  SweepCost cost_;
  const std::vector<Statistic>& gather_order_ = standard_statistics();  // the statistics gathered, in this order
  const std::size_t NS_ = standard_statistics().size();
  const std::size_t PU_, RU_;
  const bool raw_, adaptive_, retest_;
  // The schedules of sampled or host pairs (rows, no re-test): the store holds the measured peers
  // only, and local_ the line_'s cells (the sampled schedule's; --host-pairs fills every cell).
  const bool sparse_;
  std::vector<int> line_;   // the peers of local_'s cells, ascending; empty: every peer
  std::size_t L_ = 0;       // local_'s cells per statistic
  std::int64_t length_ = 0;  // the length being measured
  double ahead_ = 0;         // tasks ahead of a waiting rank (its timeout)
  std::vector<double> local_;  // [statistic * L_ + j]: cell of peer_at(j)
  std::vector<double> isolated_;  // --retest: this rank's line of each statistic measured alone, like local_
  RetestResult retested_;
  std::optional<RowFiles> rows_;
  // Fallback: rank 0 gathers one statistic at a time (P x P doubles, plus the matrix it writes
  // when the orientation needs a transposition); with --raw every sample.
  std::vector<double> gathered_;
  std::vector<double> raw_gathered_, raw_record_;
  std::vector<std::uint8_t> flags_gathered_, flags_record_;
  std::vector<int> used_gathered_, used_record_;
  // Parallel: this rank's row of every file. A rank holding a column (results_in_rows false)
  // exchanges it with one MPI_Alltoall: O(P x samples) per rank, never P x P.
  std::vector<double> row_stats_, row_raw_, xfer_, row_isolated_;
  std::vector<std::uint8_t> row_flags_;
  std::vector<int> row_used_;
};

}  // namespace nt::measure
