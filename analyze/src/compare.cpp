#include "nt/analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/stats.hpp"
#include "nt/units.hpp"
#include "compare_parts.hpp"
#include "text_util.hpp"

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

// The least noise of a log ratio (0.1 %): data without noise (a simulator's, exact to the last
// digit) has a robust sigma of 0, and a change over 0 is no number (inf or NaN) that a test could
// pass; at this floor min_sigmas asks 0.5 % of a change, so --min-ratio alone decides.
constexpr double kNoiseFloor = 1e-3;

// An effect in sigmas of its noise (at least kNoiseFloor); NaN when either is unknown.
double z_score(double effect, double sigma) {
  return std::isfinite(sigma) ? effect / std::max(sigma, kNoiseFloor) : kNaN;
}

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

// Length bands of the comparison: thirds (at least 3 lengths each), as the topology's.
std::vector<std::pair<std::size_t, std::size_t>> bands_of(std::size_t K) {
  const std::size_t n = std::clamp<std::size_t>(K / 3, 1, 3);
  std::vector<std::pair<std::size_t, std::size_t>> b;
  for (std::size_t i = 0; i < n; ++i) b.emplace_back(K * i / n, K * (i + 1) / n);
  return b;
}

// Per length, an effect (log ratio) and its z-score; decides whether it is a change: at least
// log(min_ratio) and min_sigmas either way, at half of the lengths of some band (at least 2 when
// the band has 2). Returns +1 (slower), -1 (faster) or 0, with the lengths, ratio and sigmas.
struct Decision {
  int sign = 0;
  std::vector<std::size_t> ks;
  double ratio = 1.0, sigmas = 0.0;
};
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

}  // namespace

namespace compare_parts {

int size_change(const std::vector<double>& effect, double min_log) {
  std::vector<double> z(effect.size(), kNaN);
  for (std::size_t k = 0; k < effect.size(); ++k)
    if (std::isfinite(effect[k])) z[k] = effect[k] >= 0 ? 1e9 : -1e9;
  return decide(effect, z, min_log, 1.0, bands_of(effect.size())).sign;
}

}  // namespace compare_parts

namespace {

}  // namespace

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

// The change of each host pair, per length, as class shift + switch block + sender effect +
// receiver effect + link residual, with the noise of each part.
struct ChangeModel {
  std::size_t H = 0, K = 0, HH = 0;  // common hosts, common lengths, host pairs
  int NC = 0;                        // classes
  std::vector<int> cls;              // class of each host pair (baseline's topology, representative ranks)
  std::vector<int> sw;               // switch group of each host (baseline)
  std::size_t NS = 0;                // switch groups
  std::vector<std::vector<double>> class_shift, class_sigma;  // [class][k]
  std::vector<std::vector<double>> send, recv, intra;         // [k][host]
  std::vector<double> send_sigma, recv_sigma, intra_sigma;    // [k]
  std::vector<float> R;                                       // link residuals [k*HH + a*H + b]
  std::vector<std::vector<double>> block;                     // [k][X*NS + Y]: change between switch groups
  std::vector<double> block_floor;  // [k]: noise of a block's median from its links' noise
};

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
      const double tol = 0.5 * min_log;
      std::size_t near_change = 0;
      std::vector<double> unchanged;
      for (double x : links) {
        if (std::fabs(x - class_change) <= tol) ++near_change;
        if (std::fabs(x) <= tol) unchanged.push_back(x);
      }
      if (4 * near_change < 3 * n_links && 4 * unchanged.size() >= n_links) class_change = finite_median(unchanged);
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
    model.block_floor[k] = 1.2533 * link_sigma / std::sqrt(double(std::max<std::size_t>(1, smallest * smallest)));
  }
  const double floor = std::isfinite(link_sigma) && H > 1 ? 1.2533 * link_sigma / std::sqrt(double(H - 1)) : 0.0;
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

// What the detectors of compare_cubes share: the comparison they add to, the options, the fitted
// change model, and the threshold and bands of every decision.
struct CompareScan {
  Comparison& out;
  const CompareOptions& opt;
  const ChangeModel& model;
  double min_log;
  std::vector<std::pair<std::size_t, std::size_t>> bands;
  Decision judge(const std::vector<double>& effect, const std::vector<double>& z) const {
    return decide(effect, z, min_log, opt.min_sigmas, bands);
  }
};

