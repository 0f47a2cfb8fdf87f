// network_cluster: compresses a stack of delay matrices into regions of message lengths with
// stable clusters of rank pairs (share/doc/design.md §5; algorithm in share/doc/cluster.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

#include "nt/clustered_writer.hpp"
#include "nt/dataset.hpp"

namespace nt::cluster {

struct Options {
  double threshold = 0.05;  // seconds (absolute) or a fraction of the value (relative)
  bool relative = true;
  int exceptions = 0;       // per cluster and per matrix after the region's first one
  int min_region = 2;       // fewest matrices in a region
  // Clusters are formed with cluster_factor x threshold (relative: at most max(threshold, 0.5));
  // every value then gets a quantised residual against its cluster centre that brings it within
  // the threshold (layout 2). 1 = clusters alone keep the bound (residuals only for exceptions).
  double cluster_factor = 50;
  void validate() const;    // throws UsageError
  double cluster_threshold() const;
};

// The tolerance rule. allowed(v): how far a reconstructed value may be from v (T, or T*|v|).
// fits(lo, hi): a set of values in [lo, hi] may be one cluster at one length: its mean is then
// within allowed(v) of every value v of the set. fits is monotone (a sub-interval of a fitting
// interval fits), which makes every rule below hereditary under splitting. It keeps a 1e-9
// relative margin so that rounding of the mean can never push a value beyond the threshold.
class Tolerance {
 public:
  Tolerance(double threshold, bool relative);
  double allowed(double v) const;
  bool within(double v, double reconstructed) const;
  bool fits(double lo, double hi) const;

