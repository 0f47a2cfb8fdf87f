// network_convert as a library: every subcommand is a function here, so that tests and other
// tools call them directly and the program stays a thin CLI (convert/src/app.cpp).
//
// Inputs are always opened with nt::open_dataset (raw, legacy, text, NetCDF-4 copies, clustered);
// outputs are written to a temporary name beside the target and renamed when complete, so that a
// failed conversion never leaves a half-written file under the final name. Existing outputs are
// refused unless `force` is set (nt::FileError / nt::UsageError, exit 2 in the program).
#pragma once

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "nt/dataset.hpp"
#include "nt/synth.hpp"

namespace nt::convert {

namespace fs = std::filesystem;

// ---- synth --------------------------------------------------------------------------------
// A linear sweep of message lengths as given on the command line (each part optional).
struct Sweep {
  std::optional<std::int64_t> begin, end, step;
};
// begin, begin+step, ... <= end; empty when no part is given. UsageError when end or step is
// missing, the sweep is impossible (begin < 0, step <= 0, end < begin) or longer than 100000.
std::vector<std::int64_t> sweep_lengths(const Sweep& s);
// A synthetic run -> PREFIX_<statistic>.nc for the five statistics and PREFIX_hosts.txt, all or
// none; existing outputs (without force) and negative lengths are refused before any work.
// Returns the files written.
std::vector<fs::path> synth(const SynthParams& p, const fs::path& prefix, bool force);

// ---- text ---------------------------------------------------------------------------------
// Any input -> the original text format (17 significant digits, exact round trip).
void to_text(const fs::path& in, const fs::path& out, bool force);
// Text file -> <prefix>_<statistic>.nc (raw, CDF-2) and <prefix>_hosts.txt when hosts are known.
// Returns the files written.
std::vector<fs::path> from_text(const fs::path& in, const fs::path& prefix, bool force);

// ---- CSV / JSON ---------------------------------------------------------------------------
// Long form: header `message_length,sender,receiver,value`, one row per cell (diagonal
// included), P*P*n + 1 lines, shortest round-trip decimal of every double.
void write_csv(std::ostream& out, const Dataset& d);
void to_csv(const fs::path& in, const fs::path& out, bool force);
// Parameters, metadata, hosts, lengths and matrices (matrices[k][sender][receiver]).
// NaN becomes null. The matrices are streamed one at a time.
void write_json(std::ostream& out, const Dataset& d);
// out empty: standard output.
void to_json(const fs::path& in, const fs::path& out, bool force);

// ---- NetCDF-4 -----------------------------------------------------------------------------
struct Netcdf4Options {
  int deflate_level = 4;  // 0..9
  bool shuffle = true;
};
// NetCDF-4/HDF5 copy with the raw layout (same variables and attributes), data chunked one
// matrix per chunk, deflate + shuffle.
void write_netcdf4(const fs::path& out, const Dataset& d, bool force, const Netcdf4Options& o = {});
void to_netcdf4(const fs::path& in, const fs::path& out, bool force, const Netcdf4Options& o = {});

// ---- legacy -------------------------------------------------------------------------------
// Legacy network_test2 file -> <prefix>_<statistic>.nc in the current layout (our orientation,
// message_length stored) plus the hosts file when hosts are known. Refuses non-legacy inputs.
std::vector<fs::path> upgrade(const fs::path& in, const fs::path& prefix, bool force);

// ---- isolated -----------------------------------------------------------------------------
// A statistic file of network_test --concurrent --retest -> a raw file whose matrices hold the
// isolated value (Dataset::isolated) where the cell was re-tested alone and the loaded one
// elsewhere: what the analysis of faults and topology should see. UsageError when the input has
// no isolated values.
void isolated(const fs::path& in, const fs::path& out, bool force);

// ---- merge --------------------------------------------------------------------------------
struct MergeOptions {
  bool ignore_hosts = false;  // allow runs whose hostnames differ
};
// Throws UsageError naming the first parameter that differs between two runs (and both values).
void check_mergeable(const Dataset& a, const Dataset& b);
// Several runs of the same shape -> <prefix>_median.nc and <prefix>_min.nc (cell-wise median and
// min across runs) and the hosts file. Returns the files written.
std::vector<fs::path> merge(const std::vector<fs::path>& in, const fs::path& prefix, bool force,
                            const MergeOptions& o = {});

// ---- pair / info --------------------------------------------------------------------------
// Two tab-separated columns with a header line: message_length and the delay sender -> receiver
// (our orientation: sender = the rank the data comes from), seconds at full precision.
void write_pair(std::ostream& out, const Dataset& d, int sender, int receiver);
// The same from the file `in` into `out` (empty or "-": standard output).
void pair(const fs::path& in, const fs::path& out, int sender, int receiver, bool force);
// Human-readable summary: parameters, metadata, lengths, hosts, min/median/max delay per length
// (off-diagonal cells when the mode's diagonal is zero by definition).
void write_info(std::ostream& out, const Dataset& d);
// write_info of the file `in` to standard output.
void info(const fs::path& in);

// ---- helpers shared with tests ------------------------------------------------------------
// Shortest decimal that reads back to the same double ("nan", "inf", "-inf" for the rest).
std::string format_double(double v);
// The output files from_text/upgrade would write for dataset d under prefix.
std::vector<fs::path> prefix_outputs(const fs::path& prefix, const Dataset& d);

// The whole program (subcommands, --help); used by main() and by in-process tests.
// Returns the exit code; nt::Error escapes to the caller (guarded_main maps it to exit 2).
int run(int argc, char** argv);

}  // namespace nt::convert
