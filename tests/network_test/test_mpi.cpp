// MPI tests: the real network_test under mpiexec (MPICH hydra), 2 and 4 ranks oversubscribed on
// 2 cores, checked through the core readers. Sweeps are tiny so that the suite stays fast.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "nt/hosts.hpp"
#include "nt/loggp.hpp"
#include "nt/raw_file.hpp"
#include "nt/stats.hpp"
#include "mpi_run.hpp"

namespace fs = std::filesystem;
using namespace nt;

namespace {

// Checks the five statistic files and the hosts file of a finished run.
void check_result(const std::string& pre, Mode mode, int P, const std::vector<std::int64_t>& lengths, int repeats) {
  SCOPED_TRACE(pre);
  const auto hosts = read_hosts(hosts_path(pre));
  EXPECT_EQ(static_cast<int>(hosts.size()), P);
  const bool zero_diag = diagonal_is_zero(mode);
  std::map<Statistic, std::unique_ptr<RawReader>> files;
  for (Statistic st : standard_statistics()) {
    auto f = std::make_unique<RawReader>(result_path(pre, st));
    EXPECT_EQ(f->ranks(), P);
    EXPECT_EQ(f->params().mode, mode);
    EXPECT_EQ(f->params().statistic, st);
    EXPECT_EQ(f->params().num_repeats, repeats);
    EXPECT_EQ(f->lengths(), lengths);
    EXPECT_EQ(f->meta().format_version, kFormatVersion);
    EXPECT_FALSE(f->meta().sync_method.empty());
    EXPECT_FALSE(f->meta().mpi_version.empty());
    EXPECT_EQ(f->meta().timer, "clock_gettime(CLOCK_MONOTONIC)");
    EXPECT_GT(f->meta().timer_resolution, 0.0);
    EXPECT_NE(f->meta().command_line.find("network_test"), std::string::npos);
    EXPECT_EQ(static_cast<int>(f->meta().hosts.size()), P);
    EXPECT_EQ(static_cast<int>(f->meta().cpus.size()), P);
    for (std::size_t k = 0; k < f->count(); ++k) {
      const Matrix m = f->matrix(k);
      for (int x = 0; x < P; ++x)
        for (int y = 0; y < P; ++y) {
          const double v = m.at(x, y);
          ASSERT_TRUE(std::isfinite(v)) << x << "," << y << " length " << lengths[k];
          if (x == y && zero_diag) {
            EXPECT_EQ(v, 0.0) << "diagonal of a pairwise mode";
          } else if (st == Statistic::deviation) {
            EXPECT_GE(v, 0.0);
          } else {
            EXPECT_GT(v, 0.0) << statistic_name(st) << " " << x << "->" << y << " length " << lengths[k];
            EXPECT_LT(v, 5.0);
          }
        }
    }
    files[st] = std::move(f);
  }
  // min <= median <= max and min <= average <= max cell by cell.
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    const Matrix mn = files[Statistic::min]->matrix(k), mx = files[Statistic::max]->matrix(k),
                 md = files[Statistic::median]->matrix(k), av = files[Statistic::average]->matrix(k);
    for (int x = 0; x < P; ++x)
      for (int y = 0; y < P; ++y) {
        EXPECT_LE(mn.at(x, y), md.at(x, y));
        EXPECT_LE(md.at(x, y), mx.at(x, y));
        EXPECT_LE(mn.at(x, y), av.at(x, y) * (1 + 1e-12));
        EXPECT_LE(av.at(x, y), mx.at(x, y) * (1 + 1e-12));
      }
  }
}

const std::vector<std::int64_t> kLengths{0, 1024};
const std::string kSweep = "--lengths 0,1024 -n 5 --warmup 2 --seed 7 -q --timeout 60";

struct ModeCase {
  const char* name;
  Mode mode;
  int ranks;
  const char* extra;
};

void PrintTo(const ModeCase& c, std::ostream* os) { *os << c.name << " -n " << c.ranks << " " << c.extra; }

class EveryMode : public ::testing::TestWithParam<ModeCase> {};

TEST_P(EveryMode, WritesValidFiles) {
  const auto c = GetParam();
  const std::string pre = prefix(std::string(c.name) + "_" + std::to_string(c.ranks));
  const RunResult r = run_nt(c.ranks, std::string("-t ") + c.name + " -f " + pre + " " + kSweep + " " + c.extra);
  ASSERT_EQ(r.code, 0) << r.out;
  check_result(pre, c.mode, c.ranks, kLengths, 5);
}

INSTANTIATE_TEST_SUITE_P(
    Modes, EveryMode,
    ::testing::Values(ModeCase{"one_to_one", Mode::one_to_one, 2, ""}, ModeCase{"one_to_one", Mode::one_to_one, 4, ""},
                      ModeCase{"async_one_to_one", Mode::async_one_to_one, 2, ""},
                      ModeCase{"async_one_to_one", Mode::async_one_to_one, 4, ""},
                      ModeCase{"send_recv_and_recv_send", Mode::send_recv_and_recv_send, 2, ""},
                      ModeCase{"send_recv_and_recv_send", Mode::send_recv_and_recv_send, 4, ""},
                      ModeCase{"all_to_all", Mode::all_to_all, 2, ""}, ModeCase{"all_to_all", Mode::all_to_all, 4, ""},
                      ModeCase{"test_noise", Mode::noise, 4, "-p 2 -l 512 -m 2"},
                      ModeCase{"noise", Mode::noise, 3, "-p 1 -l 256 -m 2"},
                      ModeCase{"test_noise_blocking", Mode::noise_blocking, 4, "-p 1 -l 512 -m 2"},
                      ModeCase{"noise_blocking", Mode::noise_blocking, 3, "-p 1"},
                      ModeCase{"put", Mode::put, 2, ""}, ModeCase{"put_one_to_one", Mode::put, 4, ""},
                      ModeCase{"get", Mode::get, 2, ""}, ModeCase{"get_one_to_one", Mode::get, 4, ""},
                      ModeCase{"bcast", Mode::bcast, 2, ""}, ModeCase{"bcast", Mode::bcast, 4, ""},
                      ModeCase{"one_to_one", Mode::one_to_one, 4, "--concurrent --shuffle"},
                      ModeCase{"async_one_to_one", Mode::async_one_to_one, 4, "--concurrent"},
                      ModeCase{"put", Mode::put, 4, "--concurrent"},
                      ModeCase{"one_to_one", Mode::one_to_one, 4, "--concurrent=1 --rounds fixed --shuffle"},
                      ModeCase{"get", Mode::get, 3, "--concurrent=1 --retest 2 --retest-ratio 1.01"},
                      ModeCase{"async_one_to_one", Mode::async_one_to_one, 4, "--concurrent --retest 3"},
                      ModeCase{"one_to_one", Mode::one_to_one, 4, "--shuffle"}),
    [](const auto& param_info) {
      std::string n = std::string(param_info.param.name) + "_" + std::to_string(param_info.param.ranks) + "_" +
                      std::to_string(param_info.index);
      return n;
    });

