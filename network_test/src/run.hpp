// The run's measurement and output: the result files (result_files.cpp), the progress shown
// (progress.cpp) and the sweep over the lengths (sweep.cpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "nt/measure/measure.hpp"
#include "nt/raw_file.hpp"
#include "schedules.hpp"

namespace nt::measure {

// The result files, open on rank 0 only.
struct Output {
  std::vector<std::pair<Statistic, RawWriter>> stats;
  std::optional<RawWriter> all;
  FileInfo info;
};

struct TimePlan;
// The attributes and parameters of a run's files (result_files.cpp). oversubscribed_ranks: how
// many ranks measure as oversubscribed (--oversubscribed); plan: --time-limit's (kept as
// attribute time_plan), or null.
FileInfo make_info(const Settings& s, const SweepPlan& sweep, const ModeSpec& spec, int P,
                   const std::vector<RankInfo>& ranks, int oversubscribed_ranks, const TimePlan* plan);
// Everything rank 0 prepares before the measurement (result_files.cpp): result files created,
// or reopened for --resume; returns the first length to measure.
std::size_t open_outputs(const Settings& s, const std::vector<std::int64_t>& lengths, const ModeSpec& spec,
                         const FileInfo& info, const std::vector<std::string>& hosts, Output& out);

// Progress on stderr (rank 0): a bar with ETA on a terminal, a plain line every 10 s otherwise.
class Progress {
 public:
  // style: bar, lines, none or automatic (bar on a terminal, lines otherwise).
  Progress(ProgressStyle style, const std::vector<std::int64_t>& lengths);
  void update(std::size_t done_index, std::int64_t length);
  // Within length `index`: `fraction` of its steps done (rank 0's view of the schedule), so that
  // a long length (all pairs of thousands of ranks) shows progress before it ends.
  void within(std::size_t index, double fraction);
  void finish();

 private:
  void show(std::size_t index, std::int64_t length, double now, double eta, bool last);
  bool enabled_, tty_;
  std::vector<std::int64_t> lengths_;
  std::vector<std::pair<std::int64_t, double>> done_;  // length, seconds it took
  double start_ = 0, last_ = 0, mark_ = 0;
};

// Samples flagged at one length, over every rank (rank 0 collects them for the summary).
struct FlagCount {
  std::int64_t length = 0;
  long late = 0, preempted = 0;
  RetestResult retest;  // --retest at this length
};
using FlagCounts = std::vector<FlagCount>;

// Runs lengths [first, end) of the sweep (sweep.cpp) and writes every length as soon as it is measured: one
// rank per node writes the rows of its node's ranks into every file (rank 0 commits each record),
// or, when the writers cannot open the files or NT_WRITE=gather, rank 0 gathers and writes
// everything. Rank 0 collects the flag counts. Returns what the sweep cost this rank.
// go_on (every rank, collective when given): asked before each length k; false ends the sweep there
// (--time-limit's guard).
using LengthGate = std::function<bool(std::size_t k)>;
struct SweepCost {
  double write_seconds = 0;  // this rank's host time spent writing
  double data_bytes = 0;     // the most this rank held in its own buffers of the sweep
};
SweepCost run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress, FlagCounts* counts,
                    const LengthGate& go_on = {});

// Runs a mode whose tasks cover every length in one pass (ModeSpec::per_length false).
void run_one_pass(Ctx& c);

}  // namespace nt::measure
