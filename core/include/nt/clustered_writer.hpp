// Writer side of clustered files (DESIGN.md section 5), used by network_cluster.
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

#include <cstdint>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "nt/params.hpp"

namespace nt {

struct ClusteredContent {
  FileInfo info;                             // info.params.proc_num = P
  std::vector<std::int64_t> lengths;         // message_length(i)
  std::vector<int> region_start;             // length(n)
  std::vector<int> offsets;                  // info(n, x, x): region_start.size() * P * P offsets
  std::vector<double> data;                  // data(d)
  std::vector<std::pair<std::string, double>> number_attributes;     // global attributes
  std::vector<std::pair<std::string, std::string>> text_attributes;  // global attributes
};

// Checks the content for consistency (offsets inside data for the whole region, regions
// covering every matrix) and writes the file. Throws Error on inconsistent content, FileError on
// an existing file without `overwrite`. info(n, x, x) is chunked by rows and deflated; data is
// deflated when it holds enough values for compression to pay for the filter overhead.
void write_clustered(const std::filesystem::path& path, const ClusteredContent& c, bool overwrite);

// Sets (or replaces) one numeric global attribute of an existing clustered file.
void set_clustered_attribute(const std::filesystem::path& path, const std::string& name, double value);

// Prefix of every attribute network_cluster adds; the reader keeps them out of Metadata::extra so
// that they do not leak into files written from a clustered dataset (decompress, convert).
inline constexpr const char* kClusterAttributePrefix = "cluster_";

// Version of the clustered layout (global attribute cluster_layout_version); readers refuse newer
// ones. Files without the attribute (other writers of the section 5 layout) read as version 1.
inline constexpr int kClusteredLayoutVersion = 1;

}  // namespace nt
