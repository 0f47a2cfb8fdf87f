// The result files of a run (rank 0): their attributes and parameters, and the set created all
// or nothing or reopened for --resume.
#include <algorithm>
#include <limits>
#include <ostream>

#include <fmt/format.h>

#include "plan.hpp"
#include "run.hpp"
#include "nt/hosts.hpp"
#include "nt/output.hpp"
#include "nt/version.hpp"

namespace nt::measure {

// oversubscribed_ranks: how many ranks measure as oversubscribed (--oversubscribed).
// plan: --time-limit's (kept as attribute time_plan), or null.
FileInfo make_info(const Settings& s, const SweepPlan& sweep, const ModeSpec& spec, int P,
                   const std::vector<RankInfo>& ranks, int oversubscribed_ranks, const TimePlan* plan) {
  FileInfo fi;
  auto& p = fi.params;
  p.proc_num = P;
  p.mode = spec.mode();
  p.begin_length = static_cast<int>(sweep.lengths.front());
  p.end_length = static_cast<int>(sweep.lengths.back());
  p.step_length = sweep.kind == "linear" ? s.step : 0;
  p.noise_message_length = s.noise_length;
  p.num_noise_messages = s.noise_messages;
  p.num_noise_procs = spec.uses_noise ? s.noise_procs : 0;
  p.num_repeats = s.repeats;
  auto& m = fi.meta;
  m.program_version = std::string("network_test ") + NT_VERSION;
  m.mpi_version = mpi_library_version();
  m.timer = "clock_gettime(CLOCK_MONOTONIC)";  // Ctx::now(): why not MPI_Wtime is said there
  m.timer_resolution = Ctx::now_resolution();
  m.command_line = s.command_line;
  m.start_time = utc_now_iso();
  m.warmup = s.warmup;
  m.seed = s.seed.value_or(0);
  m.sync_method = spec.sync_method + fmt::format(" [K = {}]", s.sync_rounds);
  if (s.clock_sync == ClockSync::automatic)
    m.sync_method += "; ranks on the same host share the system clock (offset 0, ping-pongs still give the round trip)";
  m.sweep = sweep.kind;
  for (const auto& r : ranks) {
    m.hosts.push_back(r.host);
    m.cpus.push_back(r.cpu);
    m.numa_nodes.push_back(r.numa);
    m.extra[kAttrRankBinding] += (m.extra[kAttrRankBinding].empty() ? "" : "\n") + r.binding;
    const std::string node = r.host + ": " + r.node;  // once per host, in rank order
    if (("\n" + m.extra[kAttrNodeCpu] + "\n").find("\n" + node + "\n") == std::string::npos)
      m.extra[kAttrNodeCpu] += (m.extra[kAttrNodeCpu].empty() ? "" : "\n") + node;
  }
  m.extra[kAttrPairOrder] = s.schedule.pair_order_text();
  m.extra[kAttrSchedule] = s.schedule.to_attribute();
  if (s.schedule.retested()) m.extra["retest"] = s.schedule.retest_text();
  m.extra["idle_wait"] = fmt::format("MPI_Test + nanosleep back-off up to {} s", s.idle_sleep_max);
  m.extra[kAttrOversubscribed] = oversubscribed_text(nt::name_of(oversubscribed_names(), s.yield), oversubscribed_ranks, P);
  if (s.timeout > 0) m.extra["timeout"] = fmt::format("{}", s.timeout);
  if (plan) m.extra["time_plan"] = plan->text();
  if (s.precision > 0)
    m.extra["precision"] = fmt::format(
        "sampled until the 95 % confidence interval of the median is within {} of it, {} to {} samples "
        "(sample_count per cell)",
        s.precision, s.min_repeats, s.repeats);
  if (spec.uses_noise) m.extra["noise_draw"] = "noise ranks drawn per pair and length from the seed (splitmix64)";
  if (sweep.kind != "linear") {
    std::string l;
    for (auto v : sweep.lengths) l += (l.empty() ? "" : ",") + std::to_string(v);
    m.extra["lengths"] = l;
  }
  return fi;
}

namespace {

// The extras of the statistic files and of the file of all samples (--raw).
struct FileExtras {
  RecordExtras stat, all;
};

FileExtras file_extras(const Settings& s) {
  FileExtras e;
  e.stat.sample_count = s.precision > 0;
  e.stat.isolated = s.schedule.retested();
  e.all.sample_flags = true;
  return e;
}

// The set is created all or nothing: every file is made under a temporary name (header written
// and synced), then all are moved into place together. A run killed or refused (full disk, a
// file that appeared) before that leaves no result file behind; after it, every file exists and
// --resume can continue the set. The writers keep their open files across the rename and go on
// appending records to the committed files.
void create_outputs(const Settings& s, const FileInfo& info, const std::vector<std::string>& hosts, Output& out) {
  const std::filesystem::path prefix = s.prefix;
  const FileExtras extras = file_extras(s);
  OutputSet set;
  for (Statistic st : standard_statistics()) {
    FileInfo fi = info;
    fi.params.statistic = st;
    PendingOutput& p = set.add(result_path(prefix, st), s.force);
    out.stats.emplace_back(st, RawWriter(p.temp(), fi, /*overwrite=*/true, 0, extras.stat));
  }
  if (s.raw) {
    PendingOutput& p = set.add(result_path(prefix, Statistic::all), s.force);
    out.all.emplace(p.temp(), info, /*overwrite=*/true, s.repeats, extras.all);
  }
  write_file_atomically_into(set.add(hosts_path(prefix), s.force),
                             [&](std::ostream& o) { write_hosts(o, hosts); });
  set.commit_all();
  for (auto& [st, w] : out.stats) w.renamed(result_path(prefix, st));
  if (out.all) out.all->renamed(result_path(prefix, Statistic::all));
}

// --resume: the files reopened, continuing after the last length complete in ALL of them.
std::size_t resume_outputs(const Settings& s, const std::vector<std::int64_t>& lengths, const FileInfo& info,
                           const std::vector<std::string>& hosts, Output& out) {
  namespace fs = std::filesystem;
  const fs::path prefix = s.prefix;
  const FileExtras extras = file_extras(s);
  // A set whose creation a kill interrupted (between its renames) is completed first.
  recover_interrupted_outputs(fs::path(prefix).has_parent_path() ? fs::path(prefix).parent_path() : fs::path("."));
  write_hosts(hosts_path(prefix), hosts, /*overwrite=*/true);
  for (Statistic st : standard_statistics()) {
    const fs::path path = result_path(prefix, st);
    if (!fs::exists(path)) throw FileError(path, "cannot resume: the file does not exist");
    FileInfo fi = info;
    fi.params.statistic = st;
    out.stats.emplace_back(st, RawWriter::resume(path, fi, 0, extras.stat));
  }
  if (s.raw) {
    const fs::path path = result_path(prefix, Statistic::all);
    if (!fs::exists(path)) throw FileError(path, "cannot resume with --raw: the file does not exist");
    out.all.emplace(RawWriter::resume(path, info, s.repeats, extras.all));
  }
  std::size_t first = std::numeric_limits<std::size_t>::max(), most = 0;
  auto consider = [&](const RawWriter& w) {
    const auto& have = w.lengths();
    if (have.size() > lengths.size())
      throw UsageError("cannot resume " + w.path().string() + ": it holds more lengths than the sweep");
    for (std::size_t k = 0; k < have.size(); ++k)
      if (have[k] != lengths[k])
        throw UsageError(fmt::format("cannot resume {}: length #{} is {} in the file but {} in this sweep",
                                     w.path().string(), k, have[k], lengths[k]));
    first = std::min(first, have.size());
    most = std::max(most, have.size());
  };
  for (const auto& [st, w] : out.stats) consider(w);
  if (out.all) consider(*out.all);
  if (most > first + 1)
    throw UsageError(fmt::format("cannot resume: the result files hold between {} and {} lengths", first, most));
  // Every file restarts at the same record, so that the statistics of one length always come
  // from one measurement (a file whose last record was cut makes the others measure it again).
  for (auto& [st, w] : out.stats) w.rewind_to(first);
  if (out.all) out.all->rewind_to(first);
  return first;
}

}  // namespace

// Everything rank 0 prepares before the measurement: result files created, or reopened for
// --resume (continuing after the last length complete in ALL of them).
std::size_t open_outputs(const Settings& s, const std::vector<std::int64_t>& lengths, const ModeSpec& spec,
                         const FileInfo& info, const std::vector<std::string>& hosts, Output& out) {
  out.info = info;
  if (spec.own_files)  // what the mode's sink writes: refused now, not after the measurement
    for (const auto& path : spec.own_files(s)) check_output(path, s.force);
  if (!spec.per_length) {
    write_hosts(hosts_path(s.prefix), hosts, s.force);
    return 0;
  }
  if (!s.resume) {
    create_outputs(s, info, hosts, out);
    return 0;
  }
  return resume_outputs(s, lengths, info, hosts, out);
}

}  // namespace nt::measure
