// The command line of network_cluster: compress, decompress, info.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

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
  std::error_code ec;
  if (fs::exists(out, ec) && fs::equivalent(in, out, ec)) throw UsageError("the output " + out.string() + " is the input file");
  check_writable(out, force);
  const bool hosts = !ds->meta().hosts.empty() && prefix.extension() != ".nc";
  if (hosts) check_writable(hosts_path(prefix), force);
  write_raw(out, *ds, force);
  if (hosts) write_hosts(hosts_path(prefix), ds->meta().hosts, force);
  std::cout << fmt::format("{}: {} ranks, {} message lengths{}\n", out.string(), ds->ranks(), ds->count(),
                           hosts ? ", hosts in " + hosts_path(prefix).string() : std::string());
  return 0;
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
      "  network_cluster compress run_min.nc -o min_clustered.nc --threshold 0.1us --min-region 4\n"
      "  network_cluster info run_clustered.nc\n"
      "  network_cluster groups run_clustered.nc\n"
      "  network_cluster decompress run_clustered.nc -o restored   # restored_median.nc, restored_hosts.txt\n"
      "Algorithm, file layout and error definitions: share/doc/cluster.md");

  std::string in, out;
  bool force = false, json = false;
  Options o;
  bool absolute = false;

  auto* comp = app.add_subcommand("compress", "cluster a result file into a clustered NetCDF-4 file");
  comp->add_option("input", in, "raw result file (or any file the suite reads)")->required();
  comp->add_option("-o,--output", out, "clustered output file")->required();
  std::string threshold;
  comp->add_option("--threshold", threshold,
                   "largest error of a stored value: seconds (units s, ms, us, ns accepted: 0.2us), or with "
                   "--relative a fraction of the value (0.05); a percentage (5%) implies --relative")
      ->required();
  comp->add_flag("--relative", o.relative, "the threshold is relative to each value");
  comp->add_flag("--absolute", absolute, "the threshold is in seconds (the default)");
  comp->add_option("--exceptions", o.exceptions,
                   "values per cluster and message length allowed beyond the threshold (not at a region's first length)")
      ->capture_default_str();
  comp->add_option("--min-region", o.min_region, "fewest message lengths in a region")->capture_default_str();
  comp->add_option("--cluster-factor", o.cluster_factor,
                   "clusters are formed with this multiple of the threshold; residuals per value keep the threshold")
      ->capture_default_str();
  comp->add_flag("--force", force, "overwrite an existing output");

  auto* dec = app.add_subcommand("decompress", "write the raw CDF-2 file a clustered file stands for");
  dec->add_option("input", in, "clustered file")->required();
  dec->add_option("-o,--output", out,
                  "output prefix (writes PREFIX_<statistic>.nc and PREFIX_hosts.txt), or a file name ending in .nc")
      ->required();
  dec->add_flag("--force", force, "overwrite existing outputs");

  auto* inf = app.add_subcommand("info", "regions, clusters per region, compression ratio and error of a clustered file");
  inf->add_option("file", in, "clustered file")->required();
  inf->add_flag("--json", json, "print JSON");

  auto* grp = app.add_subcommand("groups", "topology classes: ranks that are interchangeable in the clustering, with hosts");
  grp->add_option("file", in, "clustered file, or any result file with --threshold")->required();
  grp->add_flag("--json", json, "print JSON");
  std::string gthreshold;
  Options go;
  grp->add_option("--threshold", gthreshold, "cluster a result file in memory first, with this threshold (as for compress)");
  grp->add_flag("--relative", go.relative, "the threshold is relative to each value");
  grp->add_option("--exceptions", go.exceptions, "as for compress")->capture_default_str();
  grp->add_option("--min-region", go.min_region, "as for compress")->capture_default_str();

  o.relative = false;
  go.relative = false;
  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  if (comp->parsed()) {
    if (absolute && o.relative) throw UsageError("--absolute and --relative exclude each other");
    parse_threshold(threshold, o, absolute);
    const CompressReport rep = compress_file(in, out, o, force);
    const auto& e = rep.result.errors;
    std::cout << fmt::format(
        "{}: {} regions, {} cluster instances, {} values stored; {} bytes (raw {} bytes): ratio {:.1f}x on disk, "
        "{:.1f}x in values; max relative error {:.3g}%, mean {:.3g}%; {} values beyond the threshold ({:.3g}%)\n",
        out, rep.result.regions.size(), rep.result.cluster_instances, rep.result.content.data.size(),
        rep.clustered_bytes, rep.raw_bytes, rep.compression_ratio, rep.values_ratio, e.max_relative * 100,
        e.mean_relative * 100, e.beyond, e.cells ? 100.0 * static_cast<double>(e.beyond) / static_cast<double>(e.cells) : 0.0);
    return 0;
  }
  if (dec->parsed()) return do_decompress(in, out, force);
  if (grp->parsed()) {
    if (gthreshold.empty()) {
      std::cout << groups_report(in, json);
    } else {
      parse_threshold(gthreshold, go, false);
      go.validate();
      std::cout << groups_report(in, json, &go);
    }
    return 0;
  }
  if (inf->parsed()) {
    const FileSummary s = summarize_file(in);
    std::cout << (json ? summary_json(s) + "\n" : format_summary(s));
    return 0;
  }
  return 0;
}

}  // namespace nt::cluster