 private:
  double t_, tm_;
  bool rel_;
};

// The inlier window of one cluster at one length: the values in [lo, hi] are kept (their mean is
// the stored value), `excluded` values lie outside (the exceptions). ok = false when no window
// fits with at most `max_excluded` exclusions.
struct Window {
  bool ok = false;
  double lo = 0, hi = 0;
  int excluded = 0;
};
// `vals` is scratch (reordered). Prefers the fewest exclusions, then the narrowest window.
Window select_inliers(std::span<double> vals, int max_excluded, const Tolerance& tol);

struct Region {
  std::size_t start = 0, end = 0;  // matrices [start, end)
  std::vector<int> cluster_of;     // P*P cluster number per pair (row-major, x = sender), when kept
  int clusters = 0;
};

struct ErrorStats {
  std::uint64_t cells = 0;            // every value of the input
  std::uint64_t nonzero_cells = 0;    // values != 0 (the relative errors are over these)
  std::uint64_t beyond = 0;           // reconstructed values beyond the threshold
  std::uint64_t exceptions = 0;       // values outside their cluster's inlier window
  double max_relative = 0, mean_relative = 0;
  double max_absolute = 0, mean_absolute = 0;
};

struct Result {
  ClusteredContent content;  // ready for write_clustered (no attributes yet)
  std::vector<Region> regions;
  ErrorStats errors;
  std::size_t cluster_instances = 0;
};

// How compress trades memory for speed, and what it keeps for its caller. The defaults bound its
// memory at about 20 P^2 bytes; every setting gives the same result.
struct CompressMemory {
  // The offsets and residuals of inputs with more than `spill_bytes` of them go to anonymous
  // scratch files here (compress_file: the output's directory); empty: in memory.
  std::filesystem::path scratch_dir;
  double spill_bytes = 16.0 * 1024 * 1024;
  // Ranges of pairs longer than this are sorted by index alone (4 bytes per pair, slower) instead
  // of (key, index) records (32 bytes per pair).
  std::size_t record_sort_limit = std::size_t{1} << 18;
  // Clusters of more pairs than this find their inlier window in one pass over their values instead
  // of sorting a copy of them.
  std::size_t copy_limit = std::size_t{1} << 16;
  bool keep_cluster_of = false;  // fill Region::cluster_of (P*P ints per region)
};

// Runs the algorithm over any Dataset, one matrix at a time (each read twice). Memory: about
// 20 P^2 bytes (a matrix of doubles, two permutations of the pairs and a sort buffer;
// share/doc/cluster.md "Memory"), plus the offsets and residuals unless they go to scratch.
// Throws UsageError for data it cannot take: fewer matrices than min_region, NaN/Inf values.
Result compress(const Dataset& in, const Options& o, const CompressMemory& memory = {});

struct CompressReport {
  Result result;
  std::uintmax_t raw_bytes = 0, clustered_bytes = 0;
  double compression_ratio = 0, values_ratio = 0;
};
// compress() + write_clustered() with the attributes (parameters, errors, ratios).
CompressReport compress_file(const std::filesystem::path& in, const std::filesystem::path& out, const Options& o,
                             bool overwrite);

// The smallest relative bound (to 1 %, searched in [1e-4, 0.5]) whose file reaches `target`
// times smaller than the input; `chosen` gets it. Throws UsageError when even 50 % does not.
CompressReport compress_to_ratio(const std::filesystem::path& in, const std::filesystem::path& out, Options o,
                                 double target, bool overwrite, double& chosen);

// A --threshold text into `o`: seconds with an optional unit ("2e-7", "0.2us", "200ns", "0.1ms",
// "1e-6s"), a fraction when o.relative ("0.05"), or a percentage ("5%", sets o.relative).
// UsageError for text that is not a number, an unknown unit, a percentage with `absolute`, or a
// time unit with o.relative.
void parse_threshold(const std::string& text, Options& o, bool absolute);

// `network_cluster compress` as asked on the command line: a threshold text (parse_threshold) or
// a target ratio (compress_to_ratio), with --absolute / --relative.
struct CompressRequest {
  Options o;               // o.relative: --relative given
  std::string threshold;   // empty: none given
  double target_ratio = 0; // 0: none given
  bool absolute = false;
  bool force = false;
};
// Checks the request (UsageError), compresses, and returns the one-line report the program prints.
std::string compress_command(const std::filesystem::path& in, const std::filesystem::path& out, CompressRequest r);

// A clustered file -> the raw CDF-2 file it stands for: `prefix`_<statistic>.nc and
// `prefix`_hosts.txt when hosts are known (together or not at all), or the file `prefix` itself
// when it ends in .nc. Refuses inputs that are not clustered. Returns the one-line report.
std::string decompress_file(const std::filesystem::path& in, const std::filesystem::path& prefix, bool force);

// What `network_cluster info` shows.
struct FileSummary {
  std::filesystem::path path;
  int ranks = 0;
  std::vector<std::int64_t> lengths;
  std::vector<int> region_start;
  std::vector<int> clusters_per_region;
  std::size_t data_values = 0;
  std::uintmax_t file_bytes = 0;
  std::string mode, statistic;
  // Attributes written by compress (NaN / empty when absent, e.g. files from other tools).
  std::string threshold_mode;
  double threshold = 0, max_relative = 0, mean_relative = 0, max_absolute = 0, mean_absolute = 0;
  double beyond = 0, fraction_beyond = 0, raw_bytes = 0, compression_ratio = 0, values_ratio = 0;
  int exceptions = -1, min_region = -1;
};
FileSummary summarize_file(const std::filesystem::path& path);
std::string format_summary(const FileSummary& s);
std::string summary_json(const FileSummary& s);

// Topology classes: ranks a and b are in one class when exchanging them maps the clustering of
// every region onto itself (cluster(a, j) = cluster(b, j) and cluster(j, a) = cluster(j, b) for
// every other j, cluster(a, b) = cluster(b, a), cluster(a, a) = cluster(b, b)). Swaps compose, so
// this is an equivalence; on a cluster machine the classes are the nodes (or finer, when a rank
// misbehaves). `regions` holds the P*P cluster ids (or info offsets) of each region.
struct RankClasses {
  std::vector<int> class_of;                 // per rank, classes numbered by their first rank
  std::vector<std::vector<int>> members;     // per class, its ranks in order
};
RankClasses rank_classes(const std::vector<std::vector<int>>& regions, int P);
// Reports the classes of a clustered file with the hosts (text or JSON). Any other result file is
// clustered in memory first when `cluster_first` holds options, else refused.
std::string groups_report(const std::filesystem::path& file, bool json, const Options* cluster_first = nullptr);

// The whole command line (subcommands compress, decompress, info); returns the exit code.
int run(int argc, char** argv);

}  // namespace nt::cluster
