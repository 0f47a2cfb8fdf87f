// What the report page's two files share (internal to nt_analysis): html.cpp draws the page and its
// matrices, html_findings.cpp the findings table with each finding drawn on the matrix.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "nt/analysis/report.hpp"

namespace nt::analysis::html_parts {

// The delays' colour map, darker is slower: t in [0, 1] from the fastest to the slowest.
std::array<std::uint8_t, 3> sequential(double t);
// Its scale, on the log of the delays: from the fastest cell (delays only grow under noise: no low
// outliers; a node's few inner links keep their own colour) to a high percentile.
inline constexpr int kScaleTopPercentile = 99;  // the slowest colour from this percentile of the cells on (above it: outliers)
inline constexpr double kScaleLeastSpan = 1.2;  // the scale spans at least this ratio: a uniform matrix (a few per cent of noise) looks uniform
// The scale's ends (logs) over the cells' log delays, sorted ascending, not empty.
std::pair<double, double> scale_ends(const std::vector<double>& sorted_logs);
// Ranks ordered by their groups, coarsest level first, so nodes and switches show as blocks.
std::vector<int> topology_order(const Topology& t, int P);
// "send only", "receive only", "both", "" (not judged).
std::string direction_word(const std::string& d);

// html_findings.cpp: the findings table, each finding drawn beside it on the matrix of the longest
// length (its cells in red, the others grey), when r.source can be read again.
std::string findings_table(const Report& r);

}  // namespace nt::analysis::html_parts