TEST(NetworkTest, NoiseModesNeedThreeRanksOnTwo) {
  for (const char* m : {"noise", "noise_blocking"}) {
    const RunResult r = run_nt(2, std::string("-t ") + m + " -f " + prefix(std::string("few_") + m) + " " + kSweep);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find("needs at least 3 ranks"), std::string::npos) << r.out;
    EXPECT_FALSE(fs::exists(result_path(prefix(std::string("few_") + m), Statistic::median)));
  }
}

TEST(NetworkTest, ListShowsEveryModeAndItsOptions) {
  const RunResult r = run_nt(2, "--list");
  EXPECT_EQ(r.code, 0) << r.out;
  for (const char* m : {"one_to_one", "async_one_to_one", "send_recv_and_recv_send", "all_to_all", "noise",
                        "noise_blocking", "put", "get", "bcast", "loggp", "put_one_to_one", "get_one_to_one",
                        "test_noise", "test_noise_blocking", "--loggp-n", "-p,--noise-procs"})
    EXPECT_NE(r.out.find(m), std::string::npos) << m;
  // Printed once, by rank 0 only.
  EXPECT_EQ(count(r.out, "Modes ("), 1u);
  // The help, from the same mode table: each mode's options in its own section, every mode in
  // the footer.
  const RunResult h = run_nt(2, "--help");
  EXPECT_EQ(h.code, 0) << h.out;
  for (const char* part : {"Mode options: loggp", "--loggp-break-tol", "Mode options: noise, noise_blocking",
                           "-p,--noise-procs", "Modes: one_to_one all_to_all async_one_to_one send_recv_and_recv_send "
                                               "noise noise_blocking bcast put get loggp"})
    EXPECT_NE(h.out.find(part), std::string::npos) << part << "\n" << h.out;
  const RunResult v = run_nt(2, "--version");
  EXPECT_EQ(v.code, 0);
  EXPECT_EQ(count(v.out, "network_test 0."), 1u) << v.out;
}

