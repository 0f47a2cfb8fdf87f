// The command line of network_cluster: one add_X_command per subcommand (compress, decompress,
// info, groups), each with its options and a callback into the library, where the work is.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>

#include "nt/cli.hpp"
#include "nt/cluster/cluster.hpp"

namespace nt::cluster {

namespace {

void add_compress_command(CLI::App& app) {
  struct State {
    std::string in, out;
    CompressRequest r;
  };
  auto st = std::make_shared<State>();
  CompressRequest& r = st->r;
  r.o.relative = false;
  auto* c = app.add_subcommand("compress", "cluster a result file into a clustered NetCDF-4 file");
  c->add_option("input", st->in, "raw result file (or any file the suite reads)")->required();
  c->add_option("-o,--output", st->out, "clustered output file")->required();
  auto* thr = c->add_option("--threshold", r.threshold,
                            "largest error of a stored value: seconds (units s, ms, us, ns accepted: 0.2us), or with "
                            "--relative a fraction of the value (0.05); a percentage (5%) implies --relative");
  auto* tr = c->add_option("--target-ratio", r.target_ratio,
                           "instead of --threshold: the smallest relative bound whose file is this many times smaller "
                           "than the input (searched, reported)")
                 ->check(CLI::PositiveNumber);
  thr->excludes(tr);
  c->add_flag("--relative", r.o.relative, "the threshold is relative to each value");
  c->add_flag("--absolute", r.absolute, "the threshold is in seconds (the default)");
  c->add_option("--exceptions", r.o.exceptions,
                "values per cluster and message length allowed outside the cluster (not at a region's first length); "
                "their residuals still keep the threshold")
      ->capture_default_str();
  c->add_option("--min-region", r.o.min_region, "fewest message lengths in a region")->capture_default_str();
  c->add_option("--cluster-factor", r.o.cluster_factor,
                "clusters are formed with this multiple of the threshold (relative: at most 50 %); a residual per "
                "value keeps the threshold")
      ->capture_default_str();
  c->add_flag("--force", r.force, "overwrite an existing output");
  c->callback([st] { std::cout << compress_command(st->in, st->out, st->r); });
}

void add_decompress_command(CLI::App& app) {
  struct State {
    std::string in, out;
    bool force = false;
  };
  auto st = std::make_shared<State>();
  auto* c = app.add_subcommand("decompress", "write the raw CDF-2 file a clustered file stands for");
  c->add_option("input", st->in, "clustered file")->required();
  c->add_option("-o,--output", st->out,
                "output prefix (writes PREFIX_<statistic>.nc and PREFIX_hosts.txt), or a file name ending in .nc")
      ->required();
  c->add_flag("--force", st->force, "overwrite existing outputs");
  c->callback([st] { std::cout << decompress_file(st->in, st->out, st->force); });
}

void add_info_command(CLI::App& app) {
  struct State {
    std::string in;
    bool json = false;
  };
  auto st = std::make_shared<State>();
  auto* c = app.add_subcommand("info", "regions, clusters per region, compression ratio and error of a clustered file");
  c->add_option("file", st->in, "clustered file")->required();
  c->add_flag("--json", st->json, "print JSON");
  c->callback([st] {
    const FileSummary s = summarize_file(st->in);
    std::cout << (st->json ? summary_json(s) + "\n" : format_summary(s));
  });
}

void add_groups_command(CLI::App& app) {
  struct State {
    std::string in, threshold;
    bool json = false;
    Options o;
  };
  auto st = std::make_shared<State>();
  st->o.relative = false;
  auto* c = app.add_subcommand("groups", "topology classes: ranks that are interchangeable in the clustering, with hosts");
  c->add_option("file", st->in, "clustered file, or any result file with --threshold")->required();
  c->add_flag("--json", st->json, "print JSON");
  c->add_option("--threshold", st->threshold, "cluster a result file in memory first, with this threshold (as for compress)");
  c->add_flag("--relative", st->o.relative, "the threshold is relative to each value");
  c->add_option("--exceptions", st->o.exceptions, "as for compress")->capture_default_str();
  c->add_option("--min-region", st->o.min_region, "as for compress")->capture_default_str();
  c->callback([st] {
    if (st->threshold.empty()) {
      std::cout << groups_report(st->in, st->json);
      return;
    }
    parse_threshold(st->threshold, st->o, false);
    st->o.validate();
    std::cout << groups_report(st->in, st->json, &st->o);
  });
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"network_cluster: compresses delay matrices into regions of message lengths with stable clusters "
               "of rank pairs (clustered NetCDF-4), decompresses them, reports the error, and groups ranks into topology classes",
               "network_cluster"};
  app.footer(
      "Examples:\n"
      "  network_cluster compress run_median.nc -o run_clustered.nc --threshold 5% --exceptions 2\n"
      "  network_cluster compress run_median.nc -o run_clustered.nc --target-ratio 200\n"
      "  network_cluster compress run_min.nc -o min_clustered.nc --threshold 0.1us --min-region 4\n"
      "  network_cluster info run_clustered.nc\n"
      "  network_cluster groups run_clustered.nc\n"
      "  network_cluster decompress run_clustered.nc -o restored   # restored_median.nc, restored_hosts.txt\n"
      "Algorithm, file layout and error definitions: share/doc/cluster.md");
  add_compress_command(app);
  add_decompress_command(app);
  add_info_command(app);
  add_groups_command(app);
  return run_subcommands(app, argc, argv);
}

}  // namespace nt::cluster
