// Noisy delay files for the scale benchmark of network_analyze (bench/analyze/scale.sh), written one
// length at a time (O(P^2) memory, so 4096 ranks need ~130 MB, where `network_convert synth` holds
// every statistic of every length). Its own model, not nt::synthesize: three link classes
// (intra-node, same switch, between switches) with their own latency and bandwidth, a lognormal
// factor per cell, rare gross outliers (x2..x6), shuffled rank placement and one slow node (x3 on
// all its links). Writes only the median file and the true partition as JSON.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <numeric>
#include <random>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/raw_file.hpp"

namespace {

// The median file of a one_to_one run of P ranks over a list of lengths.
nt::FileInfo median_file_info(int P, std::uint64_t seed) {
  nt::FileInfo info;
  info.params.proc_num = P;
  info.params.mode = nt::Mode::one_to_one;
  info.params.statistic = nt::Statistic::median;
  info.params.num_repeats = 1;
  info.meta.program_version = "bench_analyze_gen";
  info.meta.sweep = "list";
  info.meta.seed = seed;
  return info;
}

}  // namespace

int main(int argc, char** argv) {
  return nt::guarded_main("bench_analyze_gen", [&] {
    CLI::App app{"noisy delay file for the network_analyze scale benchmark"};
    int ranks = 512, rpn = 8, nps = 16, lengths = 32, slow = 3;
    double noise = 0.05, outliers = 0.001;
    std::uint64_t seed = 7;
    std::string out, truth;
    app.add_option("-o,--output", out, "median file to write")->required();
    app.add_option("--truth", truth, "JSON with the true node and switch of every rank");
    app.add_option("--ranks", ranks)->check(CLI::Range(4, 65536));
    app.add_option("--ranks-per-node", rpn)->check(CLI::Range(1, 1024));
    app.add_option("--nodes-per-switch", nps)->check(CLI::Range(1, 65536));
    app.add_option("--lengths", lengths, "0 and powers of two up to 2^30")->check(CLI::Range(2, 64));
    app.add_option("--slow-node", slow, "node slowed x3 on all its links (-1: none)");
    app.add_option("--noise", noise, "lognormal sigma per cell");
    app.add_option("--outliers", outliers, "fraction of cells multiplied by U(2, 6)");
    app.add_option("--seed", seed);
    if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
    if (ranks % rpn != 0) throw nt::UsageError("--ranks must be a multiple of --ranks-per-node");
    const int P = ranks, nodes = P / rpn;
    if (slow >= nodes) throw nt::UsageError("--slow-node must be below the number of nodes (" + std::to_string(nodes) + ")");
    std::mt19937_64 rng(seed);
    std::vector<int> slot(static_cast<std::size_t>(P));
    std::iota(slot.begin(), slot.end(), 0);
    std::shuffle(slot.begin(), slot.end(), rng);
    std::vector<int> node(static_cast<std::size_t>(P)), sw(static_cast<std::size_t>(P));
    for (std::size_t r = 0; r < node.size(); ++r) {
      node[r] = slot[r] / rpn;
      sw[r] = node[r] / nps;
    }
    std::vector<std::int64_t> lens{0};
    const int step = std::max(1, 30 / (lengths - 1));
    for (int q = 0; q + 1 < lengths; ++q) lens.push_back(std::int64_t{1} << std::min(62, q * step));
    nt::RawWriter w(out, median_file_info(P, seed), /*overwrite=*/true);
    std::normal_distribution<double> N01(0.0, 1.0);
    std::uniform_real_distribution<double> U(0.0, 1.0);
    std::vector<double> m(static_cast<std::size_t>(P) * static_cast<std::size_t>(P));
    for (const std::int64_t len : lens) {
      const auto x = static_cast<double>(len);
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j) {
          const auto a = static_cast<std::size_t>(i), b = static_cast<std::size_t>(j);
          double t = 0.0;
          if (i != j) {
            if (node[a] == node[b]) t = 0.4e-6 + x / 10e9;
            else if (sw[a] == sw[b]) t = 1.8e-6 + x / 5e9;
            else t = 3.2e-6 + x / 3e9;
            if (node[a] == slow || node[b] == slow) t *= 3.0;
            t *= std::exp(noise * N01(rng));
            if (U(rng) < outliers) t *= 2.0 + 4.0 * U(rng);
          }
          m[a * static_cast<std::size_t>(P) + b] = t;
        }
      w.append(len, m);
    }
    w.close();
    if (!truth.empty()) {
      std::ofstream f(truth);
      f << nlohmann::json{{"node", node}, {"switch", sw}}.dump() << "\n";
      if (!f) throw nt::Error("cannot write " + truth);
    }
    return 0;
  });
}
