// Benchmark helpers for network_cluster (see run_bench.sh and bench/results/cluster.md).
//   bench_cluster gen FILE RANKS LENGTHS [NOISE]   streams a synthetic raw file matrix by matrix:
//       16 ranks per node, 8 nodes per switch, a slow node, a protocol step at the middle
//       length, relative noise NOISE (default 0.01, uniform in [0, NOISE)), fixed seed
//   bench_cluster reads FILE [COUNT]       random-access reads per second through open_dataset:
//       value(i, j, k), row(i, k0, k1) windows of 8 lengths, pair(i, j), matrix(k)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "nt/raw_file.hpp"

namespace {

int gen(const std::string& path, int P, int N, double noise) {
  nt::FileInfo fi;
  fi.params.proc_num = P;
  fi.params.mode = nt::Mode::one_to_one;
  fi.params.statistic = nt::Statistic::median;
  fi.params.begin_length = 0;
  fi.params.step_length = 1024;
  fi.params.end_length = (N - 1) * 1024;
  fi.params.num_repeats = 10;
  fi.meta.sweep = "linear";
  nt::RawWriter w(path, fi, true);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> U(0, 1);
  const int rpn = 16, nps = 8, slow = 5;
  nt::Matrix m(P);
  for (int k = 0; k < N; ++k) {
    const double len = 1024.0 * k;
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        if (i == j) {
          m.at(i, j) = 0;
          continue;
        }
        const int ni = i / rpn, nj = j / rpn;
        double t;
        if (ni == nj)
          t = 0.5e-6 + len / 10e9;
        else if (ni / nps == nj / nps)
          t = 2e-6 + len / 1e9;
        else
          t = 3e-6 + len / 0.8e9;
        if (k >= N / 2) t += 3e-6;
        if (ni == slow) t *= 3;
        if (nj == slow) t *= 3;
        m.at(i, j) = t * (1 + noise * U(rng));
      }
    w.append(static_cast<std::int64_t>(len), m);
  }
  w.close();
  return 0;
}

int reads(const std::string& path, long count) {
  const auto ds = nt::open_dataset(path);
  const int P = ds->ranks();
  const auto N = ds->count();
  std::mt19937_64 rng(7);
  using clk = std::chrono::steady_clock;
  const auto rate = [](const char* what, long n, clk::time_point a) {
    const double s = std::chrono::duration<double>(clk::now() - a).count();
    std::printf("%-28s %8ld in %7.3f s: %10.0f per second\n", what, n, s, static_cast<double>(n) / s);
  };
  double sink = 0;
  auto t0 = clk::now();
  for (long q = 0; q < count; ++q)
    sink += ds->value(static_cast<int>(rng() % static_cast<unsigned>(P)), static_cast<int>(rng() % static_cast<unsigned>(P)),
                      rng() % N);
  rate("value(i,j,k)", count, t0);
  const long rows = std::max(1L, count / 100);
  t0 = clk::now();
  for (long q = 0; q < rows; ++q) {
    const std::size_t k0 = rng() % (N - std::min<std::size_t>(N, 8) + 1);
    sink += ds->row(static_cast<int>(rng() % static_cast<unsigned>(P)), k0, std::min(N, k0 + 8))[0];
  }
  rate("row(i, 8 lengths)", rows, t0);
  t0 = clk::now();
  for (long q = 0; q < rows; ++q)
    sink += ds->pair(static_cast<int>(rng() % static_cast<unsigned>(P)), static_cast<int>(rng() % static_cast<unsigned>(P)))[0];
  rate("pair(i,j) all lengths", rows, t0);
  const long mats = std::max(1L, std::min<long>(static_cast<long>(N), count / 1000));
  t0 = clk::now();
  for (long q = 0; q < mats; ++q) sink += ds->matrix(rng() % N).at(0, 1);
  rate("matrix(k)", mats, t0);
  std::printf("(checksum %g)\n", sink);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string cmd = argc > 1 ? argv[1] : "";
  if (cmd == "gen" && (argc == 5 || argc == 6))
    return gen(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), argc == 6 ? std::atof(argv[5]) : 0.01);
  if (cmd == "reads" && (argc == 3 || argc == 4)) return reads(argv[2], argc == 4 ? std::atol(argv[3]) : 100000);
  std::fprintf(stderr, "usage: bench_cluster gen FILE RANKS LENGTHS [NOISE] | reads FILE [COUNT]\n");
  return 2;
}
