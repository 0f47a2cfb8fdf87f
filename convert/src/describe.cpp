// info: a human-readable summary of any result file.
#include <algorithm>
#include <cmath>
#include <ostream>
#include <set>
#include <span>

#include <fmt/format.h>

#include "common.hpp"
#include "nt/params.hpp"
#include "nt/raw_file.hpp"
#include "nt/validate.hpp"
#include "nt/stats.hpp"
#include "nt/types.hpp"
#include "nt/units.hpp"
#include "nt/convert/convert.hpp"

namespace nt::convert {

namespace {

void line(std::ostream& out, std::string_view key, const std::string& value) {
  out << fmt::format("{:<{}}{}\n", key, std::max<std::size_t>(18, key.size() + 1), value);
}

std::string or_unknown(const std::string& s) { return s.empty() ? "(not recorded)" : s; }

// What the run was: the file, its mode and statistic, the sweep of lengths and how much of it is
// stored, noise and repeats.
void write_run(std::ostream& out, const Dataset& d) {
  const auto& p = d.params();
  const auto& m = d.meta();
  line(out, "file", d.source().string());
  line(out, "format", detail::describe_format(d));
  line(out, "ranks", std::to_string(d.ranks()));
  line(out, "mode", fmt::format("{} (test_type {})", mode_name(p.mode), static_cast<int>(p.mode)));
  line(out, "statistic", fmt::format("{} (data_type {})", statistic_name(p.statistic), static_cast<int>(p.statistic)));
  line(out, "orientation", kOrientation);
  std::string sweep = fmt::format("begin {} B, end {} B, step {} B", p.begin_length, p.end_length, p.step_length);
  if (!m.sweep.empty()) sweep += " (" + m.sweep + ")";
  line(out, "sweep", sweep);
  std::string stored = std::to_string(d.count());
  if (const auto sweep_state = sweep_completeness(d); sweep_state.planned > 0)
    stored += sweep_state.cut_short ? fmt::format(" of {} (cut short: the run stopped early)", sweep_state.planned)
                                    : std::string(" (complete)");
  else if (sweep_state.cut_short)
    stored += fmt::format(" (cut short: the run stopped before {} B)", p.end_length);
  line(out, "lengths stored", stored);
  line(out, "noise", fmt::format("message length {} B, {} messages, {} processes", p.noise_message_length,
                                 p.num_noise_messages, p.num_noise_procs));
  line(out, "repeats", std::to_string(p.num_repeats));
}

// How the run was made: versions, timer, command line, and every other attribute except the two
// that describe the machine (write_machine).
void write_metadata(std::ostream& out, const Metadata& m) {
  out << "metadata:\n";
  line(out, "  format version", std::to_string(m.format_version));
  line(out, "  program", or_unknown(m.program_version));
  line(out, "  timer", m.timer.empty() ? "(not recorded)"
                                      : m.timer_resolution > 0
                                          ? fmt::format("{} (resolution {})", m.timer, format_seconds(m.timer_resolution))
                                          : m.timer);
  line(out, "  command line", or_unknown(m.command_line));
  line(out, "  start time", or_unknown(m.start_time));
  line(out, "  warm-up", std::to_string(m.warmup));
  line(out, "  seed", std::to_string(m.seed));
  line(out, "  synchronisation", or_unknown(m.sync_method));
  for (const auto& [k, v] : m.extra)
    if (k != kAttrRankBinding && k != kAttrNodeCpu) line(out, "  " + k, v);
}

// The lines of a multi-line attribute (one per host or per rank); none when it is not recorded.
std::vector<std::string> attribute_lines(const Metadata& m, const char* key) {
  std::vector<std::string> v;
  if (auto it = m.extra.find(key); it != m.extra.end()) {
    std::size_t pos = 0;
    while (pos <= it->second.size()) {
      const auto nl = std::min(it->second.find('\n', pos), it->second.size());
      v.push_back(it->second.substr(pos, nl - pos));
      pos = nl + 1;
    }
  }
  return v;
}

// The machine the run measured: the MPI library, the node's CPU per host, and the hosts table with
// each rank's host, CPU, NUMA node and binding.
void write_machine(std::ostream& out, const Metadata& m) {
  const auto nodes = attribute_lines(m, kAttrNodeCpu);
  const auto binding = attribute_lines(m, kAttrRankBinding);
  out << "machine:\n";
  line(out, "  MPI library", or_unknown(m.mpi_version));
  if (nodes.empty()) line(out, "  CPU", "(not recorded)");
  for (const auto& node : nodes) line(out, "  CPU", node);

  if (m.hosts.empty()) {
    out << "hosts: (not recorded)\n";
    return;
  }
  const std::set<std::string> distinct(m.hosts.begin(), m.hosts.end());
  out << fmt::format("hosts: {} ranks on {} hosts\n", m.hosts.size(), distinct.size());
  out << fmt::format("  {:>6}  {:<24} {:>5} {:>5}  {}\n", "rank", "host", "cpu", "numa", "bound to");
  const auto opt = [](const std::vector<int>& v, std::size_t i) {
    return i < v.size() && v[i] >= 0 ? std::to_string(v[i]) : std::string("-");
  };
  for (std::size_t r = 0; r < m.hosts.size(); ++r)
    out << fmt::format("  {:>6}  {:<24} {:>5} {:>5}  {}\n", r, m.hosts[r], opt(m.cpus, r), opt(m.numa_nodes, r),
                       r < binding.size() ? binding[r] : std::string("-"));
}

// The measurement extras of a raw file, as extra columns of the delay table: samples taken per
// cell (--precision) and late/preempted samples (_all files). No columns for other files.
class SampleColumns {
 public:
  SampleColumns(const Dataset& d, bool skip_diag)
      : data_(&d), ranks_(d.ranks()), skip_diag_(skip_diag), counts_(d.has_sample_count()),
        flags_(d.has_sample_flags()) {}