TEST(NetworkTest, BadOptionsExitTwoOnEveryRankWithOneMessage) {
  struct Bad {
    int P;
    std::string args, says;
  };
  const std::vector<Bad> cases = {
      {2, "-t nonsense", "unknown mode 'nonsense'"},
      {4, "-t nonsense", "unknown mode"},
      {2, "-s 0", "step length (-s) must be positive"},
      {4, "-s -100", "must be positive"},
      {2, "-b 100 -e 10", "smaller than begin"},
      {4, "-t noise -p 3", "between 1 and P-2 = 2 noise ranks"},
      {4, "-t noise_blocking -p 0", "between 1 and P-2"},
      {2, "--no-such-option", "--no-such-option"},
      {2, "-n 0", "repeats (-n) must be at least 1"},
      {2, "--lengths 8,4", "strictly increasing"},
      {2, "-t bcast --concurrent", "--concurrent applies to the pairwise modes"},
      {2, "--concurrent=0", "--concurrent=K: K must be a positive number"},
      {4, "--concurrent=two", "--concurrent=K: K must be a positive number"},
      {2, "--rounds fixed", "--rounds requires --concurrent"},
      {2, "--retest 4", "--retest requires --concurrent"},
      {2, "--concurrent --retest-ratio 1", "--retest-ratio must be greater than 1"},
      {2, "--concurrent --precision 0.1", "--precision does not combine with the random rounds"},
      {2, "--geometric 0.5", "greater than 1"},
      {2, "-f /proc/version/x", "not a directory"},
      {4, "-f /proc/version/x", "not a directory"},
      // Sizes that pass a naive check and then fail in the middle of the run.
      {2, "-n 2000000000", "samples per pair and length allowed"},
      {4, "-e 2147483647 -s 1", "2147483648 lengths"},
      {2, "-e 2147483648", "--end"},
      {2, "--seed -1", "must not be negative"},
      {2, "-n abc", "--repeats"},
      {2, "--precision 1.5", "--precision must be between 0 and 1"},
      {4, "--precision -0.1", "--precision must be between 0 and 1"},
      {2, "--precision 0.05 --min-repeats 4", "--min-repeats must be at least 8"},
      {2, "--precision 0.05 -n 10 --min-repeats 20", "more than the maximum -n 10"},
      {2, "-t loggp --precision 0.05", "does not apply to loggp"},
      {2, "-t loggp --estimate", "--estimate does not apply to loggp"},
      {4, "--estimate --resume", "does not combine with --resume"},
  };
  for (const auto& c : cases) {
    const bool own_prefix = c.args.find("-f ") != std::string::npos;
    // Open MPI's launcher adds its own report of a non-zero exit (a dozen lines) unless it runs
    // quiet; the promise is about network_test's output. MPICH ignores the variable.
    const RunResult r = run_nt(c.P, c.args + (own_prefix ? "" : " -f " + prefix("bad")) + " -q",
                               "OMPI_MCA_orte_execute_quiet=1", 60);
    SCOPED_TRACE(c.args);
    EXPECT_EQ(r.code, 2) << r.out;
    EXPECT_NE(r.out.find(c.says), std::string::npos) << r.out;
    EXPECT_EQ(count(r.out, "error:"), 1u) << "one message, not one per rank:\n" << r.out;
    EXPECT_EQ(count(r.out, "\n"), 1u) << "one line:\n" << r.out;
    EXPECT_EQ(r.out.find("Abort"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("BAD TERMINATION"), std::string::npos) << r.out;
  }
  EXPECT_FALSE(fs::exists(result_path(prefix("bad"), Statistic::median)));
}

TEST(NetworkTest, NeverOverwritesWithoutForce) {
  const std::string pre = prefix("keep");
  ASSERT_EQ(run_nt(2, "-f " + pre + " " + kSweep).code, 0);
  const auto before = fs::last_write_time(result_path(pre, Statistic::median));
  const auto size_before = fs::file_size(result_path(pre, Statistic::average));
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const RunResult again = run_nt(2, "-f " + pre + " --lengths 0,8,16 -n 3 -q");
  EXPECT_EQ(again.code, 2) << again.out;
  EXPECT_NE(again.out.find("--force"), std::string::npos) << again.out;
  EXPECT_EQ(fs::last_write_time(result_path(pre, Statistic::median)), before);
  EXPECT_EQ(fs::file_size(result_path(pre, Statistic::average)), size_before);
  const RunResult forced = run_nt(2, "-f " + pre + " --lengths 0,8,16 -n 3 -q --force");
  ASSERT_EQ(forced.code, 0) << forced.out;
  check_result(pre, Mode::one_to_one, 2, {0, 8, 16}, 3);
}

TEST(NetworkTest, RawFileHoldsEverySample) {
  const std::string pre = prefix("raw");
  ASSERT_EQ(run_nt(2, "-t async_one_to_one -f " + pre + " --raw --lengths 0,64 -n 7 --warmup 1 -q --seed 3").code, 0);
  RawReader all(result_path(pre, Statistic::all));
  RawReader med(result_path(pre, Statistic::median)), mn(result_path(pre, Statistic::min));
  EXPECT_EQ(all.samples(), 7);
  EXPECT_EQ(all.lengths(), (std::vector<std::int64_t>{0, 64}));
  for (std::size_t k = 0; k < 2; ++k)
    for (int x = 0; x < 2; ++x)
      for (int y = 0; y < 2; ++y) {
        const auto s = all.samples_of(x, y, k);
        ASSERT_EQ(s.size(), 7u);
        EXPECT_DOUBLE_EQ(nt::median(s), med.value(x, y, k));
        EXPECT_DOUBLE_EQ(*std::min_element(s.begin(), s.end()), mn.value(x, y, k));
      }
}

// Every sample of an _all file carries validity flags; an oversubscribed collective (4 ranks on
// 2 cores) exercises the late/preempted checks, and whatever they flag stays within the bits.
TEST(NetworkTest, RawFileFlagsEverySample) {
  const std::string pre = prefix("flags");
  const RunResult r = run_nt(4, "-t all_to_all -f " + pre + " --raw --lengths 0,512 -n 20 --warmup 2 --seed 3");
  ASSERT_EQ(r.code, 0) << r.out;
  RawReader all(result_path(pre, Statistic::all));
  ASSERT_TRUE(all.has_sample_flags());
  EXPECT_FALSE(all.has_sample_count()) << "no --precision: every cell has -n samples";
  for (std::size_t k = 0; k < 2; ++k) {
    const auto f = all.sample_flags(k);
    ASSERT_EQ(f.size(), 4u * 4u * 20u);
    for (std::uint8_t v : f) EXPECT_EQ(v & ~(kSampleLateFlag | kSamplePreemptedFlag), 0) << int(v);
  }
  // The summary's count per length and `info`'s column say the same as the flags.
  long late = 0, pre_empted = 0;
  for (std::size_t k = 0; k < 2; ++k)
    for (std::uint8_t v : all.sample_flags(k)) {
      late += (v & kSampleLateFlag) ? 1 : 0;
      pre_empted += (v & kSamplePreemptedFlag) ? 1 : 0;
    }
  if (late + pre_empted > 0)
    EXPECT_NE(r.out.find(fmt::format("{} late, {} preempted at", late, pre_empted)), std::string::npos) << r.out;
  else
    EXPECT_EQ(r.out.find("scheduler disturbed"), std::string::npos) << r.out;
}

// Two ranks that share one core (taskset -c 0) without yielding: every one-way sample needs the
// scheduler to switch between them, and the flags must say so. (They stayed 0 for the one-way
// modes, and for every mode without --timeout, where MPI_Wait polls inside the MPI library and
// no poll gap is seen; the involuntary context switches of the thread show it.)
TEST(NetworkTest, OneWaySamplesOnASharedCoreAreFlaggedPreempted) {
  const std::string out =
      run_ok("shared_core", 2, "-t one_to_one --raw --lengths 0,4096 -n 10 --warmup 1 --oversubscribed off",
             // The launchers must not bind the ranks themselves (Open MPI binds to cores by default).
             "OMPI_MCA_hwloc_base_binding_policy=none HYDRA_BINDING=none taskset -c 0");
  RawReader all(result_path(prefix("shared_core"), Statistic::all));
  ASSERT_EQ(all.meta().cpus, (std::vector<int>{0, 0})) << "the two ranks did not share core 0";
  long preempted = 0;
  for (std::size_t k = 0; k < 2; ++k)
    for (std::uint8_t v : all.sample_flags(k)) preempted += (v & kSamplePreemptedFlag) ? 1 : 0;
  // 2 directed pairs x 10 samples x 2 lengths; on one core nearly every sample is switched out.
  EXPECT_GE(preempted, 30) << out;
  EXPECT_NE(out.find("scheduler disturbed"), std::string::npos) << out;
}

// A run killed between the renames that create its file set (SIGKILL after 3 of 6): --resume
// completes the set from the dead run's journal and measures what is missing.
TEST(NetworkTest, ResumeCompletesASetWhoseCreationWasKilled) {
  const std::string pre = prefix("killed_commit");
  const std::string sweep = " --lengths 0,1024 -n 5 -q -f " + pre;
  const RunResult killed = run_nt(2, "-t one_to_one" + sweep, "NT_DEBUG_KILL_IN_COMMIT=3");
  ASSERT_NE(killed.code, 0) << killed.out;
  ASSERT_FALSE(fs::exists(result_path(pre, Statistic::max))) << "the kill came before this rename";
  const RunResult resumed = run_nt(2, "-t one_to_one --resume" + sweep);
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  for (Statistic st : standard_statistics()) {
    RawReader r(result_path(pre, st));
    EXPECT_EQ(r.lengths(), (std::vector<std::int64_t>{0, 1024})) << statistic_name(st);
  }
  for (const auto& e : fs::directory_iterator(fs::path(pre).parent_path())) {
    const std::string n = e.path().filename().string();
    if (n.rfind(".killed_commit", 0) == 0) ADD_FAILURE() << "left behind: " << n;
  }
}

// --precision: each cell stops between --min-repeats and -n samples; the count is in every
// statistic file, the statistics are of the samples taken, and the _all file marks the rest.
TEST(NetworkTest, PrecisionRecordsSamplesPerCell) {
  for (const char* mode : {"one_to_one", "async_one_to_one", "bcast"}) {
    SCOPED_TRACE(mode);
    const std::string pre = prefix(std::string("prec_") + mode);
    const RunResult r = run_nt(2, std::string("-t ") + mode + " -f " + pre +
                                      " --raw --lengths 0,4096,65536 -n 80 --min-repeats 40 --precision 0.5 -q");
    ASSERT_EQ(r.code, 0) << r.out;
    RawReader all(result_path(pre, Statistic::all));
    const Mode m = all.params().mode;
    for (Statistic st : standard_statistics()) {
      RawReader f(result_path(pre, st));
      ASSERT_TRUE(f.has_sample_count()) << statistic_name(st);
      EXPECT_NE(f.meta().extra.at("precision").find("within 0.5 of it"), std::string::npos);
    }
    RawReader med(result_path(pre, Statistic::median)), mx(result_path(pre, Statistic::max));
    bool some_early = false;
    for (std::size_t k = 0; k < 3; ++k) {
      const auto counts = med.sample_count(k);
      const auto flags = all.sample_flags(k);
      for (int x = 0; x < 2; ++x)
        for (int y = 0; y < 2; ++y) {
          if (x == y && diagonal_is_zero(m)) continue;
          const int n = counts[static_cast<std::size_t>(x * 2 + y)];
          EXPECT_GE(n, 40);
          EXPECT_LE(n, 80);
          some_early = some_early || n < 80;
          const auto s = all.samples_of(x, y, k);
          std::vector<double> taken;
          for (std::size_t i = 0; i < s.size(); ++i) {
            const bool not_taken = (flags[(static_cast<std::size_t>(x * 2 + y)) * 80 + i] & kSampleNotTakenFlag) != 0;
            EXPECT_EQ(not_taken, static_cast<int>(i) >= n) << i;
            EXPECT_EQ(std::isnan(s[i]), not_taken) << i;
            if (!not_taken) taken.push_back(s[i]);
          }
          EXPECT_DOUBLE_EQ(nt::median(taken), med.value(x, y, k));
          EXPECT_DOUBLE_EQ(*std::max_element(taken.begin(), taken.end()), mx.value(x, y, k));
          EXPECT_DOUBLE_EQ(nt::median(taken), all.value(x, y, k)) << "the _all file's median skips samples not taken";
        }
    }
    // With 40 samples the interval spans the 14th to the 28th: the middle third of the samples,
    // which lies within 50 % of the median on any machine, loaded or not (a preempted sample is
    // an outlier, not the middle third), so cells stop after the first batch.
    EXPECT_TRUE(some_early) << "no cell stopped before the maximum";
  }
}

// --estimate: the plan of the sweep from a calibration on the real ranks, with a line for
// scripts; no result file, not even of a prefix that already exists.
TEST(NetworkTest, EstimatePrintsThePlanAndWritesNothing) {
  struct Case {
    int P;
    std::string args;
    bool concurrent;
  };
  const std::vector<Case> cases = {{2, "-t one_to_one", true},
                                   {4, "-t one_to_one --concurrent", true},
                                   {4, "-t all_to_all", false},
                                   {3, "-t bcast", false},
                                   {4, "-t noise -p 1", false}};
  const fs::path d = dir() / "estimate";
  fs::create_directories(d);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.args);
    const RunResult r = run_nt(c.P, c.args + " --estimate -f " + (d / "x").string() + " --lengths 0,64,4096 -n 20");
    ASSERT_EQ(r.code, 0) << r.out;
    EXPECT_NE(r.out.find(fmt::format("{} ranks on 1 host", c.P)), std::string::npos) << r.out;
    // One table row per length, with the number of tasks of that length.
    EXPECT_EQ(count(r.out, "\n           0 "), 1u) << r.out;
    EXPECT_EQ(count(r.out, "\n        4096 "), 1u) << r.out;
    const auto plan = r.out.find("plan: sequential_s=");
    ASSERT_NE(plan, std::string::npos) << r.out;
    const double seq = std::stod(r.out.substr(plan + 19));
    EXPECT_GT(seq, 0.0);
    EXPECT_LT(seq, 60.0);
    EXPECT_EQ(r.out.find("concurrent_s=-") == std::string::npos, c.concurrent) << r.out;
    EXPECT_NE(r.out.find("time_limit=0:0"), std::string::npos) << r.out;
    EXPECT_TRUE(fs::is_empty(d)) << "the estimate wrote " << fs::directory_iterator(d)->path();
  }
  // An existing result set is no obstacle (nothing is written) and stays as it was.
  const std::string pre = prefix("est_keep");
  ASSERT_EQ(run_nt(2, "-f " + pre + " " + kSweep).code, 0);
  const auto size = fs::file_size(result_path(pre, Statistic::median));
  const RunResult again = run_nt(2, "--estimate -f " + pre + " --lengths 0,1024 -n 5");
  EXPECT_EQ(again.code, 0) << again.out;
  EXPECT_EQ(fs::file_size(result_path(pre, Statistic::median)), size);
}

