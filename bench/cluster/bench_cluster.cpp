// Benchmark helpers for network_cluster (see run_bench.sh and bench/results/cluster.md).
//   bench_cluster gen FILE RANKS LENGTHS NOISE [SEED]
//       streams a raw CDF-2 file matrix by matrix, independent of network_convert synth and of the
//       clustering code: 16 ranks per node, 8 nodes per switch, ranks placed on nodes by a random
//       permutation, three classes (intra-node, inter-node, inter-switch) with latency + size /
//       bandwidth and a protocol step at the middle length, every cell (pair and length)
//       multiplied by an independent lognormal factor exp(NOISE * N(0,1)); diagonal 0.
//   bench_cluster quantise IN OUT BOUND
//       the simple error-bounded baseline: round(log(v) / (2 log(1 + BOUND))) as uint16 (0 for
//       v = 0), all matrices in file order, to OUT (compress it with xz or zstd yourself)
//   bench_cluster errors ORIG OTHER
//       max and mean relative error of OTHER (any file the suite reads) against ORIG, v != 0
//   bench_cluster qerrors ORIG QFILE BOUND
//       the same for a quantised file (what the baseline's reader reconstructs)
//   bench_cluster reads FILE [COUNT]
//       random single-value reads through the core reader (open_dataset): median and 90th
//       percentile of COUNT individually timed reads, then rows, pairs and matrices per second
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "nt/error.hpp"
#include "nt/raw_file.hpp"

namespace {

int gen(const std::string& path, int P, int N, double noise, unsigned seed) {
  nt::FileInfo fi;
  fi.params.proc_num = P;
  fi.params.mode = nt::Mode::one_to_one;
  fi.params.statistic = nt::Statistic::median;
  fi.params.begin_length = 0;
  fi.params.step_length = 4096;
  fi.params.end_length = (N - 1) * 4096;
  fi.params.num_repeats = 10;
  fi.meta.sweep = "linear";
  nt::RawWriter w(path, fi, true);
  std::mt19937_64 rng(seed);
  std::vector<int> node(static_cast<std::size_t>(P));
  std::iota(node.begin(), node.end(), 0);
  std::shuffle(node.begin(), node.end(), rng);
  for (auto& n : node) n /= 16;
  std::normal_distribution<double> G(0, 1);
  nt::Matrix m(P);
  for (int k = 0; k < N; ++k) {
    const double len = 4096.0 * k;
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        if (i == j) {
          m.at(i, j) = 0;
          continue;
        }
        const int ni = node[static_cast<std::size_t>(i)], nj = node[static_cast<std::size_t>(j)];
        double t;
        if (ni == nj)
          t = 0.4e-6 + len / 12e9;
        else if (ni / 8 == nj / 8)
          t = 1.8e-6 + len / 1.2e9;
        else
          t = 2.9e-6 + len / 0.9e9;
        if (k >= N / 2) t += 2.5e-6;
        m.at(i, j) = t * std::exp(noise * G(rng));
      }
    w.append(static_cast<std::int64_t>(len), m);
  }
  w.close();
  return 0;
}

int quantise(const std::string& in, const std::string& out, double bound) {
  const auto ds = nt::open_dataset(in);
  const double step = 2 * std::log1p(bound);
  std::ofstream o(out, std::ios::binary);
  std::vector<std::uint16_t> q;
  for (std::size_t k = 0; k < ds->count(); ++k) {
    const auto m = ds->matrix(k);
    q.resize(m.values().size());
    for (std::size_t c = 0; c < q.size(); ++c) {
      const double v = m.values()[c];
      q[c] = v > 0 ? static_cast<std::uint16_t>(std::lround(std::log(v) / step) + 32768) : 0;
    }
    o.write(reinterpret_cast<const char*>(q.data()), static_cast<std::streamsize>(q.size() * 2));
  }
  return o ? 0 : 1;
}

void report(double mx, double sum, double n) { std::printf("max_rel %.4g mean_rel %.4g\n", mx, n > 0 ? sum / n : 0.0); }

