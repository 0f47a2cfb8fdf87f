// network_test's program logic: options, validation on every rank, result files, the run.
#include <sched.h>
#include <sys/prctl.h>

#include <algorithm>

#include <cstdio>
#include <functional>
#include <limits>
#include <iostream>
#include <map>
#include <optional>
#include <sstream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "setup.hpp"
#include "run.hpp"
#include "plan.hpp"
#include "runner.hpp"
#include "nt/cli.hpp"
#include "nt/hosts.hpp"
#include "nt/output.hpp"
#include "nt/version.hpp"
#ifdef NT_SMPI
#include <simgrid/host.h>
#endif

namespace nt::measure {

namespace {

constexpr const char* kProgram = "network_test";

void add_run_options(CLI::App& app, Settings& s);

void add_options(CLI::App& app, Settings& s) {
  add_type_option(app, s);
  app.add_option("-f,--file", s.prefix, "output prefix: <prefix>_{average,median,min,max,deviation}.nc, _hosts.txt")
      ->capture_default_str();
  app.add_option("-b,--begin", s.begin, "first message length in bytes")->capture_default_str();
  app.add_option("-e,--end", s.end, "last message length in bytes (inclusive)")->capture_default_str();
  app.add_option("-s,--step", s.step, "step between message lengths")->capture_default_str();
  app.add_option("-n,--repeats", s.repeats, "recorded samples per pair and length (the maximum with --precision)")
      ->capture_default_str();
  app.add_option("--precision", s.precision,
                 "sample each pair and length until the 95 % confidence interval of its median is within REL of "
                 "the median (e.g. 0.02), between --min-repeats and -n samples; the counts go to the files")
      ->type_name("REL");
  app.add_option("--min-repeats", s.min_repeats, "--precision: samples taken before the first check (>= 8)")
      ->capture_default_str();
  app.add_option("--lengths", s.length_list, "explicit list of message lengths, e.g. 0,8,1024")->delimiter(',');
  app.add_option("--geometric", s.geometric, "geometric sweep from -b to -e with this factor (> 1)");
  app.add_flag("--many-lengths", s.many_lengths,
               "measure a linear sweep of more than 1000 lengths (refused without it: --geometric is meant for a wide "
               "range)");
  app.add_option("--warmup", s.warmup, "unrecorded warm-up iterations per pair and length")->capture_default_str();
  app.add_option("--seed", s.seed, "seed of noise-rank draws and shuffles (default: random, recorded)")
      ->check(CLI::Validator(
          [](const std::string& v) {
            return !v.empty() && v[0] == '-' ? std::string("must not be negative") : std::string();
          },
          "UINT64"));
  app.add_flag("--force", s.force, "overwrite existing result files");
  app.add_flag("--resume", s.resume, "continue an interrupted run after its last complete length");
  app.add_flag("--raw", s.raw, "also write every sample to <prefix>_all.nc");
  app.add_flag("--estimate", s.estimate,
               "calibrate on these ranks for a few seconds and print the plan: time per length, sequential and "
               "--concurrent, and the batch time limit to ask for; writes no result files");
  add_schedule_options(app, s);
  add_run_options(app, s);
  add_mode_options(app, s);
}

// How the run goes: its time limit, timeouts, clocks, waiting, progress.
void add_run_options(CLI::App& app, Settings& s) {
  app.add_option("--time-limit", s.time_limit,
                 fmt::format("fit the run in SECONDS (a batch job's limit): calibrate, then choose what the command "
                             "line left open (schedule and K, samples, re-test budget) to end within 85 % of it; print "
                             "the plan and keep it in the files; stop before a length that would overrun (exit {})",
                             kExitIncomplete))
      ->type_name("SECONDS");
  app.add_option("--timeout", s.timeout, "end the run when a pair takes longer than SECONDS (0: never)")
      ->capture_default_str();
  app.add_option("--sync-rounds", s.sync_rounds, "ping-pongs per clock-offset estimate")->capture_default_str();
  nt::add_enum_option(app, "--clock-sync", s.clock_sync, clock_sync_names(),
                      "auto: ranks on one host (every rank under SMPI) share the clock (offset 0), else ping-pong "
                      "estimate; pingpong: always estimate");
  app.add_option("--idle-sleep-max", s.idle_sleep_max, "longest sleep (s) of a rank waiting for its turn")
      ->capture_default_str();
  nt::add_enum_option(app, "--oversubscribed", s.yield, oversubscribed_names(),
                      "measures for a host with more ranks than cores: the measured pair is pinned to two different "
                      "cores for its task and long polls call sched_yield; auto: when this machine (its running "
                      "kernel, whatever the host names of containers or namespaces on it) runs more ranks than we "
                      "have cores");
  app.add_flag("--list", s.list, "list the modes with their descriptions and options");
  app.add_flag("-q,--quiet", s.quiet, "no progress output and no summary");
  nt::add_enum_option(app, "--progress", s.progress, progress_names(),
                      "progress on stderr: bar (with ETA), lines (every 10 s, for batch logs), none; auto: bar when "
                      "interactive");
}

// The summary's count of flagged samples per length: only lengths with any, so a clean run
// prints nothing. Samples are counted per measured cell (a late all_to_all start flags the
// sample of every cell its rank measures).
void print_flag_counts(std::ostream& o, const FlagCounts& counts) {
  long late = 0, pre = 0;
  std::vector<const FlagCount*> hit;
  for (const auto& f : counts) {
    late += f.late;
    pre += f.preempted;
    if (f.late + f.preempted > 0) hit.push_back(&f);
  }
  if (hit.empty()) return;
  // Every length when few have any, else the worst few: one line for a batch log.
  constexpr std::size_t kShown = 6;
  const std::size_t lengths_hit = hit.size();
  const bool all = lengths_hit <= kShown;
  if (!all) {
    std::partial_sort(hit.begin(), hit.begin() + kShown, hit.end(), [](const FlagCount* a, const FlagCount* b) {
      return a->late + a->preempted > b->late + b->preempted;
    });
    hit.resize(kShown);
  }
  std::string per;
  for (const FlagCount* f : hit)
    per += fmt::format("{}{} B: {} late, {} preempted", per.empty() ? "" : "; ", f->length, f->late, f->preempted);
  o << fmt::format("{}: note: samples the scheduler disturbed (--raw keeps their flags): {} late, {} preempted at {} "
                   "of {} lengths ({}{})\n",
                   kProgram, late, pre, lengths_hit, counts.size(), all ? "" : "worst: ", per);
}

// More samples per pair and length than this is a typing error; the samples are kept in memory.
constexpr int kMaxRepeats = 1000000;

// Checks everything that depends only on the options and the number of ranks: the same verdict
// on every rank without any communication. Builds the sweep.
const ModeSpec& validate(const Settings& s, int P, SweepPlan& sweep) {
  const ModeSpec* spec = registry().find(s.mode);
  if (!spec) throw Error(fmt::format("internal: mode code {} is not registered", static_cast<int>(s.mode)));
  if (P < spec->min_ranks)
    throw UsageError(fmt::format("mode {} needs at least {} ranks, got {}", spec->name, spec->min_ranks, P));
  if (s.repeats < 1) throw UsageError("repeats (-n) must be at least 1");
  if (s.repeats > kMaxRepeats)
    throw UsageError(fmt::format("repeats (-n) {} is more than the {} samples per pair and length allowed", s.repeats,
                                 kMaxRepeats));
  if (s.precision != 0) {
    if (!(s.precision > 0 && s.precision < 1)) throw UsageError("--precision must be between 0 and 1 (e.g. 0.02 for 2 %)");
    if (s.min_repeats < 8)
      throw UsageError("--min-repeats must be at least 8 (fewer samples give no finite interval for the median)");
    if (s.min_repeats > s.repeats)
      throw UsageError(fmt::format("--min-repeats {} is more than the maximum -n {}", s.min_repeats, s.repeats));
  }
  if (s.warmup < 0) throw UsageError("--warmup must not be negative");
  if (s.warmup > kMaxRepeats) throw UsageError(fmt::format("--warmup must be at most {}", kMaxRepeats));
  if (s.timeout < 0) throw UsageError("--timeout must not be negative");
  if (s.time_limit < 0) throw UsageError("--time-limit must not be negative");
  if (s.time_limit > 0 && s.estimate)
    throw UsageError("--estimate prints the plan of every schedule; it does not combine with --time-limit");
  if (s.time_limit > 0 && s.resume)
    throw UsageError("--time-limit plans a whole sweep; it does not combine with --resume (resume with the options "
                     "its plan printed)");
  if (s.sync_rounds < 1) throw UsageError("--sync-rounds must be at least 1");
  if (!(s.idle_sleep_max > 0 && s.idle_sleep_max <= 1.0)) throw UsageError("--idle-sleep-max must be in (0, 1] s");
  if (s.prefix.empty()) throw UsageError("the output prefix (-f) must not be empty");
  sweep.lengths = make_sweep(s, &sweep.kind);
  if (sweep.lengths.empty()) throw UsageError("the sweep has no message lengths");
  validate_schedule(s, *spec);
  if (s.resume && s.force) throw UsageError("--resume and --force exclude each other");
  if (s.estimate && s.resume) throw UsageError("--estimate plans a whole sweep; it does not combine with --resume");
  if (spec->validate) spec->validate(s, P);
  if (!spec->per_length) {  // what a sweep of statistic matrices offers, a one-pass mode has not
    for (const auto& [given, option] : {std::pair{s.estimate, "--estimate"}, std::pair{s.resume, "--resume"},
                                        std::pair{s.raw, "--raw"}, std::pair{s.precision > 0, "--precision"},
                                        std::pair{s.time_limit > 0, "--time-limit"}})
      if (given) throw UsageError(fmt::format("{} does not apply to {} (one pass, no statistic matrices)", option,
                                              spec->name));
  }
  // Memory each rank needs per length: its samples and flags of P peers (9 bytes each), and for a
  // mode whose ranks hold columns the exchange into rows (two buffers of P x (6 + 2 samples)
  // doubles). Rank 0 needs P x P matrices only when it must gather (run_sweep checks it then).
  const long double per_rank =
      static_cast<long double>(P) * (9.0L * s.repeats + 48.0L + 16.0L * (6.0L + 2.0L * s.repeats));
  if (per_rank > static_cast<long double>(memory_limit()))
    throw UsageError(fmt::format("{} ranks with -n {} need {:.3g} GB per rank per length, more than the memory limit of "
                                 "{:.3g} GB (NT_MEMORY_LIMIT changes it)",
                                 P, s.repeats, static_cast<double>(per_rank) / 1e9,
                                 static_cast<double>(memory_limit()) / 1e9));
  // Per-rank memory the mode needs, against int counts of MPI.
  const std::int64_t maxlen = sweep.lengths.back();
  if (spec->kind == TaskKind::all_ranks && maxlen * P > std::numeric_limits<int>::max())
    throw UsageError("all_to_all: P * largest length exceeds the buffer limit");
  return *spec;
}

std::string join_args(int argc, char** argv) {
  std::string out;
  for (int i = 0; i < argc; ++i) {
    if (i) out += ' ';
    std::string a = argv[i];
    if (a.find_first_of(" \t'\"") != std::string::npos) a = "'" + a + "'";
    out += a;
  }
  return out;
}

// Broadcasts rank 0's verdict; every rank returns the same code.
int share_verdict(MPI_Comm comm, int rank, int code, const std::string& message) {
  int c = code;
  MPI_Bcast(&c, 1, MPI_INT, 0, comm);
  if (rank == 0 && c != 0 && !message.empty()) std::cerr << kProgram << ": error: " << one_line(message) << '\n';
  return c;
}

#ifdef NT_SMPI
// smpirun repeats a host file that has fewer lines than ranks from its start, putting ranks on
// simulated hosts beyond their cores, where a real launcher would have refused or warned.
std::string simulated_placement_error(const std::vector<std::string>& hosts) {
  std::map<std::string, int> ranks_on;
  for (const auto& h : hosts) ++ranks_on[h];
  for (const auto& [name, n] : ranks_on) {
    const sg_host_t host = sg_host_by_name(name.c_str());
    const int cores = host ? sg_host_core_count(host) : 0;
    if (n > cores)
      return fmt::format("{} ranks on simulated host {}, which has {} core(s): the host file has fewer slots than "
                         "ranks (smpirun repeats it from the start); list a host once per rank",
                         n, name, cores);
  }
  return {};
}
#endif

// Parses the command line into s (every rank alike; only rank 0 talks). Returns the exit code
// when there is nothing to measure (--help, --version, --list, a parse error), else nothing.
std::optional<int> parse_command_line(int argc, char** argv, int rank, Settings& s) {
  CLI::App app{"network_test: delays of every rank pair and message length, written as NetCDF", kProgram};
  add_options(app, s);
  nt::add_version_flag(app);
  app.footer(modes_footer());
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {
    if (rank == 0) app.exit(e);
    return 0;
  } catch (const CLI::ParseError& e) {
    if (rank == 0)
      std::cerr << kProgram << ": error: " << e.what() << " (run with --help for more information)\n";
    return kExitUsage;
  }
  if (s.list) {
    if (rank == 0) std::cout << list_modes_text(app);
    return 0;
  }
  s.command_line = join_args(argc, argv);
  s.given_repeats = app.count("-n") > 0 || s.precision > 0;  // --precision: -n is its maximum
  s.given_schedule = app.count("--concurrent") + app.count("--host-pairs") + app.count("--sample-pairs") > 0;
  s.given_retest = app.count("--retest") + app.count("--retest-seconds") + app.count("--retest-hosts") > 0;
  return std::nullopt;
}

// Every rank's machine key, on rank 0: the kernel's boot id (36 characters), or a hash of the host
// name where that cannot be read; 40 bytes per rank. Simulated ranks share one process and one
// kernel: their machines are their simulated hosts (hosts: the host names, on rank 0).
std::vector<std::string> gather_machine_keys(MPI_Comm comm, int rank, const RankInfo& me,
                                             const std::vector<std::string>& hosts, int P) {
  if (kSimulated) return hosts;
  constexpr std::size_t kWidth = 40;
  char key[kWidth] = {};
  const bool boot_id = !me.machine.empty() && me.machine.size() < kWidth;
  const std::string mine = boot_id ? me.machine : fmt::format("host {:016x}", std::hash<std::string>{}(me.host));
  std::snprintf(key, sizeof key, "%s", mine.c_str());
  std::vector<char> keys(rank == 0 ? kWidth * static_cast<std::size_t>(P) : 0);
  MPI_Gather(key, kWidth, MPI_CHAR, keys.data(), kWidth, MPI_CHAR, 0, comm);
  std::vector<std::string> each;
  if (rank == 0)
    for (int r = 0; r < P; ++r) each.emplace_back(keys.data() + kWidth * static_cast<std::size_t>(r));
  return each;
}

Placement gather_placement(MPI_Comm comm, int rank, int P) {
  const RankInfo me = this_rank_info();
  const auto PU = static_cast<std::size_t>(P);
  Placement pl;
  char host[256] = {};
  std::snprintf(host, sizeof host, "%s", me.host.c_str());
  std::vector<char> hosts(rank == 0 ? 256 * PU : 0);
  MPI_Gather(host, 256, MPI_CHAR, hosts.data(), 256, MPI_CHAR, 0, comm);
  std::vector<std::string> names;  // rank 0
  if (rank == 0)
    for (std::size_t r = 0; r < PU; ++r) names.emplace_back(hosts.data() + 256 * r);
  const auto keys = gather_machine_keys(comm, rank, me, names, P);
  std::vector<int> ids(2 * PU);  // hosts, then machines
  if (rank == 0) {
    const auto host_ids = number_by_first_appearance(names), machine_ids = number_by_first_appearance(keys);
    std::copy(host_ids.begin(), host_ids.end(), ids.begin());
    std::copy(machine_ids.begin(), machine_ids.end(), ids.begin() + P);
  }
  MPI_Bcast(ids.data(), 2 * P, MPI_INT, 0, comm);
  pl.host_of.assign(ids.begin(), ids.begin() + P);
  pl.machine_of.assign(ids.begin() + P, ids.end());
  int cpu[2] = {me.cpu, me.numa};
  std::vector<int> cpus(rank == 0 ? 2 * PU : 0);
  MPI_Gather(cpu, 2, MPI_INT, cpus.data(), 2, MPI_INT, 0, comm);
  char mach[512] = {};  // binding, then the node's CPU (each cut at 255 characters)
  std::snprintf(mach, 256, "%s", me.binding.c_str());
  std::snprintf(mach + 256, 256, "%s", me.node.c_str());
  std::vector<char> machs(rank == 0 ? 512 * PU : 0);
  MPI_Gather(mach, 512, MPI_CHAR, machs.data(), 512, MPI_CHAR, 0, comm);
  if (rank == 0)
    for (std::size_t r = 0; r < PU; ++r) {
      RankInfo ri;
      ri.host = names[r];
      ri.cpu = cpus[2 * r];
      ri.numa = cpus[2 * r + 1];
      ri.binding = std::string(machs.data() + 512 * r);
      ri.node = std::string(machs.data() + 512 * r + 256);
      pl.ranks.push_back(ri);
    }
  return pl;
}

// Rank 0 opens the files (none with --estimate); its verdict goes to every rank. Returns the
// first length to measure on every rank, or nothing when the run must end (exit code 2).
std::optional<std::size_t> prepare_outputs(MPI_Comm comm, int rank, const Settings& s, const SweepPlan& sweep,
                                           const ModeSpec& spec, const Placement& pl, const TimePlan* plan,
                                           FileInfo& info, Output& out) {
  std::size_t first = 0;
  int code = 0;
  std::string message;
#ifdef NT_SMPI
  if (rank == 0) {
    std::vector<std::string> hosts;
    for (const auto& r : pl.ranks) hosts.push_back(r.host);
    message = simulated_placement_error(hosts);
  }
  if (!message.empty()) code = kExitUsage;
#endif
  if (rank == 0 && !s.estimate && code == 0) {
    try {
      info = make_info(s, sweep, spec, static_cast<int>(pl.host_of.size()), pl.ranks, pl.oversubscribed_ranks, plan);
      std::vector<std::string> hosts;
      for (const auto& r : pl.ranks) hosts.push_back(r.host);
      first = open_outputs(s, sweep.lengths, spec, info, hosts, out);
    } catch (const Error& e) {
      code = kExitUsage;
      message = e.what();
    }
  }
  if (share_verdict(comm, rank, code, message) != 0) return std::nullopt;
  std::uint64_t first64 = first;
  MPI_Bcast(&first64, 1, MPI_UINT64_T, 0, comm);
  return static_cast<std::size_t>(first64);
}

// --oversubscribed: on, off, or (auto) when more ranks share this machine than the cores they may
// run on together (the union of their affinity masks: ranks bound one per core are not
// oversubscribed, ranks bound to one core together are). The machine, not the host name: network
// namespaces or containers on one machine (as in scripts/virtual-cluster) have host names of their
// own but share its cores, and ranks that spin there take the core from the pair being measured
// (milliseconds on a sample). Collective over comm when auto (and not simulated).
bool oversubscribed(MPI_Comm comm, const Settings& s, const std::vector<int>& machine_of, int rank) {
  if (s.yield != Oversubscribed::automatic) return s.yield == Oversubscribed::on;
  if (kSimulated) return false;
  MPI_Comm local = MPI_COMM_NULL;
  MPI_Comm_split(comm, machine_of[static_cast<std::size_t>(rank)], rank, &local);
  cpu_set_t mine, all;
  CPU_ZERO(&mine);
  CPU_ZERO(&all);
  if (sched_getaffinity(0, sizeof mine, &mine) != 0) CPU_SET(0, &mine);
  MPI_Allreduce(&mine, &all, static_cast<int>(sizeof mine), MPI_BYTE, MPI_BOR, local);
  int here = 1;
  MPI_Comm_size(local, &here);
  MPI_Comm_free(&local);
  return here > CPU_COUNT(&all);
}

// Wires up every connection once (MPICH/UCX connect lazily; the first message of a pair can
// take milliseconds), so that no measured or synchronising exchange pays for it. A simulated MPI
// has no connections to make.
void connect_all(MPI_Comm comm, int rank, int P) {
  if (!kSimulated) {
    std::vector<int> a(static_cast<std::size_t>(P), rank), b(static_cast<std::size_t>(P));
    MPI_Alltoall(a.data(), 1, MPI_INT, b.data(), 1, MPI_INT, comm);
  }
  MPI_Barrier(comm);
}

// What the run cost, on rank 0's stderr (every rank takes part in the reductions).
struct RunCost {
  double wall = 0;
  SweepCost sweep;
};

void print_summary(Ctx& c, bool show, const RunCost& cost, const FlagCounts& flag_counts) {
  const Settings& s = c.settings;
  double timed = 0;
  MPI_Reduce(&runner(c).timed_seconds, &timed, 1, MPI_DOUBLE, MPI_SUM, 0, c.comm);
  double write_max = 0, data_max = 0;
  MPI_Reduce(&cost.sweep.write_seconds, &write_max, 1, MPI_DOUBLE, MPI_MAX, 0, c.comm);
  MPI_Reduce(&cost.sweep.data_bytes, &data_max, 1, MPI_DOUBLE, MPI_MAX, 0, c.comm);
  const FixedPart& mine = c.fixed_part();
  long counts[9] = {mine.host_offsets, mine.checks,   mine.check_rounds,    mine.long_checks, mine.full_estimates,
                    mine.moved,        mine.warm_tasks, mine.warm_iterations, mine.warm_capped};
  long sums[9] = {};
  double max_change = 0;
  MPI_Reduce(counts, sums, 9, MPI_LONG, MPI_SUM, 0, c.comm);
  MPI_Reduce(&mine.max_change, &max_change, 1, MPI_DOUBLE, MPI_MAX, 0, c.comm);
  if (!show) return;
  // Timed share: the timed intervals of every measuring rank, summed, over the wall time times
  // the pairs that can be timed at once (1 in the sequential schedule, floor(P/2) in the
  // concurrent one): the fraction of the job the schedule spent measuring.
  const double wall = cost.wall;
  const int hosts = c.hosts.empty() ? c.size : 1 + *std::max_element(c.hosts.begin(), c.hosts.end());
  const Schedule& sched = s.schedule;
  const int pairs = std::max(1, (sched.pairs_at_once > 0 && hosts < c.size ? hosts : c.size) / 2);
  const auto& sw = sched.switches;
  const int lanes = sw.empty() ? 0 : std::max(1, (1 + *std::max_element(sw.begin(), sw.end())) / 2);
  const double slots = lanes > 0 && !sched.sequential() ? lanes  // lanes by switch (concurrent or host pairs)
                       : !sched.concurrent()               ? 1.0
                       : sched.pairs_at_once > 0           ? std::min(pairs, sched.pairs_at_once)
                                                           : pairs;
  std::cerr << fmt::format("{}: {} done in {:.3f} s; timed communication {:.3f} s ({:.1f}% of the wall time{}); "
                           "writing {:.3f} s host time (slowest rank); data per rank {:.3g} MB (largest)\n",
                           kProgram, c.spec.name, wall, timed, wall > 0 ? 100.0 * timed / (wall * slots) : 0.0,
                           slots != 1.0 || sched.concurrent() ? fmt::format(" x {} pair slots", slots) : std::string(), write_max,
                           data_max / 1e6);
  // The fixed part of the tasks (share/doc/network_test.md, "Clock offsets" and "Warm-up"): what
  // the pair clocks and the warm-up rule did, summed over the ranks.
  if (c.spec.pair_clocks)
    std::cerr << fmt::format(
        "{}: fixed part: clock offsets of {} host pairs before the sweep; {} checks of a pair's offset in {} "
        "ping-pongs ({} needed more than one, {} had no round trip to compare with, {} found it moved; largest "
        "change {:.3g} us); warm-up {} iterations in {} tasks ({:.2f} per task, {} at the --warmup cap)\n",
        kProgram, sums[0], sums[1], sums[2], sums[3], sums[4], sums[5], 1e6 * max_change, sums[7], sums[6],
        sums[6] > 0 ? static_cast<double>(sums[7]) / static_cast<double>(sums[6]) : 0.0, sums[8]);
  print_flag_counts(std::cerr, flag_counts);
  if (!s.schedule.retested()) return;
  RetestResult all;
  for (const auto& f : flag_counts) {
    all.pairs += f.retest.pairs;
    all.seconds += f.retest.seconds;
  }
  std::cerr << fmt::format("{}: re-tested alone after the concurrent rounds: {} pairs over {} lengths in {:.3f} s "
                           "(variable isolated of the statistic files)\n",
                           kProgram, all.pairs, flag_counts.size(), all.seconds);
}

// The measurement from length `first` on, the mode's own output and the summary. Returns the exit
// code: 4 when --time-limit's guard stopped the sweep (INCOMPLETE on stderr, whatever -q says).
int measure(Ctx& c, Output& out, const FileInfo& info, std::size_t first, TimeGuard* guard) {
  const Settings& s = c.settings;
  const bool show = c.rank == 0 && !s.quiet;
  if (show && first > 0)
    std::cerr << kProgram << ": resuming after " << first << " complete lengths of " << c.lengths.size() << '\n';
  const double t0 = MPI_Wtime();
  FlagCounts flag_counts;
  RunCost cost;
  if (!c.spec.per_length) {
    if (show) std::cerr << kProgram << ": " << c.spec.name << " over " << c.lengths.size() << " sizes\n";
    run_one_pass(c);
  } else {
    measure_host_clocks(c);
    Progress progress(show ? s.progress : ProgressStyle::none, c.lengths);
    LengthGate go_on;
    if (guard) go_on = [&](std::size_t k) { return (*guard)(c, k); };
    cost.sweep =
        run_sweep(c, c.rank == 0 ? &out : nullptr, first, c.rank == 0 ? &progress : nullptr, &flag_counts, go_on);
    progress.finish();
    for (auto& [st, w] : out.stats) w.close();
    if (out.all) out.all->close();
  }
  runner(c).mode->finish(c, info);  // the mode's own output
  cost.wall = MPI_Wtime() - t0;
  print_summary(c, show, cost, flag_counts);
  if (!guard || !guard->stopped()) return 0;
  if (c.rank == 0) std::cerr << guard->incomplete_line(c.lengths) << std::endl;
  return kExitIncomplete;
}

}  // namespace

int run_network_test(int argc, char** argv) {
  MPI_Comm comm = MPI_COMM_WORLD;
  int rank = 0, P = 0;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  // Short sleeps of waiting ranks should really be short.
  prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);

