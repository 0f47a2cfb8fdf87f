#include "loaded.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <string>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/dataset.hpp"
#include "nt/isolated.hpp"
#include "nt/schedule.hpp"
#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

#include "anomalies_parts.hpp"

namespace nt::analysis {

bool measured_under_load(const Cube& c) { return c.file && measured_concurrently(c.file->meta()); }

bool lanes_by_switch(const Cube& c) {
  const auto s = c.file ? schedule_of(c.file->meta()) : std::nullopt;
  return s && s->concurrent() && s->by_switch;
}

namespace {

// Per slow node, the median over the lengths and its ranks' rows of its delays to every rank
// (both ends of a pair are read from the senders' rows: the slow nodes' rows only, |S| x P per length).
std::vector<std::vector<double>> slow_rows(const Cube& c, const std::vector<const Anomaly*>& nodes) {
  const auto P = static_cast<std::size_t>(c.P);
  std::vector<std::vector<std::vector<double>>> cells(nodes.size(), std::vector<std::vector<double>>(P));
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k)
    for (std::size_t n = 0; n < nodes.size(); ++n)
      for (int r : nodes[n]->ranks) {
        const float* row = c.rows(k, r, r + 1, buf);
        for (std::size_t j = 0; j < P; ++j)
          if (Cube::usable(row[j])) cells[n][j].push_back(static_cast<double>(row[j]) / static_cast<double>(c.lengths[k] + 1));
      }
  std::vector<std::vector<double>> out(nodes.size(), std::vector<double>(P, kNaN));
  for (std::size_t n = 0; n < nodes.size(); ++n)
    for (std::size_t j = 0; j < P; ++j)
      if (!cells[n][j].empty()) out[n][j] = finite_median(cells[n][j]);
  return out;
}

}  // namespace

void saturated_groups(const Cube& c, const std::vector<std::string>& hosts, double min_ratio, std::vector<Anomaly>& out) {
  std::vector<const Anomaly*> nodes;
  for (const auto& a : out)
    if (a.kind == AnomalyKind::slow_node && !a.ranks.empty()) nodes.push_back(&a);
  if (nodes.size() < 2) return;
  const auto rows = slow_rows(c, nodes);
  std::vector<char> slow(static_cast<std::size_t>(c.P), 0);
  for (const auto* a : nodes)
    for (int r : a->ranks) slow[static_cast<std::size_t>(r)] = 1;
  // A slow node's reference: its median delay to the ranks of no slow node.
  std::vector<double> ref;
  for (const auto& row : rows) {
    std::vector<double> v;
    for (std::size_t j = 0; j < row.size(); ++j)
      if (!slow[j] && std::isfinite(row[j])) v.push_back(row[j]);
    ref.push_back(finite_median(v));
  }
  // Two slow nodes are mates when their delays to each other (both ways) are min_ratio faster
  // than either's to the others.
  const auto between = [&](std::size_t a, std::size_t b) {
    std::vector<double> v;
    for (int r : nodes[b]->ranks) v.push_back(rows[a][static_cast<std::size_t>(r)]);
    for (int r : nodes[a]->ranks) v.push_back(rows[b][static_cast<std::size_t>(r)]);
    return finite_median(v);
  };
  const auto mates = [&](std::size_t a, std::size_t b) {
    const double d = between(a, b);
    return std::isfinite(d) && d * min_ratio < std::min(ref[a], ref[b]);
  };
  std::vector<std::vector<std::size_t>> groups;
  for (std::size_t a = 0; a < nodes.size(); ++a) {
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) {
      return std::all_of(g.begin(), g.end(), [&](std::size_t b) { return mates(a, b); });
    });
    if (it != groups.end()) it->push_back(a);
    else groups.push_back({a});
  }
  std::vector<Anomaly> merged;
  std::set<const Anomaly*> gone;
  for (const auto& g : groups) {
    if (g.size() < 2) continue;
    Anomaly f;
    f.kind = AnomalyKind::slow_switch;
    std::vector<double> scores;
    std::set<std::int64_t> lengths;
    for (std::size_t n : g) {
      f.ranks.insert(f.ranks.end(), nodes[n]->ranks.begin(), nodes[n]->ranks.end());
      scores.push_back(nodes[n]->score);
      lengths.insert(nodes[n]->lengths.begin(), nodes[n]->lengths.end());
      gone.insert(nodes[n]);
    }
    std::sort(f.ranks.begin(), f.ranks.end());
    f.hosts = anomaly_parts::hosts_of(f.ranks, hosts);
    f.lengths.assign(lengths.begin(), lengths.end());
    f.score = finite_median(scores);
    f.detail = fmt::format(
        "{} nodes, each slow to every node but these ({:.2f}x, median) and not to each other: one group behind "
        "one uplink or switch, slow or the first to saturate under load (measured with --concurrent; a mean over "
        "mpiGraph's matrix shows them as one block)",
        g.size(), f.score);
    merged.push_back(std::move(f));
  }
  if (merged.empty()) return;
  std::vector<Anomaly> kept;
  for (auto& a : out)
    if (!gone.count(&a)) kept.push_back(std::move(a));
  kept.insert(kept.end(), merged.begin(), merged.end());
  out = std::move(kept);
}

