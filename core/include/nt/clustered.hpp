// Clustered files (share/doc/design.md §5): NetCDF-4 with regions of message lengths, per region a
// map of pairs to cluster instances, one mean value per cluster and length.
// Reader: value(i, j, k) = data[info[r][i][j] + (k - length[r])] with r found by binary search.
#pragma once

#include <filesystem>
#include <memory>

#include "nt/dataset.hpp"

namespace nt {

// Opens a clustered file as a lazy Dataset (format() == "clustered").
std::unique_ptr<Dataset> open_clustered(const std::filesystem::path& path);

}  // namespace nt
