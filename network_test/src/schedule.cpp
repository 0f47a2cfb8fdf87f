// Sweeps, pair schedules and noise-rank draws: pure functions, identical on every rank.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "nt/measure/mode.hpp"
#include "nt/error.hpp"

namespace nt::measure {

bool Task::has(int r) const { return std::find(members.begin(), members.end(), r) != members.end(); }

// More lengths than this is a typing error (e.g. -s 1 up to 2 GiB), not a sweep anyone can run.
constexpr std::int64_t kMaxSweepLengths = 100000;

std::vector<std::int64_t> make_sweep(const Settings& s, std::string* kind) {
  std::vector<std::int64_t> out;
  const int modes = (!s.length_list.empty() ? 1 : 0) + (s.geometric != 0.0 ? 1 : 0);
  if (modes > 1) throw UsageError("--lengths and --geometric cannot be combined");
  constexpr std::int64_t kMax = std::numeric_limits<int>::max();
  if (s.length_list.size() > static_cast<std::size_t>(kMaxSweepLengths))
    throw UsageError(fmt::format("--lengths lists more than {} lengths", kMaxSweepLengths));
  if (!s.length_list.empty()) {
    for (auto v : s.length_list) {
      if (v < 0) throw UsageError("--lengths: negative message length " + std::to_string(v));
      if (v > kMax) throw UsageError("--lengths: message length " + std::to_string(v) + " is too large");
    }
    out = s.length_list;
    for (std::size_t i = 1; i < out.size(); ++i)
      if (out[i] <= out[i - 1]) throw UsageError("--lengths must be strictly increasing");
    if (kind) *kind = "list";
    return out;
  }
  if (s.begin < 0) throw UsageError("begin message length (-b) must not be negative");
  if (s.end > kMax) throw UsageError("end message length (-e) " + std::to_string(s.end) + " is too large");
  if (s.end < s.begin)
    throw UsageError("end message length (-e " + std::to_string(s.end) + ") is smaller than begin (-b " +
                     std::to_string(s.begin) + ")");
  if (s.geometric != 0.0) {
    if (!(s.geometric > 1.0)) throw UsageError("--geometric FACTOR must be greater than 1");
    std::int64_t v = s.begin;
    if (v == 0) {
      out.push_back(0);
      v = 1;
    }
    while (v <= s.end) {
      out.push_back(v);
      auto next = static_cast<std::int64_t>(std::ceil(static_cast<double>(v) * s.geometric));
      v = std::max(next, v + 1);
    }
    if (kind) *kind = "geometric";
    return out;
  }
  if (s.step <= 0) throw UsageError("step length (-s) must be positive, got " + std::to_string(s.step));
  if (s.end > kMax) throw UsageError("end message length (-e) " + std::to_string(s.end) + " is too large");
  const std::int64_t count = (static_cast<std::int64_t>(s.end) - s.begin) / s.step + 1;
  if (count > kMaxSweepLengths)
    throw UsageError(fmt::format("the sweep -b {} -e {} -s {} has {} lengths; at most {} are allowed", s.begin, s.end,
                                 s.step, count, kMaxSweepLengths));
  for (std::int64_t v = s.begin; v <= s.end; v += s.step) out.push_back(v);
  if (kind) *kind = "linear";
  return out;
}

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b, std::uint64_t c) {
  std::uint64_t st = seed;
  std::uint64_t h = splitmix64(st);
  for (std::uint64_t v : {a, b, c}) {
    st = h ^ (v + 0x632be59bd9b4e019ULL);
    h = splitmix64(st);
  }
  return h;
}

namespace {
// Uniform integer in [0, n) without modulo bias.
std::uint64_t below(std::uint64_t& st, std::uint64_t n) {
  const std::uint64_t limit = std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % n;
  for (;;) {
    const std::uint64_t v = splitmix64(st);
    if (v < limit) return v % n;
  }
}

template <class T>
void shuffle_with(std::vector<T>& v, std::uint64_t state) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[below(state, i)]);
}
}  // namespace

