// MPI tests of the modes and options: every mode writes valid files on 2 to 4 ranks, the options
// it refuses (one line, exit code 2, on every rank), --list, --estimate, --precision, --retest,
// the geometric sweep, LogGP and the ping-pong clock offset. Sweeps are tiny so that the suite
// stays fast.
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <optional>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "nt/loggp.hpp"
#include "nt/schedule.hpp"
#include "nt/stats.hpp"

#include "mpi_run.hpp"

using namespace nt;

namespace {

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
                      ModeCase{"one_to_one", Mode::one_to_one, 4, "--shuffle"},
                      ModeCase{"one_to_one", Mode::one_to_one, 4, "--host-pairs"},
                      ModeCase{"send_recv_and_recv_send", Mode::send_recv_and_recv_send, 3, "--host-pairs --raw"},
                      ModeCase{"one_to_one", Mode::one_to_one, 4, "--sample-pairs 1"},
                      ModeCase{"send_recv_and_recv_send", Mode::send_recv_and_recv_send, 3, "--sample-pairs 2 --raw"}),
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

// A switch map file with this text (a new file per text), for the bad-option cases.
std::string bad_map(const std::string& text) {
  static int n = 0;
  const std::string path = prefix("switch_map_" + std::to_string(n++));
  std::ofstream(path) << text;
  return path;
}

struct BadRun {
  int P;
  std::string args, says;
};

