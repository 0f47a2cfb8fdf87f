// The command line of network_convert: one CLI11 subcommand per conversion.
#include <iostream>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "nt/cli.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/raw_file.hpp"
#include "nt/synth.hpp"
#include "nt/types.hpp"
#include "nt_convert/convert.hpp"
#include "output.hpp"

namespace nt::convert {

namespace {

struct SynthCli {
  SynthParams p;
  std::string prefix, mode = "one_to_one";
  std::vector<std::int64_t> lengths;
  std::int64_t begin = 0, end = -1, step = 0;
};

SynthParams finish_synth(SynthCli& s, const CLI::App& sub) {
  SynthParams p = s.p;
  const auto mode = mode_from_name(s.mode);
  if (!mode) throw UsageError("synth: unknown mode '" + s.mode + "'");
  p.mode = *mode;
  const bool sweep = sub.count("--end") || sub.count("--step") || sub.count("--begin");
  if (!s.lengths.empty()) {
    p.lengths = s.lengths;
  } else if (sweep) {
    if (!sub.count("--end") || !sub.count("--step"))
      throw UsageError("synth: a linear sweep needs --end and --step (and optionally --begin)");
    if (s.begin < 0 || s.step <= 0 || s.end < s.begin)
      throw UsageError(fmt::format("synth: impossible sweep begin {} end {} step {}", s.begin, s.end, s.step));
    if ((s.end - s.begin) / s.step + 1 > 100000)
      throw UsageError("synth: the sweep has more than 100000 lengths");
    p.lengths.clear();
    for (auto l = s.begin; l <= s.end; l += s.step) p.lengths.push_back(l);
  }
  for (auto l : p.lengths)
    if (l < 0) throw UsageError(fmt::format("synth: negative message length {}", l));
  return p;
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"network_convert: converts, upgrades, merges and inspects interconnect result files "
               "(raw, legacy network_test2, text, clustered, NetCDF-4 copies)",
               "network_convert"};
  app.set_version_flag("--version", version_string());
  app.require_subcommand(1);
  app.fallthrough(false);

  std::string in, out;
  bool force = false;
  auto add_force = [&force](CLI::App* s) { s->add_flag("--force", force, "overwrite existing outputs"); };

  // synth
  SynthCli sc;
  auto* synth = app.add_subcommand("synth", "write synthetic raw files (all statistics + hosts) for demos and tests");
  synth->add_option("-o,--output", sc.prefix, "output prefix: PREFIX_<statistic>.nc, PREFIX_hosts.txt")->required();
  synth->add_option("--nodes", sc.p.nodes, "number of nodes")->capture_default_str();
  synth->add_option("--ranks-per-node", sc.p.ranks_per_node, "ranks per node")->capture_default_str();
  synth->add_option("--nodes-per-switch", sc.p.nodes_per_switch, "nodes per switch (0: one switch)")->capture_default_str();
  synth->add_option("--intra-latency", sc.p.intra_latency, "intra-node latency, s")->capture_default_str();
  synth->add_option("--inter-latency", sc.p.inter_latency, "inter-node latency, s")->capture_default_str();
  synth->add_option("--intra-bandwidth", sc.p.intra_bandwidth, "intra-node bandwidth, bytes/s")->capture_default_str();
  synth->add_option("--inter-bandwidth", sc.p.inter_bandwidth, "inter-node bandwidth, bytes/s")->capture_default_str();
  synth->add_option("--switch-latency", sc.p.switch_latency, "extra latency between switches, s")->capture_default_str();
  synth->add_option("--switch-bandwidth", sc.p.switch_bandwidth, "bandwidth between switches, bytes/s (0: inter-node)")
      ->capture_default_str();
  synth->add_option("--protocol-step", sc.p.protocol_step, "message length (bytes) where the protocol switches, -1 none")
      ->capture_default_str();
  synth->add_option("--protocol-extra", sc.p.protocol_extra, "delay added at and above the protocol step, s")
      ->capture_default_str();
  synth->add_option("--slow-node", sc.p.slow_node, "index of a slow node, -1 none")->capture_default_str();
  synth->add_option("--slow-factor", sc.p.slow_factor, "slow node multiplies its delays by this")->capture_default_str();
  synth->add_flag("--shuffle", sc.p.shuffle, "random rank placement instead of block placement");
  synth->add_option("--noise", sc.p.noise, "relative multiplicative noise of each sample")->capture_default_str();
  synth->add_option("--cell-noise", sc.p.cell_noise,
                    "independent lognormal variation of every cell (pair and length) before sampling, as the medians "
                    "of a real run vary; 0 gives the old nearly noise-free medians")
      ->capture_default_str();
  synth->add_option("--repeats", sc.p.repeats, "samples per pair and length")->capture_default_str();
  synth->add_option("--seed", sc.p.seed, "random seed")->capture_default_str();
  synth->add_option("--mode", sc.mode, "mode name (one_to_one, all_to_all, ...)")->capture_default_str();
  auto* lopt = synth->add_option("--lengths", sc.lengths, "message lengths in bytes, comma separated")->delimiter(',');
  auto* bopt = synth->add_option("-b,--begin", sc.begin, "first message length of a linear sweep (bytes)");
  auto* eopt = synth->add_option("-e,--end", sc.end, "last message length of a linear sweep (bytes)");
  auto* sopt = synth->add_option("-s,--step", sc.step, "step of a linear sweep (bytes)");
  lopt->excludes(bopt)->excludes(eopt)->excludes(sopt);
  add_force(synth);