namespace {

// The isolated values of a loaded file at the cells the findings need, and per length the median
// isolated value of each class (NaN with fewer than kTuning.loaded_min_cells re-tested cells: no
// reference).
struct IsolatedCells {
  std::map<std::pair<int, int>, std::vector<double>> cell;  // per length index, NaN where not re-tested
  std::vector<std::vector<double>> class_median;            // [k][class]
};

std::size_t length_index(const Cube& c, std::int64_t length) {
  return static_cast<std::size_t>(std::find(c.lengths.begin(), c.lengths.end(), length) - c.lengths.begin());
}

// The ratio of isolated values that confirms a finding at length index k, NaN where unknown: a
// one-way pair against its own reverse direction, a slow link against its class's re-tested cells
// (the re-tested cells are those that stood out under load, so this reference is high: a link
// confirmed against it is slow).
double confirmed_ratio(const Anomaly& a, std::pair<int, int> p, std::size_t k, const IsolatedCells& iso,
                       const std::vector<std::int8_t>& cls, int P) {
  const double x = iso.cell.at(p)[k];
  if (!Cube::usable(x)) return kNaN;
  if (a.kind == AnomalyKind::asymmetric_pair) {
    const double reverse = iso.cell.at({p.second, p.first})[k];
    return Cube::usable(reverse) ? x / reverse : kNaN;
  }
  const int q = cls[static_cast<std::size_t>(p.first) * static_cast<std::size_t>(P) + static_cast<std::size_t>(p.second)];
  return q >= 0 ? x / iso.class_median[k][static_cast<std::size_t>(q)] : kNaN;
}

// The median confirmed ratio over the finding's pairs and lengths when every pair is confirmed
// (>= min_ratio) at half of the finding's lengths or more; NaN otherwise.
double confirmation(const Cube& c, const Anomaly& a, const IsolatedCells& iso, const std::vector<std::int8_t>& cls,
                    double min_ratio) {
  std::vector<double> ratios;
  for (const auto& p : a.pairs) {
    std::size_t ok = 0;
    for (const auto length : a.lengths) {
      const double r = confirmed_ratio(a, p, length_index(c, length), iso, cls, c.P);
      if (r >= min_ratio) {
        ++ok;
        ratios.push_back(r);
      }
    }
    if (2 * ok < a.lengths.size() || ok == 0) return kNaN;
  }
  return finite_median(ratios);
}

// How much the load moved the delays, per class: the share of the class's cells whose samples are
// kTuning.contention_cv apart or more (deviation / value: with random rounds each sample of a pair
// shared another round), and the median ratio loaded / isolated over the re-tested cells. NaN where unknown.
struct LoadMeasure {
  std::vector<double> moved, alone;   // [class]
  std::vector<std::size_t> retested;  // [class]
  // Of the cells not re-tested (the groups and findings read their loaded values), per class: the
  // share whose samples are kTuning.contention_cv apart, and the share above kTuning.alone_ratio x
  // the class's median isolated value. NaN without a re-test.
  std::vector<double> residual_moved, residual_high;
  // Per class, the share of its cells the groups and findings read as unknown (not re-tested, their
  // loaded samples not steady: isolated_where_retested). NaN without a merged cube.
  std::vector<double> unknown;
};

// One pass over the lengths of a loaded file: the load per class, and the isolated values at the
// cells the findings need (want) with the per-class medians of the re-tested cells.
struct LoadPass {
  LoadMeasure load;
  IsolatedCells iso;
  bool has_isolated = true;  // every length has isolated values (the file was re-tested)
};

// Per class, over the lengths of a loaded file: cells with a known spread and those moved; the
// ratios loaded / isolated of the re-tested cells; of the others, how many, moved and high.
struct LoadCounts {
  std::vector<std::size_t> cells, moved, rest, rest_moved, rest_high, unknown;
  std::vector<std::vector<double>> alone;
  explicit LoadCounts(std::size_t n)
      : cells(n), moved(n), rest(n), rest_moved(n), rest_high(n), unknown(n), alone(n) {}
};

// Length k's cells (v loaded, d their deviation or null, m the isolated matrix or null; merged the
// merged values, whose length fk it is, or null) into n; returns the class medians of the isolated
// values (NaN with fewer than kTuning.loaded_min_cells).
std::vector<double> count_length(const float* v, const float* d, const Matrix* m, const IsolatedWhereRetested* merged,
                                 std::size_t fk, const std::vector<std::int8_t>& cls, LoadCounts& n) {
  const std::size_t classes = n.cells.size();
  std::vector<std::vector<double>> of_class(classes);
  for (std::size_t x = 0; x < cls.size(); ++x)
    if (cls[x] >= 0 && m && Cube::usable(m->values()[x])) of_class[static_cast<std::size_t>(cls[x])].push_back(m->values()[x]);
  std::vector<double> med;
  for (auto& iv : of_class) med.push_back(iv.size() >= kTuning.loaded_min_cells ? finite_median(iv) : kNaN);
  for (std::size_t x = 0; x < cls.size(); ++x) {
    if (cls[x] < 0 || !Cube::usable(v[x])) continue;
    const auto q = static_cast<std::size_t>(cls[x]);
    const auto value = static_cast<double>(v[x]);
    const bool spread = d && std::isfinite(d[x]);
    const bool moved = spread && static_cast<double>(d[x]) >= kTuning.contention_cv * value;
    n.cells[q] += spread ? 1 : 0;
    n.moved[q] += moved ? 1 : 0;
    const double alone = m ? m->values()[x] : kNaN;
    if (Cube::usable(alone)) {
      n.alone[q].push_back(value / alone);
    } else if (merged && merged->unknown(fk, x)) {
      ++n.unknown[q];
    } else if (m) {
      ++n.rest[q];
      n.rest_moved[q] += moved ? 1 : 0;
      n.rest_high[q] += value > kTuning.alone_ratio * med[q] ? 1 : 0;
    }
  }
  return med;
}

LoadPass read_load(const Cube& c, const Cube* deviation, const IsolatedWhereRetested* merged, const Topology& t,
                   const std::vector<std::int8_t>& cls, const std::set<std::pair<int, int>>& want) {
  const auto n_classes = static_cast<std::size_t>(t.class_count());
  const std::vector<double> none(n_classes, kNaN);
  LoadPass r{{none, none, std::vector<std::size_t>(n_classes, 0), none, none, none}, {}, c.count() > 0};
  for (const auto& p : want) r.iso.cell[p].assign(c.count(), kNaN);
  LoadCounts n(n_classes);
  std::vector<float> buf, dbuf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    const float* v = c.slice(k, buf);
    const float* d = deviation && deviation->P == c.P && k < deviation->count() ? deviation->slice(k, dbuf) : nullptr;
    const auto m = c.file->isolated(c.file_index[k]);
    r.has_isolated = r.has_isolated && m.has_value();
    r.iso.class_median.push_back(count_length(v, d, m ? &*m : nullptr, merged, c.file_index[k], cls, n));
    if (m)
      for (auto& [p, values] : r.iso.cell) values[k] = m->at(p.first, p.second);
  }
  const auto share = [](std::size_t part, std::size_t whole) {
    return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : kNaN;
  };
  for (std::size_t q = 0; q < n_classes; ++q) {
    r.load.moved[q] = share(n.moved[q], n.cells[q]);
    if (!n.alone[q].empty()) r.load.alone[q] = finite_median(n.alone[q]);
    r.load.retested[q] = n.alone[q].size();
    if (r.has_isolated) {
      r.load.residual_moved[q] = share(n.rest_moved[q], n.rest[q]);
      r.load.residual_high[q] = share(n.rest_high[q], n.rest[q]);
    }
    if (merged) r.load.unknown[q] = share(n.unknown[q], n.unknown[q] + n.rest[q] + n.alone[q].size());
  }
  return r;
}

