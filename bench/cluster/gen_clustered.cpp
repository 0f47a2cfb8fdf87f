// A clustered file (network_cluster's layout, core/include/nt/clustered_writer.hpp) of any size,
// written directly: shuffled nodes of R ranks, S nodes per switch, one slow node, one region, a
// cluster per class (intra-node, same switch, other switch, and each of these to or from the slow
// node). For the target "a 20,000-rank clustered file opens, reports and renders within 4 GB"
// (bench/scale/clustered.sh): what compress would write for a noise-free run, without the 3.2 GB
// per length a raw 20,000-rank matrix takes. Needs 4 P^2 bytes while writing.
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "nt/cli.hpp"
#include "nt/clustered_writer.hpp"
#include "nt/error.hpp"

int main(int argc, char** argv) {
  return nt::guarded_main("bench_gen_clustered", [&] {
    CLI::App app{"clustered file of a noise-free two-level cluster, written directly"};
    int P = 20000, rpn = 4, nps = 50, lengths = 4;
    std::string out;
    app.add_option("-o,--output", out, "clustered file to write")->required();
    app.add_option("--ranks", P)->check(CLI::Range(4, 65536));
    app.add_option("--ranks-per-node", rpn)->check(CLI::Range(1, 1024));
    app.add_option("--nodes-per-switch", nps)->check(CLI::Range(1, 65536));
    app.add_option("--lengths", lengths, "0, then powers of 16")->check(CLI::Range(1, 8));
    if (const int rc = nt::parse_cli(app, argc, argv); rc >= 0) return rc;
    if (P % rpn != 0) throw nt::UsageError("--ranks must be a multiple of --ranks-per-node");
    const int slow = P / rpn / 3;
    std::vector<int> slot(static_cast<std::size_t>(P));
    std::iota(slot.begin(), slot.end(), 0);
    std::mt19937_64 rng(5);
    std::shuffle(slot.begin(), slot.end(), rng);
    nt::ClusteredContent c;
    c.info.params.proc_num = P;
    c.info.params.mode = nt::Mode::one_to_one;
    c.info.params.statistic = nt::Statistic::median;
    c.info.params.num_repeats = 1;
    c.info.meta.program_version = "bench_gen_clustered";
    c.info.meta.sweep = "list";
    for (int k = 0; k < lengths; ++k) c.lengths.push_back(k == 0 ? 0 : std::int64_t{1} << (4 * k));
    c.region_start = {0};
    // 6 clusters: class (0 intra, 1 switch, 2 other switch) x (normal, slow node involved).
    const double lat[3] = {0.4e-6, 1.8e-6, 3.2e-6}, bw[3] = {10e9, 5e9, 3e9};
    for (int cl = 0; cl < 6; ++cl)
      for (const std::int64_t len : c.lengths)
        c.data.push_back((lat[cl % 3] + static_cast<double>(len) / bw[cl % 3]) * (cl >= 3 ? 3.0 : 1.0));
    const auto PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P);
    std::vector<int> offsets(PP);
    const auto N = static_cast<int>(c.lengths.size());
    for (int i = 0; i < P; ++i) {
      const int ni = slot[static_cast<std::size_t>(i)] / rpn;
      for (int j = 0; j < P; ++j) {
        const int nj = slot[static_cast<std::size_t>(j)] / rpn;
        const int cls = ni == nj ? 0 : ni / nps == nj / nps ? 1 : 2;
        const int cl = cls + ((ni == slow || nj == slow) ? 3 : 0);
        offsets[static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j)] = cl * N;
      }
    }
    c.offsets = nt::Slabs<int>(PP);
    c.offsets.append(offsets.data());
    nt::write_clustered(out, c, /*overwrite=*/true);
    return 0;
  });
}
