// compress_file (algorithm + writer + attributes), the compress and decompress commands, and the
// summary behind `network_cluster info`.
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <system_error>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nt/json_text.hpp"
#include "nt/output.hpp"
#include "nt/cluster/cluster.hpp"
#include "nt/clustered.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/netcdf.hpp"
#include "nt/raw_file.hpp"
#include "nt/stats.hpp"
#include "nt/types.hpp"

namespace fs = std::filesystem;

namespace nt::cluster {

namespace {
constexpr int kGlobal = -1;  // NC_GLOBAL
// Inputs up to this size may be clustered again with other cluster factors when their file comes
// out bigger than the input (write_output).
constexpr std::uintmax_t kTinyInputBytes = 1u << 20;
constexpr const char* kRatioDefinition =
    "cluster_compression_ratio = cluster_raw_bytes / size of this file in bytes, where cluster_raw_bytes is the "
    "size of the input raw CDF file (or 8*P*P*N+4*N bytes of payload for other inputs); cluster_values_ratio = "
    "P*P*N input values / number of values in data(d)";

// The attributes of a result (parameters, measured errors, sizes; the compression ratio is set
// once the file's size is known) and the values ratio of the report.
void describe(CompressReport& rep, const Options& o, const fs::path& in, const std::string& format, double P,
              double N) {
  Result& r = rep.result;
  rep.values_ratio = P * P * N / static_cast<double>(std::max<std::size_t>(r.content.data.size(), 1));
  const ErrorStats& e = r.errors;
  auto& ta = r.content.text_attributes;
  auto& na = r.content.number_attributes;
  ta = {{"cluster_algorithm", "network_cluster greedy regions with cluster splitting and quantised residuals, version 2 "
                              "(share/doc/cluster.md)"},
        {"cluster_threshold_mode", o.relative ? "relative" : "absolute"},
        {"cluster_source", in.filename().string()},
        {"cluster_source_format", format},
        {"cluster_ratio_definition", kRatioDefinition},
        {"cluster_error_definition",
         "errors of the reconstructed value r against the input value v: absolute |r-v| over every value, "
         "relative |r-v|/|v| over values v != 0; beyond threshold: |r-v| > threshold (absolute) or "
         "threshold*|v| (relative)"}};
  na = {{"cluster_threshold", o.threshold},
        {"cluster_exceptions", o.exceptions},
        {"cluster_min_region", o.min_region},
        {"cluster_factor", o.cluster_factor},
        {"cluster_regions", static_cast<double>(r.regions.size())},
        {"cluster_instances", static_cast<double>(r.cluster_instances)},
        {"cluster_max_relative_error", e.max_relative},
        {"cluster_mean_relative_error", e.mean_relative},
        {"cluster_max_absolute_error", e.max_absolute},
        {"cluster_mean_absolute_error", e.mean_absolute},
        {"cluster_values_beyond_threshold", static_cast<double>(e.beyond)},
        {"cluster_fraction_beyond_threshold", e.cells ? static_cast<double>(e.beyond) / static_cast<double>(e.cells) : 0.0},
        {"cluster_exception_values", static_cast<double>(e.exceptions)},
        {"cluster_raw_bytes", static_cast<double>(rep.raw_bytes)},
        {"cluster_values_ratio", rep.values_ratio},
        {"cluster_compression_ratio", 0.0}};
}

// What the compact form keeps: the parameters and errors `info` shows (the definition texts are
// in share/doc/cluster.md; the derived counts `info` shows as absent).
ClusteredContent compact_content(const ClusteredContent& c) {
  static const std::set<std::string> kKeep = {"cluster_threshold", "cluster_exceptions", "cluster_min_region",
                                              "cluster_max_relative_error", "cluster_max_absolute_error", "cluster_mean_relative_error",
                                              "cluster_mean_absolute_error",
                                              "cluster_values_beyond_threshold", "cluster_raw_bytes",
                                              "cluster_compression_ratio"};
  ClusteredContent small = c;
  std::erase_if(small.number_attributes, [](const auto& a) { return !kKeep.contains(a.first); });
  std::erase_if(small.text_attributes, [](const auto& a) { return a.first != "cluster_threshold_mode"; });
  return small;
}

// Writes `c` in the compact form beside `out` and puts it in place of `out` when it is smaller.
bool replace_if_smaller(const fs::path& out, const ClusteredContent& c) {
  const fs::path tmp = out.string() + ".cdf";
  std::error_code ec;
  try {
    write_clustered(tmp, compact_content(c), true, /*compact=*/true);
    if (fs::file_size(tmp) < fs::file_size(out)) {
      fs::rename(tmp, out);
      return true;
    }
    fs::remove(tmp, ec);
    return false;
  } catch (...) {
    fs::remove(tmp, ec);
    throw;
  }
}

// The one output path of compress: writes the result as NetCDF-4 and, when that is bigger than
// the input (tiny runs, where HDF5's ~25 KiB of metadata and then the header dominate), the
// compact classic form (write_clustered) of the result or of one of the `alternatives` (the same
// input clustered otherwise), whichever file is smallest; rep becomes the result written. Then
// sets the exact compression ratio. Returns the final size.
std::uintmax_t write_output(const fs::path& final_out, CompressReport& rep, bool overwrite,
                            const std::vector<std::function<CompressReport()>>& alternatives) {
  PendingOutput pending(final_out, overwrite);
  const fs::path& out = pending.temp();
  write_clustered(out, rep.result.content, /*overwrite=*/true);
  if (fs::file_size(out) > rep.raw_bytes) {
    replace_if_smaller(out, rep.result.content);
    for (const auto& alternative : alternatives) {
      CompressReport alt = alternative();
      if (replace_if_smaller(out, alt.result.content)) rep = std::move(alt);
    }
  }
  // The ratio needs the final size: set it, and again if setting it changed the size.
  std::uintmax_t bytes = 0;
  for (int round = 0; round < 4; ++round) {
    bytes = fs::file_size(out);
    rep.compression_ratio = static_cast<double>(rep.raw_bytes) / static_cast<double>(bytes);
    set_clustered_attribute(out, "cluster_compression_ratio", rep.compression_ratio);
    if (fs::file_size(out) == bytes) break;
  }
  pending.commit();
  return bytes;
}
}  // namespace

CompressReport compress_file(const fs::path& in, const fs::path& out, const Options& o, bool overwrite) {
  o.validate();
  check_output(out, overwrite);
  refuse_same_file(out, {in});
  const auto ds = open_dataset(in);
  {
    // What compress holds (share/doc/cluster.md "Memory"): a P x P matrix of doubles, two
    // permutations of the P^2 pairs and a sort buffer (4 bytes each): 20 P^2 bytes.
    const auto p = static_cast<std::uint64_t>(ds->ranks());
    nt::require_memory(20ull * p * p,
                       fmt::format("compressing {0} ranks (a {0}x{0} matrix, two permutations of its pairs and a "
                                   "sort buffer)", p));
  }
  // The offsets and residuals of a big input wait in scratch files beside the output.
  CompressMemory memory;
  memory.scratch_dir = fs::absolute(out).parent_path();
  CompressReport rep;
  rep.result = compress(*ds, o, memory);
  const auto P = static_cast<double>(ds->ranks());
  const auto N = static_cast<double>(ds->count());
  std::error_code ec;
  if (ds->format() == "raw" || ds->format() == "legacy") rep.raw_bytes = fs::file_size(in, ec);
  if (rep.raw_bytes == 0) rep.raw_bytes = static_cast<std::uintmax_t>(8.0 * P * P * N + 4.0 * N);
  describe(rep, o, in, ds->format(), P, N);
  // A tiny input, whose file is mostly header, may come out smaller clustered with a smaller cluster
  // factor: clusters within the threshold itself need no residual variable (layout 1), factors
  // between trade more centres for smaller residuals. Only tried when the result is bigger than
  // the input, and only on inputs small enough for a few more passes to cost nothing.
  std::vector<std::function<CompressReport()>> alternatives;
  if (rep.raw_bytes <= kTinyInputBytes)
    for (const double factor : {1.0, 2.0, 5.0})
      if (factor < o.cluster_factor)
        alternatives.emplace_back([&, factor] {
          Options p = o;
          p.cluster_factor = factor;
          CompressReport alt;
          alt.raw_bytes = rep.raw_bytes;
          alt.result = compress(*ds, p, memory);
          describe(alt, p, in, ds->format(), P, N);
          return alt;
        });
  rep.clustered_bytes = write_output(out, rep, overwrite, alternatives);
  return rep;
}

CompressReport compress_to_ratio(const fs::path& in, const fs::path& out, Options o, double target, bool overwrite,
                                 double& chosen) {
  if (!(target > 1) || !std::isfinite(target)) throw UsageError(fmt::format("--target-ratio {} must be above 1", target));
  if (!o.relative) throw UsageError("--target-ratio searches a relative bound; it cannot be --absolute");
  check_output(out, overwrite);
  refuse_same_file(out, {in});
  // The trial files of the search: one temporary beside the output, removed on every path
  // (errors, signals; a killed run's is removed by the next writer in the directory).
  PendingOutput scratch(out, true);
  const fs::path tmp = scratch.temp();
  // Bisection on log(bound) in [1e-4, 0.5]: the file shrinks as the bound grows (not strictly, so
  // the result is the smallest bound found that reaches the target, to 1 % of the bound).
  const auto attempt = [&](double t) {
    o.threshold = t;
    return compress_file(in, tmp, o, true);
  };
  double lo = 1e-4, hi = 0.5;
  CompressReport best = attempt(hi);
  if (best.compression_ratio < target) {
    throw UsageError(fmt::format("--target-ratio {}: even a bound of 50 % gives only {:.1f}x", target,
                                 best.compression_ratio));
  }
  double best_t = hi;
  if (const auto r = attempt(lo); r.compression_ratio >= target) {
    best = r;
    best_t = lo;
  } else {
    while (hi / lo > 1.01) {
      const double mid = std::sqrt(lo * hi);
      auto rm = attempt(mid);
      if (rm.compression_ratio >= target) {
        hi = mid;
        best = std::move(rm);
        best_t = mid;
      } else {
        lo = mid;
      }
    }
  }
  chosen = best_t;
  // The chosen bound once more, now to the real output (the one output path).
  o.threshold = best_t;
  scratch.discard();
  return compress_file(in, out, o, overwrite);
}

void parse_threshold(const std::string& text, Options& o, bool absolute) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    throw UsageError("--threshold '" + text + "' is not a number");
  }
  const std::string unit = text.substr(used);
  static const std::pair<const char*, double> kUnits[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6},
                                                           {"\u00b5s", 1e-6}, {"ns", 1e-9}};
  if (unit == "%") {
    if (absolute) throw UsageError("--threshold " + text + " is a percentage; it cannot be --absolute");
    o.relative = true;
    o.threshold = v / 100;
    return;
  }
  for (const auto& [name, scale] : kUnits)
    if (unit == name) {
      if (o.relative && unit != "")
        throw UsageError("--threshold " + text + " has a time unit; it cannot be --relative");
      o.threshold = v * scale;
      return;
    }
  throw UsageError("--threshold '" + text + "': unknown unit '" + unit + "' (use s, ms, us, ns or %)");
}

