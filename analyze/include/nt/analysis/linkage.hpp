// Average linkage (UPGMA) with a cut: the clustering behind the topology's groups.
#pragma once

#include <cstddef>
#include <vector>

namespace nt::analysis {

// Clusters n items with the symmetric n x n distance matrix `d` (row-major; the diagonal is
// ignored; `d` is used as working memory) by average linkage, merging while the two closest
// clusters are closer than `cut`. Returns a label per item: the smallest item of its cluster.
//
// Nearest-neighbour chain: O(n^2) time and no memory beyond `d`, where the textbook loop (find
// the closest pair, merge, repeat) is O(n^3). Average linkage is reducible, so both build the
// same dendrogram; merges are monotone, so stopping at `cut` gives the same partition. Ties are
// broken deterministically: a nearest neighbour keeps the chain's previous item on a tie, else
// the smallest index.
std::vector<int> average_linkage(std::vector<double>& d, std::size_t n, double cut);

}  // namespace nt::analysis
