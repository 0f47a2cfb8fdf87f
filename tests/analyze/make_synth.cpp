// Test helper: writes synthetic raw files (nt::synthesize) and the ground truth as JSON, so that
// the CLI tests can check network_analyze's groups against the true placement.
#include <cmath>
#include <fstream>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "nt/cli.hpp"
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
  std::vector<double> scale;
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
    nt::write_synth(prefix, r, true);
    if (loggp) {
      // Planted values: intra-node L=0.3us o_s=0.1us o_r=0.12us g=0.2us G=1e-10; inter-node 1.5/0.4/0.5/0.8us, 1e-9.
      nt::LoggpData d;
      const int P = p.nodes * p.ranks_per_node;
      d.ranks = P;
      d.sizes = {1, 64, 1024, 16384};
      d.prtt_n = 8;
      d.prtt_delay = 1e-5;
      d.info.params.proc_num = P;
      d.info.params.mode = nt::Mode::loggp;
      d.info.meta.hosts = r.hosts;
      const std::size_t PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P), S = d.sizes.size();
      for (auto* v : {&d.L, &d.o_s, &d.o_r, &d.g, &d.G, &d.residual}) v->assign(PP, std::nan(""));
      d.fit_break.assign(PP, -1);
      for (auto* v : {&d.prtt1, &d.prttn, &d.prttd}) v->assign(PP * S, std::nan(""));
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j) {
          if (i == j) continue;
          const bool intra = r.node_of_rank[static_cast<std::size_t>(i)] == r.node_of_rank[static_cast<std::size_t>(j)];
          const auto x = static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j);
          d.L[x] = intra ? 0.3e-6 : 1.5e-6;
          d.o_s[x] = intra ? 0.1e-6 : 0.4e-6;
          d.o_r[x] = intra ? 0.12e-6 : 0.5e-6;
          d.g[x] = intra ? 0.2e-6 : 0.8e-6;
          d.G[x] = intra ? 1e-10 : 1e-9;
          d.residual[x] = 0.01;
          d.fit_break[x] = intra ? 16384 : 1024;
          for (std::size_t s = 0; s < S; ++s) {
            const double one = d.L[x] + d.o_s[x] + d.o_r[x] + static_cast<double>(d.sizes[s]) * d.G[x];
            d.prtt1[x * S + s] = 2 * one;
            d.prttn[x * S + s] = 2 * one + 7 * d.g[x];
            d.prttd[x * S + s] = 2 * one + 7 * (d.prtt_delay + d.o_s[x]);
          }
        }
      nt::write_loggp(prefix + "_loggp.nc", d, true);
    }
    nlohmann::json j{{"node_of_rank", r.node_of_rank}, {"switch_of_node", r.switch_of_node}, {"slow_node", p.slow_node}};
    std::ofstream(prefix + "_truth.json") << j.dump() << "\n";
    return 0;
  });
}
