// network_analyze compare, the changes of delay: the two runs read at their common lengths and
// reported, then per length the change of every host pair modelled as class shift + switch block +
// sender and receiver effects + link residual, with the noise of each part (compare_changes.cpp
// finds the changes in it; compare_hosts.cpp the hosts, switch groups and thresholds).
#include "nt/analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <numeric>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"
#include "nt/units.hpp"
#include "compare_parts.hpp"
#include "common/text_util.hpp"

namespace nt::analysis {

namespace compare_parts {

double finite_median(std::vector<double>& x) {
  x.erase(std::remove_if(x.begin(), x.end(), [](double e) { return !std::isfinite(e); }), x.end());
  return x.empty() ? kNaN : population_median(x);
}

void add_host(Finding& finding, const Comparison& out, std::size_t a) {
  finding.hosts.push_back(out.hosts[a]);
  finding.ranks_baseline.insert(finding.ranks_baseline.end(), out.ranks_baseline[a].begin(),
                                out.ranks_baseline[a].end());
  finding.ranks_current.insert(finding.ranks_current.end(), out.ranks_current[a].begin(), out.ranks_current[a].end());
}

}  // namespace compare_parts

namespace {

using namespace compare_parts;

using text::lengths_text;

double finite_sigma(std::vector<double>& x) { return population_spread(x).sigma; }

// A copy of `c` holding only the given lengths (indices into c.lengths, ascending).
Cube restrict_lengths(const Cube& c, const std::vector<std::size_t>& ks) {
  Cube r = cube_header(c);
  r.lengths.clear();
  const auto PP = static_cast<std::size_t>(c.P) * static_cast<std::size_t>(c.P);
  r.v.reserve(PP * ks.size());
  for (std::size_t k : ks) {
    r.lengths.push_back(c.lengths[k]);
    r.v.insert(r.v.end(), c.v.begin() + static_cast<std::ptrdiff_t>(k * PP),
               c.v.begin() + static_cast<std::ptrdiff_t>((k + 1) * PP));
  }
  return r;
}

}  // namespace

namespace compare_parts {

std::vector<std::pair<std::size_t, std::size_t>> bands_of(std::size_t K, int bands) {
  const std::size_t most = static_cast<std::size_t>(std::max(1, bands));
  const std::size_t n = std::clamp<std::size_t>(K / kTuning.band_lengths, 1, most);
  std::vector<std::pair<std::size_t, std::size_t>> b;
  for (std::size_t i = 0; i < n; ++i) b.emplace_back(K * i / n, K * (i + 1) / n);
  return b;
}

Decision decide(const std::vector<double>& effect, const std::vector<double>& z, double min_log, double min_sigmas,
                const std::vector<std::pair<std::size_t, std::size_t>>& bands) {
  Decision best;
  for (int sign : {+1, -1}) {
    auto flagged = [&](std::size_t k) {
      return std::isfinite(effect[k]) && std::isfinite(z[k]) && sign * effect[k] >= min_log && sign * z[k] >= min_sigmas;
    };
    bool shows = false;
    for (auto [k0, k1] : bands) {
      std::size_t n = 0;
      for (std::size_t k = k0; k < k1; ++k) n += flagged(k) ? 1 : 0;
      const std::size_t len = k1 - k0;
      const std::size_t need = std::max<std::size_t>((len + 1) / 2, std::min<std::size_t>(2, len));
      if (n >= need) shows = true;
    }
    if (!shows) continue;
    Decision d;
    d.sign = sign;
    std::vector<double> e, s;
    for (std::size_t k = 0; k < effect.size(); ++k)
      if (flagged(k)) d.ks.push_back(k), e.push_back(effect[k]), s.push_back(std::fabs(z[k]));
    d.ratio = std::exp(median_inplace(e));
    d.sigmas = median_inplace(s);
    if (best.sign == 0 || d.ks.size() > best.ks.size()) best = d;
  }
  return best;
}

int size_change(const std::vector<double>& effect, double min_log, int bands) {
  std::vector<double> z(effect.size(), kNaN);
  for (std::size_t k = 0; k < effect.size(); ++k)
    if (std::isfinite(effect[k])) z[k] = effect[k] >= 0 ? 1e9 : -1e9;
  return decide(effect, z, min_log, 1.0, bands_of(effect.size(), bands)).sign;
}

}  // namespace compare_parts

std::string compare_input(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    const auto f = std::filesystem::path(path) / "one_to_one_median.nc";
    if (!std::filesystem::exists(f, ec))
      throw FileError(path, "is a directory without one_to_one_median.nc: name the delay file to compare");
    return f.string();
  }
  return path;
}

