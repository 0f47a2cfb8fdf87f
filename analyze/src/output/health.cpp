#include "nt/analysis/health.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/error.hpp"
#include "nt/analysis/tuning.hpp"
#include "common/text_util.hpp"

namespace nt::analysis {

Completeness run_completeness(const Dataset& d, const std::string& name) {
  const SweepCompleteness s = sweep_completeness(d);
  Completeness c;
  c.stored = s.stored;
  c.planned = s.planned;
  c.empty = d.count() == 0;
  if (c.empty)
    c.line = fmt::format("INCOMPLETE: {} holds no message length: nothing was measured (the run failed or was "
                         "killed at its first length)", name);
  else if (s.cut_short && s.planned > 0)
    c.line = fmt::format("INCOMPLETE: {} holds {} of the {} lengths its run planned: the run was cut short, the "
                         "lengths it did not reach are not checked", name, s.stored, s.planned);
  else if (s.cut_short)
    c.line = fmt::format("INCOMPLETE: {} stops before the last length its run planned ({} B): the run was cut "
                         "short, the lengths it did not reach are not checked", name, d.params().end_length);
  return c;
}

Completeness run_completeness(const std::string& file) {
  std::shared_ptr<const Dataset> d;
  try {
    d = open_dataset(file);
  } catch (const Error&) {
    return {};  // not a delay file: the analysis that follows says what it is (a loggp file: use model)
  }
  return run_completeness(*d, file);
}

Completeness common_lengths_completeness(const Comparison& c, std::size_t baseline_lengths) {
  Completeness out;
  const std::size_t kb = baseline_lengths, common = c.lengths.size();
  out.stored = common;
  out.planned = kb;
  const std::size_t least = kTuning.band_lengths;  // one band of the comparison
  if (common < std::min(least, kb))
    out.line = fmt::format("INCOMPLETE: the runs have {} message length(s) in common of the baseline's {}: too few "
                           "to compare (at least {} are needed: the current run may have been cut short or measured other lengths)",
                           common, kb, least);
  return out;
}

int Health::exit_code() const noexcept {
  // An incomplete run wins over its findings (they are still listed).
  if (!completeness.complete()) return kExitIncomplete;
  return report && !report->anomalies.empty() ? kExitFindings : kExitOk;
}

std::string Health::status() const {
  switch (exit_code()) {
    case kExitOk: return "ok";
    case kExitFindings: return "findings";
    default: return "incomplete";
  }
}

namespace {

// Findings per kind and per host (the names the findings give, else "rank<N>").
struct Tally {
  std::map<std::string, int> kinds;
  std::map<std::string, int> host_findings, host_slow;
};

Tally tally(const Health& h) {
  Tally t;
  if (!h.report) return t;
  for (const auto& a : h.report->anomalies) {
    ++t.kinds[name_of(a.kind)];
    std::set<std::string> named(a.hosts.begin(), a.hosts.end());
    if (named.empty())
      for (int r : a.ranks) named.insert("rank" + std::to_string(r));
    for (const auto& n : named) {
      ++t.host_findings[n];
      if (is_slow(a.kind)) t.host_slow[n] = 1;
    }
  }
  return t;
}

// Every host of the run (so that a healthy host is a 0, not a missing series), then those named.
std::vector<std::string> all_hosts(const Health& h, const Tally& t) {
  std::set<std::string> s;
  if (h.report) {
    s.insert(h.report->hosts.begin(), h.report->hosts.end());
    if (h.report->hosts.empty())
      for (int r = 0; r < h.report->cube.P; ++r) s.insert("rank" + std::to_string(r));
  }
  for (const auto& [n, k] : t.host_findings) s.insert(n);
  return {s.begin(), s.end()};
}

// A label value of the exposition format: backslash, double quote and newline escaped.
std::string label(const std::string& v) {
  std::string o;
  for (char ch : v) {
    if (ch == '\\') o += "\\\\";
    else if (ch == '"') o += "\\\"";
    else if (ch == '\n') o += "\\n";
    else o += ch;
  }
  return o;
}

void metric(std::string& o, const char* name, const char* help) {
  o += fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
}

}  // namespace

std::string summary_line(const Health& h) {
  const Tally t = tally(h);
  std::string o = fmt::format("network_analyze check: status={} findings={}", h.status(),
                              h.report ? h.report->anomalies.size() : 0);
  for (const auto& [kind, n] : t.kinds) o += fmt::format(" {}={}", kind, n);
  std::vector<std::string> named;
  for (const auto& [n, k] : t.host_findings) named.push_back(n);
  o += fmt::format(" hosts={}", named.empty() ? std::string("none") : fmt::format("{}", fmt::join(named, ",")));
  const auto& c = h.completeness;
  o += c.planned > 0 ? fmt::format(" lengths={}/{}", c.stored, c.planned) : fmt::format(" lengths={}", c.stored);
  return o + " file=" + h.file + "\n";
}

std::string prometheus_text(const Health& h) {
  const Tally t = tally(h);
  std::string o;
  metric(o, "network_tests_status", "network_analyze report --check exit code: 0 healthy, 3 findings, 4 incomplete run");
  o += fmt::format("network_tests_status {}\n", h.exit_code());
  metric(o, "network_tests_incomplete", "1 when the run was cut short or measured nothing");
  o += fmt::format("network_tests_incomplete {}\n", h.completeness.complete() ? 0 : 1);
  metric(o, "network_tests_lengths", "message lengths the run holds");
  o += fmt::format("network_tests_lengths {}\n", h.completeness.stored);
  metric(o, "network_tests_findings_total", "findings of network_analyze report");
  o += fmt::format("network_tests_findings_total {}\n", h.report ? h.report->anomalies.size() : 0);
  if (!t.kinds.empty()) metric(o, "network_tests_findings", "findings of network_analyze report per kind");
  for (const auto& [kind, n] : t.kinds) o += fmt::format("network_tests_findings{{kind=\"{}\"}} {}\n", label(kind), n);
  const auto hosts = all_hosts(h, t);
  if (hosts.empty()) return o;
  metric(o, "network_tests_host_findings", "findings that name the host");
  for (const auto& n : hosts)
    o += fmt::format("network_tests_host_findings{{host=\"{}\"}} {}\n", label(n), t.host_findings.count(n) ? t.host_findings.at(n) : 0);
  metric(o, "network_tests_host_slow", "1 when a slow_* finding (slow_node, slow_rank, slow_link...) names the host");
  for (const auto& n : hosts)
    o += fmt::format("network_tests_host_slow{{host=\"{}\"}} {}\n", label(n), t.host_slow.count(n) ? 1 : 0);
  return o;
}

void add_status(nlohmann::json& j, const std::string& status, const Completeness& c) {
  j["status"] = status;
  if (!c.complete()) j["incomplete"] = c.line;
}

std::string html_with_status(std::string html, const Completeness& c) {
  if (c.complete()) return html;
  const std::string p = "<p class=\"incomplete\" style=\"border:2px solid #b00;padding:0.5em;font-weight:bold\">" +
                        text::xml_escape(c.line) + "</p>\n";
  if (html.empty())
    return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>network_analyze: "
           "incomplete run</title>\n</head>\n<body>\n" + p + "</body>\n</html>\n";
  const auto at = html.find("<body>");
  if (at == std::string::npos) return p + html;
  html.insert(at + 6, "\n" + p);
  return html;
}

}  // namespace nt::analysis
