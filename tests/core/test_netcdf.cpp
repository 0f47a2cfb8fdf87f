// nt::nc::File's variable I/O: every element type round-trips through every variable type it is
// stored as, and a start/count that does not have one entry per dimension is refused on every
// path (the int16 pair skipped the check once, and libnetcdf then reads past the arrays).
#include <gtest/gtest.h>

#include <netcdf.h>

#include <cstdint>
#include <string>
#include <vector>

#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "test_util.hpp"

using namespace nt;

namespace {

// A 2 x 3 variable of each stored type, holding 1..6, in both containers.
template <class T>
void round_trip(nc::Kind kind, int nc_type) {
  const auto path = test::scratch_dir() / ("t" + std::to_string(nc_type) + ".nc");
  const std::vector<T> in{1, 2, 3, 4, 5, 6};
  {
    auto f = nc::File::create(path, kind, true);
    const int a = f.def_dim("a", 2), b = f.def_dim("b", 3);
    const int v = f.def_var("v", nc_type, {a, b});
    f.enddef();
    f.put(v, {0, 0}, {2, 3}, in.data());
    f.close();
  }
  const auto f = nc::File::open(path);
  const int v = f.var("v").id;
  std::vector<T> out(6);
  f.get(v, {0, 0}, {2, 3}, out.data());
  EXPECT_EQ(out, in);
  std::vector<T> row(3);
  f.get(v, {1, 0}, {1, 3}, row.data());
  EXPECT_EQ(row, (std::vector<T>{4, 5, 6}));
}

// get and put with one dimension too few and one too many: FileError naming the variable.
template <class T>
void shape_refused(int nc_type) {
  const auto path = test::scratch_dir() / ("s" + std::to_string(nc_type) + ".nc");
  auto f = nc::File::create(path, nc::Kind::cdf2, true);
  const int a = f.def_dim("a", 2), b = f.def_dim("b", 3);
  const int v = f.def_var("cells", nc_type, {a, b});
  f.enddef();
  std::vector<T> buf(6, T{1});
  const std::vector<std::vector<std::size_t>> wrong{{0}, {0, 0, 0}};
  for (const auto& start : wrong) {
    const std::vector<std::size_t> count(start.size(), 1);
    for (const bool write : {true, false}) {
      try {
        if (write)
          f.put(v, start, count, buf.data());
        else
          f.get(v, start, count, buf.data());
        ADD_FAILURE() << (write ? "put" : "get") << " with " << start.size() << " dimensions accepted";
      } catch (const FileError& e) {
        EXPECT_NE(std::string(e.what()).find("'cells' has 2 dimensions"), std::string::npos) << e.what();
      }
    }
  }
  // The scalar form (empty start/count) of a 2-D variable is refused too.
  EXPECT_THROW(f.get(v, {}, {}, buf.data()), FileError);
}

}  // namespace

TEST(NetcdfFile, EveryElementTypeRoundTrips) {
  for (const auto kind : {nc::Kind::cdf2, nc::Kind::netcdf4}) {
    round_trip<double>(kind, NC_DOUBLE);
    round_trip<int>(kind, NC_INT);
    round_trip<std::int16_t>(kind, NC_SHORT);
    round_trip<std::int8_t>(kind, NC_BYTE);
    // Conversions the readers rely on: a byte variable read as int16 (clustered residuals).
    round_trip<std::int16_t>(kind, NC_BYTE);
  }
}

TEST(NetcdfFile, EveryPathChecksTheShape) {
  shape_refused<double>(NC_DOUBLE);
  shape_refused<int>(NC_INT);
  shape_refused<std::int16_t>(NC_SHORT);
  shape_refused<std::int8_t>(NC_BYTE);
}
