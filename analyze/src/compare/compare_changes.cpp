// The changes `network_analyze compare` reports from the change model of compare.cpp: classes that
// changed as a whole, nodes (sending, receiving, inside), switch groups (an uplink, the path
// between two groups) and links, each judged against its peers' noise (decide).
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "nt/analysis/tuning.hpp"
#include "nt/stats.hpp"
#include "compare_parts.hpp"

namespace nt::analysis::compare_parts {

namespace {

// An effect in sigmas of its noise (at least kTuning.compare_noise_floor: data without noise, a
// simulator's, exact to the last digit, has a robust sigma of 0, and a change over 0 is no number
// that a test could pass; at this floor min_sigmas asks 0.5 % of a change, so --min-ratio alone
// decides); NaN when either is unknown.
double z_score(double effect, double sigma) {
  return std::isfinite(sigma) ? effect / std::max(sigma, kTuning.compare_noise_floor) : kNaN;
}

const char* slower_or_faster(int sign) { return sign > 0 ? "slower" : "faster"; }

}  // namespace

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
    if (std::isfinite(x.noise)) ++known, quiet += x.noise < kTuning.compare_noise_floor ? 1 : 0;
  if (known > 0 && quiet == known)
    out.notes.push_back(fmt::format("the change has less noise than {:g} % (exact data, as a simulator's): that "
                                    "floor is taken as the noise, so --min-ratio alone decides, and sigmas count "
                                    "steps of {:g} %",
                                    100 * kTuning.compare_noise_floor, 100 * kTuning.compare_noise_floor));
}

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

// The links between two switch groups that changed beyond the class shift.
void find_switch_block_changes(const CompareScan& scan) {
  if (scan.model.NS <= 1) return;
  auto blocks = flag_switch_blocks(scan);
  find_switch_uplink_changes(scan, blocks);
  find_switch_pair_changes(scan, blocks);
}

namespace {

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

}  // namespace

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

}  // namespace nt::analysis::compare_parts
