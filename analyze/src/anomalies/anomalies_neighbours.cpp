// A slow link between two neighbours of a direct network (a torus, where every host is a
// router and a route crosses the hosts between its ends). A slow link A - B carries A's routes
// toward B's side of the network and B's toward A's side, and the routes of a few third parties that
// pass through A or B: the rank effects read A and B as slow nodes (each sends slowly to half of
// the others) and the third parties' pairs as asymmetric pairs. Read together: A slow to B, B to A,
// and the nodes each is slow to on opposite sides, that is one link.
#include "node_delays.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {

NodeDelays::NodeDelays(const Cube& c, const Level& nodes) : N_(nodes.groups.size()) {
  std::vector<float> buf;
  std::vector<std::vector<double>> cells(N_);
  std::vector<double> tmp;
  for (std::size_t k = 0; k < c.count(); ++k) {
    std::vector<double> m(N_ * N_, kNaN);
    for (std::size_t a = 0; a < N_; ++a) {
      for (auto& v : cells) v.clear();
      for (int r : nodes.groups[a]) {
        const float* v = c.rows(k, r, r + 1, buf);
        for (int j = 0; j < c.P; ++j) {
          const auto y = static_cast<std::size_t>(nodes.group_of[static_cast<std::size_t>(j)]);
          if (y != a && Cube::usable(v[j])) cells[y].push_back(static_cast<double>(v[j]));
        }
      }
      for (std::size_t y = 0; y < N_; ++y)
        if (!cells[y].empty()) m[a * N_ + y] = median_inplace(cells[y]);
    }
    std::vector<double> to(N_, kNaN), from(N_, kNaN);
    for (std::size_t y = 0; y < N_; ++y) {
      tmp.clear();
      for (std::size_t x = 0; x < N_; ++x)
        if (std::isfinite(m[x * N_ + y])) tmp.push_back(m[x * N_ + y]);
      if (!tmp.empty()) to[y] = median_inplace(tmp);
      tmp.clear();
      for (std::size_t x = 0; x < N_; ++x)
        if (std::isfinite(m[y * N_ + x])) tmp.push_back(m[y * N_ + x]);
      if (!tmp.empty()) from[y] = median_inplace(tmp);
    }
    m_.push_back(std::move(m));
    to_.push_back(std::move(to));
    from_.push_back(std::move(from));
  }
}

std::set<int> NodeDelays::slow(int a, bool in, const std::vector<std::size_t>& lengths, double min_ratio) const {
  std::set<int> out;
  for (std::size_t y = 0; y < N_; ++y) {
    const bool all = !lengths.empty() && std::all_of(lengths.begin(), lengths.end(), [&](std::size_t k) {
      return at(k, a, static_cast<int>(y), in) >= min_ratio * (in ? from_[k][y] : to_[k][y]);
    });
    if (all) out.insert(static_cast<int>(y));
  }
  return out;
}

std::vector<std::size_t> length_indices(const Cube& c, const std::vector<std::int64_t>& lengths) {
  std::vector<std::size_t> out;
  for (std::size_t k = 0; k < c.count(); ++k)
    if (std::find(lengths.begin(), lengths.end(), c.lengths[k]) != lengths.end()) out.push_back(k);
  return out;
}

bool is_node_finding(const Anomaly& a, const Level& nodes) {
  if (a.kind != AnomalyKind::slow_node || a.ranks.empty()) return false;
  const int n = nodes.group_of[static_cast<std::size_t>(a.ranks.front())];
  return a.ranks == nodes.groups[static_cast<std::size_t>(n)];
}

bool through(const NodeDelays& d, std::size_t k1, const Side& s, int x, int y) {
  if (s.in) std::swap(x, y);  // the far side's node is y, the near one x
  if (!s.slow.count(y)) return false;
  if (x == s.node) return true;
  const auto near = [&](int u, int v) { return std::min(d.at(0, u, v), d.at(0, v, u)); };
  const double ratio = d.at(k1, x, y, s.in) / d.at(k1, s.node, y, s.in);
  return near(x, s.node) < near(x, y) && ratio > 1 / kTuning.through_ratio && ratio < kTuning.through_ratio;
}

