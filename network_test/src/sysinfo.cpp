// Where each rank runs: host name, CPU and NUMA node, the cores it is bound to and the node's CPU
// (hwloc); MPI library version; UTC time.
#include <hwloc.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "setup.hpp"
#include "nt/measure/sysinfo.hpp"

namespace nt::measure {

namespace {
int numa_node_of_cpu(int cpu) {
  if (cpu < 0) return -1;
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::path dir = "/sys/devices/system/cpu/cpu" + std::to_string(cpu);
  if (!fs::is_directory(dir, ec)) return -1;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.rfind("node", 0) == 0 && name.size() > 4 &&
        std::all_of(name.begin() + 4, name.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
      return std::stoi(name.substr(4));
  }
  return -1;
}

#ifndef NT_SMPI
// The node's CPU model and core count and this process' binding, from hwloc (which reads cpuinfo,
// sysfs and the cgroup limits). On failure the fields stay "unknown": the run goes on.
void node_and_binding(RankInfo& info) {
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0) return;
  if (hwloc_topology_load(topo) == 0) {
    const int cores = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE);
    const int pus = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PU);
    const int sockets = hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_PACKAGE);
    std::string model;
    if (hwloc_obj_t pkg = hwloc_get_obj_by_type(topo, HWLOC_OBJ_PACKAGE, 0))
      if (const char* m = hwloc_obj_get_info_by_name(pkg, "CPUModel")) model = m;
    if (model.empty())
      if (const char* m = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "CPUModel")) model = m;
    info.node = fmt::format("{}; {} socket(s), {} cores, {} hardware threads", model.empty() ? "unknown CPU" : model,
                            sockets, cores, pus);
    if (hwloc_bitmap_t set = hwloc_bitmap_alloc()) {
      if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) == 0) {
        char* text = nullptr;
        if (hwloc_bitmap_list_asprintf(&text, set) >= 0 && text) {
          info.binding = text;
          std::free(text);
        }
        const int n = hwloc_bitmap_weight(set);
        info.binding += n == pus ? " (all)" : fmt::format(" ({} of {})", n, pus);
      }
      hwloc_bitmap_free(set);
    }
  }
  hwloc_topology_destroy(topo);
}
#endif
}  // namespace

RankInfo this_rank_info() {
  RankInfo info;
  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  info.host.assign(name, static_cast<std::size_t>(std::max(len, 0)));
  info.cpu = sched_getcpu();
#ifdef SYS_getcpu
  unsigned cpu = 0, node = 0;
  if (syscall(SYS_getcpu, &cpu, &node, nullptr) == 0) {
    info.cpu = static_cast<int>(cpu);
    info.numa = static_cast<int>(node);
  }
#endif
  if (const int n = numa_node_of_cpu(info.cpu); n >= 0) info.numa = n;
#ifdef NT_SMPI
  // A simulated host has no CPU of its own to describe: hwloc would describe the machine that runs
  // the simulation, once per simulated rank, and its plugins' dlopen walks every object loaded,
  // one copy of this program per rank (start-up host time in the square of the ranks: most of
  // the first minutes at 4,096 ranks).
  info.node = "simulated host (SimGrid SMPI)";
#else
  node_and_binding(info);
#endif
  std::ifstream boot("/proc/sys/kernel/random/boot_id");
  std::getline(boot, info.machine);
  return info;
}

std::string mpi_library_version() {
  char buf[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(buf, &len);
  std::string s(buf, static_cast<std::size_t>(std::max(len, 0)));
  // MPICH appends its whole configure line: keep version, release date and device.
  std::string out;
  std::size_t pos = 0, kept = 0;
  while (pos < s.size() && kept < 4) {
    auto nl = s.find('\n', pos);
    std::string line = s.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? s.size() : nl + 1;
    for (auto& ch : line)
      if (ch == '\t') ch = ' ';
    while (!line.empty() && (line.back() == ' ' || line.back() == '\0')) line.pop_back();
    if (line.empty() || line.find("onfigure") != std::string::npos || line.find("CC:") == 0 ||
        line.find("MPICH CC") == 0 || line.find("MPICH CXX") == 0 || line.find("MPICH F") == 0)
      continue;
    if (line.rfind("MPICH ABI", 0) == 0 || line.rfind("MPICH Custom", 0) == 0) continue;
    out += (out.empty() ? "" : "; ") + line;
    ++kept;
  }
  s = out;
  return s;
}

std::string utc_now_iso() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

double process_age_s() {
  // Field 22 of /proc/self/stat is the start time in clock ticks after boot; /proc/uptime the now.
  std::ifstream st("/proc/self/stat"), up("/proc/uptime");
  std::string line;
  double uptime = 0;
  if (!std::getline(st, line) || !(up >> uptime)) return 0;
  const auto close = line.rfind(')');  // the command name may hold spaces
  if (close == std::string::npos) return 0;
  std::istringstream rest(line.substr(close + 2));
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i)
    if (i == 22) return std::max(0.0, uptime - std::stod(field) / static_cast<double>(sysconf(_SC_CLK_TCK)));
  return 0;
}

}  // namespace nt::measure