std::string compress_command(const fs::path& in, const fs::path& out, CompressRequest r) {
  if (r.absolute && r.o.relative) throw UsageError("--absolute and --relative exclude each other");
  CompressReport rep;
  std::string chosen;
  if (r.target_ratio > 0) {
    if (r.absolute) throw UsageError("--target-ratio searches a relative bound; it cannot be --absolute");
    r.o.relative = true;
    double t = 0;
    rep = compress_to_ratio(in, out, r.o, r.target_ratio, r.force, t);
    chosen = fmt::format("bound {:.4g}% (the smallest found that reaches {}x); ", t * 100, r.target_ratio);
  } else {
    if (r.threshold.empty()) throw UsageError("compress needs --threshold or --target-ratio");
    parse_threshold(r.threshold, r.o, r.absolute);
    rep = compress_file(in, out, r.o, r.force);
  }
  const auto& e = rep.result.errors;
  return fmt::format(
      "{}: {}{} regions, {} cluster instances, {} values stored; {} bytes (raw {} bytes): ratio {:.1f}x on disk, "
      "{:.1f}x in values; max relative error {:.3g}%, mean {:.3g}%; {} values beyond the threshold ({:.3g}%){}\n",
      out.string(), chosen, rep.result.regions.size(), rep.result.cluster_instances, rep.result.content.data.size(),
      rep.clustered_bytes, rep.raw_bytes, rep.compression_ratio, rep.values_ratio, e.max_relative * 100,
      e.mean_relative * 100, e.beyond, e.cells ? 100.0 * static_cast<double>(e.beyond) / static_cast<double>(e.cells) : 0.0,
      rep.clustered_bytes > rep.raw_bytes
          ? fmt::format("; note: {} bytes more than the input, whose matrices are too few to pay for the clustered "
                        "file's header",
                        rep.clustered_bytes - rep.raw_bytes)
          : std::string());
}

