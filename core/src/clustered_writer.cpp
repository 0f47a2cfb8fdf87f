// Clustered files: the writer (write_clustered) and the one attribute set in place.
// Layout and lookup rule: nt/clustered_writer.hpp and share/doc/design.md §5.
#include "nt/clustered_writer.hpp"

#include <netcdf.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "nt/error.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"

namespace fs = std::filesystem;

namespace nt {

namespace {

// The sizes of clustered content: ranks P (and P * P pairs), N matrices, R regions, D values.
struct ClusteredSizes {
  std::size_t P, PP, N, R, D;
  explicit ClusteredSizes(const ClusteredContent& c)
      : P(static_cast<std::size_t>(c.info.params.proc_num)), PP(P * P), N(c.lengths.size()),
        R(c.region_start.size()), D(c.data.size()) {}
};

// The content's sizes agree with each other (offsets P x P per region, regions covering every
// matrix, every offset inside data, residuals N x P x P with a step), and every length and offset
// fits the file's int variables; Error otherwise.
void check_clustered_content(const ClusteredContent& c) {
  if (c.info.params.proc_num <= 0) throw Error("internal: clustered content without ranks");
  const auto [P, PP, N, R, D] = ClusteredSizes(c);
  if (c.offsets.count() != R || (R > 0 && c.offsets.slab_size() != PP))
    throw Error("internal: clustered content has " + std::to_string(c.offsets.count()) + " slabs of " +
                std::to_string(c.offsets.slab_size()) + " offsets, expected " + std::to_string(R) + " of " +
                std::to_string(PP));
  if (D > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("clustered data of " + std::to_string(D) + " values does not fit int offsets");
  if ((N == 0) != (R == 0) || (R > 0 && c.region_start[0] != 0))
    throw Error("internal: regions must start at matrix 0 and cover every matrix");
  for (std::size_t r = 0; r < R; ++r) {
    const int s = c.region_start[r];
    const int e = r + 1 < R ? c.region_start[r + 1] : static_cast<int>(N);
    if (s < 0 || s >= e || e > static_cast<int>(N)) throw Error("internal: region starts not strictly increasing");
    const auto len = static_cast<std::size_t>(e - s);
    const std::vector<int> offs = c.offsets.slab(r);  // one region's offsets at a time
    for (std::size_t p = 0; p < PP; ++p) {
      const int off = offs[p];
      if (off < 0 || static_cast<std::size_t>(off) + len > D)
        throw Error("internal: clustered offset " + std::to_string(off) + " outside data");
    }
  }
  for (const auto l : c.lengths)
    if (l < 0 || l > std::numeric_limits<int>::max())
      throw Error("message length " + std::to_string(l) + " does not fit the file's int variable");
  if (!c.residual.empty() && (c.residual.count() != N || c.residual.slab_size() != PP))
    throw Error("internal: clustered residual has " + std::to_string(c.residual.count()) + " slabs of " +
                std::to_string(c.residual.slab_size()) + " values, expected " + std::to_string(N) + " of " +
                std::to_string(PP));
  if (!c.residual.empty() && !(c.residual_step > 0 && std::isfinite(c.residual_step)))
    throw Error("internal: clustered residual without a positive step");
}

// NetCDF-4 (chunked, deflated) normally; compact classic CDF-1 (no filters, fixed dimensions,
// 4-byte offsets, no descriptive attributes) is the fallback for tiny inputs, where HDF5's fixed
// overhead and the header would make the file bigger than the input.
// CDF-1 offsets are 32-bit: a compact file of a gigabyte or more (a big input that does not
// cluster) is CDF-2.
nc::Kind clustered_file_kind(const ClusteredContent& c, bool compact) {
  if (!compact) return nc::Kind::netcdf4;
  const auto [P, PP, N, R, D] = ClusteredSizes(c);
  const double payload = 4.0 * static_cast<double>(R * PP + N + R) + 8.0 * static_cast<double>(D) +
                       2.0 * static_cast<double>(c.residual.empty() ? 0 : N * PP);
  return payload < static_cast<double>(1u << 30) ? nc::Kind::classic : nc::Kind::cdf2;
}

// The variables of a clustered file (residual -1 when it has none).
struct ClusteredVariables {
  int message_length = -1, info = -1, length = -1, data = -1, residual = -1;
};

// Defines the residual(i, x, y) variable: int8 when every residual fits (the usual case: half the
// bytes for deflate to code), int16 otherwise, with the step and mode that turn it into a value.
int define_residual(nc::File& f, const ClusteredContent& c, bool compact, int di, int dx) {
  bool bytes = true;
  for (std::size_t k = 0; k < c.residual.count() && bytes; ++k) {
    const std::vector<std::int16_t> res = c.residual.slab(k);
    const auto [mn, mx] = std::minmax_element(res.begin(), res.end());
    bytes = *mn >= -127 && *mx <= 127;
  }
  const int vres = f.def_var("residual", bytes ? NC_BYTE : NC_SHORT, {di, dx, dx});
  if (!compact) {
    // Square tiles of at most 128 x 128 cells (32 KiB): one random value decompresses one tile,
    // a row or a column of one length P/128 tiles.
    const std::size_t t = std::min<std::size_t>(ClusteredSizes(c).P, kResidualTile);
    f.def_chunking(vres, {1, t, t});
    f.def_deflate(vres, 6, !bytes);
  }
  if (!compact) f.put_att(vres, "long_name",
            std::string("quantised correction of pair (x, y) at matrix i against its cluster centre c: "
                        "value = c * exp(residual * residual_step) (relative) or c + residual * residual_step"));
  f.put_att(vres, "residual_step", c.residual_step);
  f.put_att(vres, "residual_mode", std::string(c.residual_relative ? "relative" : "absolute"));
  return vres;
}

// Defines the dimensions and variables of the layout (nt/clustered_writer.hpp), in define mode:
// compact files have fixed dimensions and neither chunks, filters nor descriptive attributes.
ClusteredVariables define_clustered_variables(nc::File& f, const ClusteredContent& c, bool compact) {
  const auto [Pz, PP, N, R, D] = ClusteredSizes(c);
  ClusteredVariables v;
  const int dx = f.def_dim("x", Pz);
  const int di = f.def_dim("i", N);
  const int dn = f.def_dim("n", compact ? std::optional<std::size_t>(R) : std::nullopt);
  const int dd = f.def_dim("d", compact ? std::optional<std::size_t>(D) : std::nullopt);

  v.message_length = f.def_var("message_length", NC_INT, {di});
  if (!compact) {
    f.put_att(v.message_length, "units", std::string("bytes"));
    f.put_att(v.message_length, "long_name", std::string("message length of each matrix before clustering"));
  }

  v.info = f.def_var("info", NC_INT, {dn, dx, dx});
  const std::size_t rows = std::clamp<std::size_t>(kInfoChunkCells / Pz, 1, Pz);
  if (!compact) {
    f.def_chunking(v.info, {1, rows, Pz});
    f.def_deflate(v.info, 4, true);
  }
  if (!compact) f.put_att(v.info, "long_name",
            std::string("offset in data of the cluster instance of pair (x = sender, y = receiver) in region n"));

  v.length = f.def_var("length", NC_INT, {dn});
  if (!compact) f.def_chunking(v.length, {std::max<std::size_t>(R, 1)});
  if (!compact) f.put_att(v.length, "long_name", std::string("index of the first matrix (into message_length) of each region"));

  v.data = f.def_var("data", NC_DOUBLE, {dd});
  if (!compact) {
    f.def_chunking(v.data, {std::clamp<std::size_t>(D, 1, 8192)});
    // Below ~1000 values the filter's fixed overhead eats what deflate saves.
    if (D >= 1024) f.def_deflate(v.data, 4, true);
  }
  if (!compact) {
    f.put_att(v.data, "units", std::string("s"));  // as the global units
    f.put_att(v.data, "long_name", std::string("per region and cluster: the cluster's centre value for each matrix"));
  }

  if (!c.residual.empty()) v.residual = define_residual(f, c, compact, di, dx);
  return v;
}

// The global attributes of the clustering. Compact: a file without residuals is layout 1, which a
// missing version attribute says to every reader (the oldest included); whole numbers are stored
// as int (4 bytes less each).
void put_clustered_attributes(nc::File& f, const ClusteredContent& c, bool compact) {
  if (!compact) f.put_att(NC_GLOBAL, "file_kind", std::string("clustered"));
  if (!compact || !c.residual.empty()) f.put_att(NC_GLOBAL, "cluster_layout_version", kClusteredLayoutVersion);
  for (const auto& [k, v] : c.text_attributes) f.put_att(NC_GLOBAL, k, v);
  for (const auto& [k, v] : c.number_attributes) {
    const bool whole = compact && v == std::trunc(v) && std::fabs(v) <= std::numeric_limits<int>::max();
    if (whole)
      f.put_att(NC_GLOBAL, k, static_cast<int>(v));
    else
      f.put_att(NC_GLOBAL, k, v);
  }
}

// Writes the values of every variable (data mode): lengths, region starts, offsets one region at
// a time, cluster values, residuals one matrix at a time.
void put_clustered_values(nc::File& f, const ClusteredContent& c, const ClusteredVariables& v) {
  const auto [Pz, PP, N, R, D] = ClusteredSizes(c);
  if (N) {
    std::vector<int> ml(c.lengths.begin(), c.lengths.end());
    f.put(v.message_length, {0}, {N}, ml.data());
  }
  if (R) {
    f.put(v.length, {0}, {R}, c.region_start.data());
    for (std::size_t r = 0; r < R; ++r) f.put(v.info, {r, 0, 0}, {1, Pz, Pz}, c.offsets.slab(r).data());
  }
  if (D) f.put(v.data, {0}, {D}, c.data.data());
  if (v.residual >= 0)
    for (std::size_t k = 0; k < N; ++k) f.put(v.residual, {k, 0, 0}, {1, Pz, Pz}, c.residual.slab(k).data());
}

}  // namespace

void write_clustered(const fs::path& path, const ClusteredContent& c, bool overwrite, bool compact) {
  check_clustered_content(c);
  FileInfo info = c.info;
  for (auto it = info.meta.extra.begin(); it != info.meta.extra.end();)
    it = it->first.starts_with(kClusterAttributePrefix) ? info.meta.extra.erase(it) : std::next(it);
  if (info.meta.format_version == 0) info.meta.format_version = kFormatVersion;

  nc::File f = nc::File::create(path, clustered_file_kind(c, compact), overwrite);
  try {
    write_file_info(f, info);  // leaves define mode on
    const ClusteredVariables vars = define_clustered_variables(f, c, compact);
    put_clustered_attributes(f, c, compact);
    f.enddef();
    put_clustered_values(f, c, vars);
    f.close();
  } catch (...) {
    f = nc::File();
    std::error_code ec;
    fs::remove(path, ec);  // never leave a half-written file behind
    throw;
  }
}

void set_clustered_attribute(const fs::path& path, const std::string& name, double value) {
  nc::File f = nc::File::open(path, true);
  f.redef();
  f.put_att(NC_GLOBAL, name, value);
  f.enddef();
  f.close();
}

}  // namespace nt