TEST(NetworkTest, GeometricSweepAndMetadata) {
  const std::string pre = prefix("geo");
  ASSERT_EQ(run_nt(2, "-t send_recv_and_recv_send -f " + pre + " -b 0 -e 40 --geometric 2 -n 3 --warmup 4 --seed 99 -q").code, 0);
  RawReader f(result_path(pre, Statistic::median));
  EXPECT_EQ(f.lengths(), (std::vector<std::int64_t>{0, 1, 2, 4, 8, 16, 32}));
  EXPECT_EQ(f.meta().sweep, "geometric");
  EXPECT_EQ(f.meta().seed, 99u);
  EXPECT_EQ(f.meta().warmup, 4);
  EXPECT_EQ(f.params().step_length, 0);
}

// Waits until the median file holds `want` records (the run writes and syncs after each length).
bool wait_records(const fs::path& p, std::size_t want, int seconds) {
  for (int i = 0; i < seconds * 20; ++i) {
    try {
      if (fs::exists(p) && RawReader(p).count() >= want) return true;
    } catch (const std::exception&) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

TEST(NetworkTest, KilledRunKeepsCompletedLengthsAndResumeCompletesThem) {
  const std::string pre = prefix("killed");
  const std::string args = "-f " + pre + " -b 0 -e 700 -s 100 -n 20 --warmup 1 --seed 5 -q";
  // Rank 1 hangs at length 300 (NT_DEBUG_STALL), like a node that stopped: lengths 0..200 are
  // complete, then the whole job gets SIGKILL as a batch system would send it.
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setsid();
    setenv("NT_DEBUG_STALL", "1:300", 1);
    const std::string cmd = std::string(NT_MPIEXEC " -n 2 " NT_NETWORK_TEST " ") + args + " > /dev/null 2>&1";
    execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  const bool reached = wait_records(result_path(pre, Statistic::median), 3, 60);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  kill(-pid, SIGKILL);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(reached);
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  for (Statistic s : standard_statistics()) {
    RawReader f(result_path(pre, s));
    EXPECT_EQ(f.lengths(), (std::vector<std::int64_t>{0, 100, 200})) << statistic_name(s);
    for (std::size_t k = 0; k < f.count(); ++k) {
      const Matrix m = f.matrix(k);
      EXPECT_TRUE(std::isfinite(m.at(0, 1)) && std::isfinite(m.at(1, 0)));
    }
  }
  // Different parameters are refused...
  const RunResult wrong = run_nt(2, "-f " + pre + " -b 0 -e 700 -s 100 -n 21 --seed 5 -q --resume");
  EXPECT_EQ(wrong.code, 2) << wrong.out;
  EXPECT_NE(wrong.out.find("num_repeates"), std::string::npos) << wrong.out;
  // ...the same ones continue after the last complete length.
  const RunResult resumed = run_nt(2, args + " --resume");
  ASSERT_EQ(resumed.code, 0) << resumed.out;
  check_result(pre, Mode::one_to_one, 2, {0, 100, 200, 300, 400, 500, 600, 700}, 20);
}

// A job killed while writing a record leaves the last record cut at any byte. --resume must read
// the set by the same rule as every reader (the cut record does not count) and measure that
// length again in every file, never trust the header's record count.
TEST(NetworkTest, ResumeRewritesACutLastRecord) {
  const std::string base = prefix("cutbase");
  const std::string sweep = " -b 0 -e 500 -s 100 -n 5 --warmup 1 --seed 3 -q";
  // Rank 1 stalls at length 300: lengths 0, 100, 200 are complete, then the run stops.
  const RunResult first = run_nt(2, "-f " + base + sweep + " --timeout 2", "NT_DEBUG_STALL=1:300", 60);
  ASSERT_NE(first.code, 0) << first.out;
  std::map<Statistic, std::vector<Matrix>> before;
  for (Statistic st : standard_statistics()) {
    RawReader f(result_path(base, st));
    ASSERT_EQ(f.lengths(), (std::vector<std::int64_t>{0, 100, 200})) << statistic_name(st);
    for (std::size_t k = 0; k < f.count(); ++k) before[st].push_back(f.matrix(k));
  }
  // One record of a 2-rank file: 4 doubles and one int = 36 bytes.
  for (const std::uintmax_t cut : {1u, 4u, 20u, 35u, 36u}) {
    SCOPED_TRACE("cut " + std::to_string(cut));
    const std::string pre = prefix("cut" + std::to_string(cut));
    for (Statistic st : standard_statistics())
      fs::copy_file(result_path(base, st), result_path(pre, st), fs::copy_options::overwrite_existing);
    fs::copy_file(hosts_path(base), hosts_path(pre), fs::copy_options::overwrite_existing);
    const fs::path cut_file = result_path(pre, Statistic::median);
    fs::resize_file(cut_file, fs::file_size(cut_file) - cut);
    {
      RawReader f(cut_file);  // every reader drops the cut record
      EXPECT_EQ(f.lengths(), (std::vector<std::int64_t>{0, 100})) << "reader of the cut file";
    }
    const RunResult resumed = run_nt(2, "-f " + pre + sweep + " --resume");
    ASSERT_EQ(resumed.code, 0) << resumed.out;
    check_result(pre, Mode::one_to_one, 2, {0, 100, 200, 300, 400, 500}, 5);
    // The untouched records are the first run's, bit for bit.
    for (Statistic st : standard_statistics()) {
      RawReader f(result_path(pre, st));
      for (std::size_t k = 0; k < 2; ++k)
        EXPECT_EQ(f.matrix(k).values(), before[st][k].values()) << statistic_name(st) << " record " << k;
    }
  }
}

TEST(NetworkTest, TimeoutNamesThePairAndKeepsTheFiles) {
  const std::string pre = prefix("stuck");
  const RunResult r = run_nt(2, "-f " + pre + " --lengths 0,8,1024,2048 -n 5 --timeout 2 -q", "NT_DEBUG_STALL=1:1024", 60);
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.out.find("timeout: pair 0->1 at length 1024"), std::string::npos) << r.out;
  for (Statistic s : standard_statistics()) {
    RawReader f(result_path(pre, s));
    EXPECT_EQ(f.lengths(), (std::vector<std::int64_t>{0, 8}));
  }
}

TEST(NetworkTest, LoggpFileIsSane) {
  for (int P : {2, 4}) {
    const std::string pre = prefix("loggp" + std::to_string(P));
    const RunResult r = run_nt(P, "-t loggp -f " + pre + " --lengths 0,64,256,1024,4096 -n 5 --warmup 2 -q --loggp-n 4");
    ASSERT_EQ(r.code, 0) << r.out;
    const LoggpData d = read_loggp(pre + "_loggp.nc");
    EXPECT_EQ(d.ranks, P);
    EXPECT_EQ(d.sizes, (std::vector<std::int64_t>{0, 64, 256, 1024, 4096}));
    EXPECT_EQ(d.prtt_n, 4);
    EXPECT_EQ(static_cast<int>(read_hosts(hosts_path(pre)).size()), P);
    const auto S = d.sizes.size();
    for (int x = 0; x < P; ++x)
      for (int y = 0; y < P; ++y) {
        const auto i = static_cast<std::size_t>(x * P + y);
        if (x == y) {
          EXPECT_TRUE(std::isnan(d.L[i]));
          continue;
        }
        for (const auto* v : {&d.L, &d.o_s, &d.o_r, &d.g, &d.G, &d.residual}) {
          EXPECT_TRUE(std::isfinite((*v)[i]));
          EXPECT_GE((*v)[i], 0.0);
        }
        EXPECT_GT(d.o_r[i], 0.0);
        EXPECT_LT(d.G[i], 1e-3);
        EXPECT_TRUE(d.fit_break[i] == -1 ||
                    std::find(d.sizes.begin(), d.sizes.end(), d.fit_break[i]) != d.sizes.end());
        for (std::size_t s = 0; s < S; ++s) {
          const double p1 = d.prtt1[i * S + s], pn = d.prttn[i * S + s], pd = d.prttd[i * S + s];
          // Only what holds on oversubscribed, loaded cores too (where a round trip can be a
          // scheduler time slice); the derivation itself is checked on model data in test_unit.
          EXPECT_GT(p1, 0.0);
          EXPECT_GT(pn, 0.0);
          EXPECT_GT(pd, 0.0);
          EXPECT_DOUBLE_EQ(d.delay[i * S + s], p1) << "d = PRTT(1,0,s)";
          EXPECT_TRUE(std::isfinite(d.osend[i * S + s]));
          EXPECT_GT(d.orecv[i * S + s], 0.0);
        }
      }
  }
}

TEST(NetworkTest, PingPongClockOffsetEstimate) {
  // --clock-sync pingpong estimates the offset even on one host (where "auto" knows it is 0).
  const std::string pre = prefix("pingpong");
  const RunResult r = run_nt(2, "-f " + pre + " --lengths 65536 -n 9 --sync-rounds 50 --clock-sync pingpong -q");
  ASSERT_EQ(r.code, 0) << r.out;
  RawReader f(result_path(pre, Statistic::median));
  EXPECT_NE(f.meta().sync_method.find("fastest of K ping-pongs"), std::string::npos);
  EXPECT_EQ(f.meta().sync_method.find("share the system clock"), std::string::npos);
  EXPECT_GT(f.value(0, 1, 0), 0.0);
  EXPECT_GT(f.value(1, 0, 0), 0.0);
}

}  // namespace

