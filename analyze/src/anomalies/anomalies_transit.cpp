// Routes through a slow switch group. Where switches carry the routes of other groups (a
// dragonfly's routers, a torus's hosts), a slow switch slows the pairs of third parties whose route
// crosses it, by the time it adds to its own pairs: a slow link or switch adds the same time to
// every route across it, whatever the route's length. The pair findings of those routes (one per
// pair of nodes: 50 on a dragonfly with two slow routers) are the switch's: folded into it.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "group_faults.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {
namespace {

// The time added, per length: the median over `cells` (sender, receiver) of the delay less its
// class's (NaN where no cell is usable).
struct AddedTime {
  std::vector<double> at;  // per length
};

bool is_pair_finding(const Anomaly& a) {
  return (a.kind == AnomalyKind::slow_link || a.kind == AnomalyKind::asymmetric_pair) && !a.pairs.empty();
}

// The cells of a slow switch finding: those leaving and entering its ranks.
std::vector<std::pair<int, int>> boundary_cells(const Anomaly& f, int P) {
  std::vector<char> in(static_cast<std::size_t>(P), 0);
  for (int r : f.ranks) in[static_cast<std::size_t>(r)] = 1;
  std::vector<std::pair<int, int>> cells;
  for (int r : f.ranks)
    for (int j = 0; j < P; ++j)
      if (!in[static_cast<std::size_t>(j)]) {
        cells.emplace_back(r, j);
        cells.emplace_back(j, r);
      }
  return cells;
}

// Per finding (`cells[f]`, `shown[f]`: the lengths it shows at), its added time at every length
// it shows at (NaN at the others).
std::vector<AddedTime> added_times(const AnomalyScan& scan, const std::vector<std::vector<std::pair<int, int>>>& cells,
                                   const std::vector<const std::vector<std::int64_t>*>& shown) {
  const Cube& c = scan.cube;
  const auto N = static_cast<std::size_t>(c.P);
  const auto cls = pair_classes(scan.topo);
  std::vector<AddedTime> out(cells.size(), AddedTime{std::vector<double>(c.count(), kNaN)});
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    const float* slice = c.slice(k, buf);
    const auto base = class_log_medians(slice, scan.topo, cls, N);
    for (std::size_t f = 0; f < cells.size(); ++f) {
      if (std::find(shown[f]->begin(), shown[f]->end(), c.lengths[k]) == shown[f]->end()) continue;
      std::vector<double> added;
      for (const auto& [i, j] : cells[f]) {
        const std::size_t x = static_cast<std::size_t>(i) * N + static_cast<std::size_t>(j);
        const double d = static_cast<double>(slice[x]);
        const int q = cls[x];
        if (q >= 0 && Cube::usable(slice[x]) && std::isfinite(base[static_cast<std::size_t>(q)]))
          added.push_back(d - std::exp(base[static_cast<std::size_t>(q)]));
      }
      out[f].at[k] = finite_median(added);
    }
  }
  return out;
}

}  // namespace

void fold_transit_routes(const AnomalyScan& scan, std::vector<Anomaly>& out) {
  std::vector<std::size_t> switches, pairs;
  for (std::size_t f = 0; f < out.size(); ++f) {
    if (out[f].kind == AnomalyKind::slow_switch) switches.push_back(f);
    if (is_pair_finding(out[f])) pairs.push_back(f);
  }
  if (switches.empty() || pairs.empty()) return;
  std::vector<std::vector<std::pair<int, int>>> cells;
  std::vector<const std::vector<std::int64_t>*> shown;
  for (std::size_t f : switches) {
    cells.push_back(boundary_cells(out[f], scan.cube.P));
    shown.push_back(&out[f].lengths);
  }
  for (std::size_t f : pairs) {
    cells.push_back(out[f].pairs);
    shown.push_back(&out[f].lengths);
  }
  const auto time = added_times(scan, cells, shown);
  std::vector<char> drop(out.size(), 0);
  std::vector<std::size_t> folded(switches.size(), 0);
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const Anomaly& a = out[pairs[p]];
    std::size_t into = switches.size();
    for (std::size_t s = 0; s < switches.size(); ++s) {
      const Anomaly& sw = out[switches[s]];
      const std::set<int> in(sw.ranks.begin(), sw.ranks.end());
      const bool outside = std::none_of(a.pairs.begin(), a.pairs.end(), [&](const auto& x) {
        return in.count(x.first) != 0 || in.count(x.second) != 0;
      });
      // The routes of one switch only: alike to two is no evidence for either.
      if (outside && alike_times(time[s].at, time[switches.size() + p].at))
        into = into == switches.size() ? s : switches.size() + 1;
    }
    if (into >= switches.size()) continue;
    Anomaly& sw = out[switches[into]];
    sw.pairs.insert(sw.pairs.end(), a.pairs.begin(), a.pairs.end());
    ++folded[into];
    drop[pairs[p]] = 1;
  }
  for (std::size_t s = 0; s < switches.size(); ++s)
    if (folded[s] > 0)
      out[switches[s]].detail += fmt::format(
          "; {} pair findings of other nodes slowed by the same time folded in (their routes cross it)", folded[s]);
  std::vector<Anomaly> kept;
  for (std::size_t f = 0; f < out.size(); ++f)
    if (!drop[f]) kept.push_back(std::move(out[f]));
  out = std::move(kept);
}

}  // namespace nt::analysis::anomaly_parts
