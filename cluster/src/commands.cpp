// The command line of network_cluster: compress, decompress, info.
#include <iostream>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "nt/output.hpp"
#include "nt/cli.hpp"
#include "nt/cluster/cluster.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/raw_file.hpp"

namespace fs = std::filesystem;

namespace nt::cluster {

namespace {

fs::path decompressed_path(const fs::path& prefix, Statistic s) {
  if (prefix.extension() == ".nc") return prefix;
  return result_path(prefix, s);
}

// "0.05", "5%" (relative), "2e-7", "0.2us", "200ns", "0.1ms", "1e-6s".
void parse_threshold(const std::string& text, Options& o, bool absolute) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UsageError("--threshold '" + text + "' is not a number");
  }
  const std::string unit = text.substr(used);
  static const std::pair<const char*, double> kUnits[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6},
                                                           {"\u00b5s", 1e-6}, {"ns", 1e-9}};
  if (unit == "%") {
    if (absolute) throw UsageError("--threshold " + text + " is a percentage; it cannot be --absolute");
    o.relative = true;
    o.threshold = v / 100;
    return;
  }
  for (const auto& [name, scale] : kUnits)
    if (unit == name) {
      if (o.relative && unit != "")
        throw UsageError("--threshold " + text + " has a time unit; it cannot be --relative");
      o.threshold = v * scale;
      return;
    }
  throw UsageError("--threshold '" + text + "': unknown unit '" + unit + "' (use s, ms, us, ns or %)");
}

int do_decompress(const fs::path& in, const fs::path& prefix, bool force) {
  const auto ds = open_dataset(in);
  if (ds->format() != "clustered")
    throw UsageError(in.string() + " is not a clustered file (it is " + ds->format() + "); nothing to decompress");
  const fs::path out = decompressed_path(prefix, ds->params().statistic);
  refuse_same_file(out, {in});
  const bool hosts = !ds->meta().hosts.empty() && prefix.extension() != ".nc";
  // The matrices and the hosts file appear together or not at all.
  OutputSet set;
  PendingOutput& data = set.add(out, force);
  PendingOutput* hosts_out = hosts ? &set.add(hosts_path(prefix), force) : nullptr;
  write_raw(data, *ds);
  if (hosts_out) write_file_atomically_into(*hosts_out, [&](std::ostream& o) { write_hosts(o, ds->meta().hosts); });
  set.commit_all();
  std::cout << fmt::format("{}: {} ranks, {} message lengths{}\n", out.string(), ds->ranks(), ds->count(),
                           hosts ? ", hosts in " + hosts_path(prefix).string() : std::string());
  return 0;
}

// One add_X_command per subcommand: options and a callback; the work is in the library.
void add_compress_command(CLI::App& app) {
  struct State {
    std::string in, out, threshold;
    Options o;
    bool absolute = false, force = false;
    double target = 0;
  };
  auto st = std::make_shared<State>();
  st->o.relative = false;
  auto* c = app.add_subcommand("compress", "cluster a result file into a clustered NetCDF-4 file");
  c->add_option("input", st->in, "raw result file (or any file the suite reads)")->required();
  c->add_option("-o,--output", st->out, "clustered output file")->required();
  auto* thr = c->add_option("--threshold", st->threshold,
                            "largest error of a stored value: seconds (units s, ms, us, ns accepted: 0.2us), or with "
                            "--relative a fraction of the value (0.05); a percentage (5%) implies --relative");
  auto* tr = c->add_option("--target-ratio", st->target,
                           "instead of --threshold: the smallest relative bound whose file is this many times smaller "
                           "than the input (searched, reported)")
                 ->check(CLI::PositiveNumber);
  thr->excludes(tr);
  c->add_flag("--relative", st->o.relative, "the threshold is relative to each value");
  c->add_flag("--absolute", st->absolute, "the threshold is in seconds (the default)");
  c->add_option("--exceptions", st->o.exceptions,
                "values per cluster and message length allowed outside the cluster (not at a region's first length); "
                "their residuals still keep the threshold")
      ->capture_default_str();
  c->add_option("--min-region", st->o.min_region, "fewest message lengths in a region")->capture_default_str();
  c->add_option("--cluster-factor", st->o.cluster_factor,
                "clusters are formed with this multiple of the threshold (relative: at most 50 %); a residual per "
                "value keeps the threshold")
      ->capture_default_str();
  c->add_flag("--force", st->force, "overwrite an existing output");
  c->callback([st] {
    if (st->absolute && st->o.relative) throw UsageError("--absolute and --relative exclude each other");
    CompressReport rep;
    std::string chosen;
    if (st->target > 0) {
      if (st->absolute) throw UsageError("--target-ratio searches a relative bound; it cannot be --absolute");
      st->o.relative = true;
      double t = 0;
      rep = compress_to_ratio(st->in, st->out, st->o, st->target, st->force, t);
      chosen = fmt::format("bound {:.4g}% (the smallest found that reaches {}x); ", t * 100, st->target);
    } else {
      if (st->threshold.empty()) throw UsageError("compress needs --threshold or --target-ratio");
      parse_threshold(st->threshold, st->o, st->absolute);
      rep = compress_file(st->in, st->out, st->o, st->force);
    }
    const auto& e = rep.result.errors;
    std::cout << fmt::format(
        "{}: {}{} regions, {} cluster instances, {} values stored; {} bytes (raw {} bytes): ratio {:.1f}x on disk, "
        "{:.1f}x in values; max relative error {:.3g}%, mean {:.3g}%; {} values beyond the threshold ({:.3g}%)\n",
        st->out, chosen, rep.result.regions.size(), rep.result.cluster_instances, rep.result.content.data.size(),
        rep.clustered_bytes, rep.raw_bytes, rep.compression_ratio, rep.values_ratio, e.max_relative * 100,
        e.mean_relative * 100, e.beyond, e.cells ? 100.0 * static_cast<double>(e.beyond) / static_cast<double>(e.cells) : 0.0);
  });
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
  c->callback([st] { do_decompress(st->in, st->out, st->force); });
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
  app.set_version_flag("--version", version_string());
  app.require_subcommand(1);
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
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;
  return 0;
}

}  // namespace nt::cluster
