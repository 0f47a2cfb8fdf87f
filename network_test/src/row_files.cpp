// The files the ranks write their rows into: every writer opens the result files rank 0 created,
// or, when one cannot, every rank agrees that rank 0 gathers and writes (sweep.hpp: RowFiles).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "nt/dataset.hpp"
#include "sweep.hpp"

namespace nt::measure {

namespace {

// The absolute paths of the files rank 0 has open (out->stats, then the _all file), on every rank.
std::vector<std::string> result_paths(const Ctx& c, const Output* out) {
  std::vector<std::string> paths;
  int n = 0;
  if (c.rank == 0) {
    for (const auto& [st, w] : out->stats) paths.push_back(std::filesystem::absolute(w.path()).string());
    if (out->all) paths.push_back(std::filesystem::absolute(out->all->path()).string());
    n = static_cast<int>(paths.size());
  }
  MPI_Bcast(&n, 1, MPI_INT, 0, c.comm);
  paths.resize(static_cast<std::size_t>(n));
  for (auto& p : paths) {
    int len = static_cast<int>(p.size());
    MPI_Bcast(&len, 1, MPI_INT, 0, c.comm);
    p.resize(static_cast<std::size_t>(len));
    MPI_Bcast(p.data(), len, MPI_CHAR, 0, c.comm);
  }
  return paths;
}

// This rank's place among the writers: its node's communicator and node rank, whether it writes,
// and (a node's writer) the world ranks of its node. per_rank: NT_WRITE=ranks on this rank; rank
// 0's choice counts, as the ranks must agree on the writers.
void join_node(const Ctx& c, RowFiles& files, int per_rank) {
  MPI_Bcast(&per_rank, 1, MPI_INT, 0, c.comm);
  files.per_rank = per_rank != 0;
  // Rank 0 is node rank 0 of its node (key: world rank), so it is a writer and can commit.
  MPI_Comm_split_type(c.comm, MPI_COMM_TYPE_SHARED, c.rank, MPI_INFO_NULL, &files.node);
  MPI_Comm_rank(files.node, &files.node_rank);
  files.writer = files.per_rank || files.node_rank == 0;
  if (!files.per_rank) {
    int n = 0;
    MPI_Comm_size(files.node, &n);
    if (files.writer) files.members.resize(static_cast<std::size_t>(n));
    MPI_Gather(&c.rank, 1, MPI_INT, files.members.data(), 1, MPI_INT, 0, files.node);
  }
}

// A writer opens every file (the statistics, then the _all file with --raw) into `files` and
// gives the digests of their headers; false, with why, when it cannot.
bool open_as_writer(const Ctx& c, const std::vector<std::string>& paths, RowFiles& files,
                    std::vector<std::uint64_t>& digests, std::string& why) {
  RecordExtras stat_extras, all_extras;
  stat_extras.sample_count = c.settings.precision > 0;
  stat_extras.isolated = c.settings.schedule.retested();
  all_extras.sample_flags = true;
  try {
    const std::size_t nstats = c.settings.raw ? paths.size() - 1 : paths.size();
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (i < nstats)
        files.stats.emplace_back(paths[i], c.size, 0, stat_extras);
      else
        files.all.emplace(paths[i], c.size, runner(c).store.stride, all_extras);
    }
    for (const auto& f : files.stats) digests.push_back(f.header_digest());
    if (files.all) digests.push_back(files.all->header_digest());
  } catch (const Error& e) {
    why = fmt::format("rank {}: {}", c.rank, e.what());
    return false;
  }
  return true;
}

// Rank 0 learns why from the first rank that failed (ok 0), if it is not itself.
void tell_rank0_why(const Ctx& c, int ok, std::string& why) {
  int first_bad = ok ? c.size : c.rank, bad = 0;
  MPI_Allreduce(&first_bad, &bad, 1, MPI_INT, MPI_MIN, c.comm);
  if (bad <= 0 || bad >= c.size) return;
  if (c.rank == bad) {
    int len = static_cast<int>(why.size());
    MPI_Send(&len, 1, MPI_INT, 0, kTagGo, c.comm);
    MPI_Send(why.data(), len, MPI_CHAR, 0, kTagGo, c.comm);
  } else if (c.rank == 0) {
    int len = 0;
    MPI_Recv(&len, 1, MPI_INT, bad, kTagGo, c.comm, MPI_STATUS_IGNORE);
    why.resize(static_cast<std::size_t>(len));
    MPI_Recv(why.data(), len, MPI_CHAR, bad, kTagGo, c.comm, MPI_STATUS_IGNORE);
  }
}

// Rank 0, when the ranks cannot write in parallel: refused beyond the memory limit, else a note
// (unless NT_WRITE asked for it: chosen).
void refuse_or_note(const Ctx& c, const std::string& why, bool chosen) {
  const bool raw = c.settings.raw;
  const auto PU = static_cast<long double>(c.size);
  const long double bytes = PU * PU * (16.0L + (raw ? 18.0L * static_cast<long double>(runner(c).store.stride) : 0.0L));
  if (bytes > static_cast<long double>(memory_limit()))
    throw UsageError(fmt::format("the ranks cannot write the result files in parallel ({}), and gathering {} ranks{} "
                                 "on rank 0 needs {:.3g} GB per length, more than the memory limit of {:.3g} GB "
                                 "(NT_MEMORY_LIMIT changes it)",
                                 why, c.size, raw ? " with --raw" : "", static_cast<double>(bytes) / 1e9,
                                 static_cast<double>(memory_limit()) / 1e9));
  if (!chosen && !c.settings.quiet)
    std::fprintf(stderr, "network_test: note: rank 0 gathers and writes every result (%s)\n", why.c_str());
}

}  // namespace

// Collective. Every writer opens the files rank 0 has open, by the absolute paths rank 0 sends,
// and proves it sees the same file (digest of the header). Anything else (a writer that cannot
// open them, a node-local directory, NT_WRITE=gather): nullopt, and rank 0 gathers and writes as
// before (refused when P x P matrices on rank 0 exceed the memory limit).
std::optional<RowFiles> open_row_files(Ctx& c, Output* out) {
  const std::vector<std::string> paths = result_paths(c, out);
  const char* mode = std::getenv("NT_WRITE");
  int ok = mode && std::string(mode) == "gather" ? 0 : 1;
  RowFiles files;
  join_node(c, files, mode && std::string(mode) == "ranks" ? 1 : 0);
  std::vector<std::uint64_t> digests;
  std::string why = mode ? "NT_WRITE=gather" : "";
  if (ok && files.writer && !open_as_writer(c, paths, files, digests, why)) ok = 0;
  std::vector<std::uint64_t> root(paths.size());
  if (c.rank == 0 && ok) root = digests;
  MPI_Bcast(root.data(), static_cast<int>(root.size()), MPI_UINT64_T, 0, c.comm);
  if (ok && files.writer && digests != root) {
    ok = 0;
    why = fmt::format("rank {} sees other files under the same names (a node-local directory?)", c.rank);
  }
  int all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c.comm);
  // Rank 0's libnetcdf handles stay open, unused, until the end (closing a resumed file early
  // would let libnetcdf pad a cut last record with zeros before it is written again).
  if (all_ok) return files;
  tell_rank0_why(c, ok, why);
  if (c.rank == 0) refuse_or_note(c, why, mode != nullptr);
  return std::nullopt;
}

}  // namespace nt::measure