std::size_t fold_routes(const AnomalyScan& scan, const NodeDelays& d, const std::vector<Side>& ends,
                        std::vector<Anomaly>& out, std::vector<char>& drop, Anomaly& link) {
  const auto& nodes = scan.topo.levels.front();
  std::size_t folded = 0;
  const std::size_t k1 = scan.cube.count() - 1;
  for (std::size_t g = 0; g < out.size(); ++g) {
    const auto& x = out[g];
    if (drop[g] || (x.kind != AnomalyKind::asymmetric_pair && x.kind != AnomalyKind::slow_link) || x.pairs.empty()) continue;
    const bool explained = std::all_of(x.pairs.begin(), x.pairs.end(), [&](const auto& p) {
      const int s = nodes.group_of[static_cast<std::size_t>(p.first)], r = nodes.group_of[static_cast<std::size_t>(p.second)];
      return std::any_of(ends.begin(), ends.end(), [&](const Side& e) { return through(d, k1, e, s, r); });
    });
    if (!explained) continue;
    drop[g] = 1;
    link.pairs.insert(link.pairs.end(), x.pairs.begin(), x.pairs.end());
    folded += x.pairs.size();
  }
  if (folded > 0) link.detail += fmt::format("; {} more rank pairs whose routes cross it (their findings folded in)", folded);
  return folded;
}

namespace {

Anomaly link_finding(const Side& a, const Side& b, bool in, const std::vector<Anomaly>& out,
                     const AnomalyScan& scan) {
  const auto& nodes = scan.topo.levels.front();
  Anomaly f;
  f.kind = AnomalyKind::slow_link;
  for (const auto* s : {&a, &b})
    for (int r : nodes.groups[static_cast<std::size_t>(s->node)]) f.ranks.push_back(r);
  std::sort(f.ranks.begin(), f.ranks.end());
  f.hosts = hosts_of(f.ranks, scan.hosts);
  for (int x : nodes.groups[static_cast<std::size_t>(a.node)])
    for (int y : nodes.groups[static_cast<std::size_t>(b.node)]) {
      f.pairs.emplace_back(x, y);
      f.pairs.emplace_back(y, x);
    }
  std::set<std::int64_t> lens;
  f.score = out[a.finding].score;
  for (const auto* s : {&a, &b})
    if (s->finding < out.size()) {
      lens.insert(out[s->finding].lengths.begin(), out[s->finding].lengths.end());
      f.score = std::min(f.score, out[s->finding].score);
    }
  f.lengths.assign(lens.begin(), lens.end());
  const std::string word = scan.topo.node_level_identified ? "node group" : "group";
  const char* dir = in ? "from" : "to";
  f.detail = fmt::format(
      "slow link between {0} {1} and {0} {2}, both directions: {0} {1} is slow {6} {3} nodes and {0} {2} {6} {4} "
      "others, each including the other and none in common ({5:.2f}x): the link between them, which the routes "
      "between each end and the other's side cross (a direct network, such as a torus)",
      word, a.node, b.node, a.slow.size(), b.slow.size(), f.score, dir);
  return f;
}

// The link of a slow node A, read one way (`in`: the delays to A): the node B that A is slow to and
// that is slow to A and to none of the nodes A is slow to, the nearest of them. Its pair findings
// folded in.
bool link_of(const AnomalyScan& scan, const NodeDelays& d, std::size_t f, bool in, std::vector<Anomaly>& out,
             std::vector<char>& drop, std::vector<Anomaly>& found) {
  const auto& nodes = scan.topo.levels.front();
  const auto lengths = length_indices(scan.cube, out[f].lengths);
  const double min_ratio = std::exp(scan.min_log);
  const int node = nodes.group_of[static_cast<std::size_t>(out[f].ranks.front())];
  const Side a{f, node, d.slow(node, in, lengths, min_ratio), in};
  // Slow to (from) nearly every other node: its own cable or port, no link's end (a link's end is
  // slow toward the other end's side only).
  const auto own = [&](const Side& s) {
    return static_cast<double>(s.slow.size()) >= kTuning.node_cluster_share * static_cast<double>(nodes.groups.size() - 1);
  };
  if (own(a)) return false;
  std::vector<Side> ends;
  for (int b : a.slow) {
    Side s{out.size(), b, d.slow(b, in, lengths, min_ratio), in};
    if (s.slow.count(node) && !own(s) &&
        std::none_of(s.slow.begin(), s.slow.end(), [&](int y) { return a.slow.count(y) != 0; }))
      ends.push_back(std::move(s));
  }
  // Several (a torus routes some of A's pairs through B and on to the next node): the nearest at the
  // shortest length, when strictly nearer than the others (both cross the slow link).
  const auto near = [&](const Side& s) { return std::min(d.at(0, node, s.node), d.at(0, s.node, node)); };
  std::sort(ends.begin(), ends.end(), [&](const Side& x, const Side& y) { return near(x) < near(y); });
  if (ends.empty() || (ends.size() > 1 && !(near(ends[0]) < near(ends[1])))) return false;
  Side& b = ends.front();
  for (std::size_t g = 0; g < out.size(); ++g)
    if (!drop[g] && is_node_finding(out[g], nodes) && out[g].ranks == nodes.groups[static_cast<std::size_t>(b.node)])
      b.finding = g;
  Anomaly link = link_finding(a, b, in, out, scan);
  drop[f] = 1;
  if (b.finding < out.size()) drop[b.finding] = 1;
  fold_routes(scan, d, {a, b}, out, drop, link);
  found.push_back(std::move(link));
  return true;
}

// One direction of a link at a slow node A (a torus link slow one way, whose other end is not slow
// back): A is slow to (from) part of the nodes, not all, and pair findings of third parties are
// routes through A to that part (through()): one slow_link on A's ranks with them folded in. A slow
// node with no such pair finding is left as it is.
void one_way_end(const AnomalyScan& scan, const NodeDelays& d, std::size_t f, std::vector<Anomaly>& out,
                 std::vector<char>& drop, std::vector<Anomaly>& found) {
  const auto& nodes = scan.topo.levels.front();
  const auto lengths = length_indices(scan.cube, out[f].lengths);
  const int node = nodes.group_of[static_cast<std::size_t>(out[f].ranks.front())];
  for (const bool in : {false, true}) {
    const Side a{f, node, d.slow(node, in, lengths, std::exp(scan.min_log)), in};
    if (a.slow.empty() || a.slow.size() + 1 >= nodes.groups.size()) continue;  // a slow host: slow to all
    Anomaly link = out[f];
    link.kind = AnomalyKind::slow_link;
    link.detail = fmt::format(
        "one direction of a link at {} {}: it {} slowly {} {} of the {} other nodes ({:.2f}x), not the others: its "
        "link toward them, one way (a direct network, such as a torus)",
        scan.topo.node_level_identified ? "node group" : "group", node, in ? "receives" : "sends", in ? "from" : "to",
        a.slow.size(), nodes.groups.size() - 1, out[f].score);
    std::vector<char> folded = drop;
    if (fold_routes(scan, d, {a}, out, folded, link) == 0) continue;
    for (int y : a.slow)
      for (int x : out[f].ranks)
        for (int r : nodes.groups[static_cast<std::size_t>(y)]) link.pairs.emplace_back(in ? r : x, in ? x : r);
    drop = std::move(folded);
    drop[f] = 1;
    found.push_back(std::move(link));
    return;
  }
}

}  // namespace

