// What the three files of the explanation check share (internal to nt_analysis): explain.cpp runs
// the check (explain_and_check: directions, idle findings dropped, the search, the rest);
// explain_model.cpp models every cell from the levels and the claims of the findings, and sets the
// tolerances; explain_search.cpp searches the cells the model leaves slow for groups that explain
// them, merges sibling groups and names what is left.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>
#include <unordered_map>

#include "nt/analysis/anomalies.hpp"

namespace nt::analysis::explain_parts {


// The cells a finding claims: the cells between its ranks and the others (its direction: those they
// send, those they receive, or both), or the cells between ordered pairs of nodes.
struct Claim {
  std::size_t finding = 0;
  bool ends = true;                  // ends: `in` holds its ranks; else `cells`
  std::vector<char> in;              // per rank
  bool send = true, recv = true;     // ends: the cells its ranks send, those they receive
  bool inner = false;                // ends: also the cells among its ranks (a slow node's own)
  std::set<std::uint64_t> cells;  // its cells (sender * P + receiver)
  // Per length and pair class: log of the median ratio of its cells to their base (a slow cable
  // slows a pair by a factor that depends on the pair's other links: 4x within its switch, less
  // across the network).
  std::vector<std::vector<double>> factor;
  double at(std::size_t k, std::int8_t c) const { return factor[k][static_cast<std::size_t>(c)]; }
};


// Everything the check reads, per length the log delays of the cells (NaN: the diagonal, a bad or
// missing cell).
struct Grid {
  const Cube& c;
  const Topology& t;
  const AnomalyOptions& opt;
  std::size_t P, K;              // ranks, lengths
  std::size_t need;              // lengths a finding must show at
  std::vector<std::int8_t> cls;  // pair class per cell, -1 on the diagonal
  std::vector<std::vector<float>> logv;
  std::vector<double> tol;       // per length: a cell beyond its prediction by more is unexplained (log)
  // No tree above the top level (a dragonfly, a torus): the cells between the groups of the first
  // block_levels levels (the nodes, the finest switch groups) take the delay of their pair of groups
  // (block_bases).
  std::size_t block_levels = 0;
  // The min file of the run, when the report has one: a region the search finds that its fastest
  // samples do not show is a transient (slow_in_medians_only), whose pairs go to `transient_pairs`.
  const Cube* fastest = nullptr;
  std::vector<std::pair<int, int>> transient_pairs;
  std::size_t transient_regions = 0;
  int node_of(std::size_t r) const { return t.levels.front().group_of[r]; }
  std::size_t cell(std::size_t i, std::size_t j) const { return i * P + j; }
};


// Which claims hold each cell: per rank the `ends` claims that hold it, per cell the others.
struct ClaimIndex {
  std::vector<std::vector<std::size_t>> by_rank;
  std::unordered_map<std::uint64_t, std::vector<std::size_t>> by_cell;
};


// The model of the matrix for a set of claims: per length the base of each cell, and each claim's
// factor; the prediction of a cell is its base plus the largest factor of the claims that hold it.
struct Model {
  std::vector<std::vector<float>> base;
  ClaimIndex ix;
};

// explain_model.cpp: the kinds of finding the model holds (a slow finding's delays), those that
// claim the cells of their ranks (not of pairs), the grid of a cube, a finding's claim.
bool explains_delays(AnomalyKind k);
bool ends_kind(AnomalyKind k);
Grid make_grid(const Cube& c, const Topology& t, const AnomalyOptions& opt);
Claim claim_of(const Grid& g, const Anomaly& a, std::size_t index);
// The model of a set of claims (the base of every cell, each claim's factor), and log(delay / base)
// of cell x at length k.
Model fit_model(const Grid& g, std::vector<Claim>& claims);
double lift(const Grid& g, const Model& m, std::size_t k, std::size_t x);
// Of the cells an `ends` claim holds where its factor is beyond the tolerance, the share that the
// model leaves within the tolerance of their base: cells it says are slow and are not.
double overclaimed_share(const Grid& g, const Model& m, const Claim& q);
// Whether a pair claim's cells are within the tolerance of their base at every length (the median
// of its cells' lifts): slow against nothing the matrix holds.
bool flat_claim(const Grid& g, const Model& m, const Claim& q);
// Sets `inner` on the `ends` claims whose cells between their own nodes are slow (the median
// beyond the tolerance at enough lengths): a slow switch slows the pairs under it too, its uplink
// does not. Whether any changed (the model is to be fitted again).
bool claim_slow_insides(const Grid& g, const Model& m, std::vector<Claim>& claims);
// The residual of cell (i, j) at length k, leaving out claim `skip` (npos: none); `ends_only`: the
// claims of node and switch groups only.
double residual(const Grid& g, const Model& m, const std::vector<Claim>& claims, std::size_t k, std::size_t i,
                std::size_t j, std::size_t skip = static_cast<std::size_t>(-1), bool ends_only = false);
// The tolerance per length (into g.tol); returns the share of unclaimed cells within the floor.
double set_tolerances(Grid& g, const Model& m, const std::vector<Claim>& claims);
// The direction a slow finding's cells show (into a.direction, q.send and q.recv).
void read_direction(const Grid& g, const Model& m, const std::vector<Claim>& claims, Claim& q, Anomaly& a);
// Per claim, how much of its cells it explains: lengths where it does, then the sum of its medians.
std::vector<std::pair<std::size_t, double>> gains(const Grid& g, const Model& m, const std::vector<Claim>& claims);

// explain_search.cpp: per region of the levels, its usable and slow cells; the slow cells per
// length (into slow_cells).

// Per region, pair class and length, how many of its cells are usable and how many the model leaves
// slow. A region is judged class by class: the cells of a leaf inside a slow pod that leave the pod
// are the pod's, those to the other leaves of the pod its own.
struct RegionCounts {
  std::vector<std::size_t> offset;  // per level, the index of its first region
  std::size_t classes = 0;
  std::vector<std::vector<std::uint32_t>> usable, slow;  // [k][region * classes + class]
  std::uint64_t cells = 0, within = 0, slower = 0;       // every usable cell: within the tolerance, beyond it
};

// `named`: cells taken as explained (the pair findings the search named, which ends_only leaves out).
RegionCounts count_regions(const Grid& g, const Model& m, const std::vector<Claim>& claims,
                           std::vector<std::vector<char>>& slow_cells, bool ends_only,
                           const std::vector<char>* named = nullptr);
// The groups whose cells the model leaves slow, named (into added, with their claims), at most
// explain_max_added; groups false: only the routes between two sets of groups.
void search_groups(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                   std::size_t n_found, std::vector<Anomaly>& added, bool groups);
// Whether two claims slow their cells alike: their largest factors within a quarter (or the
// tolerance) at every length (siblings, a partial uplink and the nodes it serves).
bool alike_factors(const Grid& g, const Claim& a, const Claim& b);
// Slow switch findings that are one fault of a group the levels lack, merged (drop[finding]: gone).
// explain_search.cpp: slow node findings on every node of one first-level group, one direction,
// alike: one slow_switch finding on the group.
void merge_group_nodes(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                       std::vector<Anomaly>& found, std::vector<Anomaly>& added, std::vector<char>& drop);
void merge_siblings(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                    std::vector<Anomaly>& found, std::vector<Anomaly>& added, std::vector<char>& drop);
// explain_rects.cpp: a rectangle of group pairs of one level whose cells the model leaves slow
// (the routes between two sets of groups), the one with the most slow cells over the levels, but
// the cells `named` (per cell: a pair finding the search named holds it); a finding on it.
struct Rect {
  std::size_t level = 0;
  std::set<std::size_t> from, to;  // the groups that send slowly, those they send to
  bool both = false;               // the cells back as well
  std::size_t cells = 0;           // its cells slow at enough lengths
};
std::optional<Rect> slow_rectangle(const Grid& g, const Model& m, const std::vector<std::vector<char>>& slow_cells,
                                   const std::vector<char>& named);
Anomaly rectangle_finding(const Grid& g, const Rect& r, const std::vector<std::string>& hosts);
// explain_uplinks.cpp: an added partial uplink (its cells to part of the ranks outside its group)
// and two or more added nodes of the group slowed the other way alike: one finding on the nodes.
void join_partial_uplinks(Grid& g, Model& m, std::vector<Claim>& claims, const std::vector<std::string>& hosts,
                          std::size_t n_found, std::vector<Anomaly>& added, std::vector<char>& drop);
// The score and the end of the text of a finding the check added.
void score_from_factor(const Grid& g, const Claim& q, Anomaly& a);
// The cells left slow at enough lengths, but the transients' pairs: one `unexplained` finding
// (count: its pairs).
std::optional<Anomaly> leftover(const Grid& g, const std::vector<std::vector<char>>& slow_cells,
                                const std::vector<std::string>& hosts,
                                const std::vector<std::pair<int, int>>& transients, std::size_t* count);

}  // namespace nt::analysis::explain_parts