  auto* to_text_c = app.add_subcommand("to-text", "any result file -> the original text format (exact doubles)");
  to_text_c->add_option("FILE", in, "input file")->required();
  to_text_c->add_option("-o,--output", out, "output text file")->required();
  add_force(to_text_c);

  auto* from_text_c = app.add_subcommand("from-text", "text file -> PREFIX_<statistic>.nc and PREFIX_hosts.txt");
  from_text_c->add_option("FILE", in, "input text file")->required();
  from_text_c->add_option("-o,--output", out, "output prefix")->required();
  add_force(from_text_c);

  auto* to_csv_c = app.add_subcommand("to-csv", "long-form CSV: message_length,sender,receiver,value");
  to_csv_c->add_option("FILE", in, "input file")->required();
  to_csv_c->add_option("-o,--output", out, "output CSV file")->required();
  add_force(to_csv_c);

  auto* to_json_c = app.add_subcommand("to-json", "parameters, metadata, lengths and matrices as JSON");
  to_json_c->add_option("FILE", in, "input file")->required();
  to_json_c->add_option("-o,--output", out, "output JSON file (default: standard output)");
  add_force(to_json_c);

  Netcdf4Options n4;
  auto* to_nc4_c = app.add_subcommand("to-netcdf4", "compressed NetCDF-4/HDF5 copy, one chunk per matrix");
  to_nc4_c->add_option("FILE", in, "input file")->required();
  to_nc4_c->add_option("-o,--output", out, "output NetCDF-4 file")->required();
  to_nc4_c->add_option("--deflate", n4.deflate_level, "deflate level 0..9")->check(CLI::Range(0, 9))->capture_default_str();
  bool no_shuffle = false;
  to_nc4_c->add_flag("--no-shuffle", no_shuffle, "disable the byte-shuffle filter");
  add_force(to_nc4_c);

  auto* upgrade_c = app.add_subcommand("upgrade", "legacy network_test2 file -> current layout (orientation mapped, lengths stored)");
  upgrade_c->add_option("FILE", in, "legacy input file")->required();
  upgrade_c->add_option("-o,--output", out, "output prefix")->required();
  add_force(upgrade_c);

  std::vector<std::string> runs;
  MergeOptions mo;
  auto* merge_c = app.add_subcommand("merge", "several runs of one shape -> PREFIX_median.nc and PREFIX_min.nc across runs");
  merge_c->add_option("FILES", runs, "input runs (two or more)")->required()->expected(2, -1);
  merge_c->add_option("-o,--output", out, "output prefix")->required();
  merge_c->add_flag("--ignore-hosts", mo.ignore_hosts, "merge runs whose ranks ran on different hosts");
  add_force(merge_c);

  int pi = -1, pj = -1;
  auto* pair_c = app.add_subcommand("pair", "delay of sender I -> receiver J over all lengths (two columns)");
  pair_c->add_option("I", pi, "sender rank (data comes FROM it)")->required();
  pair_c->add_option("J", pj, "receiver rank (data goes TO it)")->required();
  pair_c->add_option("FILE", in, "input file")->required();
  pair_c->add_option("-o,--output", out, "output file (default: standard output)");
  add_force(pair_c);

  auto* info_c = app.add_subcommand("info", "parameters, metadata, lengths, hosts, min/median/max delay per length");
  info_c->add_option("FILE", in, "input file")->required();

  if (const int rc = parse_cli(app, argc, argv); rc >= 0) return rc;

  if (synth->parsed()) {
    const auto p = finish_synth(sc, *synth);
    std::vector<fs::path> outputs;
    for (auto st : standard_statistics()) outputs.push_back(result_path(sc.prefix, st));
    outputs.push_back(hosts_path(sc.prefix));
    detail::check_all_writable(outputs, force);  // before the work, not after (write_synth commits all or none)
    const auto r = synthesize(p);
    write_synth(sc.prefix, r, force);
  } else if (to_text_c->parsed()) {
    to_text(in, out, force);
  } else if (from_text_c->parsed()) {
    from_text(in, out, force);
  } else if (to_csv_c->parsed()) {
    to_csv(in, out, force);
  } else if (to_json_c->parsed()) {
    to_json(in, out, force);
  } else if (to_nc4_c->parsed()) {
    n4.shuffle = !no_shuffle;
    to_netcdf4(in, out, force, n4);
  } else if (upgrade_c->parsed()) {
    upgrade(in, out, force);
  } else if (merge_c->parsed()) {
    std::vector<fs::path> files(runs.begin(), runs.end());
    merge(files, out, force, mo);
  } else if (pair_c->parsed()) {
    auto d = open_dataset(in);
    if (out.empty() || out == "-") {
      write_pair(std::cout, *d, pi, pj);
      std::cout.flush();
    } else {
      detail::TextOutput o(out, force, {in});
      write_pair(o.stream(), *d, pi, pj);
      o.commit();
    }
  } else if (info_c->parsed()) {
    auto d = open_dataset(in);
    write_info(std::cout, *d);
    std::cout.flush();
  }
  return 0;
}

}  // namespace nt::convert
