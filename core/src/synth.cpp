#include "nt/synth.hpp"

#include "nt/output.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <utility>
#include <cmath>
#include <numeric>
#include <random>

#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/raw_file.hpp"
#include "nt/stats.hpp"
#include "nt/version.hpp"

namespace nt {
namespace {

void validate(const SynthParams& p) {
  auto bad = [](const std::string& what) { throw UsageError("synthetic data: " + what); };
  if (p.nodes < 1) bad("--nodes must be at least 1");
  if (p.ranks_per_node < 1) bad("--ranks-per-node must be at least 1");
  if (static_cast<long long>(p.nodes) * p.ranks_per_node < 2) bad("at least 2 ranks are needed");
  if (static_cast<long long>(p.nodes) * p.ranks_per_node > 65536) bad("more than 65536 ranks");
  if (p.nodes_per_switch < 0) bad("--nodes-per-switch must not be negative");
  for (double v : {p.intra_latency, p.inter_latency, p.switch_latency, p.protocol_extra})
    if (!(v >= 0) || !std::isfinite(v)) bad("latencies must be finite and not negative");
  for (double v : {p.intra_bandwidth, p.inter_bandwidth})
    if (!(v > 0) || !std::isfinite(v)) bad("bandwidths must be positive");
  if (!(p.switch_bandwidth >= 0)) bad("--switch-bandwidth must not be negative");
  if (p.slow_node < -1 || p.slow_node >= p.nodes)
    bad(fmt::format("--slow-node {} is not a node (0..{})", p.slow_node, p.nodes - 1));
  if (!(p.slow_factor > 0)) bad("--slow-factor must be positive");
  if (!(p.noise >= 0) || !std::isfinite(p.noise)) bad("--noise must be finite and not negative");
  if (!(p.cell_noise >= 0) || !(p.cell_noise <= 1)) bad("--cell-noise must be between 0 and 1");
  if (p.repeats < 1) bad("--repeats must be at least 1");
  if (p.lengths.empty()) bad("no message lengths");
  for (auto l : p.lengths)
    if (l < 0 || l > 0x7fffffff) bad(fmt::format("message length {} outside 0..2^31-1", l));
}

}  // namespace

namespace {

// Placement, hosts and file parameters: everything but the matrices. Draws the shuffle (if any)
// from rng first, as the data after it.
struct Layout {
  int P = 0;
  std::vector<std::string> hosts;
  std::vector<int> node_of_rank, switch_of_node;
  FileInfo info;
};

Layout make_layout(const SynthParams& p, std::mt19937_64& rng) {
  Layout l;
  const int P = l.P = p.nodes * p.ranks_per_node;
  // Placement: block (rank r on node r / M) or a random permutation of it.
  std::vector<int> slot(static_cast<std::size_t>(P));
  std::iota(slot.begin(), slot.end(), 0);
  if (p.shuffle) std::shuffle(slot.begin(), slot.end(), rng);
  l.node_of_rank.resize(static_cast<std::size_t>(P));
  for (int rank = 0; rank < P; ++rank) l.node_of_rank[static_cast<std::size_t>(rank)] = slot[static_cast<std::size_t>(rank)] / p.ranks_per_node;
  l.switch_of_node.resize(static_cast<std::size_t>(p.nodes));
  for (int n = 0; n < p.nodes; ++n)
    l.switch_of_node[static_cast<std::size_t>(n)] = p.nodes_per_switch > 0 ? n / p.nodes_per_switch : 0;
  const int width = static_cast<int>(std::to_string(std::max(p.nodes - 1, 1)).size());
  for (int rank = 0; rank < P; ++rank)
    l.hosts.push_back(fmt::format("node{:0{}}", l.node_of_rank[static_cast<std::size_t>(rank)], width));

  FileInfo& info = l.info;
  const int step = linear_step(p.lengths);
  info.params = run_parameters(P, p.mode, p.lengths, p.repeats, step);
  info.meta.sweep = step > 0 ? "linear" : "list";
  info.meta.program_version = NT_VERSION;
  info.meta.timer = "synthetic";
  info.meta.seed = p.seed;
  info.meta.hosts = l.hosts;
  info.meta.sync_method = "none (synthetic data)";
  info.meta.extra["synthetic"] = fmt::format(
      "nodes={} ranks_per_node={} nodes_per_switch={} intra=({} s, {} B/s) inter=({} s, {} B/s) switch_latency={} "
      "protocol_step={} protocol_extra={} slow_node={} slow_factor={} shuffle={} noise={} cell_noise={}",
      p.nodes, p.ranks_per_node, p.nodes_per_switch, p.intra_latency, p.intra_bandwidth, p.inter_latency,
      p.inter_bandwidth, p.switch_latency, p.protocol_step, p.protocol_extra, p.slow_node, p.slow_factor,
      p.shuffle, p.noise, p.cell_noise);
  return l;
}

// The values, length by length and row by row (sender i), in the order the random numbers are
// drawn: row(k, i, rows) with rows[s] the P values of statistic standard_statistics()[s], then
// end_length(k) after the last row of length k. Memory: five rows and the samples of one cell.
void generate(const SynthParams& p, const Layout& l, std::mt19937_64& rng,
              const std::function<void(std::size_t, int, const std::vector<std::vector<double>>&)>& row,
              const std::function<void(std::size_t)>& end_length) {
  const int P = l.P;
  const auto& stats = standard_statistics();
  const double switch_bw = p.switch_bandwidth > 0 ? p.switch_bandwidth : p.inter_bandwidth;
  const bool zero_diag = diagonal_is_zero(p.mode);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> samples(static_cast<std::size_t>(p.repeats));
  std::vector<std::vector<double>> rows(stats.size(), std::vector<double>(static_cast<std::size_t>(P)));
  for (std::size_t k = 0; k < p.lengths.size(); ++k) {
    const std::int64_t len = p.lengths[k];
    const auto m = static_cast<double>(len);
    const double step_extra = (p.protocol_step >= 0 && len >= p.protocol_step) ? p.protocol_extra : 0.0;
    for (int i = 0; i < P; ++i) {
      const int ni = l.node_of_rank[static_cast<std::size_t>(i)];
      for (int j = 0; j < P; ++j) {
        const auto jj = static_cast<std::size_t>(j);
        const int nj = l.node_of_rank[jj];
        double base;
        if (i == j) {
          if (zero_diag) {  // all statistics are 0
            for (auto& r : rows) r[jj] = 0.0;
            continue;
          }
          base = 0.25 * p.intra_latency + m / (4.0 * p.intra_bandwidth);
        } else if (ni == nj) {
          base = p.intra_latency + m / p.intra_bandwidth + step_extra;
        } else if (l.switch_of_node[static_cast<std::size_t>(ni)] == l.switch_of_node[static_cast<std::size_t>(nj)]) {
          base = p.inter_latency + m / p.inter_bandwidth + step_extra;
        } else {
          base = p.inter_latency + p.switch_latency + m / switch_bw + step_extra;
        }
        if (p.slow_node >= 0 && (ni == p.slow_node || nj == p.slow_node)) base *= p.slow_factor;
        if (p.cell_noise > 0) base *= std::exp(p.cell_noise * normal(rng));  // no draw at 0: old streams stay
        for (auto& v : samples) v = base * (1.0 + p.noise * std::fabs(normal(rng)));
        const Summary sm = summarize(samples);
        for (std::size_t s = 0; s < stats.size(); ++s) rows[s][jj] = summary_value(sm, stats[s]);
      }
      row(k, i, rows);
    }
    end_length(k);
  }
}

}  // namespace

SynthResult synthesize(const SynthParams& p) {
  validate(p);
  std::mt19937_64 rng(p.seed);
  Layout l = make_layout(p, rng);
  const int P = l.P;
  const auto& stats = standard_statistics();
  SynthResult r;
  for (Statistic s : stats) {
    FileInfo fi = l.info;
    fi.params.statistic = s;
    r.stats[s] = std::make_unique<MemoryDataset>(fi, "memory");
  }
  std::vector<Matrix> mats(stats.size(), Matrix(P));
  generate(
      p, l, rng,
      [&](std::size_t, int i, const std::vector<std::vector<double>>& rows) {
        for (std::size_t s = 0; s < stats.size(); ++s) std::copy(rows[s].begin(), rows[s].end(), mats[s].row(i).begin());
      },
      [&](std::size_t k) {
        for (std::size_t s = 0; s < stats.size(); ++s) r.stats[stats[s]]->append(p.lengths[k], std::exchange(mats[s], Matrix(P)));
      });
  r.hosts = std::move(l.hosts);
  r.node_of_rank = std::move(l.node_of_rank);
  r.switch_of_node = std::move(l.switch_of_node);
  return r;
}

std::uint64_t synth_stream_bytes(const SynthParams& p) {
  const auto P = static_cast<std::uint64_t>(std::max(p.nodes, 0)) * static_cast<std::uint64_t>(std::max(p.ranks_per_node, 0));
  // Five rows of P doubles, a row buffer per writer, placement and hosts (~32 bytes per rank).
  return 8ull * P * 2 * standard_statistics().size() + 64ull * P;
}

void synthesize_to(const SynthParams& p, const std::string& prefix, bool overwrite) {
  validate(p);
  std::mt19937_64 rng(p.seed);
  const Layout l = make_layout(p, rng);
  const auto& stats = standard_statistics();
  // The statistic files and the hosts file appear together or not at all (as write_synth), added
  // to the set in the same order; each file is made by RawWriter (header) and filled row by row.
  std::map<Statistic, std::size_t> index;
  for (std::size_t s = 0; s < stats.size(); ++s) index[stats[s]] = s;
  OutputSet set;
  std::vector<PendingOutput*> outs(stats.size());
  for (const auto& [s, i] : index) outs[i] = &set.add(result_path(prefix, s), overwrite);
  PendingOutput& hosts = set.add(hosts_path(prefix), overwrite);
  std::vector<RawRowWriter> writers;
  for (std::size_t s = 0; s < stats.size(); ++s) {
    FileInfo fi = l.info;
    fi.params.statistic = stats[s];
    RawWriter(outs[s]->temp(), fi, /*overwrite=*/true).close();
    writers.emplace_back(outs[s]->temp(), l.P, 0, RecordExtras{});
  }
  generate(
      p, l, rng,
      [&](std::size_t k, int i, const std::vector<std::vector<double>>& rows) {
        for (std::size_t s = 0; s < stats.size(); ++s) writers[s].put_row(k, i, rows[s]);
      },
      [&](std::size_t k) {
        for (auto& w : writers) {
          w.sync();
          w.commit(k, p.lengths[k]);
        }
      });
  writers.clear();
  write_file_atomically_into(hosts, [&](std::ostream& out) { write_hosts(out, l.hosts); });
  set.commit_all();
}

void write_synth(const std::string& prefix, const SynthResult& r, bool overwrite) {
  // The statistic files and the hosts file appear together or not at all.
  OutputSet set;
  for (const auto& [s, ds] : r.stats) write_raw(set.add(result_path(prefix, s), overwrite), *ds);
  PendingOutput& hosts = set.add(hosts_path(prefix), overwrite);
  write_file_atomically_into(hosts, [&](std::ostream& out) { write_hosts(out, r.hosts); });
  set.commit_all();
}

}  // namespace nt
