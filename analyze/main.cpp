// network_analyze: topology, anomalies, protocol thresholds, Hockney/LogP/LogGP parameters,
// collective predictions and exports, from the files network_test writes.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "nt/json_text.hpp"
#include "nt/output.hpp"
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/report.hpp"
#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/loggp.hpp"
#include "nt/units.hpp"

namespace na = nt::analysis;

namespace {

void write_out(const std::string& path, const std::string& text, bool force) {
  if (path.empty() || path == "-") {
    std::cout << text;
    return;
  }
  nt::write_file_atomically(path, force, [&](std::ostream& f) { f << text; });
}

// Checked before the (possibly long) analysis: the output may be written, and is no input.
void check_out(const std::string& path, bool force, const std::vector<std::filesystem::path>& inputs) {
  if (path.empty() || path == "-") return;
  nt::check_output(path, force);
  nt::refuse_same_file(path, inputs);
}

struct ModelInputs {
  std::optional<na::Cube> delays;
  std::optional<nt::LoggpData> loggp;
  na::Topology topology;
  na::HockneyResult hockney;
  std::vector<na::ClassParams> params;
  std::vector<std::string> hosts;
};

ModelInputs model_inputs(const std::string& file, const std::string& loggp_file, const na::ModelOptions& mo,
                         const std::string& hosts_file) {
  ModelInputs in;
  if (!loggp_file.empty()) in.loggp = nt::read_loggp(loggp_file);
  if (!file.empty()) in.delays = na::load_delays(file);
  else if (in.loggp) in.delays = na::cube_from_loggp(*in.loggp);
  else throw nt::UsageError("give a delay FILE, a --loggp file, or both");
  in.hosts = na::hosts_for(*in.delays, hosts_file);
  in.topology = na::find_topology(*in.delays);
  in.hockney = na::fit_classes_and_pairs(*in.delays, in.topology);
  in.params = na::class_params(&*in.delays, in.topology, &in.hockney, in.loggp ? &*in.loggp : nullptr, mo);
  return in;
}

const na::ClassParams& pick_class(const std::vector<na::ClassParams>& ps, const std::string& which) {
  if (ps.empty()) throw nt::Error("no class with data");
  if (which.empty() || which == "auto") {
    const na::ClassParams* p = &ps.front();
    for (const auto& c : ps)
      if (c.cls > p->cls) p = &c;
    return *p;
  }
  for (const auto& c : ps)
    if (c.name == which) return c;
  std::string names;
  for (const auto& c : ps) names += " " + c.name;
  throw nt::UsageError("--class " + which + ": no such class in the data (have:" + names + ")");
}

int run(int argc, char** argv) {
  CLI::App app{"network_analyze: topology, anomalies, thresholds, Hockney/LogP/LogGP parameters, predictions, exports"};
  app.name("network_analyze");
  app.set_version_flag("--version", std::string(nt::version_string()));
  app.require_subcommand(1);
  std::size_t n_threads = 0;
  app.add_option("--threads", n_threads,
                 "threads of the analysis (default: the CPUs this process may run on, from its affinity mask)")
      ->check(CLI::Range(1, 4096));
  app.fallthrough();  // --threads also after the subcommand

  // report
  auto* rep = app.add_subcommand("report", "Topology groups, anomalies, protocol thresholds and Hockney fits of FILE");
  std::string r_file, r_json;
  na::ReportOptions ropt;
  bool r_force = false, r_quiet = false, r_no_dev = false;
  rep->add_option("FILE", r_file, "delay file (raw, legacy, text, NetCDF-4 or clustered)")->required();
  rep->add_option("--hosts", ropt.hosts_file, "hosts file to compare the groups with (never used to make them)");
  rep->add_option("--json", r_json, "write the JSON report here ('-' for stdout)");
  rep->add_option("--async", ropt.async_file, "async_one_to_one file of the same run: half-duplex check");
  rep->add_option("--deviation", ropt.deviation_file, "deviation file of the same run (default: <prefix>_deviation.nc when present)");
  rep->add_flag("--no-deviation", r_no_dev, "do not look for a deviation file beside FILE");
  rep->add_flag("--pairs", ropt.pairs_in_json, "per-pair Hockney fits in the JSON (always for <= 16 ranks)");
  rep->add_option("--min-ratio", ropt.anomalies.min_ratio, "smallest slowdown reported as an anomaly")->check(CLI::Range(1.01, 1000.0));
  rep->add_flag("--force", r_force, "overwrite the JSON file");
  rep->add_flag("--quiet", r_quiet, "no text report on stdout");

  // duplex
  auto* dup = app.add_subcommand("duplex", "Half-duplex check from a one_to_one and an async_one_to_one file of one run");
  std::string d_one, d_async, d_json;
  bool d_force = false;
  dup->add_option("ONE_TO_ONE", d_one, "one_to_one file")->required();
  dup->add_option("ASYNC", d_async, "async_one_to_one file")->required();
  dup->add_option("--json", d_json, "write the JSON here ('-' for stdout)");
  dup->add_flag("--force", d_force, "overwrite the JSON file");

  // model
  auto* mod = app.add_subcommand("model", "LogP/LogGP parameters per class and collective predictions");
  std::string m_file, m_loggp, m_bcast, m_class, m_json, m_hosts;
  std::optional<double> m_o, m_g;
  bool m_force = false;
  mod->add_option("FILE", m_file, "delay file (one_to_one); optional with --loggp");
  mod->add_option("--loggp", m_loggp, "<prefix>_loggp.nc from network_test's loggp mode");
  mod->add_option("--bcast", m_bcast, "measured bcast file to compare the predictions with");
  mod->add_option("--class", m_class, "class whose parameters drive the predictions (default: the coarsest)");
  mod->add_option("--o", m_o, "LogP overhead o in seconds (default: measured, or 0)");
  mod->add_option("--g", m_g, "LogP gap g in seconds (default: measured, or L + 2o)");
  mod->add_option("--hosts", m_hosts, "hosts file");
  mod->add_option("--json", m_json, "write the JSON here ('-' for stdout)");
  mod->add_flag("--force", m_force, "overwrite the JSON file");

  // export
  auto* exp = app.add_subcommand("export", "Export parameters for other tools");
  std::string e_file, e_format, e_out = "-", e_loggp, e_hosts;
  bool e_force = false;
  exp->add_option("FILE", e_file, "delay file")->required();
  exp->add_option("--format", e_format, "json | loggopsim | simgrid | csv")
      ->required()
      ->check(CLI::IsMember({"json", "loggopsim", "simgrid", "csv"}));
  exp->add_option("-o,--output", e_out, "output file ('-' for stdout, the default)");
  exp->add_option("--loggp", e_loggp, "loggp file: measured LogGP parameters for loggopsim/json");
  exp->add_option("--hosts", e_hosts, "hosts file");
  exp->add_flag("--force", e_force, "overwrite the output file");

  if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
  na::set_threads(n_threads);

  if (rep->parsed()) {
    ropt.find_deviation_beside = !r_no_dev;
    check_out(r_json, r_force, {r_file, ropt.hosts_file, ropt.async_file});
    const na::Report r = na::make_report(r_file, ropt);
    if (!r_quiet && r_json != "-") std::cout << na::to_text(r);
    if (!r_json.empty()) write_out(r_json, nt::json_text(na::to_json(r, ropt.pairs_in_json), 1) + "\n", r_force);
    return 0;
  }
  if (dup->parsed()) {
    check_out(d_json, d_force, {d_one, d_async});
    na::ReportOptions o;
    o.async_file = d_async;
    o.find_deviation_beside = false;
    const na::Report r = na::make_report(d_one, o);
    nlohmann::json j;
    j["file"] = d_one;
    j["async_file"] = d_async;
    j["groups"] = r.topology.levels.front().groups;
    auto cl = nlohmann::json::array();
    for (const auto& c : r.duplex->classes)
      cl.push_back({{"class", c.name}, {"async_over_one_to_one", c.median_ratio}, {"half_duplex", c.half_duplex}});
    j["lengths"] = r.duplex->lengths;
    j["classes"] = cl;
    auto an = nlohmann::json::array();
    for (const auto& a : r.duplex->anomalies) an.push_back(na::to_json(a));
    j["anomalies"] = an;
    if (d_json != "-") {
      std::cout << fmt::format("Duplex check: {} vs {} at {} lengths\n", d_one, d_async, r.duplex->lengths.size());
      for (const auto& c : r.duplex->classes)
        std::cout << fmt::format("  {:<14} async/one_to_one {:.2f}  {}\n", c.name, c.median_ratio,
                                 c.half_duplex ? "HALF DUPLEX" : "full duplex");
      if (r.duplex->anomalies.empty()) std::cout << "  half-duplex links: none\n";
      for (const auto& a : r.duplex->anomalies) std::cout << fmt::format("  {} score {:.2f}: {}\n", a.kind, a.score, a.detail);
    }
    if (!d_json.empty()) write_out(d_json, nt::json_text(j, 1) + "\n", d_force);
    return 0;
  }
  if (mod->parsed()) {
    check_out(m_json, m_force, {m_file, m_loggp, m_bcast, m_hosts});
    for (auto v : {m_o, m_g})
      if (v && !(*v >= 0)) throw nt::UsageError("--o and --g must not be negative");
    na::ModelOptions mo{m_o, m_g};
    ModelInputs in = model_inputs(m_file, m_loggp, mo, m_hosts);
    std::optional<na::Cube> bc;
    if (!m_bcast.empty()) {
      bc = na::load_delays(m_bcast);
      if (bc->mode != nt::Mode::bcast)
        throw nt::FileError(m_bcast, fmt::format("is a {} file, --bcast needs a bcast file", nt::mode_name(bc->mode)));
    }
    const na::ClassParams& cp = pick_class(in.params, m_class);
    const int P = bc ? bc->P : in.topology.P;
    const auto lengths = bc ? bc->lengths : in.delays->lengths;
    na::Hierarchy hier;
    for (const auto& c : in.params)
      if (c.cls == 0) hier.intra = &c;
    hier.nodes = static_cast<int>(in.topology.levels.front().groups.size());
    for (const auto& g : in.topology.levels.front().groups) hier.per_node = std::max(hier.per_node, static_cast<int>(g.size()));
    if (bc && bc->P != in.topology.P) hier = {};  // the delay file's nodes do not describe the bcast run
    const auto rows = na::predict_bcast(P, lengths, cp, bc ? &*bc : nullptr, hier);
    nlohmann::json j;
    auto cls = nlohmann::json::array();
    for (const auto& p : in.params) cls.push_back(na::to_json(p));
    j["classes"] = cls;
    j["groups"] = in.topology.levels.front().groups;
    j["prediction_class"] = cp.name;
    j["processes"] = P;
    auto br = nlohmann::json::array();
    auto coll = nlohmann::json::array();
    // lambda: copy one byte (intra-node tw); gamma: assumed equal to lambda.
    double lambda = 0;
    for (const auto& p : in.params)
      if (p.cls == 0) lambda = p.hockney_for(1e18).tw;
    if (!std::isfinite(lambda)) lambda = 0;
    for (const auto& r : rows) {
      nlohmann::json x{{"length", r.length},
                       {"measured", r.measured >= 0 ? nlohmann::json(r.measured) : nlohmann::json(nullptr)},
                       {"hockney_binomial", r.hockney_binomial},
                       {"hockney_flat", r.hockney_flat},
                       {"logp_binomial", r.logp_binomial},
                       {"logp_flat", r.logp_flat},
                       {"logp_optimal_tree", r.logp_optimal},
                       {"kchain", r.kchain},
                       {"kchain_k", r.kchain_k},
                       {"hierarchical", r.hierarchical >= 0 ? nlohmann::json(r.hierarchical) : nlohmann::json(nullptr)}};
      br.push_back(x);
      const auto m = static_cast<double>(r.length);
      const na::Hockney h = cp.hockney_for(m);
      na::LogGP lp = cp.loggp;
      const double a = 2 * lp.o + lp.L_eff(m) + m * lambda, b = lp.o + m * lambda;
      coll.push_back({{"length", r.length},
                      {"allgather_ring", na::hockney_allgather_ring(P, h, m)},
                      {"allgather_mesh", na::hockney_allgather_mesh(P, h, m)},
                      {"allgather_hypercube", na::hockney_allgather_hypercube(P, h, m)},
                      {"alltoall_ring", na::hockney_alltoall_ring(P, h, m)},
                      {"alltoall_mesh", na::hockney_alltoall_mesh(P, h, m)},
                      {"alltoall_hypercube", na::hockney_alltoall_hypercube(P, h, m)},
                      {"allreduce_hypercube", na::hockney_allreduce_hypercube(P, h, m)},
                      {"scatter_gather", na::hockney_scatter(P, h, m)},
                      {"reduce_binomial_logp_root", na::logp_binomial_reduce_root(P, lp, m, lambda, lambda)},
                      {"reduce_kchain_k", b > 0 ? na::kchain_optimal_k(P, a, b) : 1},
                      {"reduce_kchain", b > 0 ? na::kchain_time(na::kchain_optimal_k(P, a, b), P, a, b) : 0.0}});
    }
    j["bcast"] = br;
    j["collectives"] = coll;
    j["assumptions"] = "reduce: lambda = gamma = intra-node tw; LogP without a loggp file: o = 0, g = L + 2o unless given";
    if (m_json != "-") {
      std::cout << "Parameters per class\n";
      for (const auto& p : in.params) {
        std::cout << fmt::format("  {:<14} L+2o {:>10}  L {:>10}  o {:>10}  g {:>10}  G {:>12}  {}\n", p.name,
                                 nt::format_seconds(p.t0), nt::format_seconds(p.loggp.L), nt::format_seconds(p.loggp.o),
                                 nt::format_seconds(p.loggp.g), fmt::format("{:.4g} s/B", p.loggp.G),
                                 p.have_loggp ? "(LogGP measured)" : "(o, g assumed)");
        for (const auto& rg : p.hockney)
          std::cout << fmt::format("  {:<14} Hockney {} .. {}: ts {} tw {} (rel.rms {:.2f}%, {})\n", "",
                                   nt::format_bytes(rg.from), nt::format_bytes(rg.to),
                                   rg.fit.ts_identifiable ? nt::format_seconds(rg.fit.ts) : "not identifiable",
                                   rg.fit.tw_identifiable ? fmt::format("{:.4g} s/B", rg.fit.tw) : "not identifiable",
                                   100 * rg.fit.rel_rms, na::fit_quality(rg.fit.rel_rms));
      }
      std::cout << fmt::format("\nBroadcast on {} processes, {} parameters\n", P, cp.name);
      std::cout << fmt::format("  {:>10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>14} {:>12}\n", "length", "measured",
                               "H.binomial", "H.flat", "LogP binom", "LogP flat", "LogP opt", "k-chain (k)", "hierarchical");
      for (const auto& r : rows)
        std::cout << fmt::format("  {:>10} {:>11} {:>11} {:>11} {:>11} {:>11} {:>11} {:>10} ({}) {:>12}\n",
                                 nt::format_bytes(r.length), r.measured >= 0 ? nt::format_seconds(r.measured) : "-",
                                 nt::format_seconds(r.hockney_binomial), nt::format_seconds(r.hockney_flat),
                                 nt::format_seconds(r.logp_binomial), nt::format_seconds(r.logp_flat),
                                 nt::format_seconds(r.logp_optimal), nt::format_seconds(r.kchain), r.kchain_k,
                                 r.hierarchical >= 0 ? nt::format_seconds(r.hierarchical) : "-");
    }
    if (!m_json.empty()) write_out(m_json, nt::json_text(j, 1) + "\n", m_force);
    return 0;
  }
  if (exp->parsed()) {
    check_out(e_out, e_force, {e_file, e_loggp, e_hosts});
    na::ReportOptions o;
    o.hosts_file = e_hosts;
    o.find_deviation_beside = false;
    na::Report r = na::make_report(e_file, o);
    if (!e_loggp.empty()) {
      const auto lg = nt::read_loggp(e_loggp);
      r.params = na::class_params(&r.cube, r.topology, &r.hockney, &lg, {});
    }
    std::string text;
    if (e_format == "loggopsim") text = na::export_loggopsim(r.params);
    else if (e_format == "simgrid") text = na::export_simgrid(r);
    else if (e_format == "csv") text = na::export_csv(r);
    else text = nt::json_text(na::to_json(r, true), 1) + "\n";
    write_out(e_out, text, e_force);
    return 0;
  }
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  return nt::guarded_main("network_analyze", [&] { return run(argc, argv); });
}
