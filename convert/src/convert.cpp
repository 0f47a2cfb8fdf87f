// synth, to-text, from-text, to-csv, to-json, upgrade, pair.
#include <algorithm>
#include <cmath>
#include <span>
#include <functional>
#include <iostream>
#include <iterator>

#include <fmt/compile.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "nt/json_text.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/isolated.hpp"
#include "nt/output.hpp"
#include "nt/raw_file.hpp"
#include "nt/result_set.hpp"
#include "nt/sweep.hpp"
#include "nt/text_format.hpp"
#include "nt/types.hpp"
#include "nt/convert/convert.hpp"

namespace nt::convert {

std::string format_double(double v) {
  if (std::isnan(v)) return "nan";
  return fmt::format("{}", v);  // shortest representation that reads back bit-exactly
}

namespace detail {

void write_raw_stream(PendingOutput& out, const Dataset& d, const FileInfo& info) {
  RawWriter w(out.temp(), info, /*overwrite=*/true);
  for (std::size_t k = 0; k < d.count(); ++k) w.append(d.lengths()[k], d.matrix(k));
  w.close();
}

void write_raw_rows(PendingOutput& out, const FileInfo& info, const std::vector<std::int64_t>& lengths, int P,
                    int block, const std::function<void(std::size_t, int, int, std::vector<double>&)>& fill) {
  RawWriter(out.temp(), info, /*overwrite=*/true).close();  // the header; the records follow
  RawRowWriter w(out.temp(), P, 0, RecordExtras{});
  const auto uP = static_cast<std::size_t>(P);
  std::vector<double> rows;
  for (std::size_t k = 0; k < lengths.size(); ++k) {
    for (int r0 = 0; r0 < P; r0 += block) {
      const int r1 = std::min(P, r0 + block);
      fill(k, r0, r1, rows);
      for (int x = r0; x < r1; ++x)
        w.put_row(k, x, std::span<const double>(rows.data() + static_cast<std::size_t>(x - r0) * uP, uP));
    }
    w.sync();
    w.commit(k, lengths[k]);
  }
}

int block_rows(const Dataset& d) {
  const int P = d.ranks();
  if (d.format() == "netcdf4") return P;
  return std::clamp(static_cast<int>((1u << 20) / (8u * static_cast<unsigned>(P))), 1, P);
}

FileInfo output_info(const Dataset& d) {
  FileInfo info = d.info();
  info.meta.format_version = kFormatVersion;
  if (info.params.statistic == Statistic::all) {
    info.params.statistic = Statistic::median;
    info.meta.extra["derived_statistic"] = "median over the samples of each cell of " + d.source().filename().string();
  }
  return info;
}

std::string describe_format(const Dataset& d) {
  const auto& f = d.format();
  if (f == "legacy") return "legacy network_test2 NetCDF file";
  if (f == "raw") return fmt::format("raw NetCDF file (format version {})", d.meta().format_version);
  if (f == "text") return "text result file";
  if (f == "clustered") return "clustered NetCDF-4 file";
  if (f == "netcdf4") return "NetCDF-4 copy";
  return f + " data";
}


void emit(const fs::path& in, const fs::path& out, bool force, bool stdout_ok,
          const std::function<void(std::ostream&)>& body) {
  if (stdout_ok && (out.empty() || out == "-")) {
    body(std::cout);
    flush_stdout();
    return;
  }
  write_file_atomically(out, force, body, {in});
}

}  // namespace detail

std::vector<fs::path> prefix_outputs(const fs::path& prefix, const Dataset& d) {
  std::vector<fs::path> out{result_path(prefix, detail::output_info(d).params.statistic)};
  if (!d.meta().hosts.empty()) out.push_back(hosts_path(prefix));
  return out;
}

namespace {

// Opens `in` for a command that takes only `format`; anything else is refused with
// "<in>: is a <format description>, <refusal>".
std::unique_ptr<Dataset> open_only(const fs::path& in, const std::string& format, std::string_view refusal) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  if (d->format() != format)
    throw UsageError(fmt::format("{}: is a {}, {}", in.string(), detail::describe_format(*d), refusal));
  return d;
}

// Writes the data file and the hosts file of `d` under `prefix`: both appear, or neither.
std::vector<fs::path> write_prefix(const Dataset& d, const FileInfo& info, const fs::path& prefix, bool force,
                                   const fs::path& input) {
  if (prefix.empty()) throw UsageError("empty output prefix");
  auto outputs = prefix_outputs(prefix, d);
  OutputSet set;
  PendingOutput& data = set.add(outputs[0], force, {input});
  PendingOutput* hosts = outputs.size() > 1 ? &set.add(outputs[1], force, {input}) : nullptr;
  detail::write_raw_stream(data, d, info);
  if (hosts) write_file_atomically_into(*hosts, [&](std::ostream& o) { write_hosts(o, d.meta().hosts); });
  set.commit_all();
  return outputs;
}

}  // namespace