std::string decompress_file(const fs::path& in, const fs::path& prefix, bool force) {
  const auto ds = open_dataset(in);
  if (ds->format() != "clustered")
    throw UsageError(in.string() + " is not a clustered file (it is " + ds->format() + "); nothing to decompress");
  const bool single = prefix.extension() == ".nc";
  const fs::path out = single ? prefix : result_path(prefix, ds->params().statistic);
  refuse_same_file(out, {in});
  const bool hosts = !ds->meta().hosts.empty() && !single;
  // The matrices and the hosts file appear together or not at all.
  OutputSet set;
  PendingOutput& data = set.add(out, force);
  PendingOutput* hosts_out = hosts ? &set.add(hosts_path(prefix), force) : nullptr;
  write_raw(data, *ds);
  if (hosts_out) write_file_atomically_into(*hosts_out, [&](std::ostream& o) { write_hosts(o, ds->meta().hosts); });
  set.commit_all();
  return fmt::format("{}: {} ranks, {} message lengths{}\n", out.string(), ds->ranks(), ds->count(),
                     hosts ? ", hosts in " + hosts_path(prefix).string() : std::string());
}

FileSummary summarize_file(const fs::path& path) {
  FileSummary s;
  s.path = path;
  if (nc::sniff(path) == nc::Magic::none) {
    std::error_code ec;
    if (!fs::exists(path, ec)) throw FileError(path, "no such file");
    throw FileError(path, "not a clustered file (not NetCDF; compress a raw file first)");
  }
  {
    const nc::File probe = nc::File::open(path);
    if (!probe.find_var("info") || !probe.find_var("length"))
      throw FileError(path, "not a clustered file (no 'info' and 'length' variables)");
  }
  const auto ds = open_clustered(path);  // validates the layout
  const nc::File f = nc::File::open(path);
  s.ranks = ds->ranks();
  s.lengths = ds->lengths();
  s.mode = std::string(mode_name(ds->params().mode));
  s.statistic = std::string(statistic_name(ds->params().statistic));
  s.file_bytes = fs::file_size(path);
  const std::size_t nn = f.dim("n").length;
  s.data_values = f.dim("d").length;
  s.region_start.resize(nn);
  if (nn) f.get(f.var("length").id, {0}, {nn}, s.region_start.data());
  const auto P = static_cast<std::size_t>(s.ranks);
  // A block of offsets at a time, each checked against the data first: the distinct offsets are
  // at most the data's values, never P x P (a small corrupt file may declare 20,000 ranks).
  for (std::size_t r = 0; r < nn; ++r) {
    std::unordered_set<int> clusters;
    for_each_info_block(*ds, r, [&](std::size_t, std::size_t rows, const int* offs) { clusters.insert(offs, offs + rows * P); });
    s.clusters_per_region.push_back(static_cast<int>(clusters.size()));
  }
  const auto num = [&](const char* name) { return f.get_att_double(kGlobal, name).value_or(kNaN); };
  s.threshold_mode = f.get_att_text(kGlobal, "cluster_threshold_mode").value_or("");
  s.threshold = num("cluster_threshold");
  s.max_relative = num("cluster_max_relative_error");
  s.mean_relative = num("cluster_mean_relative_error");
  s.max_absolute = num("cluster_max_absolute_error");
  s.mean_absolute = num("cluster_mean_absolute_error");
  s.beyond = num("cluster_values_beyond_threshold");
  s.fraction_beyond = num("cluster_fraction_beyond_threshold");
  if (std::isnan(s.fraction_beyond) && !std::isnan(s.beyond) && s.ranks > 0 && !s.lengths.empty())  // compact files
    s.fraction_beyond = s.beyond / (static_cast<double>(s.ranks) * s.ranks * static_cast<double>(s.lengths.size()));
  s.raw_bytes = num("cluster_raw_bytes");
  s.compression_ratio = num("cluster_compression_ratio");
  s.values_ratio = num("cluster_values_ratio");
  const double ex = num("cluster_exceptions"), mr = num("cluster_min_region");
  s.exceptions = std::isnan(ex) ? -1 : static_cast<int>(ex);
  s.min_region = std::isnan(mr) ? -1 : static_cast<int>(mr);
  return s;
}

