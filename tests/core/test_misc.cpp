#include <gtest/gtest.h>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/netcdf.hpp"
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

TEST(Hosts, PrefixAndBesideLookup) {
  const auto dir = test::scratch_dir();
  EXPECT_EQ(prefix_of("/a/run_median.nc"), std::filesystem::path("/a/run"));
  EXPECT_EQ(prefix_of("/a/my_run_deviation.nc"), std::filesystem::path("/a/my_run"));
  EXPECT_EQ(prefix_of("/a/plain.nc"), std::filesystem::path("/a/plain"));
  EXPECT_FALSE(find_hosts_beside(dir / "x_median.nc").has_value());
  write_hosts(hosts_path(dir / "x"), {"n1", "n2"}, false);
  EXPECT_EQ(find_hosts_beside(dir / "x_median.nc"), hosts_path(dir / "x"));
  EXPECT_EQ(read_hosts(hosts_path(dir / "x")), (std::vector<std::string>{"n1", "n2"}));
  EXPECT_THROW(write_hosts(hosts_path(dir / "x"), {"n1"}, false), FileError);
  EXPECT_THROW(read_hosts(dir / "none.txt"), FileError);
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
