// The output discipline's promise for several outputs of one command: they appear together or
// not at all, even when the writer is killed (SIGKILL) between two of its renames.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "nt/dataset.hpp"
#include "nt/output.hpp"
#include "nt/synth.hpp"
#include "test_util.hpp"

namespace fs = std::filesystem;
using namespace nt;

namespace {

int count_matching(const fs::path& dir, const std::string& tag) {
  int n = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string().find(tag) != std::string::npos) ++n;
  return n;
}

// In a child process: writes `names` (content "<generation>:<name>") as one OutputSet with
// --force semantics; NT_DEBUG_KILL_IN_COMMIT=kill_after kills it after that many renames.
// Returns the child's wait status.
int write_set_in_child(const fs::path& dir, const std::vector<std::string>& names, const std::string& generation,
                       int kill_after) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (kill_after >= 0) ::setenv("NT_DEBUG_KILL_IN_COMMIT", std::to_string(kill_after).c_str(), 1);
    OutputSet set;
    for (const auto& n : names)
      write_file_atomically_into(set.add(dir / n, true), [&](std::ostream& o) { o << generation << ':' << n; });
    set.commit_all();
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return status;
}

// This host's tag, as our temporaries carry it: ".NAME.nt-tmp-TAG-PID-N".
std::string this_host_tag(const fs::path& dir) {
  PendingOutput probe(dir / "probe", false);
  const std::string t = probe.temp().filename().string();
  const auto at = t.find(".nt-tmp-") + 8;
  return t.substr(at, t.rfind('-', t.rfind('-') - 1) - at);
}

}  // namespace

TEST(OutputSet, KilledBetweenRenamesIsRolledForwardByTheNextWriter) {
  const auto dir = test::scratch_dir();
  const std::vector<std::string> names = {"run_median.nc", "run_min.nc", "run_hosts.txt"};
  ASSERT_EQ(write_set_in_child(dir, names, "old", -1), 0);
  std::string before = "old";
  for (std::size_t kill_after = 0; kill_after < names.size(); ++kill_after) {
    SCOPED_TRACE("killed after " + std::to_string(kill_after) + " renames");
    const std::string now = "new" + std::to_string(kill_after);
    const int status = write_set_in_child(dir, names, now, static_cast<int>(kill_after));
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    // The killed run left a mixed set and its journal: the first `kill_after` files are new.
    EXPECT_EQ(count_matching(dir, ".nt-commit-"), 1);
    for (std::size_t i = 0; i < names.size(); ++i)
      EXPECT_EQ(test::file_text(dir / names[i]), (i < kill_after ? now : before) + ":" + names[i]);
    // The next writer into the directory completes the commit before it starts its own.
    write_file_atomically(dir / "other.csv", true, [](std::ostream& o) { o << "x"; });
    for (const auto& n : names) EXPECT_EQ(test::file_text(dir / n), now + ":" + n);
    before = now;
    EXPECT_EQ(count_matching(dir, ".nt-commit-"), 0);
    EXPECT_EQ(count_matching(dir, ".nt-tmp-"), 0);
  }
}

// Outputs named without a directory (network_convert from-text big.txt -o run): the journal's
// paths were "/dir/./.run_hosts.txt.nt-tmp-..." against "/dir/run_hosts.txt", the recovery took
// the temporaries for strangers' and removed them, and a set killed between its renames stayed
// half written (hardening.outputs.kill caught it when its random kill hit that moment).
TEST(OutputSet, KilledSetOfNamesWithoutADirectoryIsRolledForward) {
  const auto dir = test::scratch_dir();
  const auto cwd = fs::current_path();
  fs::current_path(dir);
  const std::vector<std::string> names = {"run_median.nc", "run_hosts.txt"};
  for (int kill_after = 0; kill_after < 2; ++kill_after) {
    SCOPED_TRACE("killed after " + std::to_string(kill_after) + " renames");
    for (const auto& n : names) fs::remove(n);
    const int status = write_set_in_child(fs::path(), names, "new", kill_after);
    ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    write_file_atomically("other.csv", true, [](std::ostream& o) { o << "x"; });  // the next writer here
    for (const auto& n : names) EXPECT_EQ(test::file_text(dir / n), "new:" + n);
    EXPECT_EQ(count_matching(dir, ".nt-commit-"), 0);
    EXPECT_EQ(count_matching(dir, ".nt-tmp-"), 0);
  }
  fs::current_path(cwd);
}

