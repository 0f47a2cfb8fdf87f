// Synthetic delays of direct networks for the analyze tests: a torus whose delays follow its
// routes (test_paths.cpp, test_routes.cpp), and the hosts a fault is about, as scripts/corpus
// scores them.
#pragma once

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nt/analysis/cube.hpp"

namespace nt::test {

// A torus of X x Y hosts, each a router, 2 ranks per host; dimension-order routing (x first, the
// shorter way round, + on a tie), as SimGrid's TORUS. Every link 1 us and 1.25 GB/s; the link
// between hosts slow_a and slow_b at 1/4 bandwidth and 4x latency: both directions, or (both
// false) the direction slow_a -> slow_b only. `slowed`: the host pairs whose route crosses it slowly.
inline nt::analysis::Cube torus_cube(int X, int Y, int slow_a, int slow_b, double noise_sigma, bool both = true,
                                     std::set<std::pair<int, int>>* slowed = nullptr) {
  const int H = X * Y, rph = 2, P = H * rph;
  nt::analysis::Cube c;
  c.P = P;
  c.lengths = {0, 1024, 65536, 1048576};
  c.v.assign(c.lengths.size() * static_cast<std::size_t>(P) * static_cast<std::size_t>(P), 0.0F);
  for (int r = 0; r < P; ++r) c.hosts.push_back("host" + std::to_string(r / rph));
  auto step = [](int from, int to, int n) {
    const int d = ((to - from) % n + n) % n;
    return d == 0 ? 0 : (2 * d <= n ? 1 : -1);
  };
  std::mt19937_64 rng(11);
  std::lognormal_distribution<double> noise(0.0, noise_sigma);
  for (std::size_t k = 0; k < c.lengths.size(); ++k)
    for (int a = 0; a < P; ++a)
      for (int b = 0; b < P; ++b) {
        if (a == b) continue;
        const int ha = a / rph, hb = b / rph;
        double lat = 2e-7, bw = 2e10;
        if (ha != hb) {
          lat = 0;
          bw = 1.25e9;
          int x = ha % X, y = ha / X;
          const int tx = hb % X, ty = hb / X;
          while (x != tx || y != ty) {
            const int from = x + X * y;
            if (x != tx) x = (x + step(x, tx, X) + X) % X;
            else y = (y + step(y, ty, Y) + Y) % Y;
            const int to = x + X * y;
            const bool slow = (from == slow_a && to == slow_b) || (both && from == slow_b && to == slow_a);
            lat += slow ? 4e-6 : 1e-6;
            bw = std::min(bw, slow ? 1.25e9 / 4 : 1.25e9);
            if (slow && slowed) slowed->emplace(ha, hb);
          }
        }
        double d = lat + static_cast<double>(c.lengths[k]) / bw;
        if (noise_sigma > 0) d *= noise(rng);
        c.at(k, a, b) = static_cast<float>(d);
      }
  return c;
}

// The hosts a fault is about (scripts/corpus fault_core): those in more than half as many of the
// pairs it slows as the most touched host.
inline std::vector<int> fault_core(const std::set<std::pair<int, int>>& slowed, int hosts) {
  std::vector<int> touch(static_cast<std::size_t>(hosts), 0), core;
  for (const auto& [a, b] : slowed) {
    ++touch[static_cast<std::size_t>(a)];
    ++touch[static_cast<std::size_t>(b)];
  }
  const int top = *std::max_element(touch.begin(), touch.end());
  for (int h = 0; h < hosts; ++h)
    if (top > 0 && 2 * touch[static_cast<std::size_t>(h)] > top) core.push_back(h);
  return core;
}

}  // namespace nt::test
