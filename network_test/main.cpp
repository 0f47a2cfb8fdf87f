// network_test: a thin main over nt_measure. MPI is initialised here; user errors end with exit
// code 2 on every rank, a stuck pair (--timeout) aborts the job after its message.
#include <mpi.h>

#include <cstdlib>
#include <iostream>

#include "nt/measure/measure.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int code = 1;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  try {
    code = nt::measure::run_network_test(argc, argv);
  } catch (const nt::measure::TimeoutError& e) {
    // The files written so far are complete and synced; end the whole job now.
    std::cerr << "network_test: error: " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 3);
  } catch (const nt::Error& e) {
    std::cerr << "network_test: error (rank " << rank << "): " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, nt::kExitUsage);
  } catch (const std::exception& e) {
    std::cerr << "network_test: internal error (rank " << rank << "): " << e.what() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Finalize();
  return code;
}