  std::string header() const {
    std::string head;
    if (counts_) head += fmt::format("  {:>13}", "samples");
    if (flags_) head += fmt::format("  {:>19}", "late/preempted");
    return head;
  }

  // The columns of length index k: the range of samples per cell, and late/preempted counts.
  std::string row(std::size_t k) const {
    std::string e;
    if (counts_) e += fmt::format("  {:>13}", sample_count_range(k));
    if (flags_) e += fmt::format("  {:>19}", late_and_preempted(k));
    return e;
  }

 private:
  // "n" when every cell took n samples, "lo-hi" otherwise, "-" when there is no cell.
  std::string sample_count_range(std::size_t k) const {
    const std::vector<int> c = data_->sample_count(k);
    int lo = 0, hi = 0;
    bool any = false;
    for (int i = 0; i < ranks_; ++i)
      for (int j = 0; j < ranks_; ++j) {
        if (skip_diag_ && i == j) continue;
        const int v = c[static_cast<std::size_t>(i * ranks_ + j)];
        lo = any ? std::min(lo, v) : v;
        hi = any ? std::max(hi, v) : v;
        any = true;
      }
    return !any ? std::string("-") : lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi);
  }

  // "late/preempted": how many samples taken were flagged late and preempted.
  std::string late_and_preempted(std::size_t k) const {
    long late = 0, pre = 0;
    for (const std::uint8_t f : data_->sample_flags(k)) {
      if (f & kSampleNotTakenFlag) continue;
      late += (f & kSampleLateFlag) ? 1 : 0;
      pre += (f & kSamplePreemptedFlag) ? 1 : 0;
    }
    return fmt::format("{}/{}", late, pre);
  }

  const Dataset* data_;
  int ranks_;
  bool skip_diag_, counts_, flags_;
};

// The min, median and max columns of one P x P matrix over its good cells (the diagonal skipped
// when skip_diag), "-" each when there is none. The good cells are packed in place at the front
// of the matrix, then min, max and (reordering them) the median taken there: nothing beside it.
std::string delay_range_columns(Matrix& mat, bool skip_diag) {
  const int P = mat.ranks();
  std::vector<double>& v = mat.values();
  std::size_t good = 0;
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) {
      if (skip_diag && i == j) continue;
      const double x = v[static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)];
      if (is_good_delay(x)) v[good++] = x;
    }
  if (good == 0) return fmt::format("  {:>12}  {:>12}  {:>12}", "-", "-", "-");
  const std::span<double> cells(v.data(), good);
  const auto [lo, hi] = std::minmax_element(cells.begin(), cells.end());
  const double mn = *lo, mx = *hi;
  const double med = median_inplace(cells);
  return fmt::format("  {:>12}  {:>12}  {:>12}", format_seconds(mn), format_seconds(med), format_seconds(mx));
}

// The bad values found while reading: none, or their summary and the first few.
void write_bad_values(std::ostream& out, const Dataset& d, const BadValues& bad) {
  if (bad.total() == 0) {
    out << "bad values: none (no NaN, infinite, negative or absurd delays)\n";
    return;
  }
  out << fmt::format("bad values: {}; skipped above, excluded from analysis, drawn as no data\n", bad.summary());
  for (const auto& w : bad.first)
    out << fmt::format("  length {:>10} B  {:>6} -> {:<6}  {}\n", d.lengths()[w.k], w.sender, w.receiver, w.value);
  if (bad.total() > bad.first.size()) out << fmt::format("  ... and {} more\n", bad.total() - bad.first.size());
}

// The delay table: min, median and max per message length over the good cells, with the sample
// columns of raw files, read one matrix at a time; then the bad values found on the way.
void write_delays(std::ostream& out, const Dataset& d) {
  const bool skip_diag = diagonal_is_zero(d.params().mode);
  out << fmt::format("delay per message length ({}; bad values skipped):\n",
                     skip_diag ? "off-diagonal cells, the diagonal is 0 by definition" : "all cells");
  const SampleColumns samples(d, skip_diag);
  out << fmt::format("  {:>14}  {:>12}  {:>12}  {:>12}", "message_length", "min", "median", "max")
      << samples.header() << '\n';
  BadValues bad;
  for (std::size_t k = 0; k < d.count(); ++k) {
    Matrix mat = d.matrix(k);
    bad.scan(mat, k, skip_diag);
    out << fmt::format("  {:>14}", d.lengths()[k]) << delay_range_columns(mat, skip_diag) << samples.row(k) << '\n';
  }
  write_bad_values(out, d, bad);
}

}  // namespace

void write_info(std::ostream& out, const Dataset& d) {
  write_run(out, d);
  write_metadata(out, d.meta());
  write_machine(out, d.meta());
  write_delays(out, d);
}

void info(const fs::path& in) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  detail::emit(in, {}, false, true, [&](std::ostream& o) { write_info(o, *d); });
}

}  // namespace nt::convert