const char* slower_or_faster(int sign) { return sign > 0 ? "slower" : "faster"; }

// The classes (out.classes) and the classes that changed as a whole.
void find_class_changes(const CompareScan& scan) {
  auto& out = scan.out;
  const auto& model = scan.model;
  const std::size_t H = model.H, HH = model.HH;
  for (int c = 0; c < model.NC; ++c) {
    std::size_t host_pairs = 0;
    for (std::size_t p = 0; p < HH; ++p)
      if (model.cls[p] == c && (p / H != p % H || c == 0)) {
        const bool diag = p / H == p % H;
        if (diag && out.ranks_baseline[p / H].size() < 2) continue;
        ++host_pairs;
      }
    if (host_pairs == 0) continue;
    ClassChange change;
    change.name = out.base.topology.class_name(c);
    change.host_pairs = host_pairs;
    const auto& shift = model.class_shift[static_cast<std::size_t>(c)];
    std::vector<double> values = shift;
    const double median_shift = finite_median(values);
    change.ratio = std::isfinite(median_shift) ? std::exp(median_shift) : kNaN;
    values = model.class_sigma[static_cast<std::size_t>(c)];
    const double median_sigma = finite_median(values);
    change.noise = std::isfinite(median_sigma) ? std::expm1(median_sigma) : kNaN;
    out.classes.push_back(change);
    // A whole class changed: judged on its size alone (a shift of every link has no peer to be
    // compared with), at half of the lengths of a band.
    std::vector<double> z(model.K, kNaN);
    for (std::size_t k = 0; k < model.K; ++k) z[k] = std::isfinite(shift[k]) ? (shift[k] >= 0 ? 1e9 : -1e9) : kNaN;
    const Decision decision = scan.judge(shift, z);
    if (decision.sign == 0) continue;
    Finding finding;
    finding.kind = decision.sign > 0 ? FindingKind::class_slower : FindingKind::class_faster;
    finding.ratio = decision.ratio;
    for (std::size_t k : decision.ks) finding.lengths.push_back(out.lengths[k]);
    finding.detail = fmt::format("every {} link is {:.2f}x {} (median over its {} host pairs)", change.name,
                                 decision.sign > 0 ? decision.ratio : 1.0 / decision.ratio,
                                 slower_or_faster(decision.sign), host_pairs);
    out.findings.push_back(finding);
  }
}

// Runs whose change has no noise (exact data, a simulator's): the notes say what decided.
void note_noise_floor(Comparison& out) {
  std::size_t known = 0, quiet = 0;
  for (const auto& x : out.classes)
    if (std::isfinite(x.noise)) ++known, quiet += x.noise < kNoiseFloor ? 1 : 0;
  if (known > 0 && quiet == known)
    out.notes.push_back(fmt::format("the change has less noise than {:g} % (exact data, as a simulator's): that "
                                    "floor is taken as the noise, so --min-ratio alone decides, and sigmas count "
                                    "steps of {:g} %",
                                    100 * kNoiseFloor, 100 * kNoiseFloor));
}

// A node whose sending or receiving effect changed (and what else changed about it).
void describe_node_effect(const CompareScan& scan, std::size_t a, const Decision& ds, const Decision& dr,
                          const Decision& di, Finding& finding) {
  const bool both = ds.sign != 0 && ds.sign == dr.sign;
  const Decision& main = both ? (ds.ks.size() >= dr.ks.size() ? ds : dr) : (ds.sign != 0 ? ds : dr);
  finding.kind = main.sign > 0 ? FindingKind::node_slower : FindingKind::node_faster;
  finding.direction = both ? "both" : (ds.sign != 0 ? "sending" : "receiving");
  finding.ratio = both ? std::sqrt(ds.ratio * dr.ratio) : main.ratio;
  finding.sigmas = both ? std::min(ds.sigmas, dr.sigmas) : main.sigmas;
  std::set<std::size_t> ks(main.ks.begin(), main.ks.end());
  if (both) ks.insert(ds.ks.begin(), ds.ks.end()), ks.insert(dr.ks.begin(), dr.ks.end());
  for (std::size_t k : ks) finding.lengths.push_back(scan.out.lengths[k]);
  finding.detail = fmt::format("node {} is {:.2f}x {} ({}; {:.0f} sigmas of the hosts' noise, at {} of {} lengths)",
                               scan.out.hosts[a], main.sign > 0 ? finding.ratio : 1.0 / finding.ratio,
                               slower_or_faster(main.sign),
                               both ? "sending and receiving"
                                    : (ds.sign != 0 ? "when sending: the links it sends on"
                                                    : "when receiving: the links it receives on"),
                               finding.sigmas, finding.lengths.size(), scan.model.K);
  if (!both && ds.sign != 0 && dr.sign != 0)
    finding.detail += fmt::format("; and {:.2f}x {} when receiving", dr.sign > 0 ? dr.ratio : 1.0 / dr.ratio,
                                  slower_or_faster(dr.sign));
  if (di.sign != 0)
    finding.detail += fmt::format("; its intra-node links {:.2f}x {}", di.sign > 0 ? di.ratio : 1.0 / di.ratio,
                                  slower_or_faster(di.sign));
}

