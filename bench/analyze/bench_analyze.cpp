// Analysis time of network_analyze's library on a large synthetic file (default: 512 ranks,
// 32 lengths, 64 nodes x 8 ranks, shuffled placement, one slow node), per stage, median of runs.
#include <algorithm>
#include <chrono>
#include <ctime>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "nt/json_text.hpp"
#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/fits.hpp"
#include "nt/analysis/report.hpp"
#include "nt/analysis/topology.hpp"
#include "nt/cli.hpp"
#include "nt/raw_file.hpp"
#include "nt/synth.hpp"

namespace na = nt::analysis;
using Clock = std::chrono::steady_clock;

// The benchmark's file: a synthetic run of nodes x rpn ranks and `lengths` lengths, shuffled, one slow node.
void write_synthetic(const std::string& file, int nodes, int rpn, int lengths) {
  nt::SynthParams p;
  p.nodes = nodes;
  p.ranks_per_node = rpn;
  p.shuffle = true;
  p.slow_node = 5;
  p.repeats = 4;
  p.protocol_step = 16384;
  p.lengths.clear();
  for (int k = 0; k < lengths; ++k) p.lengths.push_back(k == 0 ? 0 : std::int64_t{1} << (k % 31));
  std::sort(p.lengths.begin(), p.lengths.end());
  p.lengths.erase(std::unique(p.lengths.begin(), p.lengths.end()), p.lengths.end());
  while (static_cast<int>(p.lengths.size()) < lengths) p.lengths.push_back(p.lengths.back() + 65536);
  auto t0 = Clock::now();
  const auto r = nt::synthesize(p);
  nt::write_raw(file, *r.stats.at(nt::Statistic::median), true);
  const double gen = std::chrono::duration<double>(Clock::now() - t0).count();
  std::cout << fmt::format("file {}: {} ranks, {} lengths ({:.1f} MB), generated in {:.2f} s\n", file, nodes * rpn,
                           p.lengths.size(), std::filesystem::file_size(file) / 1e6, gen);
}

int main(int argc, char** argv) {
  return nt::guarded_main("bench_analyze", [&] {
    CLI::App app{"network_analyze benchmark"};
    int nodes = 64, rpn = 8, lengths = 32, runs = 3;
    std::string file = (std::filesystem::temp_directory_path() / "nt_bench_analyze_median.nc").string();
    app.add_option("--nodes", nodes);
    app.add_option("--rpn", rpn);
    app.add_option("--lengths", lengths);
    app.add_option("--runs", runs);
    app.add_option("--file", file);
    std::string input;
    app.add_option("--input", input, "time the stages on this existing file (not generated, not deleted)");
    if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
    if (input.empty()) write_synthetic(file, nodes, rpn, lengths);
    else file = input;
    std::map<std::string, std::vector<double>> times;
    bool groups_ok = true;
    std::size_t anomalies = 0;
    for (int run = 0; run < runs; ++run) {
      auto lap = Clock::now();
      std::clock_t cpu = std::clock();
      auto tick = [&](const std::string& name) {
        const auto now = Clock::now();
        const std::clock_t c1 = std::clock();
        times[name].push_back(std::chrono::duration<double>(now - lap).count());
        times[name + " (CPU)"].push_back(static_cast<double>(c1 - cpu) / CLOCKS_PER_SEC);
        lap = now;
        cpu = c1;
      };
      const std::clock_t cpu_start = std::clock();
      const auto start = Clock::now();
      const auto ds = nt::open_dataset(file);
      const na::Cube c = na::load_cube(*ds);
      tick("1 open + load");
      const auto t = na::find_topology(c);
      tick("2 topology");
      const auto an = na::find_anomalies(c, t, c.hosts);
      tick("3 anomalies");
      const auto h = na::fit_classes_and_pairs(c, t);
      tick("4 thresholds + Hockney (all pairs)");
      na::Report rep;
      rep.cube = c;
      rep.topology = t;
      rep.hockney = h;
      rep.hosts = c.hosts;
      rep.anomalies = an;
      rep.agreement = na::compare_with_hosts(t.levels.front().groups, c.hosts);
      const auto js = nt::json_text(na::to_json(rep, false));
      const auto txt = na::to_text(rep);
      tick("5 JSON + text");
      times["total"].push_back(std::chrono::duration<double>(Clock::now() - start).count());
      times["total (CPU)"].push_back(static_cast<double>(std::clock() - cpu_start) / CLOCKS_PER_SEC);
      groups_ok = groups_ok && rep.agreement.exact;
      anomalies = an.size();
    }
    std::cout << fmt::format("groups equal the true nodes: {}; anomalies: {}\n", groups_ok ? "yes" : "NO", anomalies);
    for (auto& [name, v] : times) {
      std::sort(v.begin(), v.end());
      std::cout << fmt::format("  {:<36} median {:8.3f} s  (min {:.3f}, max {:.3f}, {} runs)\n", name, v[v.size() / 2],
                               v.front(), v.back(), v.size());
    }
    if (input.empty()) std::filesystem::remove(file);
    return 0;
  });
}
