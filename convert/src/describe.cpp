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

}  // namespace

void write_info(std::ostream& out, const Dataset& d) {
  const auto& p = d.params();
  const auto& m = d.meta();
  const std::size_t n = d.count();

  line(out, "file", d.source().string());
  line(out, "format", detail::describe_format(d));
  line(out, "ranks", std::to_string(d.ranks()));
  line(out, "mode", fmt::format("{} (test_type {})", mode_name(p.mode), static_cast<int>(p.mode)));
  line(out, "statistic", fmt::format("{} (data_type {})", statistic_name(p.statistic), static_cast<int>(p.statistic)));
  line(out, "orientation", kOrientation);
  std::string sweep = fmt::format("begin {} B, end {} B, step {} B", p.begin_length, p.end_length, p.step_length);
  if (!m.sweep.empty()) sweep += " (" + m.sweep + ")";
  line(out, "sweep", sweep);
  std::string stored = std::to_string(n);
  if (const auto sweep_state = sweep_completeness(d); sweep_state.planned > 0)
    stored += sweep_state.cut_short ? fmt::format(" of {} (cut short: the run stopped early)", sweep_state.planned)
                                    : std::string(" (complete)");
  else if (sweep_state.cut_short)
    stored += fmt::format(" (cut short: the run stopped before {} B)", p.end_length);
  line(out, "lengths stored", stored);
  line(out, "noise", fmt::format("message length {} B, {} messages, {} processes", p.noise_message_length,
                                 p.num_noise_messages, p.num_noise_procs));
  line(out, "repeats", std::to_string(p.num_repeats));

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

  // The machine the run measured: the node's CPU per host, and each rank's binding (hosts table).
  const auto lines_of = [&](const char* key) {
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
  };
  const auto nodes = lines_of(kAttrNodeCpu);
  const auto binding = lines_of(kAttrRankBinding);
  out << "machine:\n";
  line(out, "  MPI library", or_unknown(m.mpi_version));
  if (nodes.empty()) line(out, "  CPU", "(not recorded)");
  for (const auto& node : nodes) line(out, "  CPU", node);

  if (m.hosts.empty()) {
    out << "hosts: (not recorded)\n";
  } else {
    const std::set<std::string> distinct(m.hosts.begin(), m.hosts.end());
    out << fmt::format("hosts: {} ranks on {} hosts\n", m.hosts.size(), distinct.size());
    out << fmt::format("  {:>6}  {:<24} {:>5} {:>5}  {}\n", "rank", "host", "cpu", "numa", "bound to");
    for (std::size_t r = 0; r < m.hosts.size(); ++r) {
      auto opt = [](const std::vector<int>& v, std::size_t i) {
        return i < v.size() && v[i] >= 0 ? std::to_string(v[i]) : std::string("-");
      };
      out << fmt::format("  {:>6}  {:<24} {:>5} {:>5}  {}\n", r, m.hosts[r], opt(m.cpus, r), opt(m.numa_nodes, r),
                         r < binding.size() ? binding[r] : std::string("-"));
    }
  }

  const bool skip_diag = diagonal_is_zero(p.mode);
  out << fmt::format("delay per message length ({}; bad values skipped):\n",
                     skip_diag ? "off-diagonal cells, the diagonal is 0 by definition" : "all cells");
  // Measurement extras: samples taken per cell (--precision) and flagged samples (_all files).
  const auto* raw = dynamic_cast<const RawReader*>(&d);
  const bool counts = raw && raw->has_sample_count(), flags = raw && raw->has_sample_flags();
  std::string head = fmt::format("  {:>14}  {:>12}  {:>12}  {:>12}", "message_length", "min", "median", "max");
  if (counts) head += fmt::format("  {:>13}", "samples");
  if (flags) head += fmt::format("  {:>19}", "late/preempted");
  out << head << '\n';
  auto extras = [&](std::size_t k) {
    std::string e;
    if (counts) {
      const std::vector<int> c = raw->sample_count(k);
      int lo = 0, hi = 0;
      bool any = false;
      for (int i = 0; i < d.ranks(); ++i)
        for (int j = 0; j < d.ranks(); ++j) {
          if (skip_diag && i == j) continue;
          const int v = c[static_cast<std::size_t>(i * d.ranks() + j)];
          lo = any ? std::min(lo, v) : v;
          hi = any ? std::max(hi, v) : v;
          any = true;
        }
      e += fmt::format("  {:>13}", !any ? std::string("-") : lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi));
    }
    if (flags) {
      long late = 0, pre = 0;
      const std::vector<std::uint8_t> fl = raw->sample_flags(k);
      for (const std::uint8_t f : fl) {
        if (f & kSampleNotTakenFlag) continue;
        late += (f & kSampleLateFlag) ? 1 : 0;
        pre += (f & kSamplePreemptedFlag) ? 1 : 0;
      }
      e += fmt::format("  {:>19}", fmt::format("{}/{}", late, pre));
    }
    return e;
  };
  const int P = d.ranks();
  BadValues bad;
  for (std::size_t k = 0; k < n; ++k) {
    // One P x P matrix at a time, and nothing beside it: the good cells are packed in place at
    // its front, then min, max and (reordering them) the median taken there.
    Matrix mat = d.matrix(k);
    bad.scan(mat, k, skip_diag);
    std::vector<double>& v = mat.values();
    std::size_t good = 0;
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        if (skip_diag && i == j) continue;
        const double x = v[static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)];
        if (is_good_delay(x)) v[good++] = x;
      }
    if (good == 0) {
      out << fmt::format("  {:>14}  {:>12}  {:>12}  {:>12}{}\n", d.lengths()[k], "-", "-", "-", extras(k));
      continue;
    }
    const std::span<double> cells(v.data(), good);
    const auto [lo, hi] = std::minmax_element(cells.begin(), cells.end());
    const double mn = *lo, mx = *hi;
    const double med = median_inplace(cells);
    out << fmt::format("  {:>14}  {:>12}  {:>12}  {:>12}{}\n", d.lengths()[k], format_seconds(mn),
                       format_seconds(med), format_seconds(mx), extras(k));
  }
  if (bad.total() == 0) {
    out << "bad values: none (no NaN, infinite, negative or absurd delays)\n";
    return;
  }
  out << fmt::format("bad values: {}; skipped above, excluded from analysis, drawn as no data\n", bad.summary());
  for (const auto& w : bad.first)
    out << fmt::format("  length {:>10} B  {:>6} -> {:<6}  {}\n", d.lengths()[w.k], w.sender, w.receiver, w.value);
  if (bad.total() > bad.first.size()) out << fmt::format("  ... and {} more\n", bad.total() - bad.first.size());
}

void info(const fs::path& in) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  detail::emit(in, {}, false, true, [&](std::ostream& o) { write_info(o, *d); });
}

}  // namespace nt::convert
