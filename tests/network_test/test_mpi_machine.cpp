// MPI tests of the machine a run sees: the MPI library, node CPU and each rank's binding in the
// files, --oversubscribed auto counting the cores of a machine's ranks, and two ranks on one core
// flagging their samples as preempted.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

#include "mpi_run.hpp"

using namespace nt;

namespace {

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

}  // namespace