// ---- text ---------------------------------------------------------------------------------

void to_text(const fs::path& in, const fs::path& out, bool force) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  detail::emit(in, out, force, false, [&](std::ostream& o) { write_text(o, *d); });
}

std::vector<fs::path> from_text(const fs::path& in, const fs::path& prefix, bool force) {
  auto d = open_only(in, "text",
                     "not a text result file (from-text converts text files; use upgrade for legacy files, to-text "
                     "for the other direction)");
  FileInfo info = detail::output_info(*d);
  info.meta.extra["converted_from"] = in.filename().string();
  return write_prefix(*d, info, prefix, force, in);
}

// ---- CSV ----------------------------------------------------------------------------------

void write_csv(std::ostream& out, const Dataset& d) {
  out << "message_length,sender,receiver,value\n";
  const int p = d.ranks();
  fmt::memory_buffer buf;
  std::string prefix;
  for (std::size_t k = 0; k < d.count(); ++k) {
    const Matrix m = d.matrix(k);
    const auto len = d.lengths()[k];
    buf.clear();
    for (int i = 0; i < p; ++i) {
      prefix = fmt::format("{},{},", len, i);  // shared by the whole row
      const auto row = m.row(i);
      for (int j = 0; j < p; ++j) {
        const double v = row[static_cast<std::size_t>(j)];
        buf.append(prefix.data(), prefix.data() + prefix.size());
        if (std::isnan(v))
          fmt::format_to(std::back_inserter(buf), FMT_COMPILE("{},nan\n"), j);
        else
          fmt::format_to(std::back_inserter(buf), FMT_COMPILE("{},{}\n"), j, v);
      }
      if (buf.size() >= (1u << 20)) {  // out in pieces of about 1 MB, never the text of a whole matrix
        out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
        buf.clear();
      }
    }
    out.write(buf.data(), static_cast<std::streamsize>(buf.size()));
  }
}

void to_csv(const fs::path& in, const fs::path& out, bool force) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  detail::emit(in, out, force, false, [&](std::ostream& o) { write_csv(o, *d); });
}

// ---- JSON ---------------------------------------------------------------------------------

namespace {

using ojson = nlohmann::ordered_json;

ojson params_json(const TestParameters& p) {
  ojson j;
  for (const auto& f : kIntParameters) {  // under their NetCDF names; mode and statistic after proc_num
    j[f.netcdf] = p.*(f.field);
    if (f.field != &TestParameters::proc_num) continue;
    j["mode"] = std::string(mode_name(p.mode));
    j["test_type"] = static_cast<int>(p.mode);
    j["statistic"] = std::string(statistic_name(p.statistic));
    j["data_type"] = static_cast<int>(p.statistic);
  }
  return j;
}

ojson meta_json(const Metadata& m) {
  ojson j;
  j["format_version"] = m.format_version;
  j["program_version"] = m.program_version;
  j["mpi_version"] = m.mpi_version;
  j["timer"] = m.timer;
  j["timer_resolution"] = m.timer_resolution;
  j["command_line"] = m.command_line;
  j["start_time"] = m.start_time;
  j["warmup"] = m.warmup;
  j["seed"] = m.seed;
  j["sync_method"] = m.sync_method;
  j["sweep"] = m.sweep;
  ojson extra = ojson::object();
  for (const auto& [k, v] : m.extra) extra[k] = v;
  j["extra"] = extra;
  return j;
}

}  // namespace

void write_json(std::ostream& out, const Dataset& d) {
  const auto& meta = d.meta();
  ojson head;
  head["source"] = d.source().string();
  head["source_format"] = d.format();
  head["orientation"] = kOrientation;
  head["units"] = "s";
  head["parameters"] = params_json(d.params());
  head["metadata"] = meta_json(meta);
  head["hosts"] = meta.hosts;
  head["cpus"] = meta.cpus;
  head["numa_nodes"] = meta.numa_nodes;
  head["message_lengths"] = d.lengths();

  // Everything but the matrices in one indented block, then one matrix per line, streamed.
  std::string text = nt::json_text(head, 1);
  text.pop_back();  // the closing brace
  while (!text.empty() && text.back() == '\n') text.pop_back();
  out << text << ",\n \"matrices\": [";
  const int p = d.ranks();
  for (std::size_t k = 0; k < d.count(); ++k) {
    const Matrix m = d.matrix(k);
    ojson mj = ojson::array();
    for (int i = 0; i < p; ++i) {
      ojson row = ojson::array();
      for (double v : m.row(i)) row.push_back(json_number<ojson>(v));
      mj.push_back(std::move(row));
    }
    out << (k == 0 ? "\n  " : ",\n  ") << nt::json_text(mj);
  }
  out << (d.count() ? "\n ]\n}\n" : "]\n}\n");
}

