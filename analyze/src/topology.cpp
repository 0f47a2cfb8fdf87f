#include "nt/analysis/topology.hpp"
#include "nt/stats.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "nt/analysis/linkage.hpp"

namespace nt::analysis {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double median_inplace(std::vector<double>& x) {
  if (x.empty()) return kNaN;
  const std::size_t n = x.size();
  auto mid = x.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(x.begin(), mid, x.end());
  const double upper = *mid;
  if (n % 2 == 1) return upper;
  return 0.5 * (upper + *std::max_element(x.begin(), mid));
}

// n x n profile per band, [b][a*n + c]; NaN where unknown (and on the diagonal).
using Profiles = std::vector<std::vector<double>>;

// Clusters n items whose profiles (rows and columns) look alike; returns a label per item.
std::vector<int> cluster_profiles(const Profiles& prof, int n, const TopologyOptions& opt) {
  std::vector<int> label(static_cast<std::size_t>(n), 0);
  if (n <= 2) return label;  // no third item to compare against: one group
  const auto N = static_cast<std::size_t>(n);
  const std::size_t B = prof.size();
  std::vector<double> dist(B * N * N, 0.0);
  // Transposed profiles: columns become contiguous.
  Profiles tr(B, std::vector<double>(N * N));
  for (std::size_t b = 0; b < B; ++b)
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) tr[b][j * N + i] = prof[b][i * N + j];
  struct Scratch {
    std::vector<double> x, y, all, tmp;
  };
  // |differences| of the rows and columns of a and c after removing their median; returns the
  // second largest (robust to one odd cell) and leaves the |differences| in s.all.
  auto compare = [&](std::size_t b, int a, int c, Scratch& s) {
    s.x.clear();
    s.y.clear();
    const double* ra = prof[b].data() + static_cast<std::size_t>(a) * N;
    const double* rc = prof[b].data() + static_cast<std::size_t>(c) * N;
    const double* ca = tr[b].data() + static_cast<std::size_t>(a) * N;
    const double* cc = tr[b].data() + static_cast<std::size_t>(c) * N;
    for (int k = 0; k < n; ++k) {
      if (k == a || k == c) continue;
      const double d1 = ra[k] - rc[k];
      if (std::isfinite(d1)) s.x.push_back(d1);
      const double d2 = ca[k] - cc[k];
      if (std::isfinite(d2)) s.y.push_back(d2);
    }
    s.all.clear();
    for (auto* v : {&s.x, &s.y}) {
      double m = 0.0;
      if (v->size() >= 2) {
        s.tmp.assign(v->begin(), v->end());
        m = median_inplace(s.tmp);
      }
      for (double e : *v) s.all.push_back(std::fabs(e - m));
    }
    double first = 0.0, second = 0.0;
    for (double e : s.all) {
      if (e > first) {
        second = first;
        first = e;
      } else if (e > second) {
        second = e;
      }
    }
    return s.all.size() >= 2 ? second : first;
  };
  // Fast distance for all pairs: the median offsets come from a sample of at most ~64 cells
  // (all cells for up to 128 items), then one pass keeps the two largest |differences|.
  const std::size_t stride = std::max<std::size_t>(1, N / 64);
  auto fast = [&](std::size_t b, std::size_t a, std::size_t c, Scratch& s) {
    const double* ra = prof[b].data() + a * N;
    const double* rc = prof[b].data() + c * N;
    const double* ca = tr[b].data() + a * N;
    const double* cc = tr[b].data() + c * N;
    double mx = 0.0, my = 0.0;
    if (N > 128) {
      s.x.clear();
      s.y.clear();
      for (std::size_t k = 0; k < N; k += stride) {
        if (k == a || k == c) continue;
        const double d1 = ra[k] - rc[k], d2 = ca[k] - cc[k];
        if (std::isfinite(d1)) s.x.push_back(d1);
        if (std::isfinite(d2)) s.y.push_back(d2);
      }
      if (s.x.size() >= 2) mx = median_inplace(s.x);
      if (s.y.size() >= 2) my = median_inplace(s.y);
    } else {
      return compare(b, static_cast<int>(a), static_cast<int>(c), s);
    }
    double first = 0.0, second = 0.0;
    std::size_t count = 0;
    auto take = [&](double e) {
      if (!std::isfinite(e)) return;
      ++count;
      if (e > first) {
        second = first;
        first = e;
      } else if (e > second) {
        second = e;
      }
    };
    for (std::size_t k = 0; k < N; ++k) {
      if (k == a || k == c) continue;
      take(std::fabs(ra[k] - rc[k] - mx));
      take(std::fabs(ca[k] - cc[k] - my));
    }
    return count >= 2 ? second : first;
  };
  parallel_for(N, [&](std::size_t a0, std::size_t a1) {
    Scratch s;
    for (std::size_t q = a0; q < a1; ++q) {
      // Interleave short and long rows of the triangle so that the chunks are balanced.
      const std::size_t a = q % 2 == 0 ? q / 2 : N - 1 - q / 2;
      for (std::size_t c = a + 1; c < N; ++c)
        for (std::size_t b = 0; b < B; ++b) {
          const double d = fast(b, a, c, s);
          dist[b * N * N + a * N + c] = d;
          dist[b * N * N + c * N + a] = d;
        }
    }
  });
  Scratch s0;
  // Noise per band: the typical |difference| between each item and its nearest neighbour.
  std::vector<double> tau(B);
  for (std::size_t b = 0; b < B; ++b) {
    std::vector<double> nn;
    for (int a = 0; a < n; ++a) {
      int best = -1;
      for (int c = 0; c < n; ++c)
        if (c != a && (best < 0 || dist[b * N * N + static_cast<std::size_t>(a) * N + static_cast<std::size_t>(c)] <
                                       dist[b * N * N + static_cast<std::size_t>(a) * N + static_cast<std::size_t>(best)]))
          best = c;
      compare(b, a, best, s0);
      if (!s0.all.empty()) nn.push_back(robust_sigma_of_deviations(s0.all));
    }
    const double sigma = nn.empty() ? 0.0 : median_inplace(nn);
    tau[b] = std::max(std::log(opt.min_ratio), opt.noise_factor * sigma);
  }
  // Scaled distance: the worst band.
  std::vector<double> D(N * N, 0.0);
  for (std::size_t i = 0; i < N * N; ++i) {
    double m = 0.0;
    for (std::size_t b = 0; b < B; ++b) m = std::max(m, dist[b * N * N + i] / tau[b]);
    D[i] = m;
  }
  // Average linkage while the closest clusters are alike (scaled distance < 1).
  label = average_linkage(D, N, 1.0);
  return label;
}

