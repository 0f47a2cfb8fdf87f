// The levels and the findings of a report, and a second look at the levels without the cells that
// the pair findings claim.
//
// The levels come from each rank's profile of delays to all the others. A fault on a route (an
// uplink that carries a leaf's traffic to half of the destinations, a link between two sets of
// nodes) slows a block of those cells, and a block 2x slower hides a step of a few per cent
// between switches: the first pass can name the fault while the levels around it are wrong. The
// model of the matrix is made again on the levels that the cells no pair finding claims give; the
// explanation that leaves less of the matrix slow is kept.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/schedule.hpp"
#include "nt/units.hpp"
#include "report_parts.hpp"

namespace nt::analysis {
namespace {

// A copy of the cube in memory beside the file's: at most this much.
constexpr std::uint64_t kMaskedCopyBytes = std::uint64_t{512} << 20;

bool claims_pairs(const Anomaly& a) {
  return (a.kind == AnomalyKind::slow_link || a.kind == AnomalyKind::asymmetric_pair ||
          a.kind == AnomalyKind::unexplained) &&
         !a.pairs.empty();
}

// c with every cell a pair finding claims left out (NaN, at every length); the count of cells.
Cube without_cells(const Cube& c, const std::vector<Anomaly>& found, std::size_t& masked) {
  const auto P = static_cast<std::size_t>(c.P);
  std::vector<char> drop(P * P, 0);
  for (const auto& a : found)
    if (claims_pairs(a))
      for (auto x : pair_cells(a, P)) drop[x] = 1;
  Cube m = cube_header(c);
  m.v.resize(c.count() * P * P);
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    const float* s = c.slice(k, buf);
    for (std::size_t x = 0; x < P * P; ++x) m.v[k * P * P + x] = drop[x] ? std::nanf("") : s[x];
  }
  masked = 0;
  for (char d : drop) masked += d != 0;
  return m;
}

bool same_levels(const Topology& a, const Topology& b) {
  if (a.levels.size() != b.levels.size()) return false;
  for (std::size_t l = 0; l < a.levels.size(); ++l)
    if (a.levels[l].group_of != b.levels[l].group_of) return false;
  return true;
}

std::string levels_text(const Topology& t) {
  std::vector<std::string> parts;
  for (std::size_t l = 1; l < t.levels.size(); ++l)
    parts.push_back(fmt::format("{} {} groups", t.levels[l].name, t.levels[l].groups.size()));
  return parts.empty() ? std::string("no level above the nodes") : fmt::format("{}", fmt::join(parts, ", "));
}

// Whether levels `a` keep every level of `b` with at least as many groups, and a tree where b has
// one, and hold no more groups of a lone node at any level (a group split into its nodes because
// they are slow alike is their switch's fault, not a level the faults' cells hid).
bool gives_up_none(const Topology& a, const Topology& b) {
  if (a.levels.size() < b.levels.size() || (a.no_tree_above && !b.no_tree_above)) return false;
  for (std::size_t l = 1; l < b.levels.size(); ++l)
    if (a.levels[l].groups.size() < b.levels[l].groups.size() ||
        lone_node_groups(a, l).size() > lone_node_groups(b, l).size())
      return false;
  return true;
}

// The second explanation is kept when it leaves no more of the matrix slow, no more pairs
// unexplained, and its levels predict the cells no finding claims no worse, and is better at one.
// A tie is a gain only where the second levels hold a level the first lack (the leaves a block of
// slow cells hid), not more groups alone.
bool explains_better(const Explanation& a, const Explanation& b, bool more_levels) {
  constexpr double eps = 1e-9;
  if (!a.checked || !b.checked) return false;
  const bool no_worse = a.slow_share <= b.slow_share + eps && a.unexplained_pairs <= b.unexplained_pairs &&
                        !(a.levels_share < b.levels_share - eps);
  const bool gain = a.slow_share < b.slow_share - eps || a.unexplained_pairs < b.unexplained_pairs ||
                    a.levels_share > b.levels_share + eps || more_levels;
  return no_worse && gain;
}

// The levels from shape's cells, with their notes.
void find_levels(const ReportInputs& in, const Cube& shape, Report& r) {
  const ReportOptions& opt = in.opt;
  r.topology = find_topology(shape, opt.topology, r.hosts);
  check_node_level(shape, r.topology, !r.hosts.empty());
  if (in.pairwise)
    for (auto& n : refine_levels(shape, r.topology, opt.anomalies)) r.notes.push_back(std::move(n));
  for (const auto& n : r.topology.notes) r.notes.push_back(n);
  for (std::size_t l = 1; l < r.topology.levels.size(); ++l) {
    const auto lone = lone_node_groups(r.topology, l);
    if (!lone.empty())
      r.notes.push_back(fmt::format("{} level: {} group(s) ({}) hold a single node: a lone node {} (the delays "
                                    "cannot tell the two apart; see the anomalies)",
                                    r.topology.levels[l].name, lone.size(), fmt::join(lone, ","), kLoneNodeCaveat));
  }
  r.agreement = compare_with_hosts(r.topology.delay_groups, r.hosts);
  if (r.topology.nodes_from_hosts && !r.agreement.exact)
    r.notes.push_back(fmt::format("the node level is the {} hosts the file names; the delays alone group the ranks into {} "
                                  "groups, unions of hosts (ranks on different hosts look alike, e.g. one rank per host)",
                                  r.agreement.host_groups.size(), r.topology.delay_groups.size()));
  if (!r.topology.nodes_from_hosts && check_node_level_against_hosts(r.topology, r.agreement))
    r.notes.push_back(r.topology.notes.back());
}

// Whether the file's schedule copied one rank pair's values to the other rank pairs of its hosts.
bool copied_by_schedule(const Cube& measured) {
  return measured.file && (filled_by_host_pair(measured.file->meta()) || sampled_pairs(measured.file->meta()));
}

// The findings on r's levels, checked against the whole matrix.
void find_findings(const ReportInputs& in, Report& r) {
  const Cube& c = in.c;
  const ReportOptions& opt = in.opt;
  r.anomalies = find_anomalies(c, r.topology, r.hosts, opt.anomalies, &r.sensitivity);
  std::vector<std::pair<int, int>> transients;  // the pairs of findings left out as transients
  const Cube* fastest = in.fastest && !in.merged && c.statistic == Statistic::median ? in.fastest : nullptr;
  if (fastest)
    if (auto note = drop_transient_pairs(c, *fastest, r.topology, r.anomalies, transients)) r.notes.push_back(std::move(*note));
  if (in.pairwise)
    if (auto note = drop_lone_pairs(c, r.topology, copied_by_schedule(in.measured), r.anomalies, transients))
      r.notes.push_back(std::move(*note));
  if (in.measured.file)
    if (auto note = drop_findings_on_shared_cores(in.measured.file->meta(), r.topology, r.anomalies))
      r.notes.push_back(std::move(*note));
  if (in.deviation) {
    auto v = find_variance_anomalies(c, *in.deviation, r.hosts, opt.anomalies);
    r.anomalies.insert(r.anomalies.end(), v.begin(), v.end());
  }
  if (measured_under_load(in.measured)) saturated_groups(c, r.hosts, opt.anomalies.min_ratio, r.anomalies);
  if (auto note = review_findings_under_load(in.measured, in.merged, in.deviation, r.topology, opt.anomalies, r.anomalies))
    r.notes.push_back(std::move(*note));
  r.explanation = explain_and_check(c, r.topology, r.hosts, opt.anomalies, r.anomalies, in.pairwise, transients, fastest);
  if (!r.explanation.note.empty()) r.notes.push_back(r.explanation.note);
  if (!r.explanation.warning.empty()) r.notes.push_back(r.explanation.warning);
}

}  // namespace