void slow_links_between_neighbours(const AnomalyScan& scan, std::vector<Anomaly>& out) {
  if (scan.topo.levels.empty() || scan.cube.count() == 0) return;
  const auto& nodes = scan.topo.levels.front();
  if (nodes.groups.size() * nodes.groups.size() * scan.cube.count() > kMaxNodeCells) return;
  const auto node_findings = [&] {
    std::vector<std::size_t> c;
    for (std::size_t f = 0; f < out.size(); ++f)
      if (is_node_finding(out[f], nodes)) c.push_back(f);
    return c;
  };
  if (node_findings().empty()) return;
  const NodeDelays d(scan.cube, nodes);
  partial_uplinks(scan, d, out);  // first: a switch group's slow nodes are no link's two ends
  const auto candidates = node_findings();
  std::vector<char> drop(out.size(), 0);
  std::vector<Anomaly> found;
  for (std::size_t f : candidates)
    for (const bool in : {false, true})
      if (!drop[f] && link_of(scan, d, f, in, out, drop, found)) break;
  for (std::size_t f : candidates)
    if (!drop[f]) one_way_end(scan, d, f, out, drop, found);
  std::vector<Anomaly> kept;
  for (std::size_t g = 0; g < out.size(); ++g)
    if (!drop[g]) kept.push_back(std::move(out[g]));
  kept.insert(kept.end(), found.begin(), found.end());
  out = std::move(kept);
}

}  // namespace nt::analysis::anomaly_parts
