// Test helper: writes synthetic raw files (nt::synthesize) and the ground truth as JSON, so that
// the CLI tests can check network_analyze's groups against the true placement.
#include <cmath>
#include <fstream>
#include <filesystem>
#include <iostream>
#include <random>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "planted_loggp.hpp"
#include "nt/cli.hpp"
#include "nt/hosts.hpp"
#include "nt/loggp.hpp"
#include "nt/raw_file.hpp"
#include "nt/synth.hpp"

int main(int argc, char** argv) {
  return nt::guarded_main("analyze_make_synth", [&] {
    CLI::App app{"synthetic files for the analyze tests"};
    app.name("analyze_make_synth");
    std::string prefix, mode = "one_to_one";
    nt::SynthParams p;
    int max_pow = 16;
    app.add_option("PREFIX", prefix)->required();
    app.add_option("--nodes", p.nodes);
    app.add_option("--rpn", p.ranks_per_node);
    app.add_option("--nps", p.nodes_per_switch);
    app.add_option("--slow-node", p.slow_node);
    app.add_option("--seed", p.seed);
    app.add_option("--noise", p.noise);
    app.add_option("--mode", mode);
    app.add_option("--protocol-step", p.protocol_step);
    app.add_option("--max-pow", max_pow, "lengths 0, 1, 2, 4, ... 2^max_pow");
    app.add_flag("--shuffle", p.shuffle);
  app.add_option("--slow-factor", p.slow_factor);
  app.add_option("--cell-noise", p.cell_noise);
  std::vector<double> scale, link;
  double outliers = 0;
  bool no_hosts = false;
  app.add_flag("--no-hosts", no_hosts, "no host names in the files and no PREFIX_hosts.txt (as an old run's)");
  app.add_option("--scale-link", link, "A B F: multiply every delay from node A to node B by F (one direction)")
      ->expected(3);
  app.add_option("--outliers", outliers, "fraction of cells (pair and length) multiplied by U(2, 6)");
  app.add_option("--scale-nodes", scale, "A B F: multiply every delay between nodes A and B by F (both directions)")
      ->expected(3);
  bool loggp = false;
  app.add_flag("--write-loggp", loggp, "also write PREFIX_loggp.nc with planted LogGP values per class");
    if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
    auto m = nt::mode_from_name(mode);
    if (!m) throw nt::UsageError("bad mode " + mode);
    p.mode = *m;
    p.lengths = {0};
    for (int e = 0; e <= max_pow; ++e) p.lengths.push_back(std::int64_t{1} << e);
    auto r = nt::synthesize(p);
    if (scale.size() == 3) {
      const int A = static_cast<int>(scale[0]), B = static_cast<int>(scale[1]);
      for (auto& [st, ds] : r.stats)
        for (std::size_t k = 0; k < ds->count(); ++k)
          for (int i = 0; i < ds->ranks(); ++i)
            for (int j = 0; j < ds->ranks(); ++j) {
              const int ni = r.node_of_rank[static_cast<std::size_t>(i)], nj = r.node_of_rank[static_cast<std::size_t>(j)];
              if ((ni == A && nj == B) || (ni == B && nj == A)) ds->at(k).at(i, j) *= scale[2];
            }
    }
    if (link.size() == 3) {
      const int A = static_cast<int>(link[0]), B = static_cast<int>(link[1]);
      for (auto& [st, ds] : r.stats)
        for (std::size_t k = 0; k < ds->count(); ++k)
          for (int i = 0; i < ds->ranks(); ++i)
            for (int j = 0; j < ds->ranks(); ++j)
              if (r.node_of_rank[static_cast<std::size_t>(i)] == A && r.node_of_rank[static_cast<std::size_t>(j)] == B)
                ds->at(k).at(i, j) *= link[2];
    }
    if (outliers > 0) {
      // Gross outliers in every statistic of a cell (a disturbed measurement), drawn from their own stream.
      std::mt19937_64 rng(p.seed * 1000003 + 11);
      std::uniform_real_distribution<double> U(0.0, 1.0);
      const auto& any = *r.stats.begin()->second;
      for (std::size_t k = 0; k < any.count(); ++k)
        for (int i = 0; i < any.ranks(); ++i)
          for (int j = 0; j < any.ranks(); ++j) {
            if (i == j || U(rng) >= outliers) continue;
            const double f = 2.0 + 4.0 * U(rng);
            for (auto& [st, ds] : r.stats) ds->at(k).at(i, j) *= f;
          }
    }
    if (no_hosts)
      for (auto& [st, ds] : r.stats) ds->mutable_info().meta.hosts.clear();
    nt::write_synth(prefix, r, true);
    if (no_hosts) std::filesystem::remove(nt::hosts_path(prefix));
    if (loggp) {
      // Planted values: see planted_loggp.hpp.
      const auto d = nt::test::planted_loggp(r.node_of_rank, r.hosts);
      nt::write_loggp(prefix + "_loggp.nc", d, true);
    }
    nlohmann::json j{{"node_of_rank", r.node_of_rank}, {"switch_of_node", r.switch_of_node}, {"slow_node", p.slow_node}};
    std::ofstream(prefix + "_truth.json") << j.dump() << "\n";
    return 0;
  });
}