void levels_and_findings(const ReportInputs& in, const Cube& shape, Report& r) {
  find_levels(in, shape, r);
  find_findings(in, r);
}

void levels_without_pair_findings(const ReportInputs& in, Report& r, std::size_t notes_before) {
  if (!in.pairwise || !r.explanation.checked) return;
  if (std::none_of(r.anomalies.begin(), r.anomalies.end(), claims_pairs)) return;
  const auto P = static_cast<std::uint64_t>(in.c.P);
  const std::uint64_t bytes = P * P * in.c.count() * sizeof(float);
  if (bytes > kMaskedCopyBytes) {
    r.notes.push_back(fmt::format("the levels were not found again without the cells of the pair findings: that "
                                  "copy of the delays would take {} (at most {})",
                                  format_bytes(static_cast<std::int64_t>(bytes)),
                                  format_bytes(static_cast<std::int64_t>(kMaskedCopyBytes))));
    return;
  }
  std::size_t masked = 0;
  const Cube shape = without_cells(in.c, r.anomalies, masked);
  Report again;
  again.source = r.source;
  again.cube = r.cube;
  again.hosts = r.hosts;
  again.notes.assign(r.notes.begin(), r.notes.begin() + static_cast<std::ptrdiff_t>(notes_before));
  find_levels(in, shape, again);
  // Levels the faults' cells hid come back; none is given up, nor a group of one (a tree is not
  // traded for no tree, under which the check is more lenient; two leaves are not merged because
  // the cells that told them apart were claimed).
  if (same_levels(again.topology, r.topology) || !gives_up_none(again.topology, r.topology)) return;
  find_findings(in, again);
  // The new levels must describe the distances of the cells no finding claims (on a torus, hosts
  // grouped around the claimed cells do not).
  if (!(again.explanation.levels_share >= in.opt.anomalies.explain_levels_fit) ||
      !explains_better(again.explanation, r.explanation, again.topology.levels.size() > r.topology.levels.size()))
    return;
  again.notes.push_back(fmt::format(
      "the levels are those of the cells no pair finding claims ({} rank pairs left out at each of {} lengths): with them, "
      "{}, the findings leave no more of the matrix slow than on the levels of all the cells ({})",
      masked, in.c.count(), levels_text(again.topology), levels_text(r.topology)));
  r = std::move(again);
}

}  // namespace nt::analysis

