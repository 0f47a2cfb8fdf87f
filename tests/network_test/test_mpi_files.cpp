// MPI tests of the result files over a run's life: never overwritten without --force, every
// sample and its flags in the _all file, a run killed or timed out keeps its complete lengths and
// --resume completes them (also after a cut last record or a killed creation), and the parallel
// row writers give the bytes of the gathered writes.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "nt/netcdf.hpp"
#include "nt/stats.hpp"

#include "mpi_run.hpp"

using namespace nt;

namespace {

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

// The bytes of the records (everything after the header) and the header's record count.
std::pair<std::string, std::uint64_t> records_of(const fs::path& p) {
  const auto layout = nc::classic_layout(p);
  EXPECT_TRUE(layout.has_value()) << p;
  if (!layout) return {};
  std::ifstream in(p, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return {all.substr(static_cast<std::size_t>(layout->records_begin)), layout->numrecs};
}

// One rank per node writes the rows of its node's ranks into every result file (the default);
// NT_WRITE=ranks makes every rank write its own rows, NT_WRITE=gather makes rank 0 gather and
// write everything. With the same samples (NT_DEBUG_SYNTHETIC replaces the measured ones by a
// function of sender, receiver, length and sample), all three must give the same bytes in every
// record of every file: for a mode whose ranks hold rows (one_to_one) and one whose ranks hold
// columns (get), with --raw (13 samples: the flags need padding) and --precision (sample counts).
// Then the parallel set is cut inside its last record and --resume must give the same bytes
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

}  // namespace
