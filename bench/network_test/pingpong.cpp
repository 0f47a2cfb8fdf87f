// Minimal MPI ping-pong between ranks 0 and 1: warm-up, then thousands of timed round trips of
// blocking MPI_Send/MPI_Recv; prints the median and the mean of half the round trip.
// Usage: mpiexec -n 2 nt_pingpong [BYTES=0] [ROUND_TRIPS=10000] [WARMUP=1000]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int bytes = argc > 1 ? std::atoi(argv[1]) : 0;
  const int n = argc > 2 ? std::atoi(argv[2]) : 10000;
  const int warm = argc > 3 ? std::atoi(argv[3]) : 1000;
  if (size < 2 || bytes < 0 || n < 1 || warm < 0) {
    if (rank == 0) std::fprintf(stderr, "usage: mpiexec -n 2 nt_pingpong [BYTES] [ROUND_TRIPS] [WARMUP]\n");
    MPI_Finalize();
    return 2;
  }
  std::vector<char> buf(static_cast<std::size_t>(std::max(bytes, 1)));
  std::vector<double> half(static_cast<std::size_t>(n));
  MPI_Barrier(MPI_COMM_WORLD);
  for (int i = 0; i < warm + n; ++i) {
    if (rank == 0) {
      const double t0 = MPI_Wtime();
      MPI_Send(buf.data(), bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(buf.data(), bytes, MPI_CHAR, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const double t = MPI_Wtime() - t0;
      if (i >= warm) half[static_cast<std::size_t>(i - warm)] = 0.5 * t;
    } else if (rank == 1) {
      MPI_Recv(buf.data(), bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(buf.data(), bytes, MPI_CHAR, 0, 0, MPI_COMM_WORLD);
    }
  }
  if (rank == 0) {
    std::vector<double> s = half;
    std::sort(s.begin(), s.end());
    const double med = n % 2 ? s[static_cast<std::size_t>(n / 2)]
                             : 0.5 * (s[static_cast<std::size_t>(n / 2 - 1)] + s[static_cast<std::size_t>(n / 2)]);
    const double mean = std::accumulate(s.begin(), s.end(), 0.0) / n;
    std::printf("pingpong bytes=%d round_trips=%d half_rtt_median_s=%.9g half_rtt_mean_s=%.9g\n", bytes, n, med, mean);
  }
  MPI_Finalize();
  return 0;
}
