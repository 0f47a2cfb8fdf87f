// network_analyze compare, the hosts: the common hosts of the two runs (matched by name, or by rank
// number), the hosts of one run only, hosts on another switch, the protocol thresholds (from the
// two reports), and a comparison as text and JSON. compare.cpp finds the changes of delay.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/analysis/tuning.hpp"
#include "compare_parts.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/json_text.hpp"
#include "nt/hosts.hpp"
#include "nt/units.hpp"
#include "common/text_util.hpp"

namespace nt::analysis {

namespace {

using namespace compare_parts;
using text::lengths_text;
using json = nlohmann::json;

std::string ranks_text(const std::vector<int>& r, std::size_t max = 12) { return text::ranks_text(r, max); }

// Where one run or both have no host names (match.by is not By::host): refuses unless the rank
// counts are equal and the node groups found in the delays agree (the placement may differ
// otherwise), and notes how the ranks were matched.
void check_match_by_number(const Cube& B, const Cube& C, Comparison& out, const nt::HostMatch& match) {
  const bool none_b = out.base.hosts.empty(), none_c = out.cur.hosts.empty();
  const std::string which = none_b && none_c ? "neither run has" : (none_b ? B.source : C.source) + " has no";
  if (match.by == nt::HostMatch::By::none)
    throw UsageError(fmt::format("{} host names (no <prefix>_hosts.txt) and the runs have {} and {} ranks: ranks "
                                 "cannot be matched; give --baseline-hosts / --current-hosts",
                                 which, B.P, C.P));
  if (partition_of(out.base.topology.levels.front().group_of) != partition_of(out.cur.topology.levels.front().group_of))
    throw UsageError(fmt::format("{} host names and the node groups of the two runs differ: the placement may "
                                 "differ, so ranks cannot be matched by number; give --baseline-hosts / "
                                 "--current-hosts",
                                 which));
  if (none_b && none_c)
    out.notes.push_back("no host names in either run: ranks matched by number, the node groups found in the "
                        "delays (the same in both runs) stand for the hosts");
  else
    out.notes.push_back(fmt::format("{} host names: ranks matched by number (the node groups found in the "
                                    "delays are the same in both runs)",
                                    which));
}

}  // namespace

namespace compare_parts {

// Host -> group at one level of a report's topology (the group of the host's first rank).
static std::vector<int> host_groups_at(const Topology& t, std::size_t level, const std::vector<std::vector<int>>& ranks) {
  std::vector<int> g;
  for (const auto& r : ranks) g.push_back(t.levels[level].group_of[static_cast<std::size_t>(r.front())]);
  return g;
}

std::vector<int> switch_partition(const Topology& t, const std::vector<std::vector<int>>& ranks) {
  const std::size_t H = ranks.size();
  for (std::size_t l = 0; l < t.levels.size(); ++l) {
    const auto g = host_groups_at(t, l, ranks);
    const std::set<int> distinct(g.begin(), g.end());
    if (distinct.size() == H) continue;  // the node level: every host its own group
    if (distinct.size() <= 1) break;
    return g;
  }
  return std::vector<int>(H, 0);
}

std::vector<std::vector<int>> partition_of(const std::vector<int>& labels) {
  std::map<int, std::vector<int>> m;
  for (std::size_t i = 0; i < labels.size(); ++i) m[labels[i]].push_back(static_cast<int>(i));
  std::vector<std::vector<int>> p;
  for (auto& [l, v] : m) p.push_back(std::move(v));
  std::sort(p.begin(), p.end());
  return p;
}

std::string host_list(const std::vector<std::string>& h, std::size_t max) {
  if (h.size() <= max) return fmt::format("{}", fmt::join(h, ","));
  std::vector<std::string> head(h.begin(), h.begin() + static_cast<std::ptrdiff_t>(max));
  return fmt::format("{},... ({} hosts)", fmt::join(head, ","), h.size());
}

// The common hosts of the two runs with their ranks in each (out.hosts, ranks_baseline,
// ranks_current), the hosts of one run only (out.missing, out.added): nt::match_hosts, the rule
// the viewer follows too; without host names the node groups of the baseline name the hosts.
nt::HostMatch match_hosts(const Cube& B, const Cube& C, Comparison& out) {
  std::vector<std::string> stand_in;
  for (int g : out.base.topology.levels.front().group_of) stand_in.push_back(fmt::format("group{}", g));
  const nt::HostMatch match = nt::match_hosts(out.base.hosts, B.P, out.cur.hosts, C.P, stand_in);
  out.by_host = match.by == nt::HostMatch::By::host;
  if (!out.by_host) check_match_by_number(B, C, out, match);
  out.missing = match.only_a;
  out.added = match.only_b;
  for (const auto& host : match.common) {
    out.hosts.push_back(host);
    out.ranks_baseline.push_back(match.ranks_a.at(host));
    out.ranks_current.push_back(match.ranks_b.at(host));
    if (out.ranks_baseline.back() != out.ranks_current.back()) out.placement_differs = true;
  }
  if (out.hosts.empty())
    throw UsageError(fmt::format("{} and {} have no host in common ({} vs {})", B.source, C.source,
                                 host_list(out.missing, 3), host_list(out.added, 3)));
  if (out.placement_differs) out.notes.push_back("the rank placement differs: ranks matched through the host names");
  for (std::size_t a = 0; a < out.hosts.size(); ++a)
    if (out.ranks_baseline[a].size() != out.ranks_current[a].size()) {
      out.notes.push_back("some hosts hold a different number of ranks in the two runs: compared by the median over "
                          "their rank pairs");
      break;
    }
  return match;
}

// The hosts of one run only.
void find_missing_and_added_hosts(Comparison& out, const nt::HostMatch& host_ranks) {
  for (const auto& host : out.missing) {
    Finding finding;
    finding.kind = FindingKind::node_missing;
    finding.hosts = {host};
    finding.ranks_baseline = host_ranks.ranks_a.at(host);
    finding.detail = fmt::format("node {} ({} ranks in the baseline) is not in the current run", host,
                                 finding.ranks_baseline.size());
    out.findings.push_back(finding);
  }
  for (const auto& host : out.added) {
    Finding finding;
    finding.kind = FindingKind::node_added;
    finding.hosts = {host};
    finding.ranks_current = host_ranks.ranks_b.at(host);
    finding.detail =
        fmt::format("node {} ({} ranks) is new in the current run", host, finding.ranks_current.size());
    out.findings.push_back(finding);
  }
}

}  // namespace compare_parts

namespace {

// Hosts in a delay finding (node, link or switch): their own switch group may come from that
// change (a changed node or link looks like a host behind a switch of its own).
std::vector<char> hosts_in_delay_findings(const Comparison& out) {
  const std::size_t H = out.hosts.size();
  std::vector<char> in_delay_finding(H, 0);
  for (const auto& finding : out.findings)
    if (is_host_change(finding.kind))
      for (const auto& host : finding.hosts)
        for (std::size_t a = 0; a < H; ++a)
          if (out.hosts[a] == host) in_delay_finding[a] = 1;
  return in_delay_finding;
}

// The other common hosts in the group of host a.
std::vector<std::string> group_mates(const Comparison& out, const std::vector<int>& part, std::size_t a) {
  std::vector<std::string> mates;
  for (std::size_t x = 0; x < out.hosts.size(); ++x)
    if (x != a && part[x] == part[a]) mates.push_back(out.hosts[x]);
  return mates;
}

// Whether the delays show host a's move between the switch groups sb (baseline) and sc (now): per
// length, its links to the hosts it left changed against its other links (slower), or its links
// to the hosts it joined (faster), by min_ratio at half of the lengths of one band (medians of
// the host pairs' log ratios, both directions). Two reports may group the same network apart
// (one missed a switch level): then the host's links changed alike, or not at all.
bool delays_show_move(const Comparison& out, const std::vector<float>& log_ratios, const std::vector<int>& sb,
                      const std::vector<int>& sc, std::size_t a, double min_log) {
  const std::size_t H = out.hosts.size(), K = out.lengths.size(), HH = H * H;
  std::vector<double> slower(K, kNaN), faster(K, kNaN), left, joined, kept;
  for (std::size_t k = 0; k < K; ++k) {
    left.clear(), joined.clear(), kept.clear();
    for (std::size_t b = 0; b < H; ++b) {
      if (b == a) continue;
      const bool before = sb[a] == sb[b], now = sc[a] == sc[b];
      auto& into = before && !now ? left : (!before && now ? joined : kept);
      for (std::size_t p : {a * H + b, b * H + a}) into.push_back(log_ratios[k * HH + p]);
    }
    const double base = kept.empty() ? 0.0 : finite_median(kept);
    if (!left.empty()) slower[k] = finite_median(left) - base;
    if (!joined.empty()) faster[k] = base - finite_median(joined);
  }
  const int bands = out.base.options.topology.bands;
  return size_change(slower, min_log, bands) > 0 || size_change(faster, min_log, bands) > 0;
}

// The moved hosts as findings: one node_moved each when they are a quarter of the hosts or less,
// else one topology_changed. Returns their names.
std::set<std::string> report_moved_hosts(Comparison& out, const std::vector<int>& sb, const std::vector<int>& sc,
                                         const std::vector<std::size_t>& moved) {
  const std::size_t H = out.hosts.size();
  std::set<std::string> moved_hosts;
  if (!moved.empty() && static_cast<double>(moved.size()) <= kTuning.moved_hosts_share * static_cast<double>(H)) {
    for (std::size_t a : moved) {
      Finding finding;
      finding.kind = FindingKind::node_moved;
      add_host(finding, out, a);
      moved_hosts.insert(out.hosts[a]);
      const auto old_mates = group_mates(out, sb, a), new_mates = group_mates(out, sc, a);
      finding.detail = fmt::format("node {} is on another switch: with {} in the baseline, with {} now (switch "
                                   "groups found in the delays)",
                                   out.hosts[a], old_mates.empty() ? "no other host" : host_list(old_mates, 4),
                                   new_mates.empty() ? "no other host" : host_list(new_mates, 4));
      out.findings.push_back(finding);
    }
  } else if (!moved.empty()) {
    Finding finding;
    finding.kind = FindingKind::topology_changed;
    for (std::size_t a : moved) add_host(finding, out, a), moved_hosts.insert(out.hosts[a]);
    finding.detail = fmt::format("the switch groups differ: {} group(s) of hosts in the baseline, {} now; {} of {} "
                                 "hosts are in another group (switch groups found in the delays)",
                                 partition_of(sb).size(), partition_of(sc).size(), moved.size(), H);
    out.findings.push_back(finding);
  }
  return moved_hosts;
}

}  // namespace

namespace compare_parts {

// The switch groups of the common hosts differ between the runs (3 hosts or more, matched by
// name): the hosts that moved, or the whole topology.
void find_topology_change(Comparison& out, const std::vector<float>& log_ratios, double min_log) {
  const std::size_t H = out.hosts.size();
  if (H < 3 || !out.by_host) return;
  const auto sb = switch_partition(out.base.topology, out.ranks_baseline);
  const auto sc = switch_partition(out.cur.topology, out.ranks_current);
  if (partition_of(sb) == partition_of(sc)) return;
  // Each baseline switch maps to the current group holding most of its hosts; a host elsewhere moved.
  std::map<int, std::map<int, int>> overlap;
  for (std::size_t a = 0; a < H; ++a) ++overlap[sb[a]][sc[a]];
  std::map<int, int> image;
  for (const auto& [group, counts] : overlap)
    image[group] =
        std::max_element(counts.begin(), counts.end(), [](auto& x, auto& y) { return x.second < y.second; })->first;
  const auto in_delay_finding = hosts_in_delay_findings(out);
  // A host in another group moved when it joined other hosts' group, or when nothing else
  // changed about it; alone now and slower or faster, it is explained by that change.
  std::vector<std::size_t> moved, explained, not_shown;
  for (std::size_t a = 0; a < H; ++a) {
    if (sc[a] == image[sb[a]]) continue;
    if (group_mates(out, sc, a).empty() && in_delay_finding[a]) explained.push_back(a);
    else if (!delays_show_move(out, log_ratios, sb, sc, a, min_log)) not_shown.push_back(a);
    else moved.push_back(a);
  }
  const auto moved_hosts = report_moved_hosts(out, sb, sc, moved);
  // The links of a moved host changed class: they are the move, not findings of their own.
  const auto before = out.findings.size();
  std::erase_if(out.findings, [&](const Finding& finding) {
    if (!is_link_change(finding.kind)) return false;
    return std::any_of(finding.hosts.begin(), finding.hosts.end(),
                       [&](const std::string& host) { return moved_hosts.count(host) > 0; });
  });
  if (out.findings.size() < before)
    out.notes.push_back(fmt::format("{} changed link(s) of the moved host(s) are part of the move, not listed",
                                    before - out.findings.size()));
  if (!not_shown.empty()) {
    std::vector<std::string> names;
    for (std::size_t a : not_shown) names.push_back(out.hosts[a]);
    out.notes.push_back(fmt::format("the switch groups of {} differ between the two reports, but the delays of their "
                                    "links did not change as a move would change them: the reports group the same "
                                    "network apart (one found a switch level the other did not); not reported as a "
                                    "move",
                                    host_list(names)));
  }
  if (!explained.empty()) {
    std::vector<std::string> names;
    for (std::size_t a : explained) names.push_back(out.hosts[a]);
    out.notes.push_back(fmt::format("the switch groups of {} differ between the runs; not reported as a move: "
                                    "the host is alone in its group now and its node or links changed speed (a "
                                    "changed node or link looks like a host behind a switch of its own)",
                                    host_list(names)));
  }
}

// The protocol thresholds, per class present in both runs.
void find_threshold_changes(Comparison& out) {
  auto names = [](const std::vector<std::int64_t>& lengths) {
    if (lengths.empty()) return std::string("none");
    std::vector<std::string> texts;
    for (auto length : lengths) texts.push_back(format_bytes(length));
    return fmt::format("{}", fmt::join(texts, ", "));
  };
  for (const auto& fb : out.base.hockney.classes) {
    const ClassFit* fc = nullptr;
    for (const auto& x : out.cur.hockney.classes)
      if (x.name == fb.name) fc = &x;
    if (!fc) continue;
    std::vector<std::int64_t> lb, lc;
    for (const auto& threshold : fb.thresholds) lb.push_back(threshold.length);
    for (const auto& threshold : fc->thresholds) lc.push_back(threshold.length);
    if (lb == lc) continue;
    Finding finding;
    finding.kind = FindingKind::threshold_changed;
    std::set<std::int64_t> all(lb.begin(), lb.end());
    all.insert(lc.begin(), lc.end());
    finding.lengths.assign(all.begin(), all.end());
    finding.detail =
        fmt::format("{} protocol threshold(s): {} in the baseline, {} now", fb.name, names(lb), names(lc));
    out.findings.push_back(finding);
  }
}

}  // namespace compare_parts

nlohmann::json to_json(const Comparison& c) {
  nlohmann::json j;
  j["program"] = "network_analyze";
  j["command"] = "compare";
  j["version"] = version_string();
  j["baseline"] = c.baseline;
  j["current"] = c.current;
  j["mode"] = std::string(mode_name(c.mode));
  j["statistic"] = std::string(statistic_name(c.statistic));
  j["ranks"] = {{"baseline", c.P_baseline}, {"current", c.P_current}};
  j["matched_by"] = c.by_host ? "host names" : "rank numbers";
  j["placement_differs"] = c.placement_differs;
  j["lengths"] = c.lengths;
  auto hosts = nlohmann::json::array();
  for (std::size_t a = 0; a < c.hosts.size(); ++a)
    hosts.push_back({{"host", c.hosts[a]}, {"ranks_baseline", c.ranks_baseline[a]}, {"ranks_current", c.ranks_current[a]}});
  j["hosts"] = {{"common", hosts}, {"missing", c.missing}, {"added", c.added}};
  auto cl = nlohmann::json::array();
  for (const auto& x : c.classes)
    cl.push_back({{"class", x.name},
                  {"host_pairs", x.host_pairs},
                  {"ratio", json_number<json>(x.ratio)},
                  {"noise", json_number<json>(x.noise)}});
  j["classes"] = cl;
  auto fs = nlohmann::json::array();
  for (const auto& f : c.findings) {
    nlohmann::json x{{"kind", name_of(f.kind)},
                     {"hosts", f.hosts},
                     {"ranks_baseline", f.ranks_baseline},
                     {"ranks_current", f.ranks_current},
                     {"ratio", json_number<json>(f.ratio)},
                     {"sigmas", json_number<json>(f.sigmas)},
                     {"lengths", f.lengths},
                     {"detail", f.detail}};
    if (!f.direction.empty()) x["direction"] = f.direction;
    fs.push_back(x);
  }
  j["findings"] = fs;
  j["topology"] = {{"baseline", hierarchy_json(c.base.topology)}, {"current", hierarchy_json(c.cur.topology)}};
  j["notes"] = c.notes;
  return j;
}

std::string to_text(const Comparison& c) {
  std::ostringstream o;
  o << fmt::format("network_analyze compare\n  baseline {} ({} ranks)\n  current  {} ({} ranks)\n", c.baseline,
                   c.P_baseline, c.current, c.P_current);
  o << fmt::format("  mode {}, statistic {}, {} common lengths {}\n", mode_name(c.mode), statistic_name(c.statistic),
                   c.lengths.size(), lengths_text(c.lengths));
  o << fmt::format("  {} common host(s), ranks matched by {}{}", c.hosts.size(), c.by_host ? "host name" : "rank number",
                   c.placement_differs ? " (the placement differs)" : "");
  if (!c.missing.empty()) o << fmt::format("; missing now: {}", host_list(c.missing));
  if (!c.added.empty()) o << fmt::format("; new: {}", host_list(c.added));
  o << "\n\n";
  o << "Classes (current / baseline, median over the lengths; noise = robust sigma of the links' change)\n";
  for (const auto& x : c.classes)
    o << fmt::format("  {:<16} {:>6} host pairs  ratio {:.3f}  noise {:.1f}%\n", x.name, x.host_pairs, x.ratio,
                     100 * x.noise);
  o << "\nFindings";
  if (c.findings.empty()) o << ": none (nothing changed beyond the runs' noise)\n";
  else o << fmt::format(" ({})\n", c.findings.size());
  for (const auto& f : c.findings) {
    o << fmt::format("  {:<18}", name_of(f.kind));
    // Up to 4 hosts: each with its ranks in the current run (and in the baseline when they differ).
    std::map<std::string, std::size_t> index;
    for (std::size_t a = 0; a < c.hosts.size(); ++a) index[c.hosts[a]] = a;
    const bool per_host = !f.hosts.empty() && f.hosts.size() <= 4 &&
                          std::all_of(f.hosts.begin(), f.hosts.end(), [&](const std::string& h) { return index.count(h); });
    if (per_host) {
      std::vector<std::string> parts;
      for (const auto& h : f.hosts) {
        const auto& now = c.ranks_current[index[h]];
        const auto& then = c.ranks_baseline[index[h]];
        parts.push_back(now == then ? fmt::format("{} (ranks {})", h, ranks_text(now))
                                    : fmt::format("{} (ranks now {}; baseline {})", h, ranks_text(now), ranks_text(then)));
      }
      o << fmt::format(" {}", fmt::join(parts, ", "));
    } else {
      if (!f.hosts.empty()) o << fmt::format(" hosts {}", host_list(f.hosts));
      else if (is_class_change(f.kind) || f.kind == FindingKind::threshold_changed) o << " (a whole class)";
      if (!f.ranks_current.empty()) o << fmt::format("  ranks now {}", ranks_text(f.ranks_current));
      if (!f.ranks_baseline.empty() && (f.ranks_baseline != f.ranks_current))
        o << fmt::format("  (baseline {})", ranks_text(f.ranks_baseline));
    }
    o << fmt::format("\n  {:<18} {}; lengths {}\n", "", f.detail, lengths_text(f.lengths));
  }
  if (!c.notes.empty()) {
    o << "\nNotes\n";
    for (const auto& n : c.notes) o << "  " << n << "\n";
  }
  return o.str();
}

}  // namespace nt::analysis
