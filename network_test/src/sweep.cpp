// The sweep: every length measured (turns.cpp or concurrent.cpp), its samples summarised on each
// rank, and written as soon as it is done, in parallel (write_rows.cpp) or gathered on rank 0
// (write_gathered.cpp).
#include <algorithm>
#include <array>
#include <chrono>
#include <span>

#include <fmt/format.h>

#include "nt/stats.hpp"
#include "sweep.hpp"

namespace nt::measure {

double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void Sweep::run_length(std::size_t k) {
  length_ = c_.lengths[k];
  prepare_line(k);
  const TaskList tasks(c_.spec, c_.settings, c_.size, k);
  std::size_t task_bytes = tasks.bytes();
  StepHook on_step;
  if (progress_) on_step = [this, k](double fraction) { progress_->within(k, fraction); };
  const Schedule& schedule = c_.settings.schedule;
  switch (schedule.kind) {
    case ScheduleKind::concurrent: task_bytes += run_concurrent(c_, k, length_, on_step); break;
    case ScheduleKind::host_pairs: task_bytes += run_host_pair_schedule(c_, k, length_, on_step); break;
    case ScheduleKind::sampled: task_bytes += run_sampled_schedule(c_, k, length_, on_step); break;
    case ScheduleKind::sequential: task_bytes += run_sequential(c_, tasks, length_, on_step); break;
  }

  if (synthetic_samples()) fill_synthetic(c_, length_);
  const std::array<long, 2> flagged = summarize_samples();  // this rank's late / preempted samples
  if (schedule.by_host_pair()) fill_line_by_host_pair(c_, line_, local_);
  if (retest_) {
    const auto at = static_cast<std::ptrdiff_t>(
        std::find(gather_order_.begin(), gather_order_.end(), Statistic::median) - gather_order_.begin());
    const std::vector<double> medians(local_.begin() + at * static_cast<std::ptrdiff_t>(PU_),
                                      local_.begin() + (at + 1) * static_cast<std::ptrdiff_t>(PU_));
    retested_ = run_retest(c_, k, length_, medians, isolated_);
  }
  ahead_ = schedule.concurrent() ? static_cast<double>(c_.size) : static_cast<double>(tasks.size());
  long flagged_all[2] = {0, 0};
  {
#ifdef NT_SMPI
    // SMPI 3.32's non-blocking collectives are linear: the root waits on P - 1 requests with a
    // waitany that re-tests them all at each arrival, so a root that posts early (the sampled
    // schedule's rank 0 is done with its pairs long before the others) costs host time in P^2 and
    // more for the whole sweep. The blocking tree costs log P; the wait is the same.
    MPI_Reduce(flagged.data(), flagged_all, 2, MPI_LONG, MPI_SUM, 0, c_.comm);
#else
    MPI_Request req;
    MPI_Ireduce(flagged.data(), flagged_all, 2, MPI_LONG, MPI_SUM, 0, c_.comm, &req);
    wait(req, "flag counts");
#endif
  }
  if (rows_)
    write_rows(k, flagged_all, task_bytes);
  else
    gather_and_write(k, flagged_all, task_bytes);
}

void Sweep::prepare_line(std::size_t k) {
  SampleStore& store = runner(c_).store;
  LinePeers lp;
  if (sparse_)
    lp = c_.settings.schedule.sampled() ? sampled_line_peers(c_, k) : host_pair_line_peers(c_, k);
  store.peers = std::move(lp.measured);
  line_ = std::move(lp.line);
  const std::size_t slots = sparse_ ? store.peers.size() : PU_;
  // New vectors, not assign: a smaller size keeps a vector's capacity (a slot per peer).
  store.values = std::vector<double>(slots * RU_, 0.0);
  store.flags = std::vector<std::uint8_t>(slots * RU_, std::uint8_t{0});
  store.used = std::vector<int>(slots, store.stride);
  L_ = line_.empty() ? PU_ : line_.size();
  local_ = std::vector<double>(NS_ * L_, kNaN);
}

std::array<long, 2> Sweep::summarize_samples() {
  std::array<long, 2> flagged{0, 0};
  SampleStore& store = runner(c_).store;
  for (std::size_t j = 0; j < store.used.size(); ++j) {  // every slot
    const auto n = static_cast<std::size_t>(store.used[j]);
    double* row = store.values.data() + j * RU_;
    std::uint8_t* fl = store.flags.data() + j * RU_;
    for (std::size_t i = 0; i < n; ++i) {
      flagged[0] += (fl[i] & kSampleLate) ? 1 : 0;
      flagged[1] += (fl[i] & kSamplePreempted) ? 1 : 0;
    }
    for (std::size_t i = n; i < RU_; ++i) {  // not taken (--precision, --host-pairs): missing in the _all file
      row[i] = kNaN;
      fl[i] = kSampleNotTaken;
    }
  }
  for (std::size_t j = 0; j < L_; ++j) {
    const std::size_t slot = store.slot(peer_at(j));
    const auto n = slot == SampleStore::kNoSlot ? std::size_t{0} : static_cast<std::size_t>(store.used[slot]);
    if (n == 0) {  // a cell --host-pairs or --sample-pairs did not measure: fill_by_host_pair gives it its host pair's values
      for (std::size_t i = 0; i < NS_; ++i) local_[i * L_ + j] = kNaN;
      continue;
    }
    const Summary s = summarize(std::span<const double>(store.values.data() + slot * RU_, n));
    for (std::size_t i = 0; i < NS_; ++i)  // [statistic * L + j]
      local_[i * L_ + j] = summary_value(s, gather_order_[i]);
  }
  return flagged;
}

void Sweep::wait(MPI_Request& req, const char* what) {
  c_.idle_wait(req, idle_deadline(c_, ahead_),
               fmt::format("timeout: rank {} waited too long for the {} of length {}", c_.rank, what, length_));
}

void Sweep::gather(const void* send, int count, MPI_Datatype type, void* recv, const char* what) {
#ifdef NT_SMPI
  (void)what;
  MPI_Gather(send, count, type, recv, count, type, 0, c_.comm);  // blocking under SMPI: see the flag counts
#else
  MPI_Request req;
  MPI_Igather(send, count, type, recv, count, type, 0, c_.comm, &req);
  wait(req, what);
#endif
}

void Sweep::count_data(std::size_t task_bytes) {
  auto bytes = [](const auto& v) { return static_cast<double>(v.capacity() * sizeof(v[0])); };
  double b = bytes(runner(c_).store.values) + bytes(runner(c_).store.flags) + bytes(runner(c_).store.used) + bytes(local_) + bytes(gathered_) +
             bytes(raw_gathered_) + bytes(raw_record_) + bytes(flags_gathered_) + bytes(flags_record_) +
             bytes(used_gathered_) + bytes(used_record_) + bytes(row_stats_) + bytes(row_raw_) + bytes(xfer_) +
             bytes(row_flags_) + bytes(row_used_) + bytes(line_) + bytes(runner(c_).store.peers) + bytes(c_.machines) + bytes(c_.hosts) +
             static_cast<double>(task_bytes);
  cost_.data_bytes = std::max(cost_.data_bytes, b);
}

SweepCost run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress, FlagCounts* counts,
                    const LengthGate& go_on) {
  Sweep sweep(c, out, progress, counts);
  for (std::size_t k = first; k < c.lengths.size(); ++k) {
    if (go_on && !go_on(k)) break;
    sweep.run_length(k);
  }
  return sweep.cost();
}

// One pass (a mode whose tasks cover every length, e.g. loggp): its sink writes the results.
void run_one_pass(Ctx& c) {
  run_sequential(c, TaskList(c.spec, c.settings, c.size, 0), c.lengths.front());
}

}  // namespace nt::measure
