// The command line of network_convert: one add_X_command per subcommand, each with its options
// and a callback into the library (convert.hpp), where the work and its checks are.
#include <functional>
#include <memory>

#include <CLI/CLI.hpp>

#include "nt/cli.hpp"
#include "nt/synth.hpp"
#include "nt/convert/convert.hpp"

namespace nt::convert {

namespace {

// The shape most subcommands share: FILE, -o OUTPUT and --force, then `act(in, out, force)`.
// Returns the subcommand for its own options (bound to state the caller's `act` shares).
CLI::App* add_file_command(CLI::App& app, const std::string& name, const std::string& help,
                           const std::string& in_help, const std::string& out_help, bool out_required,
                           std::function<void(const fs::path&, const fs::path&, bool)> act) {
  struct State {
    std::string in, out;
    bool force = false;
  };
  auto st = std::make_shared<State>();
  auto* c = app.add_subcommand(name, help);
  c->add_option("FILE", st->in, in_help)->required();
  auto* o = c->add_option("-o,--output", st->out, out_help);
  if (out_required) o->required();
  c->add_flag("--force", st->force, "overwrite existing outputs");
  c->callback([st, act = std::move(act)] { act(st->in, st->out, st->force); });
  return c;
}

void add_synth_command(CLI::App& app) {
  struct State {
    SynthParams p;
    std::string prefix;
    std::vector<std::int64_t> lengths;
    std::int64_t begin = 0, end = -1, step = 0;
    bool force = false;
  };
  auto st = std::make_shared<State>();
  SynthParams& p = st->p;
  auto* c = app.add_subcommand("synth", "write synthetic raw files (all statistics + hosts) for demos and tests");
  c->add_option("-o,--output", st->prefix, "output prefix: PREFIX_<statistic>.nc, PREFIX_hosts.txt")->required();
  c->add_option("--nodes", p.nodes, "number of nodes")->capture_default_str();
  c->add_option("--ranks-per-node", p.ranks_per_node, "ranks per node")->capture_default_str();
  c->add_option("--nodes-per-switch", p.nodes_per_switch, "nodes per switch (0: one switch)")->capture_default_str();
  c->add_option("--intra-latency", p.intra_latency, "intra-node latency, s")->capture_default_str();
  c->add_option("--inter-latency", p.inter_latency, "inter-node latency, s")->capture_default_str();
  c->add_option("--intra-bandwidth", p.intra_bandwidth, "intra-node bandwidth, bytes/s")->capture_default_str();
  c->add_option("--inter-bandwidth", p.inter_bandwidth, "inter-node bandwidth, bytes/s")->capture_default_str();
  c->add_option("--switch-latency", p.switch_latency, "extra latency between switches, s")->capture_default_str();
  c->add_option("--switch-bandwidth", p.switch_bandwidth, "bandwidth between switches, bytes/s (0: inter-node)")
      ->capture_default_str();
  c->add_option("--protocol-step", p.protocol_step, "message length (bytes) where the protocol switches, -1 none")
      ->capture_default_str();
  c->add_option("--protocol-extra", p.protocol_extra, "delay added at and above the protocol step, s")
      ->capture_default_str();
  c->add_option("--slow-node", p.slow_node, "index of a slow node, -1 none")->capture_default_str();
  c->add_option("--slow-factor", p.slow_factor, "slow node multiplies its delays by this")->capture_default_str();
  c->add_flag("--shuffle", p.shuffle, "random rank placement instead of block placement");
  c->add_option("--noise", p.noise, "relative multiplicative noise of each sample")->capture_default_str();
  c->add_option("--cell-noise", p.cell_noise,
                "independent lognormal variation of every cell (pair and length) before sampling, as the medians "
                "of a real run vary; 0 gives the old nearly noise-free medians")
      ->capture_default_str();
  c->add_option("--repeats", p.repeats, "samples per pair and length")->capture_default_str();
  c->add_option("--seed", p.seed, "random seed")->capture_default_str();
  add_mode_option(*c, "--mode", p.mode, "measurement mode the files say they hold");
  auto* lopt = c->add_option("--lengths", st->lengths, "message lengths in bytes, comma separated")->delimiter(',');
  auto* bopt = c->add_option("-b,--begin", st->begin, "first message length of a linear sweep (bytes)");
  auto* eopt = c->add_option("-e,--end", st->end, "last message length of a linear sweep (bytes)");
  auto* sopt = c->add_option("-s,--step", st->step, "step of a linear sweep (bytes)");
  lopt->excludes(bopt)->excludes(eopt)->excludes(sopt);
  c->add_flag("--force", st->force, "overwrite existing outputs");
  c->callback([st, bopt, eopt, sopt] {
    auto given = [](const CLI::Option* o, std::int64_t v) { return o->count() ? std::optional(v) : std::nullopt; };
    SynthParams q = st->p;
    if (!st->lengths.empty())
      q.lengths = st->lengths;
    else if (auto swept = sweep_lengths({given(bopt, st->begin), given(eopt, st->end), given(sopt, st->step)});
             !swept.empty())
      q.lengths = std::move(swept);
    synth(q, st->prefix, st->force);
  });
}

void add_to_netcdf4_command(CLI::App& app) {
  struct State {
    Netcdf4Options o;
    bool no_shuffle = false;
  };
  auto st = std::make_shared<State>();
  auto* c = add_file_command(app, "to-netcdf4", "compressed NetCDF-4/HDF5 copy, one chunk per matrix", "input file",
                             "output NetCDF-4 file", true, [st](const fs::path& in, const fs::path& out, bool force) {
                               Netcdf4Options o = st->o;
                               o.shuffle = !st->no_shuffle;
                               to_netcdf4(in, out, force, o);
                             });
  c->add_option("--deflate", st->o.deflate_level, "deflate level 0..9")->check(CLI::Range(0, 9))->capture_default_str();
  c->add_flag("--no-shuffle", st->no_shuffle, "disable the byte-shuffle filter");
}

void add_merge_command(CLI::App& app) {
  struct State {
    std::vector<std::string> runs;
    std::string out;
    MergeOptions o;
    bool force = false;
  };
  auto st = std::make_shared<State>();
  auto* c = app.add_subcommand("merge", "several runs of one shape -> PREFIX_median.nc and PREFIX_min.nc across runs");
  c->add_option("FILES", st->runs, "input runs (two or more)")->required()->expected(2, -1);
  c->add_option("-o,--output", st->out, "output prefix")->required();
  c->add_flag("--ignore-hosts", st->o.ignore_hosts, "merge runs whose ranks ran on different hosts");
  c->add_flag("--force", st->force, "overwrite existing outputs");
  c->callback([st] { merge(std::vector<fs::path>(st->runs.begin(), st->runs.end()), st->out, st->force, st->o); });
}

void add_pair_command(CLI::App& app) {
  struct State {
    int i = -1, j = -1;
    std::string in, out;
    bool force = false;
  };
  auto st = std::make_shared<State>();
  auto* c = app.add_subcommand("pair", "delay of sender I -> receiver J over all lengths (two columns)");
  c->add_option("I", st->i, "sender rank (data comes FROM it)")->required();
  c->add_option("J", st->j, "receiver rank (data goes TO it)")->required();
  c->add_option("FILE", st->in, "input file")->required();
  c->add_option("-o,--output", st->out, "output file (default: standard output)");
  c->add_flag("--force", st->force, "overwrite existing outputs");
  c->callback([st] { pair(st->in, st->out, st->i, st->j, st->force); });
}

void add_info_command(CLI::App& app) {
  auto in = std::make_shared<std::string>();
  auto* c = app.add_subcommand("info", "parameters, metadata, lengths, hosts, min/median/max delay per length");
  c->add_option("FILE", *in, "input file")->required();
  c->callback([in] { info(*in); });
}

}  // namespace

int run(int argc, char** argv) {
  CLI::App app{"network_convert: converts, upgrades, merges and inspects interconnect result files "
               "(raw, legacy network_test2, text, clustered, NetCDF-4 copies)",
               "network_convert"};
  app.fallthrough(false);
  add_synth_command(app);
  add_file_command(app, "to-text", "any result file -> the original text format (exact doubles)", "input file",
                   "output text file", true, to_text);
  add_file_command(app, "from-text", "text file -> PREFIX_<statistic>.nc and PREFIX_hosts.txt", "input text file",
                   "output prefix", true, [](const fs::path& in, const fs::path& out, bool force) { from_text(in, out, force); });
  add_file_command(app, "to-csv", "long-form CSV: message_length,sender,receiver,value", "input file",
                   "output CSV file", true, to_csv);
  add_file_command(app, "to-json", "parameters, metadata, lengths and matrices as JSON", "input file",
                   "output JSON file (default: standard output)", false, to_json);
  add_to_netcdf4_command(app);
  add_file_command(app, "upgrade", "legacy network_test2 file -> current layout (orientation mapped, lengths stored)",
                   "legacy input file", "output prefix", true,
                   [](const fs::path& in, const fs::path& out, bool force) { upgrade(in, out, force); });
  add_file_command(app, "isolated",
                   "statistic file of --concurrent --retest -> a raw file with the isolated value where a cell was "
                   "re-tested alone, the loaded one elsewhere",
                   "input statistic file", "output file", true, isolated);
  add_merge_command(app);
  add_pair_command(app);
  add_info_command(app);
  return run_subcommands(app, argc, argv);
}

}  // namespace nt::convert
