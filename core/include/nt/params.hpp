// Test parameters (the legacy scalar variables) and the metadata every file carries.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

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

struct FileInfo {
  TestParameters params;
  Metadata meta;
};

}  // namespace nt