namespace {
std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> v;
  std::size_t pos = 0;
  while (pos <= s.size()) {
    const auto nl = std::min(s.find('\n', pos), s.size());
    v.push_back(s.substr(pos, nl - pos));
    pos = nl + 1;
  }
  return v;
}
}  // namespace

// The files describe the machine: MPI library, the node's CPU, each rank's binding, the command
// line. With binding to cores (hydra's HYDRA_BINDING, Open MPI's MCA policy) the two ranks report
// one core each, different ones, and the CPU each ran on lies in its binding.
TEST(NetworkTest, FilesDescribeTheMachine) {
  const std::string pre = prefix("machine");
  run_ok("machine", 2, "--lengths 0,8 -n 3 --warmup 1 -q --seed 17",
         "HYDRA_BINDING=core OMPI_MCA_hwloc_base_binding_policy=core");
  RawReader f(result_path(pre, Statistic::median));
  const auto& m = f.meta();
  EXPECT_TRUE(m.mpi_version.find("MPICH") != std::string::npos || m.mpi_version.find("Open MPI") != std::string::npos)
      << m.mpi_version;
  EXPECT_NE(m.command_line.find("--seed 17"), std::string::npos) << m.command_line;
  ASSERT_TRUE(m.extra.count(kAttrRankBinding)) << "no rank_binding attribute";
  ASSERT_TRUE(m.extra.count(kAttrNodeCpu)) << "no node_cpu attribute";
  const auto binding = split_lines(m.extra.at(kAttrRankBinding));
  ASSERT_EQ(binding.size(), 2u) << m.extra.at(kAttrRankBinding);
  const std::regex one_core(R"(^(\d+) \(1 of (\d+)\)$)");
  std::smatch a, b;
  ASSERT_TRUE(std::regex_match(binding[0], a, one_core)) << binding[0];
  ASSERT_TRUE(std::regex_match(binding[1], b, one_core)) << binding[1];
  EXPECT_NE(a[1].str(), b[1].str());
  ASSERT_EQ(m.cpus.size(), 2u);
  EXPECT_EQ(std::to_string(m.cpus[0]), a[1].str());
  EXPECT_EQ(std::to_string(m.cpus[1]), b[1].str());
  // One line per host: "host: model; S socket(s), C cores, T hardware threads", C and T > 0.
  const auto nodes = split_lines(m.extra.at(kAttrNodeCpu));
  ASSERT_EQ(nodes.size(), 1u) << m.extra.at(kAttrNodeCpu);
  ASSERT_EQ(m.hosts.size(), 2u);
  EXPECT_EQ(nodes[0].rfind(m.hosts[0] + ": ", 0), 0u) << nodes[0];
  std::smatch c;
  ASSERT_TRUE(std::regex_search(nodes[0], c, std::regex(R"(; (\d+) socket\(s\), (\d+) cores, (\d+) hardware threads$)")))
      << nodes[0];
  EXPECT_GT(std::stoi(c[2].str()), 0);
  EXPECT_EQ(c[3].str(), a[2].str());  // the binding counts out of the node's hardware threads
  // Every statistic file carries the same description.
  RawReader dev(result_path(pre, Statistic::deviation));
  EXPECT_EQ(dev.meta().extra.at(kAttrRankBinding), m.extra.at(kAttrRankBinding));
}

