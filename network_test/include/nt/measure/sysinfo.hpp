// Host information of this rank, recorded in the result files.
#pragma once

#include <string>

namespace nt::measure {

struct RankInfo {
  std::string host;
  int cpu = -1, numa = -1;
  std::string binding = "unknown";  // cores the rank may run on, e.g. "0-3 (4 of 8)"
  std::string node = "unknown";     // its node's CPU: model, sockets, cores, hardware threads
};
RankInfo this_rank_info();
std::string mpi_library_version();
std::string utc_now_iso();

}  // namespace nt::measure