// The cells of one length not re-tested whose loaded samples are not steady (v the loaded values, d
// their deviation, m the isolated values, md their deviation or null), P x P.
std::vector<bool> unsteady_cells(const float* v, const float* d, const Matrix& m, const Matrix* md) {
  const auto& iso = m.values();
  std::vector<double> noise;
  if (md)
    for (std::size_t x = 0; x < iso.size(); ++x)
      if (Cube::usable(iso[x]) && iso[x] > 0 && std::isfinite(md->values()[x])) noise.push_back(md->values()[x] / iso[x]);
  const double limit =
      std::max(kTuning.steady_spread, noise.empty() ? 0.0 : kTuning.noise_times * finite_median(noise));
  std::vector<bool> out(iso.size(), false);
  for (std::size_t x = 0; x < iso.size(); ++x)
    out[x] = !Cube::usable(iso[x]) && Cube::usable(v[x]) && std::isfinite(d[x]) &&
             static_cast<double>(d[x]) > limit * static_cast<double>(v[x]);
  return out;
}

}  // namespace

std::shared_ptr<const IsolatedWhereRetested> isolated_where_retested(const Cube& c, const Cube* deviation) {
  if (!measured_under_load(c) || !has_isolated_values(*c.file)) return nullptr;
  std::vector<std::vector<bool>> unknown(c.file->count());
  if (deviation && deviation->P == c.P && deviation->file) {
    // A cell not re-tested whose loaded samples disagree more than a pair's alone do carried the
    // load in some round (each sample runs in another round): none of its samples is its own delay.
    // Read as a loaded value it blurs the levels by up to --retest-ratio (SimGrid's 8:1 FAT_TREE,
    // 8 pairs at once: 686 such cells 0-20 % above their isolated value, the leaves 3.7 % apart:
    // one level for eight leaves); read as unknown, the re-tested and steady cells give them.
    std::vector<float> buf, dbuf;
    for (std::size_t k = 0; k < c.count() && k < deviation->count(); ++k) {
      const auto m = c.file->isolated(c.file_index[k]);
      if (!m) continue;
      const auto md = deviation->file->isolated(deviation->file_index[k]);
      unknown[c.file_index[k]] = unsteady_cells(c.slice(k, buf), deviation->slice(k, dbuf), *m, md ? &*md : nullptr);
    }
  }
  return std::make_shared<IsolatedWhereRetested>(c.file, std::move(unknown));
}