// Each bad command line: exit 2, one line saying `says`, on every rank, nothing written.
void expect_refused_lines(const std::vector<BadRun>& cases) {
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

TEST(NetworkTest, BadOptionsExitTwoOnEveryRankWithOneMessage) {
  const std::vector<BadRun> cases = {
      {2, "-t nonsense", "--type: 'nonsense' is not one of one_to_one, all_to_all,"},
      {4, "-t nonsense", "is not one of"},
      {2, "--concurrent --rounds sideways", "network_test: error: --rounds: 'sideways' is not one of random, fixed ("},
      {2, "-s 0", "step length (-s) must be positive"},
      {4, "-s -100", "must be positive"},
      {2, "-b 100 -e 10", "smaller than begin"},
      {4, "-t noise -p 3", "between 1 and P-2 = 2 noise ranks"},
      {4, "-t noise_blocking -p 0", "between 1 and P-2"},
      {2, "--no-such-option", "--no-such-option"},
      {2, "-n 0", "repeats (-n) must be at least 1"},
      {2, "--lengths 8,4", "strictly increasing"},
      {2, "-t bcast --concurrent", "--concurrent applies to the pairwise modes"},
      {2, "-t all_to_all --host-pairs", "--host-pairs applies to the pairwise modes"},
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
  expect_refused_lines(cases);
}

// The schedule's combinations and the switch map: --host-pairs runs alone or in lanes by switch,
// never under --concurrent's load; a map needs a schedule to set the lanes of, and a bad map is
// refused before anything runs, with --host-pairs as with --concurrent.
TEST(NetworkTest, BadSchedulesAndSwitchMapsExitTwo) {
  expect_refused_lines({
    {4, "--host-pairs --concurrent=2", "--host-pairs measures every host pair alone: it does not combine with "
                                       "--concurrent[=K] (pairs under load); give --host-pairs --switch-map FILE"},
    {2, "--host-pairs --concurrent --switch-map /nonexistent/map", "does not combine with --concurrent[=K]"},
    {2, "--switch-map /nonexistent/map", "--switch-map sets the lanes of --host-pairs or --concurrent: give one"},
    {4, "--shuffle --switch-map /nonexistent/map", "--switch-map sets the lanes of --host-pairs or --concurrent"},
    {4, "--host-pairs --switch-map /nonexistent/map", "--switch-map /nonexistent/map: cannot be read"},
    {2, "--host-pairs --switch-map " + bad_map("elsewhere leaf0\n"), "is not in the file"},
    {4, "--host-pairs --estimate --switch-map " + bad_map("a s1\na s2\n"), "host a is under switch s1 and s2"},
    {4, "--concurrent --switch-map /nonexistent/map", "--switch-map /nonexistent/map: cannot be read"},
    {2, "--concurrent=2 --switch-map /nonexistent/map", "does not combine with --concurrent=K"},
    {4, "--concurrent --switch-map " + bad_map("elsewhere leaf0\n"), "is not in the file"},
    {2, "--concurrent --switch-map " + bad_map("a b c\n"), "expected HOST SWITCH, got 'a b c'"},
    {2, "--concurrent --switch-map " + bad_map("a s1\na s2\n"), "host a is under switch s1 and s2"},
    {2, "--concurrent --switch-map " + bad_map("# nothing\n"), "no line HOST SWITCH"},
    {2, "--concurrent --switch-map /tmp", "--switch-map /tmp: cannot be read (not a regular file)"},
    {2, "--concurrent --switch-map " + bad_map(std::string("\x7f" "ELF\x02\x01\x01\0\0\x03junk\n", 15)),
     "expected HOST SWITCH, got '?ELF??????junk'"},
    // --sample-pairs K: K >= 1, alone among the schedules, pairwise modes, every rank the same verdict.
    {2, "--sample-pairs 0", "--sample-pairs K: K must be at least 1 partner per host, got 0"},
    {4, "--sample-pairs -3", "--sample-pairs K: K must be at least 1 partner per host, got -3"},
    {2, "--sample-pairs two", "--sample-pairs"},
    {4, "--sample-pairs 2 --host-pairs", "--sample-pairs measures a sample of the host pairs alone"},
    {2, "--sample-pairs 2 --concurrent=2", "it does not combine with --host-pairs, --concurrent or the re-test"},
    {2, "--sample-pairs 2 --switch-map /nonexistent/map", "--switch-map /nonexistent/map: cannot be read"},
    {2, "--sample-pairs 2 --sample-landmarks -1", "--sample-landmarks and --sample-neighbours must not be negative"},
    {2, "--sample-neighbours 3", "--sample-neighbours requires --sample-pairs"},
    {2, "-t bcast --sample-pairs 2", "--sample-pairs applies to the pairwise modes, not to bcast"},
    {4, "--sample-pairs 2 --precision 0.1", "--sample-pairs does not combine with --precision"},
    {2, "--sample-pairs 2 --resume", "--sample-pairs --resume needs the interrupted run's --seed"},
  });
}

// --sample-pairs on one host: every pair within the host is measured (nothing missing), and the
// files say the schedule with its K, landmarks, neighbours and the run's seed, so that a reader
// draws the same host pairs.
TEST(NetworkTest, SampledPairsSayTheirDraw) {
  const std::string pre = prefix("sampled_one_host");
  const RunResult r = run_nt(4, "-t one_to_one -f " + pre + " " + kSweep + " --sample-pairs 3 --sample-landmarks 1 "
                                "--sample-neighbours 0");
  ASSERT_EQ(r.code, 0) << r.out;
  check_result(pre, Mode::one_to_one, 4, {0, 1024}, 5);
  RawReader f(result_path(pre, Statistic::median));
  EXPECT_EQ(f.meta().extra.at("schedule"), "sampled partners=3 landmarks=1 neighbours=0 seed=7");
  EXPECT_TRUE(sampled_pairs(f.meta()));
  for (std::size_t k = 0; k < f.count(); ++k)
    for (int x = 0; x < 4; ++x)
      for (int y = 0; y < 4; ++y) {
        if (x != y) {
          EXPECT_TRUE(std::isfinite(f.matrix(k).at(x, y))) << k << " " << x << " " << y;
        }
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
    EXPECT_EQ(r.out.find("host_pairs_s=-") == std::string::npos, c.concurrent) << r.out;
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
        for (const auto* v : {&d.o_s, &d.g, &d.G, &d.residual}) {
          EXPECT_TRUE(std::isfinite((*v)[i]));
          EXPECT_GE((*v)[i], 0.0);
        }
        // L and o_r: measured apart (L = PRTT/2 - o_s - o_r, not clamped: noise can make it
        // negative, which the analysis notes), or NaN with separable 0.
        ASSERT_EQ(d.separable.size(), d.L.size());
        if (d.separable[i] == 1) {
          EXPECT_TRUE(std::isfinite(d.L[i]));
          EXPECT_GT(d.o_r[i], 0.0);
        } else {
          EXPECT_EQ(d.separable[i], 0);
          EXPECT_TRUE(std::isnan(d.L[i]) && std::isnan(d.o_r[i]));
        }
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

// The fixed part of the tasks, as the summary counts it (share/doc/network_test.md, "Warm-up" and
// "Clock offsets"): a pair's first task takes at least one warm-up iteration and --warmup is the
// most; --warmup 0 takes none. On one host no offset is estimated (the ranks share its clock)
// unless --clock-sync pingpong, where each leader estimates its first with all K ping-pongs and
// checks the next ones against that round trip.
TEST(NetworkTest, WarmupStopsWhenWarmWithinTheCap) {
  const std::string one = run_ok("warm1", 2, "--lengths 1024 -n 3 --warmup 1 --progress none");
  EXPECT_NE(one.find("warm-up 2 iterations in 2 tasks (1.00 per task"), std::string::npos) << one;
  EXPECT_NE(one.find("0 checks of a pair's offset"), std::string::npos) << one;
  const std::string none = run_ok("warm0", 2, "--lengths 1024 -n 3 --warmup 0 --progress none");
  EXPECT_NE(none.find("warm-up 0 iterations in 2 tasks"), std::string::npos) << none;
  // Default cap (10), 4 ranks, two lengths: 24 tasks; the first 12 take 1 to 10 iterations each,
  // the next 12 at most 10.
  const std::string pre = prefix("warm10");
  const std::string cap = run_ok("warm10", 4, "--lengths 0,65536 -n 5 --progress none");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(cap, m, std::regex("warm-up ([0-9]+) iterations in 24 tasks"))) << cap;
  const int iterations = std::stoi(m[1]);
  EXPECT_GE(iterations, 12);
  EXPECT_LE(iterations, 240);
  check_result(pre, nt::Mode::one_to_one, 4, {0, 65536}, 5);
}

TEST(NetworkTest, PingPongChecksTheOffsetAgainstTheFirstEstimate) {
  const std::string out =
      run_ok("pingcheck", 4, "--lengths 0,1024 -n 3 --warmup 2 --clock-sync pingpong --progress none");
  EXPECT_NE(out.find("clock offsets of 0 host pairs before the sweep; 24 checks of a pair's offset"),
            std::string::npos)
      << out;
  EXPECT_NE(out.find("4 had no round trip to compare with"), std::string::npos) << out;
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
        // Expected (every rank on this one host: one class): the cells above the ratio to their
        // row's median first, highest first; then those above it only to their peer's row's
        // median or by their spread (max / min sample) over their row's median spread.
        const Matrix loaded = med.matrix(k);
        const Matrix hi = RawReader(result_path(pre, Statistic::max)).matrix(k);
        const Matrix lo = RawReader(result_path(pre, Statistic::min)).matrix(k);
        auto row_median = [](auto&& cell, int x) {
          std::vector<double> line;
          for (int y = 0; y < 4; ++y)
            if (y != x) line.push_back(cell(x, y));
          return median(std::span<const double>(line));
        };
        auto value = [&](int x, int y) { return loaded.at(x, y); };
        auto spread = [&](int x, int y) { return hi.at(x, y) / lo.at(x, y); };
        std::vector<std::pair<std::pair<int, double>, std::pair<int, int>>> standing;  // ((tier, ratio), cell)
        for (int x = 0; x < 4; ++x)
          for (int y = 0; y < 4; ++y) {
            if (y == x) continue;
            const double own = value(x, y) / row_median(value, x);
            const double other = std::max(value(x, y) / row_median(value, y),
                                          spread(x, y) / std::max(1.0, row_median(spread, x)));
            if (own > ratio) standing.push_back({{1, own}, {x, y}});
            else if (other > ratio) standing.push_back({{0, other}, {x, y}});
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
          // With budget left after the first look, the second adds cells above the isolated
          // reference (real timings here: which ones is not known), never more than the budget.
          if (standing.size() >= static_cast<std::size_t>(budget)) {
            EXPECT_EQ(got, want) << statistic_name(st) << " length " << med.lengths()[k];
          } else {
            EXPECT_TRUE(std::includes(got.begin(), got.end(), want.begin(), want.end()))
                << statistic_name(st) << " length " << med.lengths()[k];
            EXPECT_LE(got.size(), static_cast<std::size_t>(budget));
          }
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
  EXPECT_EQ(r.meta().extra.at("schedule"), "concurrent=1 rounds=random retest-seconds=2 retest-ratio=1.0001");
}

// --concurrent --switch-map: the lanes are the pairs of switches. Here every rank is on this host
// (one switch): every pair is measured (within the host), and the files say how.
TEST(NetworkTest, SwitchMapRunsEveryPairAndSaysSo) {
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const std::string map = prefix("switch_map_ok");
  std::ofstream(map) << "# host switch\n" << host << " leaf0\nother-host leaf1\n";
  const std::string pre = prefix("switch_map_run");
  const RunResult r = run_nt(4, "-t one_to_one -f " + pre + " " + kSweep + " --concurrent --switch-map " + map);
  ASSERT_EQ(r.code, 0) << r.out;
  check_result(pre, Mode::one_to_one, 4, kLengths, 5);
  RawReader f(result_path(pre, Statistic::median));
  EXPECT_NE(f.meta().extra.at("pair_order").find("lanes by switch (--switch-map " + map), std::string::npos)
      << f.meta().extra.at("pair_order");  const auto schedule = schedule_of(f.meta());  // the same as a value
  ASSERT_TRUE(schedule);
  EXPECT_TRUE(schedule->concurrent() && schedule->by_switch);
  EXPECT_EQ(schedule->switch_map, map);
  EXPECT_EQ(schedule->switches, (std::vector<int>{0, 0, 0, 0}));
}

// --host-pairs --switch-map: host pairs in lanes by switch. Every rank is on this host here (one
// switch, no host pair across): the pairs within the host are all measured, as --host-pairs does,
// and the files say the schedule (attribute and prose) so that readers fill cells as --host-pairs'.
// --estimate prices the lanes beside the other schedules and asks the time of this one.
TEST(NetworkTest, HostPairsInSwitchLanesRunAndSaySo) {
  char host[256] = {};
  ASSERT_EQ(gethostname(host, sizeof host - 1), 0);
  const std::string map = prefix("switch_map_hosts");
  std::ofstream(map) << host << " leaf0\nother-host leaf1\n";
  const std::string pre = prefix("host_lanes_run");
  const RunResult r = run_nt(4, "-t one_to_one -f " + pre + " " + kSweep + " --host-pairs --switch-map " + map);
  ASSERT_EQ(r.code, 0) << r.out;
  check_result(pre, Mode::one_to_one, 4, kLengths, 5);
  RawReader f(result_path(pre, Statistic::median));
  EXPECT_EQ(f.meta().extra.at("schedule"), "host-pairs switch-map=" + map + " switches=0,0,0,0");
  const std::string order = f.meta().extra.at("pair_order");
  EXPECT_EQ(order.rfind("host pairs: ", 0), 0u) << order;
  EXPECT_NE(order.find("in lanes by switch (--switch-map " + map + "): per length"), std::string::npos) << order;
  const auto schedule = schedule_of(f.meta());
  ASSERT_TRUE(schedule);
  EXPECT_TRUE(schedule->host_pairs() && schedule->by_switch);
  EXPECT_TRUE(filled_by_host_pair(f.meta()));
  EXPECT_FALSE(measured_concurrently(f.meta()));

  const RunResult e =
      run_nt(3, "-f " + prefix("host_lanes_est") + " --lengths 0,1024 -n 3 --host-pairs --switch-map " + map + " --estimate");
  ASSERT_EQ(e.code, 0) << e.out;
  for (const char* part : {"  host lanes", "host_lanes_s=", "time limit to ask for (host pairs in switch lanes, ",
                           "; host lanes: --host-pairs --switch-map"})
    EXPECT_NE(e.out.find(part), std::string::npos) << part << "\n" << e.out;
  // One host: no host pair across, so the lanes cost what --host-pairs does (the pairs within it).
  std::smatch m;
  ASSERT_TRUE(std::regex_search(e.out, m, std::regex("host_pairs_s=(\\S+) host_lanes_s=(\\S+) "))) << e.out;
  EXPECT_EQ(m[1], m[2]) << e.out;
}

}  // namespace
