// Synthetic delays of direct networks for the analyze tests: a torus and a dragonfly-like network
// whose delays follow their routes (test_paths.cpp, test_routes.cpp), and the hosts a fault is
// about, as scripts/corpus scores them.
#pragma once

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "nt/analysis/cube.hpp"

namespace nt::test {

// A route's delay: its latency (s) and bottleneck bandwidth (B/s).
struct Path {
  double latency, bandwidth;
};

// The cube of P ranks at `lengths`: rank a's delay to b is path(a, b)'s latency plus the length
// over its bandwidth, times factor() drawn per cell by length, sender, receiver (noise-free: 1).
template <class PathOf, class Factor>
nt::analysis::Cube lengths_cube(int P, std::vector<std::int64_t> lengths, PathOf path, Factor factor) {
  nt::analysis::Cube c;
  c.P = P;
  c.lengths = std::move(lengths);
  c.v.assign(c.lengths.size() * static_cast<std::size_t>(P) * static_cast<std::size_t>(P), 0.0F);
  for (std::size_t k = 0; k < c.lengths.size(); ++k)
    for (int a = 0; a < P; ++a)
      for (int b = 0; b < P; ++b) {
        if (a == b) continue;
        const Path p = path(a, b);
        c.at(k, a, b) = static_cast<float>((p.latency + static_cast<double>(c.lengths[k]) / p.bandwidth) * factor());
      }
  return c;
}
template <class PathOf>
nt::analysis::Cube lengths_cube(int P, std::vector<std::int64_t> lengths, PathOf path) {
  return lengths_cube(P, std::move(lengths), path, [] { return 1.0; });
}

// The cube of P ranks, ranks_per_host per host ("host0", "host1"...), at 0 B, 1 KiB, 64 KiB and
// 1 MiB: rank a's delay to b is path(a, b)'s latency plus the length over its bandwidth, times
// lognormal noise of noise_sigma (none at 0) drawn from a generator seeded `seed`, by length,
// sender, receiver.
template <class PathOf>
nt::analysis::Cube path_cube(int P, int ranks_per_host, double noise_sigma, unsigned seed, PathOf path) {
  std::mt19937_64 rng(seed);
  std::lognormal_distribution<double> noise(0.0, noise_sigma);
  nt::analysis::Cube c = lengths_cube(P, {0, 1024, 65536, 1048576}, path,
                                      [&] { return noise_sigma > 0 ? noise(rng) : 1.0; });
  for (int r = 0; r < P; ++r) c.hosts.push_back("host" + std::to_string(r / ranks_per_host));
  return c;
}

// The cube at some of its lengths only (the random corpus measures two or three), by index.
inline nt::analysis::Cube at_lengths(const nt::analysis::Cube& full, std::initializer_list<std::size_t> keep) {
  nt::analysis::Cube c = full;
  c.lengths.clear();
  for (std::size_t k : keep) c.lengths.push_back(full.lengths[k]);
  const auto N = static_cast<std::size_t>(c.P);
  c.v.assign(c.lengths.size() * N * N, 0.0F);
  std::size_t out = 0;
  for (std::size_t k : keep) {
    for (int x = 0; x < c.P; ++x)
      for (int y = 0; y < c.P; ++y) c.at(out, x, y) = full.at(k, x, y);
    ++out;
  }
  return c;
}

// Walks the route from host ha to host hb of an X x Y torus with dimension-order routing (x first,
// the shorter way round, + on a tie), as SimGrid's TORUS: hop(from, to) for each link crossed.
template <class Hop>
void torus_route(int X, int Y, int ha, int hb, Hop hop) {
  auto step = [](int from, int to, int n) {
    const int d = ((to - from) % n + n) % n;
    return d == 0 ? 0 : (2 * d <= n ? 1 : -1);
  };
  int x = ha % X, y = ha / X;
  const int tx = hb % X, ty = hb / X;
  while (x != tx || y != ty) {
    const int from = x + X * y;
    if (x != tx) x = (x + step(x, tx, X) + X) % X;
    else y = (y + step(y, ty, Y) + Y) % Y;
    hop(from, x + X * y);
  }
}

// A torus of X x Y hosts, each a router, 2 ranks per host, routed by torus_route. Every link 1 us
// and 1.25 GB/s; the link between hosts slow_a and slow_b at 1/4 bandwidth and 4x latency: both
// directions, or (both false) the direction slow_a -> slow_b only. `slowed`: the host pairs whose
// route crosses it slowly. `second`: another link, both ways, at 1/2 bandwidth (its own time per byte).
inline nt::analysis::Cube torus_cube(int X, int Y, int slow_a, int slow_b, double noise_sigma, bool both = true,
                                     std::set<std::pair<int, int>>* slowed = nullptr,
                                     std::pair<int, int> second = {-1, -1}) {
  const int rph = 2;
  return path_cube(X * Y * rph, rph, noise_sigma, 11, [&](int a, int b) {
    const int ha = a / rph, hb = b / rph;
    if (ha == hb) return Path{2e-7, 2e10};
    Path p{0, 1.25e9};
    torus_route(X, Y, ha, hb, [&](int from, int to) {
      const bool slow = (from == slow_a && to == slow_b) || (both && from == slow_b && to == slow_a);
      const bool half = (from == second.first && to == second.second) || (from == second.second && to == second.first);
      p.latency += slow ? 4e-6 : 1e-6;
      p.bandwidth = std::min(p.bandwidth, slow ? 1.25e9 / 4 : half ? 1.25e9 / 2 : 1.25e9);
      if (slow && slowed) slowed->emplace(ha, hb);
    });
    return p;
  });
}

// The torus of torus_cube, one rank per host, with links slow in latency only (bandwidth full):
// the link slow_a -> slow_b (and back where both) adds `added` seconds, and so does every link to
// and from host `router` (none at -1).
inline nt::analysis::Cube latency_torus_cube(int X, int Y, int slow_a, int slow_b, bool both, int router,
                                             double added, double noise_sigma) {
  return path_cube(X * Y, 1, noise_sigma, 13, [&](int a, int b) {
    Path p{0, 1.25e9};
    torus_route(X, Y, a, b, [&](int from, int to) {
      const bool slow = (from == slow_a && to == slow_b) || (both && from == slow_b && to == slow_a) ||
                        from == router || to == router;
      p.latency += 1e-6 + (slow ? added : 0.0);
    });
    return p;
  });
}

// Hosts under routers, routers in groups: within a router 2 links, within a group 3, between
// groups 5 on a tree (up to a spine and down), 3-5 on a dragonfly (minimal routing: a router holds
// the global link to one other group, so the distances form no tree). Every link 1 us and
// 1.25 GB/s; the pairs between groups slow_a and slow_b cross a global link at 1/4 bandwidth and
// 4x latency (factors as SimGrid's: the link's latency and the route's bottleneck): both
// directions, or (both false) the pairs from slow_a to slow_b only. One rank per host.
struct Routed {
  int groups = 4, routers = 8, hosts_per_router = 2;
  bool tree = false;
  int slow_a = -1, slow_b = -1;
  double noise = 0.0;
  bool both = true;
};

inline nt::analysis::Cube routed_cube(const Routed& n, std::set<std::pair<int, int>>* slowed = nullptr) {
  const int R = n.routers, hpr = n.hosts_per_router;
  return path_cube(n.groups * R * hpr, 1, n.noise, 7, [&](int a, int b) {
    const int ra = a / hpr, rb = b / hpr, ga = ra / R, gb = rb / R, xa = ra % R, xb = rb % R;
    const int links = ra == rb ? 2 : ga == gb ? 3 : n.tree ? 5 : 3 + (xa != gb ? 1 : 0) + (xb != ga ? 1 : 0);
    const bool slow = (ga == n.slow_a && gb == n.slow_b) || (n.both && ga == n.slow_b && gb == n.slow_a);
    if (slow && slowed) slowed->emplace(a, b);
    return Path{(links + (slow ? 3 : 0)) * 1e-6, slow ? 1.25e9 / 4 : 1.25e9};
  });
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
