// Clustered files (share/doc/design.md §5): NetCDF-4 with regions of message lengths, per region a
// map of pairs to cluster instances, one mean value per cluster and length.
// Reader: value(i, j, k) = data[info[r][i][j] + (k - length[r])] with r found by binary search.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>

#include "nt/dataset.hpp"

namespace nt {

// Opens a clustered file as a lazy Dataset (format() == "clustered").
std::unique_ptr<Dataset> open_clustered(const std::filesystem::path& path);

// Region `region`'s info of a clustered dataset (the data offset of every pair), a block of rows
// at a time: f(first_row, rows, offsets) with rows x P offsets, each block checked to point into
// the data before f sees it (nt::FileError otherwise). What needs a whole region (network_cluster
// info and groups) reads it through this, as the reader does before it allocates a P x P matrix:
// a small corrupt file declaring 20,000 ranks is refused after one block, not after gigabytes.
// Throws nt::Error when `clustered` is not a clustered dataset.
using InfoBlockFn = std::function<void(std::size_t row0, std::size_t rows, const int* offsets)>;
void for_each_info_block(const Dataset& clustered, std::size_t region, const InfoBlockFn& f);

}  // namespace nt