std::vector<int> draw_noise(std::uint64_t seed, int P, const std::vector<int>& exclude, int count,
                            std::uint64_t salt) {
  std::vector<int> pool;
  for (int r = 0; r < P; ++r)
    if (std::find(exclude.begin(), exclude.end(), r) == exclude.end()) pool.push_back(r);
  if (count > static_cast<int>(pool.size()))
    throw UsageError("cannot draw " + std::to_string(count) + " noise ranks out of " + std::to_string(pool.size()));
  std::uint64_t st = mix_seed(seed, salt, 0x6e6f697365ULL);
  // Partial Fisher-Yates: the first `count` entries are the draw.
  for (int i = 0; i < count; ++i) {
    const auto j = static_cast<std::size_t>(i) + below(st, pool.size() - static_cast<std::size_t>(i));
    std::swap(pool[static_cast<std::size_t>(i)], pool[j]);
  }
  pool.resize(static_cast<std::size_t>(count));
  std::sort(pool.begin(), pool.end());
  return pool;
}

std::vector<std::vector<std::pair<int, int>>> round_robin(int P) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  if (P < 2) return rounds;
  const int n = P % 2 == 0 ? P : P + 1;  // a virtual rank n-1 = bye when P is odd
  std::vector<int> ring(static_cast<std::size_t>(n));
  std::iota(ring.begin(), ring.end(), 0);
  for (int r = 0; r < n - 1; ++r) {
    std::vector<std::pair<int, int>> round;
    for (int i = 0; i < n / 2; ++i) {
      int a = ring[static_cast<std::size_t>(i)], b = ring[static_cast<std::size_t>(n - 1 - i)];
      if (a >= P || b >= P) continue;
      round.emplace_back(std::min(a, b), std::max(a, b));
    }
    rounds.push_back(std::move(round));
    // Rotate every position but the first.
    std::rotate(ring.begin() + 1, ring.end() - 1, ring.end());
  }
  return rounds;
}

std::vector<Task> make_tasks(const ModeSpec& spec, const Settings& s, int P, std::size_t length_index) {
  std::vector<Task> sync, work;
  std::vector<int> all(static_cast<std::size_t>(P));
  std::iota(all.begin(), all.end(), 0);
  const std::uint64_t seed = s.seed.value_or(0);
  auto finish = [&](Task t) {
    if (spec.uses_noise) {
      std::vector<int> ex{t.x, t.y};
      t.noise = draw_noise(seed, P, ex, s.noise_procs,
                           mix_seed(length_index, static_cast<std::uint64_t>(t.x), static_cast<std::uint64_t>(t.y)));
    }
    std::set<int> m{t.x, t.y};
    m.insert(t.noise.begin(), t.noise.end());
    t.members.assign(m.begin(), m.end());
    work.push_back(std::move(t));
  };
  switch (spec.kind) {
    case TaskKind::ordered_pairs:
      for (int x = 0; x < P; ++x)
        for (int y = 0; y < P; ++y) {
          if (x == y) continue;
          Task t;
          t.x = x;
          t.y = y;
          t.leader = spec.results_in_rows ? x : y;
          finish(std::move(t));
        }
      break;
    case TaskKind::exchange_pairs:
      for (int x = 0; x < P; ++x)
        for (int y = x; y < P; ++y) {
          Task t;
          t.x = x;
          t.y = y;
          t.leader = x;
          finish(std::move(t));
        }
      break;
    case TaskKind::per_root:
    case TaskKind::all_ranks: {
      const int roots = spec.kind == TaskKind::per_root ? P : 1;
      for (int r = 0; r < roots; ++r) {
        Task t;
        t.x = spec.kind == TaskKind::per_root ? r : -1;
        t.leader = 0;
        t.members = all;
        work.push_back(std::move(t));
      }
      break;
    }
  }
  if (s.shuffle) shuffle_with(work, mix_seed(seed, length_index, 0x73687566ULL));
  if (spec.common_start) {
    for (int r = 1; r < P; ++r) {
      Task t;
      t.sync = true;
      t.x = 0;
      t.y = r;
      t.leader = 0;
      t.members = {0, r};
      sync.push_back(std::move(t));
    }
  }
  sync.insert(sync.end(), std::make_move_iterator(work.begin()), std::make_move_iterator(work.end()));
  return sync;
}

std::string ModeSpec::describe(const Task& t) const {
  if (t.sync) return "clock synchronisation of ranks 0 and " + std::to_string(t.y);
  switch (kind) {
    case TaskKind::ordered_pairs:
      return "pair " + std::to_string(t.x) + "->" + std::to_string(t.y);
    case TaskKind::exchange_pairs:
      return "pair " + std::to_string(t.x) + "<->" + std::to_string(t.y);
    case TaskKind::per_root:
      return "root " + std::to_string(t.x);
    case TaskKind::all_ranks:
      return "all ranks";
  }
  return "task";
}

}  // namespace nt::measure