// A node whose links inside it only changed.
void describe_intra_node(const CompareScan& scan, std::size_t a, const Decision& di, Finding& finding) {
  finding.kind = di.sign > 0 ? FindingKind::intra_node_slower : FindingKind::intra_node_faster;
  finding.ratio = di.ratio;
  finding.sigmas = di.sigmas;
  for (std::size_t k : di.ks) finding.lengths.push_back(scan.out.lengths[k]);
  finding.detail = fmt::format("the links inside node {} are {:.2f}x {} ({:.0f} sigmas of the hosts' noise, at {} of "
                               "{} lengths)",
                               scan.out.hosts[a], di.sign > 0 ? di.ratio : 1.0 / di.ratio, slower_or_faster(di.sign),
                               di.sigmas, finding.lengths.size(), scan.model.K);
}

// Nodes whose sender, receiver or intra-node effect changed beyond their peers' (3 hosts or more).
void find_node_changes(const CompareScan& scan) {
  auto& out = scan.out;
  const auto& model = scan.model;
  const std::size_t H = model.H, K = model.K;
  if (H < 3) {
    out.notes.push_back(fmt::format("{} common host(s): nodes cannot be compared with their peers; links and classes "
                                    "only",
                                    H));
    return;
  }
  for (std::size_t a = 0; a < H; ++a) {
    std::vector<double> es(K), zs(K), er(K), zr(K), ei(K), zi(K);
    for (std::size_t k = 0; k < K; ++k) {
      es[k] = model.send[k][a], zs[k] = z_score(model.send[k][a], model.send_sigma[k]);
      er[k] = model.recv[k][a], zr[k] = z_score(model.recv[k][a], model.recv_sigma[k]);
      ei[k] = model.intra[k][a], zi[k] = z_score(model.intra[k][a], model.intra_sigma[k]);
    }
    const Decision ds = scan.judge(es, zs);
    const Decision dr = scan.judge(er, zr);
    const Decision di =
        out.ranks_baseline[a].size() >= 2 && out.ranks_current[a].size() >= 2 ? scan.judge(ei, zi) : Decision{};
    if (ds.sign == 0 && dr.sign == 0 && di.sign == 0) continue;
    Finding finding;
    add_host(finding, out, a);
    if (ds.sign != 0 || dr.sign != 0) describe_node_effect(scan, a, ds, dr, di, finding);
    else describe_intra_node(scan, a, di, finding);
    out.findings.push_back(finding);
  }
}

// The switch blocks that changed, and the hosts of each switch group.
struct SwitchBlocks {
  std::map<std::pair<std::size_t, std::size_t>, Decision> flagged;  // (X, Y) -> its change
  std::vector<std::vector<std::size_t>> members;                    // hosts per switch group
  std::set<std::size_t> present;                                    // groups with hosts

