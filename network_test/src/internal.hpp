// Internal pieces of network_test's driver (not used by modes).
#pragma once

#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "nt/measure/measure.hpp"
#include "nt/params.hpp"
#include "nt/raw_file.hpp"

namespace nt::measure {

// The result files, open on rank 0 only.
struct Output {
  std::vector<std::pair<Statistic, RawWriter>> stats;
  std::optional<RawWriter> all;
  FileInfo info;
};

// Progress on stderr (rank 0): a bar with ETA on a terminal, a plain line every 10 s otherwise;
// the fraction done and the ETA are weighted by predicted time (predict_remaining), not bytes.
class Progress {
 public:
  // style: "bar", "lines", "none" or "auto" (bar on a terminal, lines otherwise).
  Progress(const std::string& style, const std::vector<std::int64_t>& lengths, std::size_t first);
  void update(std::size_t done_index, std::int64_t length);
  void finish();

 private:
  bool enabled_, tty_;
  std::vector<std::int64_t> lengths_;
  std::size_t first_;
  std::vector<std::int64_t> done_lengths_;  // completed in this run, with the seconds each took
  std::vector<double> done_seconds_;
  double start_ = 0, last_ = 0, last_done_ = 0;
};

// Schedules of one length (runner.cpp), also driven by the calibration of --estimate:
// the tasks one after the other (turn-taking by "go" messages),
void run_sequential(Ctx& c, const std::vector<Task>& tasks);
// these rounds of disjoint pairs, each closed by a (sleeping) barrier of every rank,
void run_rounds(Ctx& c, const std::vector<std::vector<std::pair<int, int>>>& rounds);
// the (x, x) tasks of the exchange modes, every rank at once (concurrent schedule),
void run_self_tasks(Ctx& c);
// a barrier whose waiting ranks sleep.
void idle_barrier(Ctx& c, double tasks_ahead);

// Runs lengths [first, end) of the sweep; rank 0 writes every length as soon as it is gathered.
void run_sweep(Ctx& c, Output* out, std::size_t first, Progress* progress);
// --estimate: a short calibration on these ranks, then rank 0 prints the plan on stdout
// (estimate.cpp). Writes no file. hosts: the host of every rank.
void run_estimate(Ctx& c, const std::vector<std::string>& hosts, bool show);
// Runs the loggp mode; rank 0 writes the loggp file.
void run_loggp(Ctx& c, const FileInfo& info, const std::filesystem::path& path, bool overwrite);

}  // namespace nt::measure
