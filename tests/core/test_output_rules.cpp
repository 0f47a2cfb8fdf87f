// The output discipline's own rules that the program-level hardening tests cannot reach: the
// host part of temporaries' names, stale-temporary removal across hosts, and standard output.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>
#include <string>

#include "nt/error.hpp"
#include "nt/output.hpp"
#include "test_util.hpp"

using namespace nt;
namespace fs = std::filesystem;

namespace {

std::string this_host() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  return buf;
}

std::set<std::string> names_in(const fs::path& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.insert(e.path().filename().string());
  return out;
}

}  // namespace

TEST(Output, HostTagsOfLongNamesStayApart) {
  EXPECT_EQ(temp_host_tag("cn0123"), "cn0123");
  // Two nodes whose names differ only past the 40th character once shared a tag, so that a writer
  // on one removed the other's live temporaries as those of dead local processes.
  const std::string stem = "compute.partition-gpu.rack-0042.datacenter-north";
  ASSERT_GT(stem.size(), 40u);
  const std::string a = temp_host_tag(stem + "-node01"), b = temp_host_tag(stem + "-node02");
  EXPECT_NE(a, b);
  EXPECT_LE(a.size(), 40u);
  EXPECT_EQ(a, temp_host_tag(stem + "-node01"));  // stable
  // Names made equal by the character mapping stay apart too.
  EXPECT_NE(temp_host_tag("node-1"), temp_host_tag("node_1"));
  for (const auto& t : {a, b, temp_host_tag("node-1"), temp_host_tag("")}) {
    EXPECT_FALSE(t.empty());
    EXPECT_EQ(t.find_first_of("/-"), std::string::npos) << t;
  }
}

TEST(Output, StaleTemporariesOfThisHostOnlyAreRemoved) {
  const auto dir = test::scratch_dir();
  // No process has this PID (above the kernel's pid_max of 4194304).
  const std::string dead_pid = "9999999";
  const std::string mine = ".a.csv.nt-tmp-" + temp_host_tag(this_host()) + "-" + dead_pid + "-0";
  const std::string other = ".a.csv.nt-tmp-" + temp_host_tag(this_host() + "-and-another-long-node-name-suffix") +
                            "-" + dead_pid + "-0";
  const std::string alive = ".a.csv.nt-tmp-" + temp_host_tag(this_host()) + "-" + std::to_string(::getpid()) + "-99";
  for (const auto& n : {mine, other, alive}) std::ofstream(dir / n) << "partial";
  write_file_atomically(dir / "b.csv", false, [](std::ostream& o) { o << "x\n"; });
  const auto left = names_in(dir);
  EXPECT_FALSE(left.count(mine)) << "a dead local writer's temporary is removed";
  EXPECT_TRUE(left.count(other)) << "another host's temporary is left alone";
  EXPECT_TRUE(left.count(alive)) << "a live writer's temporary is left alone";
  EXPECT_TRUE(left.count("b.csv"));
}

TEST(Output, FullStandardOutputIsAnError) {
  std::cout.flush();
  std::fflush(stdout);
  const int saved = ::dup(STDOUT_FILENO);
  const int full = ::open("/dev/full", O_WRONLY);
  ASSERT_GE(saved, 0);
  if (full < 0) GTEST_SKIP() << "no /dev/full";
  ::dup2(full, STDOUT_FILENO);
  std::string message;
  bool threw = false;
  std::cout << "a report nobody will read\n";
  try {
    flush_stdout();
  } catch (const Error& e) {
    threw = true;
    message = e.what();
  }
  std::fflush(stdout);  // drop what stdio still holds before the real output comes back
  std::cout.clear();
  ::dup2(saved, STDOUT_FILENO);
  std::clearerr(stdout);
  ::close(saved);
  ::close(full);
  EXPECT_TRUE(threw);
  EXPECT_NE(message.find("standard output"), std::string::npos) << message;
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
  EXPECT_NO_THROW(flush_stdout());  // reported once, and a working stdout is fine
}

// A --force set whose last member cannot be committed used to leave the first member replaced:
// a set of files from two different runs. Now the replaced file comes back.
TEST(Output, ForcedSetThatFailsPutsTheReplacedFilesBack) {
  const auto dir = test::scratch_dir();
  std::ofstream(dir / "a_median.nc") << "old a";
  std::ofstream(dir / "a_hosts.txt") << "old hosts";
  {
    OutputSet set;
    PendingOutput& a = set.add(dir / "a_median.nc", true);
    PendingOutput& h = set.add(dir / "a_hosts.txt", true);
    write_file_atomically_into(a, [](std::ostream& o) { o << "new a"; });
    write_file_atomically_into(h, [](std::ostream& o) { o << "new hosts"; });
    // Something takes the second name away meanwhile: its commit is refused.
    fs::remove(dir / "a_hosts.txt");
    fs::create_directory(dir / "a_hosts.txt");
    EXPECT_THROW(set.commit_all(), FileError);
  }
  EXPECT_EQ(test::file_text(dir / "a_median.nc"), "old a");
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"a_median.nc", "a_hosts.txt"})) << "no temporaries or kept files left";
}

TEST(Output, ForcedSetReplacesEverythingAndKeepsNothing) {
  const auto dir = test::scratch_dir();
  std::ofstream(dir / "a_median.nc") << "old a";
  {
    OutputSet set;
    write_file_atomically_into(set.add(dir / "a_median.nc", true), [](std::ostream& o) { o << "new a"; });
    write_file_atomically_into(set.add(dir / "a_hosts.txt", true), [](std::ostream& o) { o << "new hosts"; });
    set.commit_all();
  }
  EXPECT_EQ(test::file_text(dir / "a_median.nc"), "new a");
  EXPECT_EQ(test::file_text(dir / "a_hosts.txt"), "new hosts");
  EXPECT_EQ(names_in(dir), (std::set<std::string>{"a_median.nc", "a_hosts.txt"}));
}