TEST(OutputSet, NewSetKilledMidCommitIsCompletedWhenAFileIsOpened) {
  const auto dir = test::scratch_dir();
  // A real result set (statistic files + hosts), killed after writing 2 of its 6 files.
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::setenv("NT_DEBUG_KILL_IN_COMMIT", "2", 1);
    SynthParams p;
    p.nodes = 2;
    p.ranks_per_node = 2;
    p.lengths = {0, 1024};
    write_synth((dir / "run").string(), synthesize(p), false);
    ::_exit(0);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
  int present = 0;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().filename().string()[0] != '.') ++present;
  EXPECT_EQ(present, 2);
  // A reader of any file of the set completes the set first.
  auto d = open_dataset(dir / "run_median.nc");
  EXPECT_EQ(d->info().params.proc_num, 4);
  EXPECT_TRUE(fs::exists(dir / "run_hosts.txt"));
  EXPECT_TRUE(fs::exists(dir / "run_deviation.nc"));
  EXPECT_EQ(count_matching(dir, ".nt-commit-"), 0);
  EXPECT_EQ(count_matching(dir, ".nt-tmp-"), 0);
}

TEST(OutputSet, ALiveWritersJournalIsLeftAlone) {
  const auto dir = test::scratch_dir();
  // A journal of this (live) process: not a killed run's, so nobody may roll it forward.
  const std::string tag = this_host_tag(dir), pid = std::to_string(::getpid());
  const fs::path journal = dir / (".x.nt-commit-" + tag + "-" + pid);
  const fs::path temp = dir / (".x.nt-tmp-" + tag + "-" + pid + "-99");
  std::ofstream(journal) << "R\t" << temp.string() << "\t" << (dir / "x").string() << "\n";
  std::ofstream(temp) << "temp";
  recover_interrupted_outputs(dir);
  EXPECT_TRUE(fs::exists(temp));
  EXPECT_TRUE(fs::exists(journal));
  EXPECT_FALSE(fs::exists(dir / "x"));
}

TEST(OutputSet, ASetOfLongNamesCommitsItsJournal) {
  // Names of 250 bytes: the journal's name must be shortened, not refused as too long.
  const auto dir = test::scratch_dir();
  const std::string stem(240, 'r');
  OutputSet set;
  for (const char* suffix : {"_median.nc", "_hosts.txt"})
    write_file_atomically_into(set.add(dir / (stem + suffix), false), [](std::ostream& o) { o << "x"; });
  set.commit_all();
  EXPECT_TRUE(fs::exists(dir / (stem + "_median.nc")));
  EXPECT_TRUE(fs::exists(dir / (stem + "_hosts.txt")));
  EXPECT_EQ(count_matching(dir, ".nt-commit-"), 0);
}

TEST(OutputSet, APlantedJournalMovesNothingElse) {
  // A dead process's journal in a shared directory that names files other than our temporaries
  // and their final names: recovery must leave them where they are.
  const auto dir = test::scratch_dir();
  const std::string tag = this_host_tag(dir);
  ASSERT_FALSE(tag.empty());
  std::ofstream(dir / "precious.txt") << "mine";
  std::ofstream(dir / (".run_median.nc.nt-tmp-" + tag + "-1-0")) << "temp";
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  ::waitpid(pid, nullptr, 0);  // a PID that is gone
  const fs::path journal = dir / (".x.nt-commit-" + tag + "-" + std::to_string(pid));
  std::ofstream(journal) << "R\t" << (dir / "precious.txt").string() << "\t" << (dir / "stolen.txt").string() << "\n"
                         << "R\t" << (dir / (".run_median.nc.nt-tmp-" + tag + "-1-0")).string() << "\t"
                         << (dir / "other.nc").string() << "\n";
  recover_interrupted_outputs(dir);
  EXPECT_FALSE(fs::exists(journal)) << "a dead run's journal of this host is processed";
  EXPECT_EQ(test::file_text(dir / "precious.txt"), "mine");
  EXPECT_FALSE(fs::exists(dir / "stolen.txt"));
  EXPECT_FALSE(fs::exists(dir / "other.nc"));
}
