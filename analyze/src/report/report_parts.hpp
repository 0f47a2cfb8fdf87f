// The levels and the findings of a report (make_report, report_levels.cpp).
#pragma once

#include <cstddef>

#include "nt/analysis/report.hpp"
#include "anomalies/loaded.hpp"

namespace nt::analysis {

// What the levels and the findings are read from: c (the measured cube, or its isolated values
// where re-tested), the file as measured, the spread and the fastest samples of the run.
struct ReportInputs {
  const Cube& c;
  const Cube& measured;
  const ReportOptions& opt;
  const Cube* deviation = nullptr;
  const Cube* fastest = nullptr;
  const IsolatedWhereRetested* merged = nullptr;
  bool pairwise = true;  // each cell is one pair's own delay: the explanation may change the findings
};

// The levels (from `shape`'s cells), then the findings on them (from in.c), checked against the
// whole matrix: r's topology, agreement, anomalies, sensitivity, explanation, and their notes.
void levels_and_findings(const ReportInputs& in, const Cube& shape, Report& r);

// The levels again from the cells no pair finding claims (a block of cells that a fault on a route
// slows hides a step of a few per cent between switches). Where they differ and the explanation
// on them leaves no more of the matrix slow, r takes them, with their findings and a note saying
// so. notes_before: r's notes from before the levels (kept).
void levels_without_pair_findings(const ReportInputs& in, Report& r, std::size_t notes_before);

}  // namespace nt::analysis