// --oversubscribed auto counts the ranks of a machine against the cores they may use together:
// two ranks bound to one core each are not oversubscribed (each rank alone sees one core, which
// used to switch the collectives to yielding polls on every cluster that binds ranks), two ranks
// confined to core 0 are. The file records the decision.
TEST(NetworkTest, OversubscriptionCountsTheCoresOfTheMachinesRanks) {
  run_ok("bound", 2, "--lengths 0 -n 3 --warmup 1 -q", "HYDRA_BINDING=core OMPI_MCA_hwloc_base_binding_policy=core");
  RawReader bound(result_path(prefix("bound"), Statistic::median));
  ASSERT_TRUE(bound.meta().extra.count("oversubscribed"));
  EXPECT_EQ(bound.meta().extra.at("oversubscribed"), "auto: 0 of 2 ranks");
  run_ok("one_core", 2, "--lengths 0 -n 3 --warmup 1 -q",
         "OMPI_MCA_hwloc_base_binding_policy=none HYDRA_BINDING=none taskset -c 0");
  RawReader shared(result_path(prefix("one_core"), Statistic::median));
  ASSERT_EQ(shared.meta().cpus, (std::vector<int>{0, 0})) << "the two ranks did not share core 0";
  EXPECT_EQ(shared.meta().extra.at("oversubscribed"), "auto: 2 of 2 ranks");
}

