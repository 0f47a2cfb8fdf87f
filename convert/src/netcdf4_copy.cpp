// to-netcdf4: a compressed NetCDF-4/HDF5 archive copy with the raw layout.
#include <limits>

#include <fmt/format.h>
#include <netcdf.h>  // type constants only; every call goes through nt::nc

#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"
#include "nt/convert/convert.hpp"
#include "common.hpp"
#include "nt/output.hpp"

namespace nt::convert {

void write_netcdf4(const fs::path& out, const Dataset& d, bool force, const Netcdf4Options& o) {
  if (o.deflate_level < 0 || o.deflate_level > 9)
    throw UsageError(fmt::format("deflate level {} out of range 0..9", o.deflate_level));
  const auto P = static_cast<std::size_t>(d.ranks());
  for (auto len : d.lengths())
    if (len > std::numeric_limits<int>::max())
      throw UsageError(fmt::format("message length {} does not fit the int message_length variable", len));

  PendingOutput pending(out, force, {d.source()});
  {
    auto f = nc::File::create(pending.temp(), nc::Kind::netcdf4, /*overwrite=*/true);
    FileInfo info = detail::output_info(d);
    info.meta.extra["archive_copy_of"] = d.source().filename().string();
    // The raw layout (RawWriter): dimensions n, x, y; scalars and attributes; message_length; data.
    const int dn = f.def_dim("n", std::nullopt);
    const int dx = f.def_dim("x", P);
    const int dy = f.def_dim("y", P);
    write_file_info(f, info);
    const int lv = f.def_var("message_length", NC_INT, {dn});
    f.put_att(lv, "units", std::string("bytes"));
    f.put_att(lv, "long_name", std::string("message length of each matrix"));
    const int dv = f.def_var("data", NC_DOUBLE, {dn, dx, dy});
    f.def_chunking(dv, {1, P, P});
    f.def_deflate(dv, o.deflate_level, o.shuffle);
    f.put_att(dv, "units", std::string("s"));
    f.put_att(dv, "long_name", fmt::format("{} {} delay from rank x to rank y",
                                           statistic_name(info.params.statistic), mode_name(info.params.mode)));
    f.put_att(dv, "coordinates", std::string("message_length"));
    f.enddef();
    for (std::size_t k = 0; k < d.count(); ++k) {
      const Matrix m = d.matrix(k);
      f.put(dv, {k, 0, 0}, {1, P, P}, m.data());
      const int len = static_cast<int>(d.lengths()[k]);
      f.put(lv, {k}, {1}, &len);
    }
    f.close();
  }
  pending.commit();
}

void to_netcdf4(const fs::path& in, const fs::path& out, bool force, const Netcdf4Options& o) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  write_netcdf4(out, *d, force, o);
}

}  // namespace nt::convert