namespace {

void require_comparable(const Cube& B0, const Cube& C0, const CompareOptions& opt) {
  if (B0.mode != C0.mode)
    throw UsageError(fmt::format("{} is mode {}, {} is mode {}: compare two runs of one mode", B0.source,
                                 mode_name(B0.mode), C0.source, mode_name(C0.mode)));
  if (B0.statistic != C0.statistic)
    throw UsageError(fmt::format("{} holds the {}, {} the {}: compare one statistic", B0.source,
                                 statistic_name(B0.statistic), C0.source, statistic_name(C0.statistic)));
  if (!(opt.min_ratio > 1.0) || !(opt.min_sigmas > 0))
    throw UsageError("compare: --min-ratio must exceed 1 and --min-sigmas 0");
}

// The lengths both runs have (into out.lengths), as indices into each run's lengths: the two runs
// are analysed and compared on these only.
struct CommonLengths {
  std::vector<std::size_t> baseline, current;
};

CommonLengths compared_lengths(const Cube& B0, const Cube& C0, Comparison& out) {
  CommonLengths common;
  for (auto [i, j] : common_lengths(B0, C0)) {
    out.lengths.push_back(B0.lengths[i]);
    common.baseline.push_back(i), common.current.push_back(j);
  }
  if (out.lengths.empty())
    throw UsageError(fmt::format("{} ({}) and {} ({}) have no message length in common", B0.source,
                                 lengths_text(B0.lengths), C0.source, lengths_text(C0.lengths)));
  return common;
}

// The median delay from the ranks `from` to the ranks `to` at length k; NaN when none.
double host_pair_median(const Cube& cube, std::size_t k, const std::vector<int>& from, const std::vector<int>& to,
                        std::vector<double>& buf) {
  buf.clear();
  for (int i : from)
    for (int j : to)
      if (i != j) {
        const double delay = cube.at(k, i, j);
        if (Cube::usable(delay)) buf.push_back(delay);
      }
  return buf.empty() ? kNaN : median_inplace(buf);
}

// Per length, log(current / baseline) of each host pair's median delay ([k*H*H + a*H + b], NaN
// where either run has none); out.ratio_matrix: its median over the lengths.
std::vector<float> host_pair_log_ratios(const Cube& B, const Cube& C, Comparison& out) {
  const std::size_t H = out.hosts.size(), K = out.lengths.size(), HH = H * H;
  std::vector<float> log_ratios(K * HH, std::numeric_limits<float>::quiet_NaN());
  parallel_for(H, [&](std::size_t a0, std::size_t a1) {
    std::vector<double> buf;
    for (std::size_t a = a0; a < a1; ++a)
      for (std::size_t b = 0; b < H; ++b)
        for (std::size_t k = 0; k < K; ++k) {
          const double before = host_pair_median(B, k, out.ranks_baseline[a], out.ranks_baseline[b], buf);
          const double now = host_pair_median(C, k, out.ranks_current[a], out.ranks_current[b], buf);
          if (std::isfinite(before) && std::isfinite(now))
            log_ratios[k * HH + a * H + b] = static_cast<float>(std::log(now / before));
        }
  });
  out.ratio_matrix.assign(HH, std::numeric_limits<float>::quiet_NaN());
  std::vector<double> per_length;
  for (std::size_t p = 0; p < HH; ++p) {
    per_length.clear();
    for (std::size_t k = 0; k < K; ++k) per_length.push_back(log_ratios[k * HH + p]);
    const double median = finite_median(per_length);
    if (std::isfinite(median)) out.ratio_matrix[p] = static_cast<float>(std::exp(median));
  }
  return log_ratios;
}

ChangeModel empty_change_model(const Comparison& out) {
  ChangeModel model;
  const std::size_t H = out.hosts.size(), K = out.lengths.size(), HH = H * H;
  model.H = H, model.K = K, model.HH = HH;
  const Topology& tb = out.base.topology;
  model.NC = tb.class_count();
  model.cls.assign(HH, 0);
  for (std::size_t a = 0; a < H; ++a)
    for (std::size_t b = 0; b < H; ++b)
      model.cls[a * H + b] = a == b ? 0 : tb.pair_class(out.ranks_baseline[a].front(), out.ranks_baseline[b].front());
  const auto NC = static_cast<std::size_t>(model.NC);
  model.class_shift.assign(NC, std::vector<double>(K, kNaN));
  model.class_sigma.assign(NC, std::vector<double>(K, kNaN));
  model.send.assign(K, std::vector<double>(H, kNaN));
  model.recv = model.intra = model.send;
  model.send_sigma.assign(K, kNaN);
  model.recv_sigma = model.intra_sigma = model.send_sigma;
  model.R.assign(K * HH, std::numeric_limits<float>::quiet_NaN());
  // Switch groups of the baseline (hosts), for the blocks of links between two of them.
  model.sw = H >= 3 ? switch_partition(tb, out.ranks_baseline) : std::vector<int>(H, 0);
  model.NS = model.sw.empty() ? 0 : static_cast<std::size_t>(*std::max_element(model.sw.begin(), model.sw.end())) + 1;
  model.block.assign(K, std::vector<double>(model.NS * model.NS, kNaN));
  model.block_floor.assign(K, kNaN);
  return model;
}

// Class shifts at length k (Lk: its log ratios): the class's median change (the diagonal is the
// intra-host class) when most of its links (3/4) moved with it; otherwise part of the class
// changed (a switch's uplink, say) and the shift is that of the links that did not change (within
// tol of 0; when they are a quarter or more), so that the changed part is found below instead of
// the unchanged part.
std::vector<double> class_shifts_at(ChangeModel& model, std::size_t k, const float* Lk, double min_log) {
  const std::size_t H = model.H, HH = model.HH;
  std::vector<double> shift(static_cast<std::size_t>(model.NC), kNaN), links, host_medians, of_host;
  for (int c = 0; c < model.NC; ++c) {
    links.clear();
    for (std::size_t p = 0; p < HH; ++p)
      if (model.cls[p] == c && std::isfinite(Lk[p])) links.push_back(Lk[p]);
    const std::size_t n_links = links.size();
    // The class's change: the median over the hosts of each host's median change over its
    // links of the class (both directions): one changed host moves its own median only, even
    // when its links are half of the class (4 hosts on one switch).
    host_medians.clear();
    for (std::size_t a = 0; a < H; ++a) {
      of_host.clear();
      for (std::size_t b = 0; b < H; ++b) {
        if (model.cls[a * H + b] == c) of_host.push_back(Lk[a * H + b]);
        if (b != a && model.cls[b * H + a] == c) of_host.push_back(Lk[b * H + a]);
      }
      host_medians.push_back(finite_median(of_host));
    }
    double class_change = finite_median(host_medians);
    if (n_links > 0) {
      // Half the smallest change reported (the spread of a class that changed in part is no
      // measure of its noise: two clusters of links make it large).
      const double tol = kTuning.link_tolerance * min_log;
      std::size_t near_change = 0;
      std::vector<double> unchanged;
      for (double x : links) {
        if (std::fabs(x - class_change) <= tol) ++near_change;
        if (std::fabs(x) <= tol) unchanged.push_back(x);
      }
      const auto links_n = static_cast<double>(n_links);
      if (static_cast<double>(near_change) < kTuning.changed_share * links_n &&
          static_cast<double>(unchanged.size()) >= kTuning.unchanged_share * links_n)
        class_change = finite_median(unchanged);
    }
    shift[static_cast<std::size_t>(c)] = class_change;
    model.class_shift[static_cast<std::size_t>(c)][k] = class_change;
  }
  return shift;
}

// Switch blocks at length k: the median change of the links from switch group X to Y (X != Y)
// beyond the class shift (0 where none); the hosts' effects and the links are then judged within
// their block.
std::vector<double> switch_blocks_at(ChangeModel& model, std::size_t k, const float* Lk,
                                     const std::vector<double>& shift) {
  const std::size_t H = model.H, NS = model.NS;
  std::vector<double> blocks(NS * NS, 0.0);
  if (NS <= 1) return blocks;
  std::vector<std::vector<double>> changes(NS * NS);
  for (std::size_t a = 0; a < H; ++a)
    for (std::size_t b = 0; b < H; ++b) {
      const std::size_t X = static_cast<std::size_t>(model.sw[a]), Y = static_cast<std::size_t>(model.sw[b]);
      const double class_change = shift[static_cast<std::size_t>(model.cls[a * H + b])];
      if (X != Y && std::isfinite(class_change)) changes[X * NS + Y].push_back(double(Lk[a * H + b]) - class_change);
    }
  for (std::size_t q = 0; q < NS * NS; ++q) {
    const double median = finite_median(changes[q]);
    blocks[q] = std::isfinite(median) ? median : 0.0;
    model.block[k][q] = std::isfinite(median) ? median : kNaN;
  }
  return blocks;
}

// A host pair's change at one length beyond its class shift and its switch block.
struct PairChange {
  const ChangeModel& model;
  const float* Lk;
  const std::vector<double>& shift;
  const std::vector<double>& blocks;
  double operator()(std::size_t a, std::size_t b) const {
    const std::size_t H = model.H, NS = model.NS;
    const double class_change = shift[static_cast<std::size_t>(model.cls[a * H + b])];
    const double block_change =
        NS > 1 && a != b ? blocks[static_cast<std::size_t>(model.sw[a]) * NS + static_cast<std::size_t>(model.sw[b])]
                         : 0.0;
    return std::isfinite(class_change) ? double(Lk[a * H + b]) - class_change - block_change : kNaN;
  }
};

// One step of median polish over the links between hosts at length k: sender, then receiver
// effect; the rest is the link's residual.
void host_effects_at(ChangeModel& model, std::size_t k, const PairChange& change) {
  const std::size_t H = model.H, HH = model.HH;
  auto& send = model.send[k];
  auto& recv = model.recv[k];
  std::vector<double> values;
  for (std::size_t a = 0; a < H; ++a) {
    values.clear();
    for (std::size_t b = 0; b < H; ++b)
      if (b != a) values.push_back(change(a, b));
    send[a] = finite_median(values);
  }
  for (std::size_t b = 0; b < H; ++b) {
    values.clear();
    for (std::size_t a = 0; a < H; ++a)
      if (a != b && std::isfinite(send[a])) values.push_back(change(a, b) - send[a]);
    recv[b] = finite_median(values);
  }
  for (std::size_t a = 0; a < H; ++a)
    for (std::size_t b = 0; b < H; ++b)
      if (a != b && std::isfinite(send[a]) && std::isfinite(recv[b]))
        model.R[k * HH + a * H + b] = static_cast<float>(change(a, b) - send[a] - recv[b]);
}

// The noise at length k: per class, the robust sigma of the link residuals; of a switch block's
// median; of the host effects (their spread over the hosts, at least what the links' noise leaves
// in a median over H-1 of them); and the intra-host changes (and their spread).
void noise_at(ChangeModel& model, std::size_t k, const PairChange& change) {
  const std::size_t H = model.H, HH = model.HH, NS = model.NS;
  std::vector<double> values, all;
  for (int c = 0; c < model.NC; ++c) {
    values.clear();
    for (std::size_t p = 0; p < HH; ++p)
      if (model.cls[p] == c && p / H != p % H) values.push_back(model.R[k * HH + p]);
    all.insert(all.end(), values.begin(), values.end());
    model.class_sigma[static_cast<std::size_t>(c)][k] = finite_sigma(values);
  }
  const double link_sigma = finite_sigma(all);
  if (NS > 1) {
    std::vector<std::size_t> count(NS, 0);
    for (int g : model.sw) ++count[static_cast<std::size_t>(g)];
    const std::size_t smallest = *std::min_element(count.begin(), count.end());
    model.block_floor[k] = kTuning.median_se_factor * link_sigma / std::sqrt(double(std::max<std::size_t>(1, smallest * smallest)));
  }
  const double floor = std::isfinite(link_sigma) && H > 1 ? kTuning.median_se_factor * link_sigma / std::sqrt(double(H - 1)) : 0.0;
  values.assign(model.send[k].begin(), model.send[k].end());
  model.send_sigma[k] = std::max(finite_sigma(values), floor);
  values.assign(model.recv[k].begin(), model.recv[k].end());
  model.recv_sigma[k] = std::max(finite_sigma(values), floor);
  for (std::size_t a = 0; a < H; ++a) model.intra[k][a] = change(a, a);
  values.assign(model.intra[k].begin(), model.intra[k].end());
  model.intra_sigma[k] = finite_sigma(values);
  // the intra-host class: its hosts' spread
  if (!std::isfinite(model.class_sigma[0][k])) model.class_sigma[0][k] = model.intra_sigma[k];
}

// The change model of every length (lengths in parallel, each writing its own entries).
ChangeModel fit_change_model(const std::vector<float>& log_ratios, const Comparison& out, double min_log) {
  ChangeModel model = empty_change_model(out);
  parallel_for(model.K, [&](std::size_t k0, std::size_t k1) {
    for (std::size_t k = k0; k < k1; ++k) {
      const float* Lk = &log_ratios[k * model.HH];
      const auto shift = class_shifts_at(model, k, Lk, min_log);
      const auto blocks = switch_blocks_at(model, k, Lk, shift);
      const PairChange change{model, Lk, shift, blocks};
      host_effects_at(model, k, change);
      noise_at(model, k, change);
    }
  });
  return model;
}

}  // namespace

