// Test parameters (the legacy scalar variables) and the metadata every file carries.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "nt/schedule.hpp"
#include "nt/types.hpp"

namespace nt {

// Raw-file layout version written by this suite. Readers refuse files with a larger version.
// Legacy network_test2 files have no version; they read as version 0.
inline constexpr int kFormatVersion = 1;
inline constexpr const char* kOrientation = "x=sender (data comes FROM rank x), y=receiver (data goes TO rank y)";

// The scalar variables of the original layout (names in comments are the NetCDF names).
struct TestParameters {
  int proc_num = 0;                         // proc_num
  Mode mode = Mode::one_to_one;             // test_type
  Statistic statistic = Statistic::average; // data_type
  int begin_length = 0;                     // begin_mes_length
  int end_length = 0;                       // end_mes_length (inclusive)
  int step_length = 0;                      // step_length (0 when the sweep is a list or geometric)
  int noise_message_length = 0;             // noise_mes_length
  int num_noise_messages = 0;               // num_noise_mes
  int num_noise_procs = 0;                  // num_noise_proc
  int num_repeats = 0;                      // num_repeates (sic, the original spelling)
  bool operator==(const TestParameters&) const = default;
};

// The integer parameters in the original's order, with their names as legacy scalar variables of
// the raw NetCDF layout and as header lines of the text format ("processors 4").
struct IntParameter {
  const char* netcdf;
  const char* text;
  int TestParameters::*field;
};
inline constexpr IntParameter kIntParameters[] = {
    {"proc_num", "processors", &TestParameters::proc_num},
    {"begin_mes_length", "begin message length", &TestParameters::begin_length},
    {"end_mes_length", "end message length", &TestParameters::end_length},
    {"step_length", "step length", &TestParameters::step_length},
    {"noise_mes_length", "noise message length", &TestParameters::noise_message_length},
    {"num_noise_mes", "number of noise messages", &TestParameters::num_noise_messages},
    {"num_noise_proc", "number of noise processes", &TestParameters::num_noise_procs},
    {"num_repeates", "number of repeates", &TestParameters::num_repeats},
};

// The parameters of a run of `mode` on `proc_num` ranks over `lengths` (not empty) with `repeats`
// samples per cell: begin and end length from the list, step_length = `step` (0 for a list or a
// geometric sweep), no noise, statistic average (each writer sets its own).
TestParameters run_parameters(int proc_num, Mode mode, const std::vector<std::int64_t>& lengths, int repeats,
                              int step);
// The step of `lengths` when they are a linear sweep (two or more, equally spaced, increasing),
// else 0.
int linear_step(const std::vector<std::int64_t>& lengths);

// Everything new this suite stores beside the parameters (global attributes, hosts variables).
struct Metadata {
  int format_version = kFormatVersion;  // 0: legacy file
  std::string program_version;
  std::string mpi_version;
  std::string timer;                    // e.g. "MPI_Wtime"
  double timer_resolution = 0.0;        // seconds
  std::string command_line;
  std::string start_time;               // ISO 8601 UTC
  int warmup = 0;
  std::uint64_t seed = 0;
  std::string sync_method;              // how clocks/starts were synchronised
  std::string sweep;                    // "linear", "list" or "geometric"
  std::vector<std::string> hosts;       // one per rank (may be empty)
  std::vector<int> cpus;                // CPU each rank ran on, -1 unknown (may be empty)
  std::vector<int> numa_nodes;          // NUMA node of each rank, -1 unknown (may be empty)
  std::map<std::string, std::string> extra;  // any other text attribute, kept on round trips
};

// Machine description attributes (text, in Metadata::extra), written by network_test:
//   rank_binding: one line per rank, the cores it may run on ("0-3 (4 of 8)", "unknown");
//   node_cpu:     one line per host, "host: CPU model; S socket(s), C cores, T hardware threads".
// The MPI library and version and the command line are Metadata::mpi_version and ::command_line.
inline constexpr const char* kAttrRankBinding = "rank_binding";
inline constexpr const char* kAttrNodeCpu = "node_cpu";
// pair_order: the order network_test measured the pairs in, in prose (Schedule::pair_order_text);
// the same as a value is attribute `schedule` (nt/schedule.hpp: schedule_of reads either).
inline constexpr const char* kAttrPairOrder = "pair_order";

// oversubscribed: "MODE: N of P ranks", N the ranks that shared their cores with more ranks than
// there were cores (network_test --oversubscribed; the machine, not the host name, counts).
inline constexpr const char* kAttrOversubscribed = "oversubscribed";
std::string oversubscribed_text(const std::string& mode, int ranks, int P);
// N of that attribute; 0 when the file has none (files of earlier versions, other tools).
int oversubscribed_ranks(const Metadata& m);

struct FileInfo {
  TestParameters params;
  Metadata meta;
};

}  // namespace nt