// Groups from labels: ranks ascending, groups by first member.
std::vector<std::vector<int>> groups_from_labels(const std::vector<int>& label) {
  std::map<int, std::vector<int>> by;
  for (std::size_t i = 0; i < label.size(); ++i) by[label[i]].push_back(static_cast<int>(i));
  std::vector<std::vector<int>> g;
  for (auto& [l, v] : by) g.push_back(std::move(v));
  std::sort(g.begin(), g.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return g;
}

Level make_level(std::string name, std::vector<std::vector<int>> groups, int P) {
  Level l;
  l.name = std::move(name);
  for (auto& g : groups) std::sort(g.begin(), g.end());
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  l.groups = std::move(groups);
  l.group_of.assign(static_cast<std::size_t>(P), -1);
  for (std::size_t g = 0; g < l.groups.size(); ++g)
    for (int r : l.groups[g]) l.group_of[static_cast<std::size_t>(r)] = static_cast<int>(g);
  return l;
}

}  // namespace

int Topology::pair_class(int i, int j) const {
  for (std::size_t l = 0; l < levels.size(); ++l)
    if (levels[l].group_of[static_cast<std::size_t>(i)] == levels[l].group_of[static_cast<std::size_t>(j)])
      return static_cast<int>(l);
  return static_cast<int>(levels.size());
}

std::string Topology::class_name(int c) const {
  if (!node_level_identified) {
    if (c == 0) return "within-group";
    if (c == 1) return "between-groups";
  }
  if (c == 0) return "intra-node";
  if (c == 1) return "inter-node";
  if (c == 2) return "inter-switch";
  return fmt::format("inter-switch-{}", c - 1);
}

