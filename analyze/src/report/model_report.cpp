#include "nt/analysis/model_report.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <sstream>

#include <fmt/format.h>

#include "nt/analysis/fits.hpp"
#include "nt/analysis/report.hpp"
#include "nt/error.hpp"
#include "nt/json_text.hpp"
#include "nt/units.hpp"

namespace nt::analysis {
namespace {

std::string param_text(bool identifiable, const std::string& value) { return identifiable ? value : "not identifiable"; }

}  // namespace

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE(CollectiveRow, length, allgather_ring, allgather_mesh, allgather_hypercube,
                                   alltoall_ring, alltoall_mesh, alltoall_hypercube, allreduce_hypercube,
                                   scatter_gather, reduce_binomial_logp_root, reduce_kchain_k, reduce_kchain)

const ClassParams& pick_class(const std::vector<ClassParams>& ps, const std::string& which) {
  if (ps.empty()) throw Error("no class with data");
  if (which.empty() || which == "auto") {
    const ClassParams* p = &ps.front();
    for (const auto& c : ps)
      if (c.cls > p->cls) p = &c;
    return *p;
  }
  for (const auto& c : ps)
    if (c.name == which) return c;
  std::string names;
  for (const auto& c : ps) names += " " + c.name;
  throw UsageError("--class " + which + ": no such class in the data (have:" + names + ")");
}

ModelReport make_model(const Cube& delays, const LoggpData* loggp, const Cube* bc, const std::string& which,
                       const ModelOptions& opt, const std::vector<std::string>& hosts) {
  ModelReport m;
  m.topology = find_topology(delays, {}, hosts);
  check_node_level(delays, m.topology, !hosts.empty());
  if (!m.topology.nodes_from_hosts) check_node_level_against_hosts(m.topology, compare_with_hosts(m.topology.delay_groups, hosts));
  m.notes = m.topology.notes;
  const HockneyResult hockney = fit_classes_and_pairs(delays, m.topology, {}, nullptr, /*keep_pairs=*/false);
  m.params = class_params(&delays, m.topology, &hockney, loggp, opt);
  for (const auto& p : m.params) m.notes.insert(m.notes.end(), p.notes.begin(), p.notes.end());
  const ClassParams& cp = pick_class(m.params, which);
  m.prediction_class = cp.name;
  m.processes = bc ? bc->P : m.topology.P;
  const auto& lengths = bc ? bc->lengths : delays.lengths;
  Hierarchy hier;
  for (const auto& c : m.params)
    if (c.cls == 0) hier.intra = &c;
  hier.nodes = static_cast<int>(m.topology.levels.front().groups.size());
  for (const auto& g : m.topology.levels.front().groups) hier.per_node = std::max(hier.per_node, static_cast<int>(g.size()));
  if (bc && bc->P != m.topology.P) hier = {};  // the delay file's nodes do not describe the bcast run
  m.bcast = predict_bcast(m.processes, lengths, cp, bc, hier);
  // lambda: copy one byte (intra-node tw); gamma: assumed equal to lambda.
  double lambda = 0;
  for (const auto& p : m.params)
    if (p.cls == 0) lambda = p.hockney_for(1e18).tw;
  if (!std::isfinite(lambda)) lambda = 0;
  const int P = m.processes;
  for (const auto& r : m.bcast) {
    const auto x = static_cast<double>(r.length);
    const Hockney h = cp.hockney_for(x);
    const LogGP& lp = cp.loggp;
    const double a = 2 * lp.o + lp.L_eff(x) + x * lambda, b = lp.o + x * lambda;
    CollectiveRow c;
    c.length = r.length;
    c.allgather_ring = hockney_allgather_ring(P, h, x);
    c.allgather_mesh = hockney_allgather_mesh(P, h, x);
    c.allgather_hypercube = hockney_allgather_hypercube(P, h, x);
    c.alltoall_ring = hockney_alltoall_ring(P, h, x);
    c.alltoall_mesh = hockney_alltoall_mesh(P, h, x);
    c.alltoall_hypercube = hockney_alltoall_hypercube(P, h, x);
    c.allreduce_hypercube = hockney_allreduce_hypercube(P, h, x);
    c.scatter_gather = hockney_scatter(P, h, x);
    c.reduce_binomial_logp_root = logp_binomial_reduce_root(P, lp, x, lambda, lambda);
    c.reduce_kchain_k = b > 0 ? kchain_optimal_k(P, a, b) : 1;
    c.reduce_kchain = b > 0 ? kchain_time(c.reduce_kchain_k, P, a, b) : 0.0;
    m.collectives.push_back(c);
  }
  return m;
}

ModelReport make_model(const ModelRequest& req) {
  for (auto v : {req.options.o, req.options.g})
    if (v && !(*v >= 0)) throw UsageError("--o and --g must not be negative");
  std::optional<LoggpData> loggp;
  std::optional<Cube> delays;
  if (!req.loggp_file.empty()) loggp = read_loggp(req.loggp_file);
  if (!req.delay_file.empty()) {
    delays = open_delays(req.delay_file, false, "the model");  // read one length (or block of rows) at a time
  }
  else if (loggp) delays = cube_from_loggp(*loggp);
  else throw UsageError("give a delay FILE, a --loggp file, or both");
  const auto hosts = hosts_for(*delays, req.hosts_file);
  std::optional<Cube> bc;
  if (!req.bcast_file.empty()) {
    bc = load_delays(req.bcast_file);
    if (bc->mode != Mode::bcast)
      throw FileError(req.bcast_file, fmt::format("is a {} file, --bcast needs a bcast file", mode_name(bc->mode)));
  }
  return make_model(*delays, loggp ? &*loggp : nullptr, bc ? &*bc : nullptr, req.class_name, req.options, hosts);
}

nlohmann::json to_json(const ModelReport& m) {
  nlohmann::json j;
  auto cls = nlohmann::json::array();
  for (const auto& p : m.params) cls.push_back(to_json(p));
  j["classes"] = cls;
  j["groups"] = m.topology.levels.front().groups;
  j["hierarchy"] = hierarchy_json(m.topology);
  j["prediction_class"] = m.prediction_class;
  j["processes"] = m.processes;
  auto br = nlohmann::json::array();
  for (const auto& r : m.bcast)
    br.push_back({{"length", r.length},
                  {"measured", json_number<nlohmann::json>(r.measured, r.measured >= 0)},
                  {"hockney_binomial", r.hockney_binomial},
                  {"hockney_flat", r.hockney_flat},
                  {"logp_binomial", r.logp_binomial},
                  {"logp_flat", r.logp_flat},
                  {"logp_optimal_tree", r.logp_optimal},
                  {"kchain", r.kchain},
                  {"kchain_k", r.kchain_k},
                  {"hierarchical", json_number<nlohmann::json>(r.hierarchical, r.hierarchical >= 0)}});
  j["bcast"] = br;
  j["collectives"] = m.collectives;  // keys: the member names
  j["assumptions"] = "reduce: lambda = gamma = intra-node tw; LogP without a loggp file: o = 0, g = L + 2o unless given";
  j["notes"] = m.notes;
  return j;
}

std::string to_text(const ModelReport& m) {
  std::ostringstream o;
  o << "Parameters per class\n";
  for (const auto& p : m.params) {
    // L + 2o of the model (o = (o_s + o_r)/2 when measured), beside the measured one-way delay of
    // the shortest message; G is the one every output gives (Hockney tw without a loggp file).
    o << fmt::format("  {:<14} L+2o {:>10}  L {:>10}  o {:>10}  g {:>10}  G {:>12}  {}\n", p.name,
                     format_seconds(p.loggp.L + 2 * p.loggp.o), p.separable ? format_seconds(p.loggp.L) : "n/sep",
                     format_seconds(p.loggp.o), format_seconds(p.loggp.g), fmt::format("{:.4g} s/B", p.loggp.G),
                     p.have_loggp ? "(LogGP measured)" : "(o, g assumed; G = Hockney tw)");
    o << fmt::format("  {:<14} one-way delay {} at {}", "", format_seconds(p.t0), format_bytes(p.t0_length));
    if (p.have_loggp)
      o << fmt::format("; o_s {}, o_r {}", format_seconds(p.o_s), p.separable ? format_seconds(p.o_r) : "n/sep");
    o << "\n";
    if (p.have_loggp && !p.gap_ranges.empty()) {
      o << fmt::format("  {:<14} gap max({}, g + G s):", "", format_seconds(p.overhead_bound));
      for (const auto& r : p.gap_ranges)
        o << fmt::format(" {} ..{}: g {} G {:.4g} s/B;", format_bytes(r.from), r.to >= 0 ? " " + format_bytes(r.to) : "",
                         format_seconds(r.g), r.G);
      o << "\n";
    }
    if (p.have_loggp && !p.separable)
      o << fmt::format("  {:<14} L and o_r not separable: L + o_r = {} ({})\n", "", format_seconds(p.L_plus_o_r),
                       p.not_separable_reason);
    for (const auto& rg : p.hockney)
      o << fmt::format("  {:<14} Hockney {} .. {}: ts {} tw {} (rel.rms {:.2f}%, {})\n", "", format_bytes(rg.from),
                       format_bytes(rg.to), param_text(rg.fit.ts_identifiable, format_seconds(rg.fit.ts)),
                       param_text(rg.fit.tw_identifiable, fmt::format("{:.4g} s/B", rg.fit.tw)), 100 * rg.fit.rel_rms,
                       fit_quality(rg.fit.rel_rms));
  }
  o << fmt::format("\nBroadcast on {} processes, {} parameters\n", m.processes, m.prediction_class);
  o << fmt::format("  {:>10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>14} {:>12}\n", "length", "measured",
                   "H.binomial", "H.flat", "LogP binom", "LogP flat", "LogP opt", "k-chain (k)", "hierarchical");
  for (const auto& r : m.bcast)
    o << fmt::format("  {:>10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>10} ({}) {:>12}\n", format_bytes(r.length),
                     r.measured >= 0 ? format_seconds(r.measured) : "-", format_seconds(r.hockney_binomial),
                     format_seconds(r.hockney_flat), format_seconds(r.logp_binomial), format_seconds(r.logp_flat),
                     format_seconds(r.logp_optimal), format_seconds(r.kchain), r.kchain_k,
                     r.hierarchical >= 0 ? format_seconds(r.hierarchical) : "-");
  if (!m.notes.empty()) {
    o << "\nNotes\n";
    for (const auto& n : m.notes) o << "  " << n << "\n";
  }
  return o.str();
}

}  // namespace nt::analysis