namespace {

// Whether a class above the nodes was moved by the load.
// With a re-test the groups and findings read the isolated values where there are some: what
// counts is the load left in the cells not re-tested, and the cells read as unknown (the levels
// rest on the others: with one in five of a leaf's cells unknown, noise can split it).
bool moved_by_load(const LoadMeasure& m, bool merged) {
  for (std::size_t q = 1; q < m.moved.size(); ++q) {
    const double share = kTuning.moved_share;
    if (merged ? m.residual_moved[q] >= share || m.residual_high[q] >= share || m.unknown[q] >= share
               : m.moved[q] >= share || m.alone[q] >= kTuning.alone_ratio)
      return true;
  }
  return false;
}

std::string load_text(const LoadMeasure& m, const Topology& t) {
  std::vector<std::string> parts;
  for (std::size_t q = 1; q < m.moved.size(); ++q) {
    const std::string name = t.class_name(static_cast<int>(q));
    std::vector<std::string> said;
    if (std::isfinite(m.moved[q]))
      said.push_back(fmt::format("{:.0f}% of the pairs' samples {:.0f}% apart or more", 100 * m.moved[q],
                                 100 * kTuning.contention_cv));
    if (std::isfinite(m.alone[q]))
      said.push_back(fmt::format("{} pairs re-tested alone {:.2f}x faster (median)", m.retested[q], m.alone[q]));
    if (std::isfinite(m.residual_high[q]))
      said.push_back(fmt::format("of the others {:.0f}% above {:.1f}x the class's isolated delay and {:.0f}% with "
                                 "samples {:.0f}% apart",
                                 100 * m.residual_high[q], kTuning.alone_ratio, 100 * m.residual_moved[q],
                                 100 * kTuning.contention_cv));
    if (std::isfinite(m.unknown[q]) && m.unknown[q] > 0)
      said.push_back(fmt::format("{:.0f}% neither re-tested nor steady under load (samples further apart than {:.0f}% or "
                                 "{:.0f}x a pair's alone): read as unknown",
                                 100 * m.unknown[q], 100 * kTuning.steady_spread, kTuning.noise_times));
    if (!said.empty()) parts.push_back(fmt::format("{}: {}", name, fmt::join(said, ", ")));
  }
  return parts.empty() ? std::string("no samples' spread or re-test to tell how much") : fmt::format("{}", fmt::join(parts, "; "));
}

Anomaly contention_finding(const std::vector<Anomaly>& unconfirmed, bool retested, const std::string& load) {
  Anomaly f;
  f.kind = AnomalyKind::contention;
  std::set<std::int64_t> lengths;
  std::vector<double> scores;
  for (const auto& a : unconfirmed) {
    f.pairs.insert(f.pairs.end(), a.pairs.begin(), a.pairs.end());
    lengths.insert(a.lengths.begin(), a.lengths.end());
    scores.push_back(a.score);
  }
  f.lengths.assign(lengths.begin(), lengths.end());
  f.score = scores.empty() ? 1.0 : finite_median(scores);
  f.detail = fmt::format("measured under load (--concurrent), the pairs shared links: {}", load);
  if (!unconfirmed.empty())
    f.detail += fmt::format(
        "; {} rank pairs stood out of their class ({:.2f}x, median) and {}: contention, not a fault of theirs (not "
        "listed as suspects; a sequential run of the pairs tells)",
        f.pairs.size(), f.score,
        retested ? "their isolated re-test does not confirm them" : "the file has no isolated re-test (--retest)");
  return f;
}

}  // namespace