Topology find_topology(const Cube& c, const TopologyOptions& opt) {
  Topology t;
  t.P = c.P;
  const int P = c.P;
  const auto N = static_cast<std::size_t>(P);
  const std::size_t K = c.count();
  // Log of each delay over the median off-diagonal delay of its length.
  std::vector<double> norm(K, kNaN);
  {
    std::vector<double> tmp;
    for (std::size_t k = 0; k < K; ++k) {
      tmp.clear();
      for (int i = 0; i < P; ++i)
        for (int j = 0; j < P; ++j)
          if (i != j && Cube::usable(c.at(k, i, j))) tmp.push_back(c.at(k, i, j));
      if (!tmp.empty()) norm[k] = median_inplace(tmp);
    }
  }
  const std::size_t B = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(1, opt.bands)), K));
  Profiles prof(B, std::vector<double>(N * N, kNaN));
  std::vector<double> tmp;
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t k0 = b * K / B, k1 = (b + 1) * K / B;
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        if (i == j) continue;
        tmp.clear();
        for (std::size_t k = k0; k < k1; ++k) {
          const double v = c.at(k, i, j);
          if (Cube::usable(v) && std::isfinite(norm[k]) && norm[k] > 0) tmp.push_back(std::log(v / norm[k]));
        }
        if (!tmp.empty()) prof[b][static_cast<std::size_t>(i) * N + static_cast<std::size_t>(j)] = median_inplace(tmp);
      }
  }
  if (P <= 2) t.notes.push_back("2 ranks: too few to tell nodes apart from the delays; both ranks form one group");
  auto labels = cluster_profiles(prof, P, opt);
  t.levels.push_back(make_level("node", groups_from_labels(labels), P));

  // Upper levels: the same on the groups.
  for (int lev = 1; lev <= opt.max_levels; ++lev) {
    const auto& cur = t.levels.back().groups;
    const int n = static_cast<int>(cur.size());
    if (n <= 2) break;
    const auto G = static_cast<std::size_t>(n);
    Profiles gp(B, std::vector<double>(G * G, kNaN));
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t A = 0; A < G; ++A)
        for (std::size_t C = 0; C < G; ++C) {
          if (A == C) continue;
          tmp.clear();
          for (int a : cur[A])
            for (int cc : cur[C]) {
              const double v = prof[b][static_cast<std::size_t>(a) * N + static_cast<std::size_t>(cc)];
              if (std::isfinite(v)) tmp.push_back(v);
            }
          if (!tmp.empty()) gp[b][A * G + C] = median_inplace(tmp);
        }
    auto gl = cluster_profiles(gp, n, opt);
    auto ggroups = groups_from_labels(gl);
    if (ggroups.size() <= 1 || static_cast<int>(ggroups.size()) >= n) break;
    std::vector<std::vector<int>> rank_groups;
    for (const auto& gg : ggroups) {
      std::vector<int> rs;
      for (int gi : gg) rs.insert(rs.end(), cur[static_cast<std::size_t>(gi)].begin(), cur[static_cast<std::size_t>(gi)].end());
      rank_groups.push_back(std::move(rs));
    }
    t.levels.push_back(make_level(lev == 1 ? "switch" : fmt::format("switch-{}", lev), std::move(rank_groups), P));
  }
  return t;
}

double adjusted_rand_index(const std::vector<int>& a, const std::vector<int>& b) {
  const std::size_t n = a.size();
  if (n < 2 || b.size() != n) return 1.0;
  std::map<std::pair<int, int>, long long> nij;
  std::map<int, long long> ai, bj;
  for (std::size_t i = 0; i < n; ++i) {
    ++nij[{a[i], b[i]}];
    ++ai[a[i]];
    ++bj[b[i]];
  }
  auto c2 = [](long long x) { return static_cast<double>(x) * static_cast<double>(x - 1) / 2.0; };
  double sij = 0, sa = 0, sb = 0;
  for (auto& [k, v] : nij) sij += c2(v);
  for (auto& [k, v] : ai) sa += c2(v);
  for (auto& [k, v] : bj) sb += c2(v);
  const double total = c2(static_cast<long long>(n));
  const double expected = sa * sb / total;
  const double maxi = 0.5 * (sa + sb);
  if (maxi - expected == 0.0) return 1.0;
  return (sij - expected) / (maxi - expected);
}

