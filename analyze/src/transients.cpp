// One-way pairs that a transient made (common on noisy networks): a pair's samples are measured
// back to back, so a stall of a link shorter than the run but longer than the pair's samples moves
// the median of one direction at one length, not its fastest sample. A fault slows every sample;
// the fastest sample of the slower direction is then as far from the other direction's as the
// medians are. An asymmetric_pair whose fastest samples do not show at least half of its medians'
// difference (in log) at most of its lengths is moved to a note.
#include "nt/analysis/anomalies.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "nt/stats.hpp"

#include "anomalies_parts.hpp"

namespace nt::analysis {
namespace {

double cell(const Cube& c, std::size_t k, int i, int j, std::vector<float>& buf) {
  return static_cast<double>(c.rows(k, i, i + 1, buf)[j]);
}

// Whether the fastest samples show the finding's pairs one-way slow: per pair and length, the
// log ratio of the two directions' minima over that of their medians; true when at least half of
// them reach 1/2.
bool fastest_agree(const Cube& values, const Cube& fastest, const Anomaly& a) {
  std::vector<float> buf;
  std::size_t agree = 0, seen = 0;
  for (const auto& [i, j] : a.pairs)
    for (std::size_t k = 0; k < values.count(); ++k) {
      if (std::find(a.lengths.begin(), a.lengths.end(), values.lengths[k]) == a.lengths.end()) continue;
      const double mi = cell(values, k, i, j, buf), mj = cell(values, k, j, i, buf);
      const double fi = cell(fastest, k, i, j, buf), fj = cell(fastest, k, j, i, buf);
      if (!Cube::usable(mi) || !Cube::usable(mj) || !Cube::usable(fi) || !Cube::usable(fj) || mi <= mj) continue;
      ++seen;
      if (std::log(fi / fj) >= 0.5 * std::log(mi / mj)) ++agree;
    }
  return seen == 0 || 2 * agree >= seen;
}

}  // namespace

std::optional<std::string> drop_transient_pairs(const Cube& values, const Cube& fastest, std::vector<Anomaly>& found) {
  if (fastest.P != values.P || fastest.lengths != values.lengths) return std::nullopt;
  const auto moved = anomaly_parts::take_out(
      found,
      [&](const Anomaly& a) {
        return a.kind == AnomalyKind::asymmetric_pair && !a.pairs.empty() && !fastest_agree(values, fastest, a);
      },
      [](const Anomaly& a) { return fmt::format("{}->{}", a.pairs.front().first, a.pairs.front().second); });
  if (moved.empty()) return std::nullopt;
  return fmt::format(
      "{} one-way pair finding(s) left out (first ranks {}): slow in the medians only, their fastest samples (the "
      "min file) are not: a transient while their samples ran (samples of a pair are taken back to back), not a "
      "fault; a fault slows every sample",
      moved.size(), fmt::join(moved, ", "));
}

}  // namespace nt::analysis
