#include "nt/analysis/ranks.hpp"

#include <cstdlib>
#include <iostream>
#include <limits>
#include <string>

#ifdef NT_ANALYZE_MPI
#include <mpi.h>
#endif

#include "nt/error.hpp"

namespace nt::analysis {

#ifndef NT_ANALYZE_MPI
// Built without MPI: one rank.
void start_ranks() {}
int rank() noexcept { return 0; }
int rank_count() noexcept { return 1; }
void share_block(std::size_t, void*, std::size_t) {}
void abort_ranks_if_sharing(const std::string&) {}
#else
namespace {

int g_rank = 0, g_size = 1;
bool g_sharing = false;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string(what) + " failed: " + std::string(text, static_cast<std::size_t>(len)));
}

bool launched() {
  for (const char* v : {"PMI_RANK", "PMI_SIZE", "PMIX_RANK", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

void finish() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}

}  // namespace

void start_ranks() {
  int inited = 0;
  MPI_Initialized(&inited);
  if (inited || !launched()) return;
  check(MPI_Init(nullptr, nullptr), "MPI_Init");
  std::atexit(finish);
  // An error of an MPI call returns (and becomes nt::Error) instead of aborting the job.
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "MPI_Comm_set_errhandler");
  check(MPI_Comm_rank(MPI_COMM_WORLD, &g_rank), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &g_size), "MPI_Comm_size");
  // The ranks all make the same report: rank 0 alone says what went wrong.
  if (g_rank != 0) std::cerr.setstate(std::ios::badbit);
}

int rank() noexcept { return g_rank; }
int rank_count() noexcept { return g_size; }

void share_block(std::size_t b, void* p, std::size_t bytes) {
  if (g_size == 1) return;
  g_sharing = true;
  const int root = static_cast<int>(b % static_cast<std::size_t>(g_size));
  auto* c = static_cast<char*>(p);
  constexpr std::size_t kMax = std::size_t{1} << 30;
  for (std::size_t off = 0; off < bytes || off == 0; off += kMax) {
    const std::size_t n = bytes - off < kMax ? bytes - off : kMax;
    check(MPI_Bcast(c + off, static_cast<int>(n), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
    if (bytes == 0) break;
  }
}

void abort_ranks_if_sharing(const std::string& line) {
  if (g_size == 1 || !g_sharing) return;
  std::cerr.clear();
  std::cerr << line << std::endl;
  MPI_Abort(MPI_COMM_WORLD, kExitUsage);
}
#endif

}  // namespace nt::analysis
