// The routes between two sets of groups (explain_search.cpp's third place to look): a link that
// only some pairs of groups cross (a dragonfly's global link between two groups, a spine link of
// some leaves) slows the block of cells from one set of groups to another, and no group's whole
// row. Found at each level as a rectangle of group pairs whose cells the model leaves slow, grown
// from the slowest pair of groups; both directions where the mirrored rectangle is slow as well.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <set>
#include <unordered_map>

#include <fmt/format.h>

#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"
#include "anomalies/anomalies_parts.hpp"
#include "explain_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis::explain_parts {

namespace {

// Per pair of groups of one level, whether the model leaves most of its cells slow at enough
// lengths, and how many cells are slow at enough lengths.
struct BlockSlow {
  std::size_t G = 0;
  std::vector<char> slow;            // [a * G + b]
  std::vector<std::uint32_t> cells;  // slow cells at enough lengths
  // [k]: per block with slow cells (a * G + b), the median of their lifts; memory with the slow
  // blocks, not G^2 (a level of 4,096 nodes has 16.7 M blocks)
  std::vector<std::unordered_map<std::size_t, float>> lift;
  bool at(std::size_t a, std::size_t b) const { return slow[a * G + b] != 0; }
  // Whether two blocks are slowed alike (within alike_ratio at every length where both are slow):
  // one link slows its routes by one factor, two links by two.
  bool alike(std::size_t x, std::size_t y) const {
    for (const auto& l : lift) {
      const auto lx = l.find(x), ly = l.find(y);
      if (lx != l.end() && ly != l.end() &&
          std::fabs(static_cast<double>(lx->second - ly->second)) > std::log(kTuning.alike_ratio))
        return false;
    }
    return true;
  }
};

BlockSlow block_slow(const Grid& g, const Model& m, const std::vector<std::vector<char>>& slow_cells,
                     const std::vector<char>& named, std::size_t level) {
  const auto& go = g.t.levels[level].group_of;
  BlockSlow b;
  b.G = g.t.levels[level].groups.size();
  const std::size_t B = b.G * b.G;
  std::vector<std::vector<std::uint32_t>> usable(g.K, std::vector<std::uint32_t>(B, 0)),
      slow(g.K, std::vector<std::uint32_t>(B, 0));
  // the slow cells' lifts per length and block, the first kLiftSample of each (a bound of memory: a
  // block's median from a sample, for the alike test only)
  constexpr std::size_t kLiftSample = 64;
  std::vector<std::unordered_map<std::size_t, std::vector<double>>> lifts(g.K);
  b.cells.assign(B, 0);
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      if (go[i] == go[j] || named[g.cell(i, j)]) continue;
      const std::size_t x = g.cell(i, j), blk = static_cast<std::size_t>(go[i]) * b.G + static_cast<std::size_t>(go[j]);
      std::size_t n = 0;
      for (std::size_t k = 0; k < g.K; ++k) {
        if (std::isnan(g.logv[k][x])) continue;
        ++usable[k][blk];
        slow[k][blk] += slow_cells[k][x];
        if (slow_cells[k][x]) {
          auto& v = lifts[k][blk];
          if (v.size() < kLiftSample) v.push_back(lift(g, m, k, x));
        }
        n += slow_cells[k][x];
      }
      b.cells[blk] += n >= g.need ? 1 : 0;
    }
  b.lift.resize(g.K);
  for (std::size_t k = 0; k < g.K; ++k)
    for (auto& [blk, v] : lifts[k]) b.lift[k][blk] = static_cast<float>(lower_median_inplace(v));
  b.slow.assign(B, 0);
  for (std::size_t blk = 0; blk < B; ++blk) {
    std::size_t at = 0;
    for (std::size_t k = 0; k < g.K; ++k) at += usable[k][blk] >= 1 && 2 * slow[k][blk] > usable[k][blk] ? 1 : 0;
    b.slow[blk] = at >= g.need ? 1 : 0;
  }
  return b;
}

// The rectangle grown from the slow block (a, b): a group joins the senders when its blocks to
// every receiver are slow, and alike the seed, and the receivers likewise, until none joins.
Rect grow(const BlockSlow& bs, std::size_t level, std::size_t a, std::size_t b) {
  Rect r{level, {a}, {b}, false, 0};
  for (bool grew = true; grew;) {
    grew = false;
    for (std::size_t x = 0; x < bs.G; ++x) {
      if (r.from.count(x) || r.to.count(x)) continue;
      const std::size_t seed = a * bs.G + b;
      if (std::all_of(r.to.begin(), r.to.end(), [&](std::size_t y) { return bs.at(x, y) && bs.alike(x * bs.G + y, seed); })) {
        r.from.insert(x);
        grew = true;
      } else if (std::all_of(r.from.begin(), r.from.end(),
                             [&](std::size_t y) { return bs.at(y, x) && bs.alike(y * bs.G + x, seed); })) {
        r.to.insert(x);
        grew = true;
      }
    }
  }
  r.both = std::all_of(r.from.begin(), r.from.end(), [&](std::size_t x) {
    return std::all_of(r.to.begin(), r.to.end(), [&](std::size_t y) { return bs.at(y, x) && bs.alike(y * bs.G + x, a * bs.G + b); });
  });
  for (std::size_t x : r.from)
    for (std::size_t y : r.to) r.cells += bs.cells[x * bs.G + y] + (r.both ? bs.cells[y * bs.G + x] : 0);
  return r;
}

