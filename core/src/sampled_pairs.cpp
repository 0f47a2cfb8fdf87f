// The host pairs of the sampled schedule (network_test --sample-pairs): a pure function of the
// number of hosts and the Sampling, so that every rank draws the same pairs and every reader of a
// file can tell which cells were measured from its attribute `schedule`.
//
// Why these pairs: a host's landmarks give every host the same few references (hosts behind one
// switch have the same delays to each landmark), its next hosts in numbering are mostly behind its
// own switch (ranks are placed switch by switch), and its random partners reach every other switch
// and uplink. O(H (K + L + N)) pairs of the H (H - 1) / 2.
#include <algorithm>
#include <limits>

#include "nt/schedule.hpp"

namespace nt {

namespace {

std::uint64_t next(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t stream(std::uint64_t seed, std::uint64_t salt, std::uint64_t host) {
  std::uint64_t st = seed ^ (salt * 0x632be59bd9b4e019ULL);
  next(st);
  st ^= host + 0x2545f4914f6cdd1dULL;
  next(st);
  return st;
}

// Uniform in [0, n) without modulo bias.
std::uint64_t below(std::uint64_t& st, std::uint64_t n) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  for (;;) {
    const std::uint64_t v = next(st);
    if (v < limit) return v % n;
  }
}

constexpr std::uint64_t kLandmarkSalt = 0x6c616e64ULL, kPartnerSalt = 0x70617274ULL;

// K distinct hosts other than h, drawn uniformly: a partial Fisher-Yates over the H - 1 others
// (index i stands for host i below h, i + 1 from h on), its swaps kept sparse while K is small.
std::vector<int> partners_of(int h, int hosts, int K, std::uint64_t seed) {
  std::uint64_t st = stream(seed, kPartnerSalt, static_cast<std::uint64_t>(h));
  const int others = hosts - 1;
  std::vector<int> dense;
  std::vector<std::pair<int, int>> swapped;  // position -> value where it differs from the identity
  if (K > 32) {
    dense.resize(static_cast<std::size_t>(others));
    for (int i = 0; i < others; ++i) dense[static_cast<std::size_t>(i)] = i;
  }
  const auto at = [&](int i) {
    if (!dense.empty()) return dense[static_cast<std::size_t>(i)];
    for (const auto& [pos, v] : swapped)
      if (pos == i) return v;
    return i;
  };
  const auto set = [&](int i, int v) {
    if (!dense.empty()) {
      dense[static_cast<std::size_t>(i)] = v;
      return;
    }
    for (auto& [pos, old] : swapped)
      if (pos == i) {
        old = v;
        return;
      }
    swapped.emplace_back(i, v);
  };
  std::vector<int> out;
  for (int i = 0; i < K; ++i) {
    const int j = i + static_cast<int>(below(st, static_cast<std::uint64_t>(others - i)));
    const int vi = at(i), vj = at(j);
    set(i, vj);
    set(j, vi);
    out.push_back(vj < h ? vj : vj + 1);
  }
  return out;
}

}  // namespace

std::vector<int> sampled_landmarks(int hosts, const Sampling& s) {
  std::vector<int> out;
  if (hosts < 2 || s.landmarks <= 0) return out;
  const int L = std::min(s.landmarks, hosts);
  std::uint64_t st = stream(s.seed, kLandmarkSalt, 0);
  const auto offset = static_cast<long long>(below(st, static_cast<std::uint64_t>(hosts)));
  for (long long i = 0; i < L; ++i) out.push_back(static_cast<int>((offset + i * hosts / L) % hosts));
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::vector<std::pair<int, int>> sampled_host_pairs(int hosts, const Sampling& s) {
  std::vector<std::pair<int, int>> out;
  if (hosts < 2) return out;
  const auto add = [&](int a, int b) {
    if (a != b) out.emplace_back(std::min(a, b), std::max(a, b));
  };
  for (int l : sampled_landmarks(hosts, s))
    for (int h = 0; h < hosts; ++h) add(l, h);
  const int N = std::min(s.neighbours, hosts - 1), K = std::min(s.partners, hosts - 1);
  for (int h = 0; h < hosts; ++h) {
    for (int d = 1; d <= N; ++d) add(h, (h + d) % hosts);
    for (int p : partners_of(h, hosts, K, s.seed)) add(h, p);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace nt