void to_json(const fs::path& in, const fs::path& out, bool force) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  detail::emit(in, out, force, true, [&](std::ostream& o) { write_json(o, *d); });
}

// ---- legacy -------------------------------------------------------------------------------

std::vector<fs::path> upgrade(const fs::path& in, const fs::path& prefix, bool force) {
  auto d = open_only(in, "legacy", "not a legacy network_test2 file; nothing to upgrade");
  FileInfo info = detail::output_info(*d);
  if (info.meta.sweep.empty()) info.meta.sweep = "linear";
  info.meta.extra["upgraded_from"] = in.filename().string();
  info.meta.extra["upgrade_note"] =
      fmt::format("legacy rows were the measuring rank; {} to x=sender, y=receiver",
                  legacy_is_transposed(info.params.mode) ? "transposed" : "kept as is");
  return write_prefix(*d, info, prefix, force, in);
}

// ---- isolated -----------------------------------------------------------------------------

void isolated(const fs::path& in, const fs::path& out, bool force) {
  std::shared_ptr<const Dataset> d = open_dataset(in);
  if (!has_isolated_values(*d))
    throw UsageError(in.string() + " has no isolated values (network_test --concurrent --retest writes them)");
  nt::require_memory(16ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()) *
                         d->count(),
                     fmt::format("the {} matrices of {}", d->count(), in.string()));
  FileInfo info = detail::output_info(*d);
  info.meta.extra["isolated_from"] = in.filename().string();
  info.meta.extra["isolated_note"] =
      "the cells re-tested alone after the concurrent rounds hold their isolated value, the others the loaded one";
  MemoryDataset m(info, "memory", in);
  const IsolatedWhereRetested merged(d);
  std::size_t replaced = 0;
  for (std::size_t k = 0; k < d->count(); ++k) {
    m.append(d->lengths()[k], merged.matrix(k));
    replaced += merged.retested(k).size();
  }
  m.mutable_info().meta.extra["isolated_cells"] = std::to_string(replaced);
  write_raw(out, m, force);
}

// ---- pair ---------------------------------------------------------------------------------

void write_pair(std::ostream& out, const Dataset& d, int sender, int receiver) {
  const int p = d.ranks();
  for (int r : {sender, receiver})
    if (r < 0 || r >= p)
      throw UsageError(fmt::format("rank {} out of range: {} has {} ranks (0..{})", r, d.source().string(), p, p - 1));
  const auto values = d.pair(sender, receiver);
  out << fmt::format("message_length\tdelay_{}_to_{}_s\n", sender, receiver);
  for (std::size_t k = 0; k < values.size(); ++k)
    out << d.lengths()[k] << '\t' << format_double(values[k]) << '\n';
}

void pair(const fs::path& in, const fs::path& out, int sender, int receiver, bool force) {
  auto d = open_dataset(in);
  // Streaming length by length: one P x P matrix of doubles at a time (8 P^2 bytes).
  nt::require_memory(8ull * static_cast<std::uint64_t>(d->ranks()) * static_cast<std::uint64_t>(d->ranks()), fmt::format("one {0}x{0} matrix of {1}", d->ranks(), in.string()));
  detail::emit(in, out, force, true, [&](std::ostream& o) { write_pair(o, *d, sender, receiver); });
}

// ---- synth --------------------------------------------------------------------------------

std::vector<std::int64_t> sweep_lengths(const Sweep& s) {
  if (!s.begin && !s.end && !s.step) return {};
  if (!s.end || !s.step) throw UsageError("synth: a linear sweep needs --end and --step (and optionally --begin)");
  const std::int64_t begin = s.begin.value_or(0), end = *s.end, step = *s.step;
  if (begin < 0 || step <= 0 || end < begin)
    throw UsageError(fmt::format("synth: impossible sweep begin {} end {} step {}", begin, end, step));
  if (linear_sweep_size(begin, end, step) > kMaxSweepLengths)
    throw UsageError(fmt::format("synth: the sweep has more than {} lengths", kMaxSweepLengths));
  return linear_sweep(begin, end, step);
}

std::vector<fs::path> synth(const SynthParams& p, const fs::path& prefix, bool force) {
  for (auto l : p.lengths)
    if (l < 0) throw UsageError(fmt::format("synth: negative message length {}", l));
  auto outputs = ResultSet(prefix).standard_files();
  for (const auto& o : outputs) check_output(o, force);  // before the work (synthesize_to commits all or none)
  // Written as generated, row by row: a few rows of P doubles, never the n x P x P values.
  nt::require_memory(synth_stream_bytes(p),
                     fmt::format("synthesizing {} ranks (a few rows of {} values)",
                                 static_cast<long long>(p.nodes) * p.ranks_per_node,
                                 static_cast<long long>(p.nodes) * p.ranks_per_node));
  synthesize_to(p, prefix.string(), force);
  return outputs;
}

}  // namespace nt::convert