std::optional<std::string> review_findings_under_load(const Cube& c, const IsolatedWhereRetested* merged,
                                                      const Cube* deviation,
                                                      const Topology& t, const AnomalyOptions& opt,
                                                      std::vector<Anomaly>& out) {
  if (!measured_under_load(c)) return std::nullopt;
  for (auto& a : out)
    if (a.kind == AnomalyKind::slow_switch)
      a.detail += " (measured under load: or the uplink that saturates first)";
  std::set<std::pair<int, int>> want;
  for (const auto& a : out)
    if (a.kind == AnomalyKind::slow_link || a.kind == AnomalyKind::asymmetric_pair)
      for (const auto& [i, j] : a.pairs) {
        want.insert({i, j});
        want.insert({j, i});
      }
  const auto cls = pair_classes(t);  // P^2 bytes
  const LoadPass pass = read_load(c, deviation, merged, t, cls, want);
  const IsolatedCells* iso = pass.has_isolated && !want.empty() ? &pass.iso : nullptr;
  const LoadMeasure& load = pass.load;
  const bool heavy = moved_by_load(load, merged != nullptr);
  // network_test --switch-map runs no two pairs across one switch's links at once: where the load
  // left the delays alone (it does not when the map is coarser than the network's shared links), a
  // pair finding is the network's, as in a sequential run.
  const bool apart = lanes_by_switch(c) && !heavy;
  std::vector<Anomaly> kept, unconfirmed;
  std::size_t variance = 0;
  for (auto& a : out) {
    if (a.kind == AnomalyKind::high_variance) {  // under load a rank's spread is its rounds' contention
      ++variance;
      continue;
    }
    if (a.kind != AnomalyKind::slow_link && a.kind != AnomalyKind::asymmetric_pair) {
      kept.push_back(std::move(a));
      continue;
    }
    const double ratio = iso ? confirmation(c, a, *iso, cls, opt.min_ratio) : kNaN;
    if (apart) {
      kept.push_back(std::move(a));
    } else if (std::isfinite(ratio)) {
      a.detail += fmt::format("; confirmed alone (--retest): {:.2f}x", ratio);
      kept.push_back(std::move(a));
    } else unconfirmed.push_back(std::move(a));
  }
  if (!unconfirmed.empty() || heavy || variance > 0) {
    kept.push_back(contention_finding(unconfirmed, pass.has_isolated, load_text(load, t)));
    if (variance > 0)
      kept.back().detail += fmt::format("; {} ranks' samples spread widely (high variance): their rounds' contention", variance);
  }
  out = std::move(kept);
  const std::string source =
      merged ? "the groups and findings read each pair's isolated re-test where the run made one, its loaded delay "
               "where its samples agree, and no delay where they disagree"
             : "the groups and findings read the loaded delays";
  if (apart)
    return fmt::format("measured with --concurrent --switch-map: no two pairs at once crossed one switch's links, and "
                       "the delays show no load ({}): they and the findings stand as for a sequential run",
                       load_text(load, t));
  if (!heavy)
    return fmt::format("measured with --concurrent: the pairs shared links; {}, and the load barely moved those ({}), so "
                       "they stand as for a sequential run",
                       source, load_text(load, t));
  return fmt::format(
      "WARNING: measured with --concurrent and the load moved the delays ({}); {}: the levels above the nodes and "
      "the findings there may be contention, not the network's structure or faults (the nodes and the findings "
      "within them stand); measure with --concurrent=K (fewer pairs at once) and --retest, or sequentially, before "
      "trusting them",
      load_text(load, t), source);
}

}  // namespace nt::analysis
