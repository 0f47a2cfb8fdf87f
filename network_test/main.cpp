// network_test: a thin main over nt_measure. MPI is initialised here; user errors end with exit
// code 2 on every rank, a stuck pair (--timeout) aborts the job after its message.
#include <mpi.h>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "nt/measure/measure.hpp"

namespace {
// Ends the job after `message` reached the launcher. MPI_Abort right after a write to stderr can
// lose it: the launcher's proxy forwards the ranks' output asynchronously and is told to kill the
// job at the same time (a CI run under load showed a timeout with no output at all, not even the
// library's abort notice). A short pause lets the forwarding finish first.
[[noreturn]] void abort_job(const std::string& message, int code) {
  std::cerr << message << std::endl;
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}
}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = nt::kExitInternal;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    code = nt::measure::run_network_test(argc, argv);
  } catch (const nt::measure::TimeoutError& e) {
    // The files written so far are complete and synced; end the whole job now.
    abort_job(std::string("network_test: error: ") + e.what(), nt::kExitTimeout);
  } catch (const nt::Error& e) {
    abort_job("network_test: error (rank " + std::to_string(rank) + "): " + e.what(), nt::kExitUsage);
  } catch (const std::exception& e) {
    abort_job("network_test: internal error (rank " + std::to_string(rank) + "): " + e.what(), nt::kExitInternal);
  }
  MPI_Finalize();
  return code;
}
