// Three-level trees (hosts under leaves, leaves under pods, pods under a core) with faults drawn at
// random from a seed, for the property tests of the report (test_explain.cpp): every fault, what it
// slows and at which level and direction it lives. A delay is the route's latency plus the length
// over its bottleneck bandwidth (one pair at a time: no sharing), as SimGrid models a lone message.
#pragma once

#include <algorithm>
#include <map>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "routed_cubes.hpp"

namespace nt::test {

// One direction of one link: a host's cable (from the host, to the host), a leaf's uplink (up, down)
// or a pod's uplink (up, down).
struct LinkId {
  enum Level { host, leaf, pod } level = host;
  int index = 0;
  bool up = true;  // toward the core: the host sends, the group's ranks send out
  auto operator<=>(const LinkId&) const = default;
};

struct TreeFault {
  LinkId::Level level = LinkId::host;
  int index = 0;                 // host, leaf or pod
  std::string direction;         // "send", "receive" or "both"
  double bw = 1.0, lat = 1.0;    // factors of the healthy link's
};

struct RandomTree {
  int pods = 3, leaves_per_pod = 3, hosts_per_leaf = 4, rph = 2;
  std::vector<TreeFault> faults;
  int hosts() const { return pods * leaves_per_pod * hosts_per_leaf; }
  int ranks() const { return hosts() * rph; }
  int leaf_of(int host) const { return host / hosts_per_leaf; }
  int pod_of(int host) const { return host / (hosts_per_leaf * leaves_per_pod); }
  // The ranks a fault is about: its host's, leaf's or pod's (block placement: rank r on host r / rph).
  std::vector<int> ranks_of(const TreeFault& f) const {
    std::vector<int> r;
    for (int x = 0; x < ranks(); ++x) {
      const int h = x / rph;
      const int at = f.level == LinkId::host ? h : f.level == LinkId::leaf ? leaf_of(h) : pod_of(h);
      if (at == f.index) r.push_back(x);
    }
    return r;
  }
};

// A tree and 0-4 faults drawn from `seed`: 2-4 pods (a pod fault only with 3 or more: between two
// pods a slow uplink has no side), 2-4 leaves per pod, 2-6 hosts per leaf, 1, 2 or 4 ranks per host;
// faults of five kinds (a host's cable one way or both, a leaf's or a pod's uplink both ways) at
// 1/4 to 1/2 of the bandwidth and 1-4x the latency, on distinct links, fewer than half of the groups
// of a level faulty.
inline RandomTree draw_tree(unsigned seed, bool with_faults = true) {
  std::mt19937 rng(seed);
  auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  RandomTree t;
  t.pods = pick(2, 4);
  t.leaves_per_pod = pick(2, 4);
  t.hosts_per_leaf = pick(2, 6);
  t.rph = std::vector<int>{1, 2, 4}[static_cast<std::size_t>(pick(0, 2))];
  if (!with_faults) return t;
  const int n = pick(0, 4);
  std::set<std::pair<int, int>> used;  // (level, index)
  std::map<int, int> per_level;
  for (int q = 0; q < n; ++q) {
    TreeFault f;
    const int kind = pick(0, 4);
    if (kind == 4 && t.pods < 3) continue;
    f.level = kind <= 2 ? LinkId::host : kind == 3 ? LinkId::leaf : LinkId::pod;
    f.direction = kind == 0 ? "send" : kind == 1 ? "receive" : "both";
    const int count = f.level == LinkId::host ? t.hosts() : f.level == LinkId::leaf ? t.pods * t.leaves_per_pod : t.pods;
    f.index = pick(0, count - 1);
    // A strict majority of each level's groups stays healthy: with two pods of three slow, the
    // delays cannot tell two slow pods from one fast one.
    if (2 * (per_level[static_cast<int>(f.level)] + 1) >= count) continue;
    if (!used.insert({static_cast<int>(f.level), f.index}).second) continue;
    ++per_level[static_cast<int>(f.level)];
    f.bw = 1.0 / pick(2, 4);
    f.lat = static_cast<double>(pick(1, 4));
    t.faults.push_back(f);
  }
  return t;
}

// The delays of the tree at 0 B, 1 KiB, 64 KiB and 1 MiB: every link 1 us and 1.25 GB/s, ranks of one
// host 0.2 us and 20 GB/s; lognormal noise of noise_sigma.
inline nt::analysis::Cube tree_cube(const RandomTree& t, double noise_sigma = 0.0, unsigned seed = 1) {
  std::map<LinkId, std::pair<double, double>> slow;  // link -> (bw factor, lat factor)
  for (const auto& f : t.faults) {
    if (f.direction != "receive") slow[{f.level, f.index, true}] = {f.bw, f.lat};
    if (f.direction != "send") slow[{f.level, f.index, false}] = {f.bw, f.lat};
  }
  return path_cube(t.ranks(), t.rph, noise_sigma, seed, [&](int a, int b) {
    const int ha = a / t.rph, hb = b / t.rph;
    if (ha == hb) return Path{2e-7, 2e10};
    std::vector<LinkId> route{{LinkId::host, ha, true}};
    if (t.leaf_of(ha) != t.leaf_of(hb)) route.push_back({LinkId::leaf, t.leaf_of(ha), true});
    if (t.pod_of(ha) != t.pod_of(hb)) {
      route.push_back({LinkId::pod, t.pod_of(ha), true});
      route.push_back({LinkId::pod, t.pod_of(hb), false});
    }
    if (t.leaf_of(ha) != t.leaf_of(hb)) route.push_back({LinkId::leaf, t.leaf_of(hb), false});
    route.push_back({LinkId::host, hb, false});
    Path p{0.0, 1.25e9};
    for (const auto& l : route) {
      const auto it = slow.find(l);
      const double bw = it == slow.end() ? 1.0 : it->second.first, lat = it == slow.end() ? 1.0 : it->second.second;
      p.latency += 1e-6 * lat;
      p.bandwidth = std::min(p.bandwidth, 1.25e9 * bw);
    }
    return p;
  });
}

}  // namespace nt::test
