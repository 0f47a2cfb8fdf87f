// merge: several runs of the same shape -> cell-wise median and min across runs.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "common.hpp"
#include "nt/error.hpp"
#include "nt/hosts.hpp"
#include "nt/raw_file.hpp"
#include "nt/stats.hpp"
#include "nt/types.hpp"
#include "nt/convert/convert.hpp"
#include "nt/output.hpp"

namespace nt::convert {

namespace {

[[noreturn]] void refuse(const Dataset& a, const Dataset& b, std::string_view what, const std::string& va,
                         const std::string& vb) {
  throw UsageError(fmt::format("cannot merge {} and {}: {} differs ({} vs {})", a.source().string(),
                               b.source().string(), what, va, vb));
}

template <class T>
void same(const Dataset& a, const Dataset& b, std::string_view what, const T& va, const T& vb) {
  if (!(va == vb)) refuse(a, b, what, fmt::format("{}", va), fmt::format("{}", vb));
}

std::string lengths_text(const std::vector<std::int64_t>& v) {
  if (v.size() <= 6) return fmt::format("[{}]", fmt::join(v, ","));
  return fmt::format("{} lengths {}..{}", v.size(), v.front(), v.back());
}

// Rows [r0, r1) of record k merged across runs into `out`: cell-wise median or minimum of the
// values that are not NaN (NaN when every run has NaN there). `blocks`: scratch, one per run.
void merge_rows(const std::vector<std::unique_ptr<Dataset>>& runs, std::size_t k, int r0, int r1, bool take_min,
                std::vector<std::vector<double>>& blocks, std::vector<double>& out) {
  for (std::size_t r = 0; r < runs.size(); ++r) blocks[r] = runs[r]->rows(k, r0, r1);
  out.resize(blocks.front().size());
  std::vector<double> cell;
  cell.reserve(runs.size());
  for (std::size_t c = 0; c < out.size(); ++c) {
    cell.clear();
    for (const auto& b : blocks)
      if (!std::isnan(b[c])) cell.push_back(b[c]);
    out[c] = cell.empty() ? kNaN
             : take_min   ? *std::min_element(cell.begin(), cell.end())
                          : median(cell);
  }
}

}  // namespace

void check_mergeable(const Dataset& a, const Dataset& b) {
  const auto &pa = a.params(), &pb = b.params();
  same(a, b, "number of ranks (proc_num)", pa.proc_num, pb.proc_num);
  if (pa.mode != pb.mode)
    refuse(a, b, "mode (test_type)", std::string(mode_name(pa.mode)), std::string(mode_name(pb.mode)));
  if (pa.statistic != pb.statistic)
    refuse(a, b, "statistic (data_type)", std::string(statistic_name(pa.statistic)),
           std::string(statistic_name(pb.statistic)));
  same(a, b, "begin message length", pa.begin_length, pb.begin_length);
  same(a, b, "end message length", pa.end_length, pb.end_length);
  same(a, b, "step length", pa.step_length, pb.step_length);
  same(a, b, "noise message length", pa.noise_message_length, pb.noise_message_length);
  same(a, b, "number of noise messages", pa.num_noise_messages, pb.num_noise_messages);
  same(a, b, "number of noise processes", pa.num_noise_procs, pb.num_noise_procs);
  same(a, b, "number of repeats", pa.num_repeats, pb.num_repeats);
  if (a.lengths() != b.lengths()) refuse(a, b, "message lengths", lengths_text(a.lengths()), lengths_text(b.lengths()));
}

std::vector<fs::path> merge(const std::vector<fs::path>& in, const fs::path& prefix, bool force, const MergeOptions& o) {
  if (in.size() < 2) throw UsageError("merge needs at least two runs");
  if (prefix.empty()) throw UsageError("empty output prefix");
  std::vector<std::unique_ptr<Dataset>> runs;
  for (const auto& f : in) runs.push_back(open_dataset(f));
  // Merging block of rows by block of rows: one block of each run plus the merged one,
  // 8 P B (runs + 1) bytes for B rows per block (a whole matrix when a run is a NetCDF-4 copy).
  int block = runs.front()->ranks();
  for (const auto& r : runs) block = std::min(block, detail::block_rows(*r));
  {
    const auto p = static_cast<std::uint64_t>(runs.front()->ranks());
    const auto b = static_cast<std::uint64_t>(block);
    nt::require_memory(8ull * p * b * (runs.size() + 1),
                       fmt::format("merging {} runs of {} ranks ({} + 1 blocks of {}x{})", runs.size(), p, runs.size(), b, p));
  }
  const Dataset& first = *runs.front();
  for (std::size_t r = 1; r < runs.size(); ++r) {
    check_mergeable(first, *runs[r]);
    const auto &ha = first.meta().hosts, &hb = runs[r]->meta().hosts;
    if (!o.ignore_hosts && !ha.empty() && !hb.empty() && ha != hb) {
      std::size_t i = 0;
      while (i < ha.size() && i < hb.size() && ha[i] == hb[i]) ++i;
      throw UsageError(fmt::format(
          "cannot merge {} and {}: the runs placed ranks on different hosts (rank {}: {} vs {}); "
          "use --ignore-hosts to merge anyway",
          first.source().string(), runs[r]->source().string(), i, i < ha.size() ? ha[i] : "-",
          i < hb.size() ? hb[i] : "-"));
    }
  }

  std::vector<std::string> names;
  for (const auto& f : in) names.push_back(f.filename().string());
  std::vector<std::string> hosts = first.meta().hosts;
  for (const auto& r : runs)
    if (hosts.empty()) hosts = r->meta().hosts;

  std::vector<fs::path> outputs{result_path(prefix, Statistic::median), result_path(prefix, Statistic::min)};
  if (!hosts.empty()) outputs.push_back(hosts_path(prefix));
  // The merged files appear together or not at all.
  OutputSet set;
  std::vector<PendingOutput*> set_members;
  for (const auto& path : outputs) set_members.push_back(&set.add(path, force, in));

  for (int pass = 0; pass < 2; ++pass) {
    const bool take_min = pass == 1;
    FileInfo info = first.info();
    info.meta.format_version = kFormatVersion;
    info.meta.hosts = hosts;
    info.params.statistic = take_min ? Statistic::min : Statistic::median;
    info.meta.extra["merged_runs"] = fmt::format("{}", fmt::join(names, " "));
    info.meta.extra["merged_statistic"] =
        fmt::format("cell-wise {} across {} runs of {} values", take_min ? "minimum" : "median", runs.size(),
                    statistic_name(first.params().statistic));
    std::vector<std::vector<double>> blocks(runs.size());
    detail::write_raw_rows(*set_members[static_cast<std::size_t>(pass)], info, first.lengths(), first.ranks(), block,
                           [&](std::size_t k, int r0, int r1, std::vector<double>& out) {
                             merge_rows(runs, k, r0, r1, take_min, blocks, out);
                           });
  }
  if (!hosts.empty()) write_file_atomically_into(*set_members[2], [&](std::ostream& os) { write_hosts(os, hosts); });
  set.commit_all();
  return outputs;
}

}  // namespace nt::convert