std::string format_summary(const FileSummary& s) {
  std::string o;
  const auto len_range = [&](std::size_t a, std::size_t b) {  // matrices [a, b)
    return fmt::format("matrices {}..{} (lengths {}..{} bytes)", a, b - 1, s.lengths[a], s.lengths[b - 1]);
  };
  o += fmt::format("{}: clustered file, {} ranks, {} message lengths, mode {}, statistic {}\n", s.path.string(),
                   s.ranks, s.lengths.size(), s.mode, s.statistic);
  if (!s.threshold_mode.empty()) {
    const std::string thr = s.threshold_mode == "relative" ? fmt::format("{:g}% of the value", s.threshold * 100)
                                                          : fmt::format("{:g} s", s.threshold);
    o += fmt::format("parameters: threshold {} ({}), exceptions {} per cluster and length, min region {}\n", thr,
                     s.threshold_mode, s.exceptions, s.min_region);
  }
  std::size_t total = 0;
  for (const int c : s.clusters_per_region) total += static_cast<std::size_t>(c);
  o += fmt::format("regions: {}, cluster instances: {}\n", s.region_start.size(), total);
  for (std::size_t r = 0; r < s.region_start.size(); ++r) {
    const auto a = static_cast<std::size_t>(s.region_start[r]);
    const std::size_t b = r + 1 < s.region_start.size() ? static_cast<std::size_t>(s.region_start[r + 1]) : s.lengths.size();
    o += fmt::format("  region {}: {}, {} clusters\n", r, len_range(a, b), s.clusters_per_region[r]);
  }
  const double values = static_cast<double>(s.ranks) * s.ranks * static_cast<double>(s.lengths.size());
  o += fmt::format("values: {} stored for {} input values ({:.1f}x fewer)\n", s.data_values, values,
                   values / static_cast<double>(std::max<std::size_t>(s.data_values, 1)));
  if (!std::isnan(s.compression_ratio))
    o += fmt::format("size: {} bytes on disk, raw {} bytes, compression ratio {:.1f}x\n", s.file_bytes, s.raw_bytes,
                     s.compression_ratio);
  else
    o += fmt::format("size: {} bytes on disk\n", s.file_bytes);
  if (!std::isnan(s.max_relative))
    o += fmt::format("error: max relative {:.3g}%, mean relative {:.3g}%, max absolute {:.3g} s; "
                     "values beyond the threshold: {} ({:.3g}%)\n",
                     s.max_relative * 100, s.mean_relative * 100, s.max_absolute, s.beyond, s.fraction_beyond * 100);
  return o;
}

