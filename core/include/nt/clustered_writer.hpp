// Writer side of clustered files (share/doc/design.md §5), used by network_cluster.
//
// Layout (NetCDF-4):
//   dimensions: x = P ; i = matrices before clustering ; n = UNLIMITED (regions) ; d = UNLIMITED ;
//   int info(n, x, x)      offset in data of the cluster instance holding pair (x, y) in region n
//   int length(n)          index of the first matrix of each region (strictly increasing, first 0)
//   double data(d)         per region, per cluster: one value per matrix of the region
//   int message_length(i)  bytes of every original matrix
// plus the test-parameter scalars and global attributes of the raw file (write_file_info) and the
// attributes given here (the algorithm parameters and the measured errors, prefixed "cluster_").
// value(x, y, k) = data[info[r][x][y] + (k - length[r])], r the region holding k.
#pragma once

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "nt/params.hpp"
#include "nt/slabs.hpp"

namespace nt {

struct ClusteredContent {
  FileInfo info;                             // info.params.proc_num = P
  std::vector<std::int64_t> lengths;         // message_length(i)
  std::vector<int> region_start;             // length(n)
  Slabs<int> offsets;                        // info(n, x, x): one slab of P * P offsets per region
  std::vector<double> data;                  // data(d): the cluster centres
  // Layout 2: residual(i, x, x), a quantised correction per cell against its cluster centre
  // (apply_residual). Empty when every residual is 0 (the variable is then left out).
  Slabs<std::int16_t> residual;              // one slab of P * P per matrix, [k][x][y]
  double residual_step = 0;                  // quantisation step (> 0 when residual is set)
  bool residual_relative = true;             // step in log(value) (relative) or in seconds
  std::vector<std::pair<std::string, double>> number_attributes;     // global attributes
  std::vector<std::pair<std::string, std::string>> text_attributes;  // global attributes
};

// Checks the content for consistency (offsets inside data for the whole region, regions
// covering every matrix) and writes the file. Throws Error on inconsistent content, FileError on
// an existing file without `overwrite`. info(n, x, x) is chunked by rows and deflated; data is
// deflated when it holds enough values for compression to pay for the filter overhead.
// `compact` is the fallback for tiny inputs, where the header outweighs the matrices: classic CDF-1
// (4-byte offsets) without filters and without what no reader needs (long_name and units of the
// variables, file_kind; cluster_layout_version only when the residual makes it layout 2; whole
// numeric attributes as int). Every reader of layout 1 or 2 reads it.
void write_clustered(const std::filesystem::path& path, const ClusteredContent& c, bool overwrite,
                     bool compact = false);
// Side of the square residual tiles (HDF5 chunks of residual(i, x, x)).
inline constexpr std::size_t kResidualTile = 128;
// Cells of an info(n, x, x) chunk at least: whole rows of about 64 KiB, so that a random access
// decompresses one small chunk.
inline constexpr std::size_t kInfoChunkCells = 16384;

// Sets (or replaces) one numeric global attribute of an existing clustered file.
void set_clustered_attribute(const std::filesystem::path& path, const std::string& name, double value);

// Prefix of every attribute network_cluster adds; the reader keeps them out of Metadata::extra so
// that they do not leak into files written from a clustered dataset (decompress, convert).
inline constexpr const char* kClusterAttributePrefix = "cluster_";

// Version of the clustered layout (global attribute cluster_layout_version); readers refuse newer
// ones. Files without the attribute (other writers of the section 5 layout) read as version 1.
// Version 1: info, length, data (value = cluster centre). Version 2 adds the optional
// residual(i, x, x) variable with the attributes residual_step and residual_mode.
inline constexpr int kClusteredLayoutVersion = 2;

// The value a reader reconstructs from a cluster centre c and a residual q: c * exp(q * step)
// (relative) or c + q * step (absolute). Writer and reader use this one function, so the bound the
// writer checked is the bound the reader gets.
inline double apply_residual(double c, int q, double step, bool relative) {
  if (q == 0) return c;
  return relative ? c * std::exp(static_cast<double>(q) * step) : c + static_cast<double>(q) * step;
}

}  // namespace nt
