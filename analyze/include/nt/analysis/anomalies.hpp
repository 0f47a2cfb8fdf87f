// Anomalies (share/doc/design.md §7): ranks, nodes and links slower than their own class, asymmetric
// pairs, half-duplex links, high variance. A healthy cluster reports none: every decision needs a
// robust outlier score (median/MAD over the peers) AND a minimum effect size.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nt/analysis/cube.hpp"
#include "nt/cli.hpp"
#include "nt/analysis/topology.hpp"

namespace nt::analysis {

// What an anomaly is; its name (name_of) is what every output says.
enum class AnomalyKind {
  slow_rank, slow_node, slow_link, slow_switch, asymmetric_pair, half_duplex, high_variance,
  contention,  // loaded.cpp: a measurement under load whose slow links are its own contention
  unexplained,  // explain.cpp: cells slower than the levels and findings predict, at no level found
};
const Names<AnomalyKind>& anomaly_kind_names();
std::string name_of(AnomalyKind kind);
std::optional<AnomalyKind> anomaly_kind(const std::string& name);  // by name_of's name
// slow_rank, slow_node, slow_link, slow_switch: a part slower than its peers.
bool is_slow(AnomalyKind kind);

struct Anomaly {
  AnomalyKind kind = AnomalyKind::slow_rank;
  std::vector<int> ranks;
  std::vector<std::string> hosts;
  std::vector<std::int64_t> lengths;  // message lengths where it shows
  double score = 0.0;                 // ratio to the expected value (>1 means worse)
  std::string detail;                 // one line for humans
  std::vector<std::pair<int, int>> pairs;  // (sender, receiver) for link kinds
  // slow_rank, slow_node, slow_switch: the cells its ranks are slow in, read from the delays by
  // explain_and_check: "send" (what they send only), "receive", "both"; "" where not judged.
  std::string direction;
};

struct AnomalyOptions {
  double min_ratio = 1.5;         // minimum effect: 50% slower than expected
  double group_min_ratio = 1.1;   // ... of a switch group's outside links (a median over many pairs)
  double mad_factor = 5.0;        // robust z-score needed
  double min_length_fraction = 0.5;  // must show at this fraction of the lengths
  double duplex_ratio = 1.5;      // async/one_to_one ratio that counts as half duplex
  double variance_ratio = 3.0;    // CV this many times the typical one
  double variance_min_cv = 0.05;  // and at least this coefficient of variation
  std::size_t max_links = 50;     // slow/asymmetric links listed at most
  // The explanation check (explain_and_check):
  double explain_floor = 1.1;     // a cell this much slower (or faster) than predicted is unexplained
  double explain_sigmas = 4.0;    // ... or this many robust sigmas of the explained cells, when larger
  // A tolerance above this (the detectors' 1.5x line) is the distances the levels miss, not noise:
  // the check then judges no finding (drops none, adds none) and says so.
  double explain_judge_max = 1.5;
  double explain_warn_share = 0.02;  // cells slower than predicted that the check cannot name: a warning
  std::size_t explain_max_added = 8;  // groups the search for unexplained cells may name at most
  std::size_t explain_min_cells = 8;  // slow cells left over that make an `unexplained` finding ...
  double explain_min_share = 0.005;   // ... and this share of the matrix's pairs, when larger
  std::uint64_t explain_max_cells = std::uint64_t{1} << 26;  // cells x lengths checked at most
  // A single level describes the distances when this share of the cells no finding claims is
  // within explain_floor of its class; levels above the nodes do when they form a tree. Only then
  // are groups left slow searched for and named.
  double explain_levels_fit = 0.95;
};

// Rank effects: per length, log delay = class constant + sender effect + receiver effect + residual,
// fitted by median polish over the off-diagonal cells (find_anomalies, one length at a time; the
// residuals are not kept).
struct RankEffects {
  std::vector<std::vector<double>> send, recv;  // [k][rank], log ratio
};

// The smallest slowdown each kind of finding could have shown at these lengths and this noise
// (so that "no anomaly" means something): per kind, the threshold its detector applied
// (min_ratio, or mad_factor robust sigmas of its peers when larger), as a ratio, at the length
// where a slowdown passes most easily among those it must show at (min_length_fraction). NaN
// where the kind was not judged (fewer than 3 ranks; a level of fewer than 3 groups).
struct Sensitivity {
  double rank = std::numeric_limits<double>::quiet_NaN();     // slow_rank, slow_node (send or receive)
  double link = std::numeric_limits<double>::quiet_NaN();     // slow_link (one pair, beyond its ranks)
  double one_way = std::numeric_limits<double>::quiet_NaN();  // asymmetric_pair (one direction)
  std::vector<std::pair<std::string, double>> group;          // slow_switch, per upper level (name)
};

std::vector<Anomaly> find_anomalies(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                                    const AnomalyOptions& opt = {}, Sensitivity* sensitivity = nullptr);

// What the report's explanation accounts for (explain_and_check): the levels and the findings
// predict every cell; the share of cells within the tolerance of their prediction, the findings it
// dropped (they explained nothing) and added (groups whose cells it left slow, and the rest).
struct Explanation {
  bool checked = false;
  bool changed_findings = false;        // false: the share only (a file under load, a collective mode)
  std::uint64_t cells = 0;              // usable off-diagonal cells x lengths
  double explained_share = std::numeric_limits<double>::quiet_NaN();  // within the tolerance
  double slow_share = std::numeric_limits<double>::quiet_NaN();       // slower than it
  double levels_share = std::numeric_limits<double>::quiet_NaN();     // unclaimed cells the levels predict
  std::vector<double> tolerance;        // per length, the ratio beyond which a cell is unexplained
  std::size_t unexplained_pairs = 0;    // pairs slower than predicted at enough lengths, at the end
  std::size_t added = 0;
  std::vector<std::string> dropped;     // "kind on ranks ..."
  std::string note;                     // why it was not checked, or how
  std::string warning;                  // cells left slow that no finding names (a WARNING note)
};

// The cells (sender * P + receiver) a finding on pairs claims: exactly its pairs, a slow link's in
// both directions where every pair is listed sender below receiver (and its direction is not one way).
std::set<std::uint64_t> pair_cells(const Anomaly& a, std::size_t P);

// Checks the findings against the whole matrix (explain.cpp): sets each slow finding's direction,
// drops the findings that explain nothing, adds a finding for each group of a level whose cells the
// model leaves slow, and one `unexplained` finding for what is left. `change`: false computes the
// share only (found is left as it is). `transients`: pairs the report left out as transients (a note
// names them); they count in the shares but not in the `unexplained` finding. `fastest`: the min
// file of the run (a median file's), when there is one: a region the search finds that its fastest
// samples do not show is a transient too (slow_in_medians_only), left out and said in the note.
Explanation explain_and_check(const Cube& c, const Topology& t, const std::vector<std::string>& hosts,
                              const AnomalyOptions& opt, std::vector<Anomaly>& found, bool change = true,
                              const std::vector<std::pair<int, int>>& transients = {}, const Cube* fastest = nullptr);

// refine_levels.cpp: splits each group of a level above the nodes whose parts (groups of the level
// below) fall into separate sets of two or more, the cells between the sets more than explain_floor
// slower than the group's class: two switches the clustering joined. The notes that say so.
std::vector<std::string> refine_levels(const Cube& c, Topology& t, const AnomalyOptions& opt);

// Ranks as short text: runs of consecutive ranks as a-b, at most 8 runs ("0-15,32-47").
std::string text_of_ranks(const std::vector<int>& r);

// transients.cpp: the asymmetric_pair findings of `values` (a median file), and the slow_link
// findings between two of t's nodes, that the fastest samples of the same run (its min file) do not
// show (at least half the medians' log slowdown at half of the finding's slow cells) are removed: a
// transient, not a fault. The note that says so, when any was removed; the removed findings' pairs
// are appended to left_out.
std::optional<std::string> drop_transient_pairs(const Cube& values, const Cube& fastest, const Topology& t,
                                                std::vector<Anomaly>& found, std::vector<std::pair<int, int>>& left_out);

// transients.cpp: drop_transient_pairs' rule for one finding: a pair finding (one-way pairs, a slow
// link) that the fastest samples do not show.
bool slow_in_medians_only(const Cube& values, const Cube& fastest, const Topology& t, const Anomaly& a);

// transients.cpp: the pair findings whose cells all lie between one pair of t's nodes (4 nodes or
// more) are removed when they hold less than half of that pair of nodes' rank pairs (the ranks of
// two nodes share their route), or when levels above the nodes form a tree, the pair of nodes was
// measured once (one rank per node, or `copied`: the schedule copied one rank pair's values to the
// others) and its sender's row and receiver's column are not slow with it: every link then carries
// the routes of several pairs of nodes, so a slowdown of one pair alone is no link's. Findings slowed
// alike that share a node or show at several lengths are not alone. The note that says so, when any
// was removed; the removed findings' pairs are appended to left_out.
std::optional<std::string> drop_lone_pairs(const Cube& values, const Topology& t, bool copied,
                                           std::vector<Anomaly>& found, std::vector<std::pair<int, int>>& left_out);

// shared_cores.cpp: when the file says ranks outnumbered their cores (`oversubscribed`), the
// slow_link and asymmetric_pair findings whose every pair lies within one node (t's finest level)
// are removed: delays within a node are then the CPU scheduler's. The note, when any was removed.
std::optional<std::string> drop_findings_on_shared_cores(const Metadata& meta, const Topology& t,
                                                         std::vector<Anomaly>& found);

// Coefficient of variation per rank from a deviation cube and a value cube of the same run.
std::vector<Anomaly> find_variance_anomalies(const Cube& values, const Cube& deviation,
                                             const std::vector<std::string>& hosts,
                                             const AnomalyOptions& opt = {});

// Full-duplex check from a one_to_one and an async_one_to_one cube of the same run: on a full-duplex
// link the simultaneous exchange takes about as long as one message; on a half-duplex one about twice.
struct DuplexClass {
  int cls = 0;
  std::string name;
  double median_ratio = 0.0;  // async / one_to_one over the long lengths
  bool half_duplex = false;   // the whole class behaves half duplex
};
struct DuplexResult {
  std::vector<std::int64_t> lengths;  // lengths compared
  std::vector<DuplexClass> classes;
  std::vector<Anomaly> anomalies;     // half_duplex pairs (ranks = the pair)
};
DuplexResult analyze_duplex(const Cube& one_to_one, const Cube& async, const Topology& t,
                            const std::vector<std::string>& hosts, const AnomalyOptions& opt = {});

}  // namespace nt::analysis
