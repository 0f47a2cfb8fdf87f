// vc_pingpong: checks an emulated cluster. Every rank prints its processor name; then for every
// pair of ranks (i < j) a ping-pong of SIZE bytes, REPS times, gives the bandwidth between them.
// Output (rank 0, one line each): "HOST rank name" and "PAIR i j name_i name_j MB/s".
// Usage: vc_pingpong [SIZE_BYTES] [REPS]
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const long bytes = argc > 1 ? std::atol(argv[1]) : 1 << 20;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 5;
  if (bytes <= 0 || reps <= 0) {
    if (rank == 0) std::fprintf(stderr, "vc_pingpong: SIZE and REPS must be positive\n");
    MPI_Finalize();
    return 2;
  }

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  MPI_Get_processor_name(name, &len);
  std::vector<char> names(static_cast<size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(), MPI_MAX_PROCESSOR_NAME, MPI_CHAR,
             0, MPI_COMM_WORLD);
  auto name_of = [&](int r) { return std::string(&names[static_cast<size_t>(r) * MPI_MAX_PROCESSOR_NAME]); };
  if (rank == 0)
    for (int r = 0; r < size; ++r) std::printf("HOST %d %s\n", r, name_of(r).c_str());

  std::vector<char> buf(static_cast<size_t>(bytes), 'x');
  for (int i = 0; i < size; ++i) {
    for (int j = i + 1; j < size; ++j) {
      MPI_Barrier(MPI_COMM_WORLD);
      double seconds = 0;
      if (rank == i || rank == j) {
        const int peer = rank == i ? j : i;
        // One untimed round trip opens the connection.
        for (int warm = 0; warm < 2; ++warm) {
          const double t0 = MPI_Wtime();
          for (int k = 0; k < (warm ? reps : 1); ++k) {
            if (rank == i) {
              MPI_Send(buf.data(), static_cast<int>(bytes), MPI_CHAR, peer, 0, MPI_COMM_WORLD);
              MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_CHAR, peer, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
            } else {
              MPI_Recv(buf.data(), static_cast<int>(bytes), MPI_CHAR, peer, 0, MPI_COMM_WORLD,
                       MPI_STATUS_IGNORE);
              MPI_Send(buf.data(), static_cast<int>(bytes), MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            }
          }
          seconds = MPI_Wtime() - t0;
        }
      }
      if (rank == i && i != 0)
        MPI_Send(&seconds, 1, MPI_DOUBLE, 0, 1, MPI_COMM_WORLD);
      if (rank == 0) {
        if (i != 0) MPI_Recv(&seconds, 1, MPI_DOUBLE, i, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        const double mbps = 2.0 * static_cast<double>(bytes) * reps / seconds / 1e6;
        std::printf("PAIR %d %d %s %s %.2f\n", i, j, name_of(i).c_str(), name_of(j).c_str(), mbps);
        std::fflush(stdout);
      }
    }
  }
  MPI_Finalize();
  return 0;
}