int errors(const std::string& a, const std::string& b) {
  const auto x = nt::open_dataset(a), y = nt::open_dataset(b);
  double mx = 0, sum = 0, n = 0;
  for (std::size_t k = 0; k < x->count(); ++k) {
    const auto p = x->matrix(k), q = y->matrix(k);
    for (std::size_t c = 0; c < p.values().size(); ++c) {
      const double v = p.values()[c];
      if (v == 0) continue;
      const double e = std::fabs(q.values()[c] - v) / std::fabs(v);
      mx = std::max(mx, e);
      sum += e;
      ++n;
    }
  }
  report(mx, sum, n);
  return 0;
}

int qerrors(const std::string& a, const std::string& qf, double bound) {
  const auto x = nt::open_dataset(a);
  const double step = 2 * std::log1p(bound);
  std::ifstream in(qf, std::ios::binary);
  double mx = 0, sum = 0, n = 0;
  std::vector<std::uint16_t> q;
  for (std::size_t k = 0; k < x->count(); ++k) {
    const auto p = x->matrix(k);
    q.resize(p.values().size());
    in.read(reinterpret_cast<char*>(q.data()), static_cast<std::streamsize>(q.size() * 2));
    for (std::size_t c = 0; c < q.size(); ++c) {
      const double v = p.values()[c];
      if (v == 0) continue;
      const double r = q[c] ? std::exp((static_cast<double>(q[c]) - 32768) * step) : 0;
      const double e = std::fabs(r - v) / v;
      mx = std::max(mx, e);
      sum += e;
      ++n;
    }
  }
  report(mx, sum, n);
  return in ? 0 : 1;
}

int reads(const std::string& path, long count) {
  using clk = std::chrono::steady_clock;
  const auto t_open = clk::now();
  const auto ds = nt::open_dataset(path);
  const double open_s = std::chrono::duration<double>(clk::now() - t_open).count();
  const int P = ds->ranks();
  const auto N = ds->count();
  std::mt19937_64 rng(7);
  const auto rate = [](const char* what, long n, clk::time_point a) {
    const double s = std::chrono::duration<double>(clk::now() - a).count();
    std::printf("%-28s %8ld in %7.3f s: %10.0f per second\n", what, n, s, static_cast<double>(n) / s);
  };
  double sink = 0;
  std::vector<double> us(static_cast<std::size_t>(count));
  for (long q = 0; q < count; ++q) {
    const int i = static_cast<int>(rng() % static_cast<unsigned>(P)), j = static_cast<int>(rng() % static_cast<unsigned>(P));
    const std::size_t k = rng() % N;
    const auto a = clk::now();
    sink += ds->value(i, j, k);
    us[static_cast<std::size_t>(q)] = std::chrono::duration<double, std::micro>(clk::now() - a).count();
  }
  std::sort(us.begin(), us.end());
  std::printf("open %.3f ms; single random value(i,j,k): median %.1f us, p90 %.1f us, max %.1f us (%ld reads)\n",
              open_s * 1e3, us[us.size() / 2], us[us.size() * 9 / 10], us.back(), count);
  const long rows = std::max(1L, count / 100);
  auto t0 = clk::now();
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
  if (cmd == "gen" && (argc == 6 || argc == 7))
    return gen(argv[2], std::atoi(argv[3]), std::atoi(argv[4]), std::atof(argv[5]),
               argc == 7 ? static_cast<unsigned>(std::atol(argv[6])) : 42u);
  if (cmd == "quantise" && argc == 5) return quantise(argv[2], argv[3], std::atof(argv[4]));
  if (cmd == "errors" && argc == 4) return errors(argv[2], argv[3]);
  if (cmd == "qerrors" && argc == 5) return qerrors(argv[2], argv[3], std::atof(argv[4]));
  if (cmd == "reads" && (argc == 3 || argc == 4)) return reads(argv[2], argc == 4 ? std::atol(argv[3]) : 100000);
  std::fprintf(stderr,
               "usage: bench_cluster gen FILE RANKS LENGTHS NOISE [SEED] | quantise IN OUT BOUND | errors ORIG OTHER | "
               "qerrors ORIG QFILE BOUND | reads FILE [COUNT]\n");
  return nt::kExitUsage;
}