// One rank per node writes the rows of its node's ranks into every result file (the default);
// NT_WRITE=ranks makes every rank write its own rows, NT_WRITE=gather makes rank 0 gather and
// write everything. With the same samples (NT_DEBUG_SYNTHETIC replaces the measured ones by a
// function of sender, receiver, length and sample), all three must give the same bytes in every
// record of every file: for a mode whose ranks hold rows (one_to_one) and one whose ranks hold
// columns (get), with --raw (13 samples: the flags need padding) and --precision (sample counts).
// Then the parallel set is cut inside its last record and --resume must give the same bytes
// again. About 35 s on 2 busy cores.
namespace {
// The bytes of the records (everything after the header) and the header's record count.
std::pair<std::string, std::uint64_t> records_of(const fs::path& p) {
  const auto layout = nc::classic_layout(p);
  EXPECT_TRUE(layout.has_value()) << p;
  if (!layout) return {};
  std::ifstream in(p, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {all.substr(static_cast<std::size_t>(layout->records_begin)), layout->numrecs};
}
}  // namespace

TEST(NetworkTest, ParallelRowWritesGiveTheBytesOfGatheredWrites) {
  const std::string sweep = " --lengths 0,100,1000,4000 -n 13 --raw --precision 0.05 --min-repeats 8 --warmup 1 --seed 5 -q";
  for (const char* mode : {"one_to_one", "get"}) {
    SCOPED_TRACE(mode);
    const std::string par = prefix(std::string("rows_par_") + mode), gat = prefix(std::string("rows_gat_") + mode);
    const std::string own = prefix(std::string("rows_own_") + mode);
    const std::string args = std::string(" -t ") + mode + sweep;
    const RunResult a = run_nt(3, "-f " + par + args, "NT_DEBUG_SYNTHETIC=1");
    ASSERT_EQ(a.code, 0) << a.out;
    EXPECT_EQ(count(a.out, "gathers"), 0u) << a.out;  // no fallback note: the node's writer wrote
    const RunResult b = run_nt(3, "-f " + gat + args, "NT_DEBUG_SYNTHETIC=1 NT_WRITE=gather");
    ASSERT_EQ(b.code, 0) << b.out;
    const RunResult o = run_nt(3, "-f " + own + args, "NT_DEBUG_SYNTHETIC=1 NT_WRITE=ranks");
    ASSERT_EQ(o.code, 0) << o.out;
    EXPECT_EQ(count(o.out, "gathers"), 0u) << o.out;
    std::vector<Statistic> stats = standard_statistics();
    stats.push_back(Statistic::all);
    auto compare = [&](const std::string& when) {
      for (Statistic st : stats) {
        SCOPED_TRACE(when + " " + std::string(statistic_name(st)));
        const auto x = records_of(result_path(par, st)), y = records_of(result_path(gat, st));
        const auto z = records_of(result_path(own, st));
        EXPECT_EQ(x.second, 4u);
        EXPECT_EQ(x.second, y.second);
        EXPECT_EQ(z.second, y.second);
        ASSERT_EQ(x.first.size(), y.first.size());
        EXPECT_TRUE(x.first == y.first) << "the records differ (node writers, gathered)";
        EXPECT_TRUE(z.first == y.first) << "the records differ (every rank its own rows, gathered)";
        RawReader r(result_path(par, st));  // and the reader agrees: every length, whole
        EXPECT_EQ(r.lengths(), (std::vector<std::int64_t>{0, 100, 1000, 4000}));
      }
    };
    compare("first run");
    // A kill inside the last record of one file: --resume must measure that length again.
    const fs::path cut = result_path(par, Statistic::all);
    const auto layout = nc::classic_layout(cut);
    ASSERT_TRUE(layout);
    fs::resize_file(cut, layout->records_begin + 3 * layout->record_size + layout->record_size / 2);
    const RunResult c = run_nt(3, "-f " + par + args + " --resume", "NT_DEBUG_SYNTHETIC=1");
    ASSERT_EQ(c.code, 0) << c.out;
    compare("resumed");
  }
}

// --retest: the cells whose loaded median stands out of their line (its class: here one host) are
// measured again alone, highest ratio first within the budget, and stored as `isolated` in every
// statistic file, NaN elsewhere. NT_DEBUG_SYNTHETIC makes the loaded values a known function of
// (x, y), so which cells stand out is fixed; the re-test itself measures for real. Both writers.
TEST(NetworkTest, RetestStoresTheIsolatedValuesOfTheCellsThatStandOut) {
  const double ratio = 1.01;
  for (const char* write : {"", "NT_WRITE=gather"}) {
    for (int budget : {2, 10}) {
      SCOPED_TRACE(std::string(write) + " budget " + std::to_string(budget));
      const std::string pre = prefix(fmt::format("retest_{}_{}", budget, *write ? "gather" : "rows"));
      const std::string out = run_ok(pre.substr(dir().string().size() + 1), 4,
                                     fmt::format("--concurrent --retest {} --retest-ratio {} --lengths 0,1024 -n 5 "
                                                 "--warmup 1 --seed 3 --progress none",
                                                 budget, ratio),
                                     std::string("NT_DEBUG_SYNTHETIC=1 ") + write);
      EXPECT_NE(out.find("re-tested alone"), std::string::npos) << out;
      RawReader med(result_path(pre, Statistic::median));
      ASSERT_TRUE(med.has_isolated());
      ASSERT_EQ(med.count(), 2u);
      for (std::size_t k = 0; k < med.count(); ++k) {
        // Expected: every off-diagonal cell by its ratio to its row's median, highest first.
        const Matrix loaded = med.matrix(k);
        std::vector<std::pair<double, std::pair<int, int>>> standing;
        for (int x = 0; x < 4; ++x) {
          std::vector<double> line;
          for (int y = 0; y < 4; ++y)
            if (y != x) line.push_back(loaded.at(x, y));
          const double m = median(std::span<const double>(line));
          for (int y = 0; y < 4; ++y)
            if (y != x && loaded.at(x, y) > ratio * m) standing.push_back({loaded.at(x, y) / m, {x, y}});
        }
        std::sort(standing.rbegin(), standing.rend());
        ASSERT_GE(standing.size(), 3u);
        std::set<std::pair<int, int>> want;
        for (std::size_t i = 0; i < std::min<std::size_t>(standing.size(), static_cast<std::size_t>(budget)); ++i)
          want.insert(standing[i].second);
        for (Statistic st : standard_statistics()) {
          RawReader r(result_path(pre, st));
          const std::optional<Matrix> iso = r.isolated(k);
          ASSERT_TRUE(iso) << statistic_name(st);
          std::set<std::pair<int, int>> got;
          for (int x = 0; x < 4; ++x)
            for (int y = 0; y < 4; ++y)
              if (!std::isnan(iso->at(x, y))) {
                got.insert({x, y});
                EXPECT_GE(iso->at(x, y), 0.0);
                if (st != Statistic::deviation) {
                  EXPECT_GT(iso->at(x, y), 0.0);
                }
              }
          EXPECT_EQ(got, want) << statistic_name(st) << " length " << med.lengths()[k];
        }
      }
    }
  }
  // A file without the variable (a sequential run, earlier versions) has no isolated values.
  run_ok("retest_none", 2, "--lengths 0 -n 3 --progress none");
  RawReader plain(result_path(prefix("retest_none"), Statistic::median));
  EXPECT_FALSE(plain.has_isolated());
  EXPECT_FALSE(plain.isolated(0));
}

// --retest-seconds: a time budget instead of a count; the run says how many pairs it re-tested.
TEST(NetworkTest, RetestWithinSecondsEndsAndSaysWhatItDid) {
  const std::string out = run_ok("retest_seconds", 4,
                                 "--concurrent=1 --retest-seconds 2 --retest-ratio 1.0001 --lengths 0,4096 -n 5 "
                                 "--warmup 1 --progress none");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(out, m, std::regex("re-tested alone after the concurrent rounds: ([0-9]+) pairs")))
      << out;
  RawReader r(result_path(prefix("retest_seconds"), Statistic::median));
  ASSERT_TRUE(r.has_isolated());
  long finite = 0;
  for (std::size_t k = 0; k < r.count(); ++k) {
    const std::optional<Matrix> iso = r.isolated(k);
    ASSERT_TRUE(iso);
    for (double v : iso->values()) finite += std::isnan(v) ? 0 : 1;
  }
  EXPECT_EQ(finite, std::stol(m[1]));  // one-way pairs: one cell each
  EXPECT_NE(r.meta().extra.at("retest").find("at most 2 s"), std::string::npos);
  EXPECT_NE(r.meta().extra.at("pair_order").find("random 1-factorisation"), std::string::npos);
}
