// Small text helpers shared by the report, compare and export writers of nt_analysis (internal).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "nt/units.hpp"

namespace nt::analysis::text {

// Host names as a Slurm-style host list: names that differ only in a trailing number share one
// prefix with ranges of numbers ("node[01-16,20],gpu3"); past `max` items, "... (N hosts)". A
// finding of 32 hosts is one short line.
std::string hosts_text(const std::vector<std::string>& hosts, std::size_t max = 6);

// Ascending ranks as runs a-b, at most 8 runs ("0-15,32-47", then ",... (N ranks)"): a finding of
// 32 ranks is one short line. nt::analysis::text_of_ranks.
std::string rank_runs_text(const std::vector<int>& r);

// "0,1,2" or, past `max` ranks, "0,1,...,11,... (40 ranks)".
inline std::string ranks_text(const std::vector<int>& r, std::size_t max) {
  if (r.size() <= max) return fmt::format("{}", fmt::join(r, ","));
  std::vector<int> head(r.begin(), r.begin() + static_cast<std::ptrdiff_t>(max));
  return fmt::format("{},... ({} ranks)", fmt::join(head, ","), r.size());
}

// "-", "1 KiB" or "0 B .. 1 MiB (21 lengths)".
inline std::string lengths_text(const std::vector<std::int64_t>& l) {
  if (l.empty()) return "-";
  if (l.size() == 1) return format_bytes(l.front());
  return fmt::format("{} .. {} ({} lengths)", format_bytes(l.front()), format_bytes(l.back()), l.size());
}

// Text for XML and HTML: & < > " ' as entities.
inline std::string xml_escape(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default: o += ch;
    }
  }
  return o;
}

}  // namespace nt::analysis::text