  // The hosts of group X, for the text.
  std::string names_of(const Comparison& out, std::size_t X) const {
    std::vector<std::string> names;
    for (std::size_t a : members[X]) names.push_back(out.hosts[a]);
    return host_list(names, 4);
  }
  // One finding of the blocks `taken` (removed from flagged): median ratio and sigmas, their lengths.
  Finding take(const Comparison& out, const std::vector<std::pair<std::size_t, std::size_t>>& taken, int sign) {
    Finding finding;
    std::vector<double> ratios, sigmas;
    std::set<std::size_t> ks;
    for (auto xy : taken) {
      const Decision& decision = flagged.at(xy);
      ratios.push_back(decision.ratio);
      sigmas.push_back(decision.sigmas);
      ks.insert(decision.ks.begin(), decision.ks.end());
      flagged.erase(xy);
    }
    finding.ratio = median_inplace(ratios);
    finding.sigmas = median_inplace(sigmas);
    for (std::size_t k : ks) finding.lengths.push_back(out.lengths[k]);
    finding.kind = sign > 0 ? FindingKind::switch_link_slower : FindingKind::switch_link_faster;
    return finding;
  }
};

SwitchBlocks flag_switch_blocks(const CompareScan& scan) {
  const auto& model = scan.model;
  const std::size_t NS = model.NS, K = model.K;
  SwitchBlocks blocks;
  for (std::size_t X = 0; X < NS; ++X)
    for (std::size_t Y = 0; Y < NS; ++Y) {
      if (X == Y) continue;
      std::vector<double> effect(K), z(K);
      for (std::size_t k = 0; k < K; ++k)
        effect[k] = model.block[k][X * NS + Y], z[k] = z_score(effect[k], model.block_floor[k]);
      const Decision decision = scan.judge(effect, z);
      if (decision.sign != 0) blocks.flagged[{X, Y}] = decision;
    }
  blocks.members.resize(NS);
  for (std::size_t a = 0; a < model.H; ++a) blocks.members[static_cast<std::size_t>(model.sw[a])].push_back(a);
  for (std::size_t X = 0; X < NS; ++X)
    if (!blocks.members[X].empty()) blocks.present.insert(X);
  return blocks;
}

// A switch group whose links to every other group changed alike (3 groups or more): its uplink.
void find_switch_uplink_changes(const CompareScan& scan, SwitchBlocks& blocks) {
  auto& out = scan.out;
  const auto& present = blocks.present;
  for (std::size_t X : present) {
    if (present.size() < 3) break;
    int sign = 0;
    bool all = true;
    for (std::size_t Y : present) {
      if (Y == X) continue;
      for (auto xy : {std::pair{X, Y}, std::pair{Y, X}}) {
        const auto it = blocks.flagged.find(xy);
        if (it == blocks.flagged.end() || (sign != 0 && it->second.sign != sign)) all = false;
        else sign = it->second.sign;
      }
    }
    if (!all) continue;
    std::vector<std::pair<std::size_t, std::size_t>> taken;
    for (std::size_t Y : present)
      if (Y != X) taken.emplace_back(X, Y), taken.emplace_back(Y, X);
    Finding finding = blocks.take(out, taken, sign);
    finding.kind = sign > 0 ? FindingKind::switch_slower : FindingKind::switch_faster;
    finding.direction = "both";
    for (std::size_t a : blocks.members[X]) add_host(finding, out, a);
    finding.detail = fmt::format("every link between the switch group of {} and the other {} group(s) is {:.2f}x {} "
                                 "(median {:.0f} sigmas): that switch or its uplink",
                                 blocks.names_of(out, X), present.size() - 1,
                                 sign > 0 ? finding.ratio : 1.0 / finding.ratio, slower_or_faster(sign),
                                 finding.sigmas);
    out.findings.push_back(finding);
  }
}

// The links between two switch groups that changed, one direction or both.
void find_switch_pair_changes(const CompareScan& scan, SwitchBlocks& blocks) {
  auto& out = scan.out;
  while (!blocks.flagged.empty()) {
    const auto [X, Y] = blocks.flagged.begin()->first;
    const int sign = blocks.flagged.begin()->second.sign;
    const auto back = blocks.flagged.find({Y, X});
    const bool both = back != blocks.flagged.end() && back->second.sign == sign;
    std::vector<std::pair<std::size_t, std::size_t>> taken{{X, Y}};
    if (both) taken.emplace_back(Y, X);
    Finding finding = blocks.take(out, taken, sign);
    finding.direction = both ? "both" : "one-way";
    for (std::size_t a : blocks.members[X]) add_host(finding, out, a);
    for (std::size_t a : blocks.members[Y]) add_host(finding, out, a);
    finding.detail = fmt::format("the links from the switch group of {} {} that of {} are {:.2f}x {} ({}; median "
                                 "{:.0f} sigmas): the switches or the path between them",
                                 blocks.names_of(out, X), both ? "to and from" : "to", blocks.names_of(out, Y),
                                 sign > 0 ? finding.ratio : 1.0 / finding.ratio, slower_or_faster(sign),
                                 both ? "both directions" : "this direction only", finding.sigmas);
    out.findings.push_back(finding);
  }
}

