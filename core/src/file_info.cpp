// The global attributes and test-parameter scalars every result file carries (raw, clustered and
// LogGP files alike): written at creation, read back with their types checked.
#include "nt/raw_file.hpp"

#include <netcdf.h>

#include <algorithm>
#include <sstream>

#include "nt/hosts.hpp"
#include "nt/version.hpp"

namespace nt {
namespace {
// Global attributes this file layer owns; anything else textual goes to Metadata::extra.
const char* const kKnownAtts[] = {"format_version", "program", "program_version", "mode", "statistic",
                                  "orientation", "mpi_version", "timer", "timer_resolution",
                                  "command_line", "start_time", "warmup", "seed", "sync_method", "sweep",
                                  "hostnames", "rank_cpu", "rank_numa_node", "units"};

bool is_known_att(const std::string& n) {
  return std::any_of(std::begin(kKnownAtts), std::end(kKnownAtts), [&](const char* k) { return n == k; });
}

std::string join_lines(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i) s += '\n';
    s += v[i];
  }
  return s;
}

std::vector<std::string> split_lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) out.push_back(line);
  return out;
}

}  // namespace

void write_file_info(nc::File& f, const FileInfo& info) {
  const TestParameters& p = info.params;
  const Metadata& m = info.meta;
  std::vector<std::pair<int, int>> values;  // varid, value
  for (const auto& s : kIntParameters) values.emplace_back(f.def_var(s.netcdf, NC_INT, {}), p.*(s.field));
  values.emplace_back(f.def_var("test_type", NC_INT, {}), static_cast<int>(p.mode));
  values.emplace_back(f.def_var("data_type", NC_INT, {}), static_cast<int>(p.statistic));

  f.put_att(NC_GLOBAL, "format_version", m.format_version > 0 ? m.format_version : kFormatVersion);
  f.put_att(NC_GLOBAL, "program", std::string("network_tests"));
  f.put_att(NC_GLOBAL, "program_version", m.program_version.empty() ? std::string(NT_VERSION) : m.program_version);
  f.put_att(NC_GLOBAL, "mode", std::string(mode_name(p.mode)));
  f.put_att(NC_GLOBAL, "statistic", std::string(statistic_name(p.statistic)));
  f.put_att(NC_GLOBAL, "orientation", std::string(kOrientation));
  f.put_att(NC_GLOBAL, "units", std::string("s"));
  if (!m.mpi_version.empty()) f.put_att(NC_GLOBAL, "mpi_version", m.mpi_version);
  if (!m.timer.empty()) f.put_att(NC_GLOBAL, "timer", m.timer);
  if (m.timer_resolution > 0) f.put_att(NC_GLOBAL, "timer_resolution", m.timer_resolution);
  if (!m.command_line.empty()) f.put_att(NC_GLOBAL, "command_line", m.command_line);
  if (!m.start_time.empty()) f.put_att(NC_GLOBAL, "start_time", m.start_time);
  f.put_att(NC_GLOBAL, "warmup", m.warmup);
  f.put_att(NC_GLOBAL, "seed", std::to_string(m.seed));
  if (!m.sync_method.empty()) f.put_att(NC_GLOBAL, "sync_method", m.sync_method);
  if (!m.sweep.empty()) f.put_att(NC_GLOBAL, "sweep", m.sweep);
  if (!m.hosts.empty()) f.put_att(NC_GLOBAL, "hostnames", join_lines(m.hosts));
  if (!m.cpus.empty()) f.put_att(NC_GLOBAL, "rank_cpu", m.cpus);
  if (!m.numa_nodes.empty()) f.put_att(NC_GLOBAL, "rank_numa_node", m.numa_nodes);
  for (const auto& [k, v] : m.extra)
    if (!is_known_att(k)) f.put_att(NC_GLOBAL, k, v);

  f.enddef();
  for (const auto& [id, v] : values) {
    const int val = v;
    f.put(id, {}, {}, &val);
  }
  f.redef();
}