Comparison compare_cubes(const Cube& B0, const Cube& C0, const CompareOptions& opt) {
  Comparison out;
  out.baseline = B0.source;
  out.current = C0.source;
  out.mode = C0.mode;
  out.statistic = C0.statistic;
  out.P_baseline = B0.P;
  out.P_current = C0.P;
  require_comparable(B0, C0, opt);
  const auto common = compared_lengths(B0, C0, out);
  const bool same_b = common.baseline.size() == B0.lengths.size(), same_c = common.current.size() == C0.lengths.size();
  std::optional<Cube> Bs, Cs;
  if (!same_b) Bs = restrict_lengths(B0, common.baseline);
  if (!same_c) Cs = restrict_lengths(C0, common.current);
  const Cube& B = same_b ? B0 : *Bs;
  const Cube& C = same_c ? C0 : *Cs;
  if (!same_b || !same_c)
    out.notes.push_back(fmt::format("compared at the {} common lengths ({} has {}, {} has {})", out.lengths.size(),
                                    B0.source, B0.lengths.size(), C0.source, C0.lengths.size()));
  ReportOptions ob = opt.report, oc = opt.report;
  ob.hosts_file = opt.baseline_hosts;
  oc.hosts_file = opt.current_hosts;
  out.base = make_report(B, ob);
  out.cur = make_report(C, oc);
  const auto host_ranks = match_hosts(B, C, out);
  const double min_log = std::log(opt.min_ratio);
  const std::vector<float> log_ratios = host_pair_log_ratios(B, C, out);
  const ChangeModel model = fit_change_model(log_ratios, out, min_log);
  const CompareScan scan{out, opt, model, min_log, bands_of(out.lengths.size(), opt.report.topology.bands)};
  find_class_changes(scan);
  note_noise_floor(out);
  find_node_changes(scan);
  find_switch_block_changes(scan);
  find_link_changes(scan);
  find_missing_and_added_hosts(out, host_ranks);
  find_topology_change(out, log_ratios, min_log);
  find_threshold_changes(out);
  return out;
}

Comparison compare_runs(const std::string& baseline, const std::string& current, const CompareOptions& opt) {
  const std::string fb = compare_input(baseline), fc = compare_input(current);
  const Cube B = load_delays(fb);
  const Cube C = load_delays(fc);
  return compare_cubes(B, C, opt);
}

}  // namespace nt::analysis
