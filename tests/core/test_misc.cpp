#include <fstream>
#include <limits>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/json_text.hpp"
#include "nt/result_set.hpp"
#include "nt/netcdf.hpp"
#include "nt/params.hpp"
#include "nt/stats.hpp"
#include "nt/types.hpp"
#include "nt/units.hpp"
#include "test_util.hpp"

using namespace nt;

TEST(Types, NamesAliasesAndCodes) {
  for (Mode m : all_modes()) EXPECT_EQ(mode_from_name(mode_name(m)), m);
  EXPECT_EQ(mode_from_name("put_one_to_one"), Mode::put);
  EXPECT_EQ(mode_from_name("get_one_to_one"), Mode::get);
  EXPECT_EQ(mode_from_name("test_noise"), Mode::noise);
  EXPECT_EQ(mode_from_name("test_noise_blocking"), Mode::noise_blocking);
  EXPECT_FALSE(mode_from_name("one-to-one").has_value());
  EXPECT_EQ(static_cast<int>(Mode::bcast), 7);
  EXPECT_EQ(static_cast<int>(Statistic::min), 4);
  EXPECT_EQ(statistic_from_name("deviation"), Statistic::deviation);
  EXPECT_TRUE(diagonal_is_zero(Mode::put));
  EXPECT_FALSE(diagonal_is_zero(Mode::all_to_all));
}

TEST(Types, EveryLegacyCodeHasItsName) {
  // The names are part of the file format (text "test type", attributes, file suffixes).
  const std::vector<std::pair<int, std::string>> modes{
      {1, "one_to_one"}, {2, "all_to_all"}, {3, "async_one_to_one"}, {4, "send_recv_and_recv_send"},
      {5, "noise"},      {6, "noise_blocking"}, {7, "bcast"},        {8, "put"},
      {9, "get"},        {10, "loggp"}};
  ASSERT_EQ(all_modes().size(), modes.size());
  for (const auto& [code, name] : modes) {
    ASSERT_TRUE(mode_from_code(code).has_value()) << code;
    EXPECT_EQ(mode_name(*mode_from_code(code)), name);
    EXPECT_EQ(mode_from_name(name), mode_from_code(code));
  }
  const std::vector<std::pair<int, std::string>> stats{{1, "average"}, {2, "median"}, {3, "deviation"},
                                                       {4, "min"},     {5, "max"},    {6, "all"}};
  for (const auto& [code, name] : stats) {
    ASSERT_TRUE(statistic_from_code(code).has_value()) << code;
    EXPECT_EQ(statistic_name(*statistic_from_code(code)), name);
    EXPECT_EQ(statistic_from_name(name), statistic_from_code(code));
  }
  EXPECT_FALSE(mode_from_code(0).has_value());
  EXPECT_FALSE(mode_from_code(11).has_value());
  EXPECT_FALSE(statistic_from_code(0).has_value());
  EXPECT_FALSE(statistic_from_code(7).has_value());
  EXPECT_FALSE(mode_from_name("").has_value());
  EXPECT_FALSE(statistic_from_name("").has_value());
  EXPECT_FALSE(statistic_from_name("avg").has_value());
  EXPECT_EQ(mode_name(static_cast<Mode>(42)), "unknown");
  EXPECT_EQ(statistic_name(static_cast<Statistic>(0)), "unknown");
}

TEST(Params, RunParametersAndLinearStep) {
  EXPECT_EQ(linear_step({0, 100, 200, 300}), 100);
  EXPECT_EQ(linear_step({0, 100, 250}), 0);  // not equally spaced: a list
  EXPECT_EQ(linear_step({4096}), 0);         // one length is no sweep
  EXPECT_EQ(linear_step({300, 200, 100}), 0);
  EXPECT_EQ(linear_step({5, 5, 5}), 0);
  const auto p = run_parameters(6, Mode::bcast, {16, 32, 48}, 20, 16);
  EXPECT_EQ(p.proc_num, 6);
  EXPECT_EQ(p.mode, Mode::bcast);
  EXPECT_EQ(p.begin_length, 16);
  EXPECT_EQ(p.end_length, 48);
  EXPECT_EQ(p.step_length, 16);
  EXPECT_EQ(p.num_repeats, 20);
  EXPECT_EQ(p.num_noise_procs, 0);
  EXPECT_THROW(run_parameters(2, Mode::put, {}, 1, 0), std::invalid_argument);
}