// The suite's own attributes must have their type: a text format_version, say, must not make a
// file look like a legacy one (whose rows would then be transposed).
static void check_attribute_types(const nc::File& f) {
  enum class T { text, number, one_number };
  static const std::pair<const char*, T> kTypes[] = {
      {"format_version", T::one_number}, {"warmup", T::one_number},    {"timer_resolution", T::one_number},
      {"rank_cpu", T::number},           {"rank_numa_node", T::number}, {"program_version", T::text},
      {"mpi_version", T::text},          {"timer", T::text},            {"command_line", T::text},
      {"start_time", T::text},           {"seed", T::text},             {"sync_method", T::text},
      {"sweep", T::text},                {"hostnames", T::text},        {"mode", T::text},
      {"statistic", T::text},            {"orientation", T::text}};
  for (const auto& [name, want] : kTypes) {
    const auto shape = f.att_shape(NC_GLOBAL, name);
    if (!shape) continue;
    const bool text = shape->first == NC_CHAR;
    const bool ok = want == T::text ? text : (!text && shape->first != NC_STRING &&
                                              (want == T::number || shape->second == 1));
    if (!ok)
      throw FileError(f.path(), std::string("attribute '") + name + "' has the wrong type (expected " +
                                    (want == T::text ? "text" : want == T::number ? "numbers" : "one number") + ")");
  }
}

FileInfo read_file_info(const nc::File& f) {
  check_attribute_types(f);
  FileInfo info;
  TestParameters& p = info.params;
  Metadata& m = info.meta;
  for (const auto& s : kIntParameters) p.*(s.field) = f.get_scalar_int(s.netcdf);
  const int tt = f.get_scalar_int("test_type");
  const auto mode = mode_from_code(tt);
  if (!mode) throw FileError(f.path(), "unknown test_type " + std::to_string(tt));
  p.mode = *mode;
  const int dt = f.get_scalar_int("data_type");
  const auto stat = statistic_from_code(dt);
  if (!stat) throw FileError(f.path(), "unknown data_type " + std::to_string(dt));
  p.statistic = *stat;
  if (p.proc_num <= 0) throw FileError(f.path(), "proc_num " + std::to_string(p.proc_num) + " is not positive");

  const auto version = f.get_att_int(NC_GLOBAL, "format_version");
  m.format_version = version.value_or(0);
  if (m.format_version > kFormatVersion)
    throw FileError(f.path(), "file format version " + std::to_string(m.format_version) +
                                  " is newer than this program reads (version " + std::to_string(kFormatVersion) +
                                  "); use a newer network_tests");
  if (m.format_version < 0) throw FileError(f.path(), "invalid format_version " + std::to_string(m.format_version));
  m.program_version = f.get_att_text(NC_GLOBAL, "program_version").value_or("");
  m.mpi_version = f.get_att_text(NC_GLOBAL, "mpi_version").value_or("");
  m.timer = f.get_att_text(NC_GLOBAL, "timer").value_or("");
  m.timer_resolution = f.get_att_double(NC_GLOBAL, "timer_resolution").value_or(0.0);
  m.command_line = f.get_att_text(NC_GLOBAL, "command_line").value_or("");
  m.start_time = f.get_att_text(NC_GLOBAL, "start_time").value_or("");
  m.warmup = f.get_att_int(NC_GLOBAL, "warmup").value_or(0);
  if (auto seed = f.get_att_text(NC_GLOBAL, "seed")) {
    try {
      m.seed = std::stoull(*seed);
    } catch (const std::exception&) {
      throw FileError(f.path(), "attribute seed '" + *seed + "' is not a number");
    }
  }
  m.sync_method = f.get_att_text(NC_GLOBAL, "sync_method").value_or("");
  m.sweep = f.get_att_text(NC_GLOBAL, "sweep").value_or("");
  if (auto h = f.get_att_text(NC_GLOBAL, "hostnames")) m.hosts = split_lines(*h);
  m.cpus = f.get_att_ints(NC_GLOBAL, "rank_cpu").value_or(std::vector<int>{});
  m.numa_nodes = f.get_att_ints(NC_GLOBAL, "rank_numa_node").value_or(std::vector<int>{});
  for (const auto& name : f.att_names(NC_GLOBAL)) {
    if (is_known_att(name)) continue;
    if (auto t = f.get_att_text(NC_GLOBAL, name)) m.extra[name] = *t;
  }
  return info;
}

}  // namespace nt
