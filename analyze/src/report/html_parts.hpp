// What the report page's two files share (internal to nt_analysis): html.cpp draws the page and its
// matrices, html_findings.cpp the findings table with each finding drawn on the matrix.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "nt/analysis/report.hpp"

namespace nt::analysis::html_parts {

// The delays' colour map, darker is slower: t in [0, 1] from the fastest to the slowest.
std::array<std::uint8_t, 3> sequential(double t);
// Ranks ordered by their groups, coarsest level first, so nodes and switches show as blocks.
std::vector<int> topology_order(const Topology& t, int P);
// "send only", "receive only", "both", "" (not judged).
std::string direction_word(const std::string& d);

// html_findings.cpp: the findings table, each finding drawn beside it on the matrix of the longest
// length (its cells in red, the others grey), when r.source can be read again.
std::string findings_table(const Report& r);

}  // namespace nt::analysis::html_parts