// The slow cells (at enough lengths, not named) of the rectangle's rows and columns outside it, in
// blocks slowed alike its seed block: the cells its senders send to other groups and those its
// receivers get from others (the mirror as well, both ways). A fault's rectangle leaves none; a region of another shape (a torus link's
// routes, noise) leaves many.
std::size_t stray_cells(const Grid& g, const std::vector<std::vector<char>>& slow_cells, const std::vector<char>& named,
                        const Rect& r, const BlockSlow& bs, std::size_t seed) {
  const auto& go = g.t.levels[r.level].group_of;
  std::vector<char> from(g.P, 0), to(g.P, 0);
  for (std::size_t i = 0; i < g.P; ++i) {
    from[i] = r.from.count(static_cast<std::size_t>(go[i])) ? 1 : 0;
    to[i] = r.to.count(static_cast<std::size_t>(go[i])) ? 1 : 0;
  }
  std::size_t n = 0;
  for (std::size_t i = 0; i < g.P; ++i)
    for (std::size_t j = 0; j < g.P; ++j) {
      if (go[i] == go[j] || named[g.cell(i, j)]) continue;
      const bool inside = (from[i] && to[j]) || (r.both && to[i] && from[j]);
      const bool row = from[i] || to[j] || (r.both && (to[i] || from[j]));
      // a block slowed by another factor is another link's routes, no stray of this one's
      if (inside || !row || !bs.alike(static_cast<std::size_t>(go[i]) * bs.G + static_cast<std::size_t>(go[j]), seed))
        continue;
      std::size_t at = 0;
      for (std::size_t k = 0; k < g.K; ++k) at += slow_cells[k][g.cell(i, j)];
      n += at >= g.need ? 1 : 0;
    }
  return n;
}

}  // namespace

std::optional<Rect> slow_rectangle(const Grid& g, const Model& m, const std::vector<std::vector<char>>& slow_cells,
                                   const std::vector<char>& named) {
  std::optional<Rect> best;
  for (std::size_t l = g.t.levels.size(); l-- > 0;) {
    const auto bs = block_slow(g, m, slow_cells, named, l);
    // The seed: the slow block with the most slow cells (the first of equals).
    std::size_t seed = bs.slow.size();
    for (std::size_t blk = 0; blk < bs.slow.size(); ++blk)
      if (bs.slow[blk] && (seed == bs.slow.size() || bs.cells[blk] > bs.cells[seed]))
        seed = blk;
    if (seed == bs.slow.size()) continue;
    Rect r = grow(bs, l, seed / bs.G, seed % bs.G);
    // A set of groups slow to every other group is theirs to name (a region), not a rectangle's.
    if (r.from.size() + r.to.size() >= bs.G) continue;
    // As many slow cells as a left-over region needs (a pair or two of a noisy run is no link).
    const std::size_t least = std::max<std::size_t>(
        g.opt.explain_min_cells, static_cast<std::size_t>(g.opt.explain_min_share * static_cast<double>(g.P * (g.P - 1))));
    if (r.cells < least) continue;
    if (static_cast<double>(stray_cells(g, slow_cells, named, r, bs, seed)) >
        kTuning.stray_share * static_cast<double>(r.cells))
      continue;
    if (!best || r.cells > best->cells) best = std::move(r);  // equal: the coarser level
  }
  return best;
}

Anomaly rectangle_finding(const Grid& g, const Rect& r, const std::vector<std::string>& hosts) {
  const auto& lev = g.t.levels[r.level];
  Anomaly a;
  a.kind = AnomalyKind::slow_link;
  std::vector<int> from, to;
  for (std::size_t x : r.from) from.insert(from.end(), lev.groups[x].begin(), lev.groups[x].end());
  for (std::size_t y : r.to) to.insert(to.end(), lev.groups[y].begin(), lev.groups[y].end());
  std::sort(from.begin(), from.end());
  std::sort(to.begin(), to.end());
  a.ranks = from;
  a.ranks.insert(a.ranks.end(), to.begin(), to.end());
  std::sort(a.ranks.begin(), a.ranks.end());
  a.hosts = anomaly_parts::hosts_of(a.ranks, hosts);
  a.direction = r.both ? "both" : "send";
  for (int i : from)
    for (int j : to) {
      a.pairs.emplace_back(i, j);
      if (r.both) a.pairs.emplace_back(j, i);
    }
  for (std::size_t k = 0; k < g.K; ++k) a.lengths.push_back(g.c.lengths[k]);
  const std::string word = r.level == 0 ? (g.t.node_level_identified ? "node" : "group") : lev.name;
  a.detail = fmt::format("slow routes between ranks {} and ranks {}{}: the cells from {} {} group(s) to {} other(s) are "
                         "slower than the levels and the other findings predict, and their other cells are not: a "
                         "link that only these routes cross",
                         text_of_ranks(from), text_of_ranks(to), r.both ? ", both directions" : ", one way (the first sends)",
                         r.from.size(), word, r.to.size());
  return a;
}

}  // namespace nt::analysis::explain_parts
