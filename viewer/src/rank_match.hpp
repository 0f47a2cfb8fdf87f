// Matching the ranks and lengths of another run to the document's: for the difference and ratio
// views (Document::set_compare) and the curves of overlaid files in a pair plot (pair_view.cpp).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "nt/dataset.hpp"

namespace nt::viewer::detail {

inline std::string file_name(const std::filesystem::path& p) { return p.filename().string(); }

// Ranks of `a` matched by host in `b` when both name a host for every rank; else empty.
std::vector<int> host_match(const nt::Dataset& a, const nt::Dataset& b);

// How the runs of a compare are matched: rank here -> rank there (-1: none), length index
// here -> index there (-1: none), and one line saying how.
struct CompareMatch {
  std::vector<int> rank;
  std::vector<std::ptrdiff_t> length;
  std::string how;
};
// The match of run `b` (file pb) to the document's run `a` (file pa); UsageError when the ranks
// cannot be matched or no length is common. The rule: Document::set_compare.
CompareMatch match_compare(const nt::Dataset& a, const std::filesystem::path& pa, const nt::Dataset& b,
                           const std::filesystem::path& pb);

}  // namespace nt::viewer::detail
