// Host information of this rank, recorded in the result files.
#pragma once

#include <string>

namespace nt::measure {

struct RankInfo {
  std::string host;
  int cpu = -1, numa = -1;
  std::string binding = "unknown";  // cores the rank may run on, e.g. "0-3 (4 of 8)"
  std::string node = "unknown";     // its node's CPU: model, sockets, cores, hardware threads
  // The running kernel's boot id: ranks with the same one share the machine's cores, whatever
  // their host names say (containers, network namespaces). Empty when it cannot be read.
  std::string machine;
};
RankInfo this_rank_info();
std::string mpi_library_version();
std::string utc_now_iso();

}  // namespace nt::measure