  Settings s;
  // Every rank parses the same command line, so every rank reaches the same verdict; only rank 0 talks.
  if (const auto done = parse_command_line(argc, argv, rank, s)) return *done;
  // The start of this process on Ctx::now()'s clock (--time-limit counts from it; simulated: 0).
  const double t_origin = kSimulated ? 0.0 : Ctx::now() - process_age_s();
  const ModeSpec* spec = nullptr;
  SweepPlan sweep;
  try {
    resolve_schedule(s);
    spec = &validate(s, P, sweep);
  } catch (const Error& e) {
    if (rank == 0) std::cerr << kProgram << ": error: " << e.what() << '\n';
    return kExitUsage;
  }
  share_seed(comm, rank, s);
  Placement placement = gather_placement(comm, rank, P);
  if (s.schedule.by_switch) {
    auto each = gather_switches(comm, rank, s, placement, P);
    if (!each) return kExitUsage;
    s.schedule.switches = std::move(*each);
  }
  placement.oversubscribed = oversubscribed(comm, s, placement.machine_of, rank);
  const int mine = placement.oversubscribed ? 1 : 0;
  MPI_Allreduce(&mine, &placement.oversubscribed_ranks, 1, MPI_INT, MPI_SUM, comm);
  // --time-limit: calibrate and choose before any file exists (what it chooses is in the files).
  std::optional<TimePlan> plan;
  if (s.time_limit > 0) {
    connect_all(comm, rank, P);
    plan = plan_time_limit(comm, s, sweep.lengths, *spec, placement, t_origin);
    if (!plan) return kExitUsage;
    plan->apply(s);
    if (rank == 0) std::cout << plan->text() << std::endl;
  }
  Output out;
  FileInfo info;
  const auto first = prepare_outputs(comm, rank, s, sweep, *spec, placement, plan ? &*plan : nullptr, info, out);
  if (!first) return kExitUsage;

  Ctx c(comm, s, sweep.lengths, *spec, placement.host_of, placement.machine_of, placement.oversubscribed);
  const std::unique_ptr<ModeRun> mode_run = spec->begin_run(c);  // the mode's state (collective)
  runner(c).mode = mode_run.get();
  if (!plan) connect_all(comm, rank, P);
  if (s.estimate) {
    run_estimate(c, process_age_s());
    return 0;
  }
  std::optional<TimeGuard> guard;
  if (plan) guard.emplace(*plan, t_origin);
  return measure(c, out, info, *first, guard ? &*guard : nullptr);
}

}  // namespace nt::measure