TEST(Hosts, PrefixAndBesideLookup) {
  const auto dir = test::scratch_dir();
  EXPECT_EQ(ResultSet::of("/a/run_median.nc").prefix(), std::filesystem::path("/a/run"));
  EXPECT_EQ(ResultSet::of("/a/my_run_deviation.nc").prefix(), std::filesystem::path("/a/my_run"));
  EXPECT_EQ(ResultSet::of("/a/plain.nc").prefix(), std::filesystem::path("/a/plain"));
  EXPECT_FALSE(ResultSet::of(dir / "x_median.nc").find_hosts().has_value());
  write_hosts(hosts_path(dir / "x"), {"n1", "n2"}, false);
  EXPECT_EQ(ResultSet::of(dir / "x_median.nc").find_hosts(), hosts_path(dir / "x"));
  EXPECT_EQ(read_hosts(hosts_path(dir / "x")), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_THROW(write_hosts(hosts_path(dir / "x"), {"n1"}, false), FileError);
  EXPECT_THROW(read_hosts(dir / "none.txt"), FileError);
}

// network_test numbers the host and the machine of every rank by this rule (app.cpp).
TEST(Hosts, NumberedInOrderOfFirstAppearance) {
  EXPECT_EQ(number_by_first_appearance({"n2", "n1", "n2", "n3", "n1"}), (std::vector<int>{0, 1, 0, 2, 1}));
  EXPECT_EQ(number_by_first_appearance({"a", "a", "a"}), (std::vector<int>{0, 0, 0}));
  EXPECT_TRUE(number_by_first_appearance({}).empty());
}

// Every program's JSON (convert's matrices, cluster's info --json, analyze's reports, compare and
// model): numbers that are not finite become null, in both nlohmann types, and so does a value the
// caller marks as not present (model's "measured" of a length the bcast file lacks).
TEST(Json, NumberOrNull) {
  using nlohmann::json, nlohmann::ordered_json;
  EXPECT_EQ(json_text(json::array({json_number<json>(1.5), json_number<json>(kNaN),
                                   json_number<json>(std::numeric_limits<double>::infinity()),
                                   json_number<json>(-std::numeric_limits<double>::infinity())})),
            "[1.5,null,null,null]");
  EXPECT_TRUE(json_number<ordered_json>(kNaN).is_null());
  EXPECT_EQ(json_number<ordered_json>(-2.0), ordered_json(-2.0));
  EXPECT_TRUE(json_number<json>(-1.0, false).is_null());
  EXPECT_EQ(json_number<json>(3e-6, true), json(3e-6));
  EXPECT_TRUE(json_number<json>(kNaN, true).is_null());
}

TEST(Units, HumanReadable) {
  EXPECT_EQ(format_seconds(1.5e-6), "1.5 µs");
  EXPECT_EQ(format_seconds(2.25e-3), "2.25 ms");
  EXPECT_EQ(format_seconds(3e-9), "3 ns");
  EXPECT_EQ(format_seconds(0), "0 s");
  EXPECT_EQ(format_bytes(512), "512 B");
  EXPECT_EQ(format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(format_bandwidth(1.25e9), "1.25 GB/s");
}

TEST(NetcdfWrapper, ErrorsCarryLibraryMessageAndFile) {
  const auto dir = test::scratch_dir();
  auto f = nc::File::create(dir / "w.nc", nc::Kind::cdf2, false);
  f.def_dim("x", 2);
  try {
    f.def_dim("x", 3);  // duplicate name
    FAIL();
  } catch (const nc::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("w.nc"), std::string::npos) << msg;
    EXPECT_NE(msg.find("define dimension x"), std::string::npos) << msg;
    EXPECT_NE(msg.find("NetCDF: String match to name in use"), std::string::npos) << msg;
    EXPECT_NE(e.status(), 0);
  }
  EXPECT_THROW(nc::File::create(dir / "w.nc", nc::Kind::cdf2, false), FileError);
  EXPECT_THROW(f.var("missing"), FileError);
}

// One type names every file of a run and finds a file's siblings on disk.
TEST(ResultSet, NamesAndFindsSiblings) {
  const auto dir = test::scratch_dir();
  const ResultSet set(dir / "run");
  EXPECT_EQ(set.statistic(Statistic::deviation), dir / "run_deviation.nc");
  EXPECT_EQ(set.statistic(Statistic::all), dir / "run_all.nc");
  EXPECT_EQ(set.hosts(), dir / "run_hosts.txt");
  EXPECT_EQ(set.loggp(), dir / "run_loggp.nc");
  const auto files = set.standard_files();
  ASSERT_EQ(files.size(), 6u);
  EXPECT_EQ(files.front(), dir / "run_average.nc");
  EXPECT_EQ(files.back(), dir / "run_hosts.txt");
  // Every member maps back to the prefix; other names lose their extension only.
  for (const auto& f : files) EXPECT_EQ(ResultSet::of(f).prefix(), dir / "run") << f;
  EXPECT_EQ(ResultSet::of(set.loggp()).prefix(), dir / "run");
  EXPECT_EQ(ResultSet::of(set.statistic(Statistic::all)).prefix(), dir / "run");
  EXPECT_EQ(ResultSet::of("/a/run_median").prefix(), std::filesystem::path("/a/run"));
  EXPECT_EQ(ResultSet::of("/a/run_median.nc4").prefix(), std::filesystem::path("/a/run"));
  EXPECT_EQ(ResultSet::of("/a/run_fast.nc").prefix(), std::filesystem::path("/a/run_fast"));
  EXPECT_EQ(ResultSet::of("/a/run_median.nc.bak").prefix(), std::filesystem::path("/a/run_median.nc"));
  EXPECT_EQ(ResultSet::of("/a_median/plain.nc").prefix(), std::filesystem::path("/a_median/plain"));

  // Lookup on disk: absent, present, the file itself (also through another spelling), a directory.
  EXPECT_FALSE(set.find_statistic(Statistic::deviation).has_value());
  { std::ofstream(set.statistic(Statistic::deviation)) << "x"; }
  EXPECT_EQ(ResultSet::of(set.statistic(Statistic::median)).find_statistic(Statistic::deviation),
            set.statistic(Statistic::deviation));
  const auto self = set.statistic(Statistic::deviation);
  EXPECT_FALSE(set.find_statistic(Statistic::deviation, self).has_value());
  EXPECT_FALSE(set.find_statistic(Statistic::deviation, dir / "." / "run_deviation.nc").has_value());
  std::filesystem::create_directory(set.loggp());
  EXPECT_FALSE(set.find_loggp().has_value());
}