// The links between two switch groups that changed beyond the class shift.
void find_switch_block_changes(const CompareScan& scan) {
  if (scan.model.NS <= 1) return;
  auto blocks = flag_switch_blocks(scan);
  find_switch_uplink_changes(scan, blocks);
  find_switch_pair_changes(scan, blocks);
}

// The host links whose residual changed beyond their class's noise, per direction.
std::map<std::pair<std::size_t, std::size_t>, Decision> flag_links(const CompareScan& scan) {
  const auto& model = scan.model;
  const std::size_t H = model.H, K = model.K, HH = model.HH;
  std::map<std::pair<std::size_t, std::size_t>, Decision> links;
  for (std::size_t a = 0; a < H; ++a)
    for (std::size_t b = 0; b < H; ++b) {
      if (a == b) continue;
      const int c = model.cls[a * H + b];
      std::vector<double> effect(K), z(K);
      for (std::size_t k = 0; k < K; ++k) {
        effect[k] = model.R[k * HH + a * H + b];
        z[k] = z_score(effect[k], model.class_sigma[static_cast<std::size_t>(c)][k]);
      }
      const Decision decision = scan.judge(effect, z);
      if (decision.sign != 0) links[{a, b}] = decision;
    }
  return links;
}

// Links that changed beyond what their nodes explain (3 hosts or more): one finding per link,
// both directions together when they changed alike; the first max_links listed.
void find_link_changes(const CompareScan& scan) {
  auto& out = scan.out;
  const std::size_t H = scan.model.H;
  if (H < 3) return;
  const auto links = flag_links(scan);
  std::vector<Finding> found;
  for (const auto& [ab, decision] : links) {
    const auto [a, b] = ab;
    const auto back = links.find({b, a});
    const bool both = back != links.end() && back->second.sign == decision.sign;
    if (both && b < a) continue;  // reported with (b, a)
    Finding finding;
    finding.kind = decision.sign > 0 ? FindingKind::link_slower : FindingKind::link_faster;
    finding.direction = both ? "both" : "one-way";
    add_host(finding, out, a);
    add_host(finding, out, b);
    finding.ratio = both ? std::sqrt(decision.ratio * back->second.ratio) : decision.ratio;
    finding.sigmas = both ? std::min(decision.sigmas, back->second.sigmas) : decision.sigmas;
    std::set<std::size_t> ks(decision.ks.begin(), decision.ks.end());
    if (both) ks.insert(back->second.ks.begin(), back->second.ks.end());
    for (std::size_t k : ks) finding.lengths.push_back(out.lengths[k]);
    finding.detail = fmt::format("link {} {} {} is {:.2f}x {} ({}; beyond what its nodes explain; {:.0f} sigmas of "
                                 "the {} links' noise, at {} of {} lengths)",
                                 out.hosts[a], both ? "<->" : "->", out.hosts[b],
                                 decision.sign > 0 ? finding.ratio : 1.0 / finding.ratio,
                                 slower_or_faster(decision.sign), both ? "both directions" : "this direction only",
                                 finding.sigmas, out.base.topology.class_name(scan.model.cls[a * H + b]),
                                 finding.lengths.size(), scan.model.K);
    found.push_back(std::move(finding));
  }
  const std::size_t max_links = scan.opt.report.anomalies.max_links;
  for (std::size_t q = 0; q < found.size() && q < max_links; ++q) out.findings.push_back(std::move(found[q]));
  if (found.size() > max_links)
    out.notes.push_back(fmt::format("{} changed links, the first {} listed", found.size(), max_links));
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
  const CompareScan scan{out, opt, model, min_log, bands_of(out.lengths.size())};
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