HostAgreement compare_with_hosts(const std::vector<std::vector<int>>& groups, const std::vector<std::string>& hosts) {
  HostAgreement h;
  if (hosts.empty()) {
    h.summary = "no host names known";
    return h;
  }
  h.known = true;
  const std::size_t P = hosts.size();
  std::map<std::string, int> id;
  std::vector<int> hl(P), gl(P, -1);
  for (std::size_t r = 0; r < P; ++r) {
    auto [it, inserted] = id.emplace(hosts[r], static_cast<int>(id.size()));
    hl[r] = it->second;
  }
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (int r : groups[g])
      if (r >= 0 && static_cast<std::size_t>(r) < P) gl[static_cast<std::size_t>(r)] = static_cast<int>(g);
  h.host_groups = groups_from_labels(hl);
  for (const auto& g : h.host_groups) h.host_names.push_back(hosts[static_cast<std::size_t>(g.front())]);
  h.adjusted_rand = adjusted_rand_index(gl, hl);
  bool coarser = true, finer = true;
  for (const auto& g : groups) {
    std::vector<std::string> hs;
    for (int r : g) hs.push_back(hosts[static_cast<std::size_t>(r)]);
    std::sort(hs.begin(), hs.end());
    hs.erase(std::unique(hs.begin(), hs.end()), hs.end());
    if (hs.size() > 1) {
      finer = false;
      h.mismatches.push_back(fmt::format("group of ranks {} spans hosts {}", fmt::join(g, ","), fmt::join(hs, ",")));
    }
  }
  for (std::size_t k = 0; k < h.host_groups.size(); ++k) {
    std::vector<int> gs;
    for (int r : h.host_groups[k]) gs.push_back(gl[static_cast<std::size_t>(r)]);
    std::sort(gs.begin(), gs.end());
    gs.erase(std::unique(gs.begin(), gs.end()), gs.end());
    if (gs.size() > 1) {
      coarser = false;
      h.mismatches.push_back(fmt::format("host {} is split over {} groups", h.host_names[k], gs.size()));
    }
  }
  h.exact = h.mismatches.empty();
  if (h.exact) h.summary = fmt::format("the groups equal the {} hosts", h.host_groups.size());
  else if (coarser) h.summary = "the groups are unions of hosts (ranks on different hosts look alike)";
  else if (finer) h.summary = "the groups split hosts (e.g. sockets or NUMA domains look different)";
  else h.summary = "the groups and the hosts disagree";
  return h;
}

}  // namespace nt::analysis

namespace nt::analysis {

std::vector<std::size_t> lone_node_groups(const Topology& t, std::size_t l) {
  std::vector<std::size_t> out;
  if (l == 0 || l >= t.levels.size()) return out;
  const auto& node_of = t.levels.front().group_of;
  for (std::size_t g = 0; g < t.levels[l].groups.size(); ++g) {
    const auto& rs = t.levels[l].groups[g];
    if (std::all_of(rs.begin(), rs.end(), [&](int r) { return node_of[static_cast<std::size_t>(r)] == node_of[static_cast<std::size_t>(rs.front())]; }))
      out.push_back(g);
  }
  return out;
}

double check_node_level(const Cube& c, Topology& t, bool hosts_known, double min_ratio) {
  if (t.levels.empty() || c.P < 3 || c.count() == 0) return std::nan("");
  // Median delay of the two finest classes over the shortest lengths (up to 3).
  std::vector<double> in, out;
  const std::size_t kn = std::min<std::size_t>(3, c.count());
  for (std::size_t k = 0; k < kn; ++k)
    for (int i = 0; i < c.P; ++i)
      for (int j = 0; j < c.P; ++j) {
        if (i == j || !Cube::usable(c.at(k, i, j))) continue;
        const int q = t.pair_class(i, j);
        if (q == 0) in.push_back(c.at(k, i, j));
        else if (q == 1 || (q > 1 && t.levels.size() == 1)) out.push_back(c.at(k, i, j));
      }
  if (in.empty() || out.empty()) return std::nan("");
  const double ratio = finite_median(out) / finite_median(in);
  if (!hosts_known && ratio < min_ratio) {
    t.node_level_identified = false;
    t.levels.front().name = "group";
    t.notes.push_back(fmt::format(
        "WARNING: the node level cannot be identified: links inside the finest groups are only {:.2f}x faster than "
        "between them (shared memory is usually {:.1f}x or more faster than the network), so these groups are "
        "probably switches or sets of nodes with one rank per node; give a hosts file (--hosts) to know the nodes",
        ratio, min_ratio));
  }
  return ratio;
}

}  // namespace nt::analysis