std::string summary_json(const FileSummary& s) {
  using nlohmann::json;
  const auto num = [](double v) { return json_number<json>(v); };
  json j;
  j["file"] = s.path.string();
  j["ranks"] = s.ranks;
  j["message_lengths"] = s.lengths;
  j["mode"] = s.mode;
  j["statistic"] = s.statistic;
  j["regions"] = json::array();
  for (std::size_t r = 0; r < s.region_start.size(); ++r) {
    const int b = r + 1 < s.region_start.size() ? s.region_start[r + 1] : static_cast<int>(s.lengths.size());
    j["regions"].push_back({{"first_matrix", s.region_start[r]}, {"end_matrix", b}, {"clusters", s.clusters_per_region[r]}});
  }
  j["data_values"] = s.data_values;
  j["file_bytes"] = s.file_bytes;
  j["threshold_mode"] = s.threshold_mode;
  j["threshold"] = num(s.threshold);
  j["exceptions"] = s.exceptions;
  j["min_region"] = s.min_region;
  j["raw_bytes"] = num(s.raw_bytes);
  j["compression_ratio"] = num(s.compression_ratio);
  j["values_ratio"] = num(s.values_ratio);
  j["max_relative_error"] = num(s.max_relative);
  j["mean_relative_error"] = num(s.mean_relative);
  j["max_absolute_error"] = num(s.max_absolute);
  j["mean_absolute_error"] = num(s.mean_absolute);
  j["values_beyond_threshold"] = num(s.beyond);
  j["fraction_beyond_threshold"] = num(s.fraction_beyond);
  return nt::json_text(j, 2);
}

}  // namespace nt::cluster
