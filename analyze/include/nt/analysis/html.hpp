// One self-contained HTML page of a report or a comparison: findings, matrix pictures (PNG data
// URIs drawn here, at most 256 x 256 cells: big runs are averaged over blocks of ranks), the
// topology, the thresholds and the Hockney/LogP table. No network access, no external script,
// style or image; printable. (network_analyze report --html, compare --html)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "nt/analysis/compare.hpp"
#include "nt/analysis/report.hpp"

namespace nt::analysis {

// The matrices are read again from r.source (one matrix per picture); when it cannot be opened
// (a report made in memory) the page says so instead of showing them.
std::string report_html(const Report& r);
std::string compare_html(const Comparison& c);

// A PNG (8-bit RGB, no interlace) of w x h pixels, rgb holding 3 w h bytes row by row.
std::string encode_png_rgb(int w, int h, const std::vector<std::uint8_t>& rgb);
std::string base64(const std::string& bytes);

}  // namespace nt::analysis
