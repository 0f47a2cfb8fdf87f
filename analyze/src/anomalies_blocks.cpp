// Slow links between two sets of nodes (issue 32: a dragonfly's global link, a trunk between two
// switches of no common tree level): every pair between a node of one set and a node of the other
// crosses the slow link, no other pair of theirs does. The residuals of the rank-effect model show
// part of such a block only (where a block fills a third of a row, the median polish gives the
// rows and columns part of it as rank effects), as many slow links between single nodes: the
// hits are the seeds, and the block is read from the delays themselves.
#include "anomalies_parts.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "nt/stats.hpp"

namespace nt::analysis::anomaly_parts {
namespace {

constexpr int kSideS = 0, kSideT = 1, kRest = 2;
constexpr std::size_t kMaxCells = std::size_t{16} << 20;  // kept per length: 128 MB

// The node groups of a component of the hits' graph, split in its two sides (the graph is
// bipartite: every hit joins the sides), each side of two nodes or more.
struct Block {
  std::vector<int> side[2];
};

std::vector<Block> bipartite_components(const std::vector<LinkHit>& hits, const std::vector<int>& node_of) {
  std::map<int, std::set<int>> adj;
  for (const auto& h : hits) {
    const int a = node_of[static_cast<std::size_t>(h.i)], b = node_of[static_cast<std::size_t>(h.j)];
    if (a == b) continue;
    adj[a].insert(b);
    adj[b].insert(a);
  }
  std::map<int, int> colour;
  std::vector<Block> out;
  for (const auto& [start, unused] : adj) {
    if (colour.count(start)) continue;
    Block b;
    bool bipartite = true;
    std::vector<int> todo{start};
    colour[start] = 0;
    while (!todo.empty()) {
      const int x = todo.back();
      todo.pop_back();
      b.side[colour[x]].push_back(x);
      for (int y : adj[x]) {
        if (!colour.count(y)) {
          colour[y] = 1 - colour[x];
          todo.push_back(y);
        } else if (colour[y] == colour[x]) {
          bipartite = false;
        }
      }
    }
    if (bipartite && b.side[0].size() >= 2 && b.side[1].size() >= 2) out.push_back(std::move(b));
  }
  return out;
}

// Per length, per node group: the median log delay of its cells (both directions) to the seeds'
// side S and to side T (not its own node). [k][node * 2 + side]
std::vector<std::vector<double>> side_medians(const Cube& c, const std::vector<int>& node_of, std::size_t n_nodes,
                                              const std::vector<int>& side_of_node) {
  const auto N = static_cast<std::size_t>(c.P);
  const int rows = rows_per_block(c.P, N * sizeof(float));
  // The cells to either side, two per pair: at most kMaxCells kept, every stride-th of them by
  // (i + j) (a block of half of 10,000 ranks would otherwise keep 10^8 of them).
  std::size_t side_ranks = 0;
  for (std::size_t r = 0; r < N; ++r) side_ranks += side_of_node[static_cast<std::size_t>(node_of[r])] != kRest;
  const std::size_t stride = std::max<std::size_t>(1, (2 * N * side_ranks + kMaxCells - 1) / kMaxCells);
  std::vector<std::vector<double>> med(c.count(), std::vector<double>(2 * n_nodes, kNaN));
  std::vector<float> buf;
  for (std::size_t k = 0; k < c.count(); ++k) {
    auto samples = population_samples(2 * n_nodes, [&](auto&& take) {
      for (int r0 = 0; r0 < c.P; r0 += rows) {
        const int r1 = std::min(c.P, r0 + rows);
        const float* v = c.rows(k, r0, r1, buf);
        for (auto i = static_cast<std::size_t>(r0); i < static_cast<std::size_t>(r1); ++i)
          for (std::size_t j = 0; j < N; ++j) {
            if ((i + j) % stride != 0) continue;
            const float d = v[(i - static_cast<std::size_t>(r0)) * N + j];
            const auto a = static_cast<std::size_t>(node_of[i]), b = static_cast<std::size_t>(node_of[j]);
            if (a == b || !Cube::usable(d)) continue;
            const double x = std::log(static_cast<double>(d));
            if (side_of_node[b] != kRest) take(a * 2 + static_cast<std::size_t>(side_of_node[b]), x);
            if (side_of_node[a] != kRest) take(b * 2 + static_cast<std::size_t>(side_of_node[a]), x);
          }
      }
    });
    for (std::size_t q = 0; q < samples.size(); ++q)
      if (!samples[q].empty()) med[k][q] = population_median(samples[q]);
  }
  return med;
}

// Per length and side, the typical node's median log delay to that side: the median over the nodes
// of neither side (the reference a member of the block is slower than).
std::vector<std::array<double, 2>> references(const std::vector<std::vector<double>>& med,
                                              const std::vector<int>& side_of_node) {
  std::vector<std::array<double, 2>> ref(med.size(), {kNaN, kNaN});
  std::vector<double> tmp;
  for (std::size_t k = 0; k < med.size(); ++k)
    for (int s : {kSideS, kSideT}) {
      tmp.clear();
      for (std::size_t n = 0; n < side_of_node.size(); ++n)
        if (side_of_node[n] == kRest && std::isfinite(med[k][n * 2 + static_cast<std::size_t>(s)]))
          tmp.push_back(med[k][n * 2 + static_cast<std::size_t>(s)]);
      if (!tmp.empty()) ref[k][static_cast<std::size_t>(s)] = median_inplace(tmp);
    }
  return ref;
}

// Whether a node's delays to the side `to` are beyond min_ratio over the typical node's at enough
// lengths, and its delays to the other side not at any of them (a slow node is slow to both); its
// ratios at those lengths added to `ratios` when it is.
bool slow_to_side(const std::vector<std::vector<double>>& med, const std::vector<std::array<double, 2>>& ref,
                  std::size_t node, int to, const AnomalyScan& scan, std::vector<double>& ratios) {
  std::vector<double> mine;
  const auto t = static_cast<std::size_t>(to), o = static_cast<std::size_t>(1 - to);
  for (std::size_t k = 0; k < med.size(); ++k) {
    const double there = med[k][node * 2 + t] - ref[k][t], other = med[k][node * 2 + o] - ref[k][o];
    if (!std::isfinite(there)) continue;
    if (std::isfinite(other) && other >= scan.min_log) return false;
    if (there >= scan.min_log) mine.push_back(std::exp(there));
  }
  if (mine.size() < scan.need) return false;
  ratios.insert(ratios.end(), mine.begin(), mine.end());
  return true;
}

Anomaly block_finding(const Block& b, const std::vector<const LinkHit*>& inside, const std::vector<double>& ratios,
                      const AnomalyScan& scan) {
  const auto& nodes = scan.topo.levels.front();
  Anomaly f;
  f.kind = AnomalyKind::slow_link;
  std::set<std::int64_t> lens;
  for (const auto* h : inside) {
    f.pairs.emplace_back(h->i, h->j);
    lens.insert(h->lengths.begin(), h->lengths.end());
  }
  for (const auto& side : b.side)
    for (int n : side)
      for (int r : nodes.groups[static_cast<std::size_t>(n)]) f.ranks.push_back(r);
  std::sort(f.ranks.begin(), f.ranks.end());
  f.hosts = hosts_of(f.ranks, scan.hosts);
  f.lengths.assign(lens.begin(), lens.end());
  f.score = finite_median(ratios);
  const std::string word = scan.topo.node_level_identified ? "node groups" : "groups";
  f.detail = fmt::format(
      "slow links between two sets of {}, both directions: every pair between {} {} and {} {} is slow ({:.2f}x the "
      "other nodes' delays to that set, median), no other pair of theirs: one link or switch that every route between the two sets "
      "crosses (a global link of a dragonfly, a trunk between switches)",
      word, word, fmt::join(b.side[0], ","), word, fmt::join(b.side[1], ","), f.score);
  return f;
}

}  // namespace

std::vector<Anomaly> slow_blocks(const AnomalyScan& scan, std::vector<LinkHit>& hits) {
  std::vector<Anomaly> out;
  if (scan.topo.levels.empty()) return out;
  const auto& nodes = scan.topo.levels.front();
  const auto& node_of = nodes.group_of;
  const std::size_t n_nodes = nodes.groups.size();
  for (Block seeds : bipartite_components(hits, node_of)) {
    std::vector<int> side_of_node(n_nodes, kRest);
    for (int s : {kSideS, kSideT})
      for (int n : seeds.side[s]) side_of_node[static_cast<std::size_t>(n)] = s;
    if (seeds.side[0].size() + seeds.side[1].size() + 2 > n_nodes) continue;  // no rest to compare with
    const auto med = side_medians(scan.cube, node_of, n_nodes, side_of_node);
    const auto ref = references(med, side_of_node);
    // The block: every node slow to one side of the seeds and not to the other (the seeds included).
    Block b;
    std::vector<double> ratios;
    for (std::size_t n = 0; n < n_nodes; ++n)
      for (int s : {kSideS, kSideT})
        if (slow_to_side(med, ref, n, 1 - s, scan, ratios)) b.side[s].push_back(static_cast<int>(n));
    const auto covers = [&](int s) {
      return std::all_of(seeds.side[s].begin(), seeds.side[s].end(), [&](int n) {
        return std::binary_search(b.side[s].begin(), b.side[s].end(), n);
      });
    };
    if (!covers(kSideS) || !covers(kSideT)) continue;
    std::vector<int> block_side(n_nodes, kRest);
    for (int s : {kSideS, kSideT})
      for (int n : b.side[s]) block_side[static_cast<std::size_t>(n)] = s;
    const auto in_block = [&](const LinkHit& h) {
      const int a = block_side[static_cast<std::size_t>(node_of[static_cast<std::size_t>(h.i)])],
                c = block_side[static_cast<std::size_t>(node_of[static_cast<std::size_t>(h.j)])];
      return a != kRest && c != kRest && a != c;
    };
    std::vector<const LinkHit*> inside;
    for (const auto& h : hits)
      if (in_block(h)) inside.push_back(&h);
    out.push_back(block_finding(b, inside, ratios, scan));
    std::erase_if(hits, in_block);
  }
  return out;
}

}  // namespace nt::analysis::anomaly_parts
