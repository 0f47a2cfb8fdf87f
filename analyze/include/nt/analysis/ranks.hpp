// The ranks of `mpiexec -n N network_analyze report FILE` (share/doc/analyze.md "Parallel
// analysis"): every MPI call of the analysis is here. Every rank runs the whole analysis in the
// same order; the expensive passes over blocks of senders give block b to rank b % N, which reads
// and computes it alone and then broadcasts its exact result, so that every rank goes on with the
// values a serial run has (bit-identical: nothing is added across ranks). Without a launcher (no
// PMI/PMIx environment) MPI is never initialised and there is one rank.
#pragma once

#include <cstddef>
#include <string>

namespace nt::analysis {

// Starts MPI when the process was started by an MPI launcher (idempotent; MPI_Finalize at exit).
void start_ranks();
int rank() noexcept;        // 0 without MPI
int rank_count() noexcept;  // 1 without MPI
// Whether this rank computes block number b of a pass.
inline bool owns_block(std::size_t b) noexcept {
  return b % static_cast<std::size_t>(rank_count()) == static_cast<std::size_t>(rank());
}
// Sends `bytes` bytes at p from the owner of block b to every rank (nothing with one rank).
// Throws nt::Error when MPI reports an error.
void share_block(std::size_t b, void* p, std::size_t bytes);
// For an error met after the ranks began sharing blocks (the others may wait for this rank's
// block): prints `line` on this rank's stderr and ends the whole job with exit code 2
// (MPI_Abort). Returns without doing anything before the first share_block or with one rank,
// where an error is met alike by every rank and reported by the caller.
void abort_ranks_if_sharing(const std::string& line);

}  // namespace nt::analysis
