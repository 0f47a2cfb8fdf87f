// Sweeps, pair schedules and noise-rank draws: pure functions, identical on every rank.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <set>

#include <fmt/format.h>

#include "nt/measure/mode.hpp"
#include "nt/error.hpp"
#include "nt/sweep.hpp"

namespace nt::measure {

bool Task::has(int r) const { return std::find(members.begin(), members.end(), r) != members.end(); }

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
  const std::int64_t count = linear_sweep_size(s.begin, s.end, s.step);
  if (count > kMaxSweepLengths)
    throw UsageError(fmt::format("the sweep -b {} -e {} -s {} has {} lengths; at most {} are allowed", s.begin, s.end,
                                 s.step, count, kMaxSweepLengths));
  if (count > kSaneSweepLengths && !s.many_lengths)
    throw UsageError(fmt::format("the sweep -b {} -e {} -s {} plans {} lengths (more than {}): use --geometric 2 or "
                                 "--lengths for a wide range, or --many-lengths to measure them all",
                                 s.begin, s.end, s.step, count, kSaneSweepLengths));
  if (kind) *kind = "linear";
  return linear_sweep(s.begin, s.end, s.step);
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

void shuffle_ints(std::vector<int>& v, std::uint64_t state) { shuffle_with(v, state); }

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

int rounds_of(int P) { return P < 2 ? 0 : (P % 2 == 0 ? P - 1 : P); }

// Circle method: position 0 holds rank 0; after r rotations position i >= 1 holds
// 1 + (i - 1 - r) mod (n - 1); round r pairs positions i and n-1-i. n = P rounded up to even
// (rank n-1 = a bye when P is odd).
namespace {
int ring_at(int n, int r, int i) { return i == 0 ? 0 : 1 + (((i - 1 - r) % (n - 1)) + (n - 1)) % (n - 1); }
int ring_pos(int n, int r, int rank) { return rank == 0 ? 0 : 1 + (rank - 1 + r) % (n - 1); }
}  // namespace

std::vector<std::pair<int, int>> round_of(int P, int r) {
  std::vector<std::pair<int, int>> round;
  const int n = P % 2 == 0 ? P : P + 1;
  for (int i = 0; i < n / 2; ++i) {
    const int a = ring_at(n, r, i), b = ring_at(n, r, n - 1 - i);
    if (a >= P || b >= P) continue;
    round.emplace_back(std::min(a, b), std::max(a, b));
  }
  return round;
}

int partner_in_round(int P, int r, int rank) {
  const int n = P % 2 == 0 ? P : P + 1;
  const int other = ring_at(n, r, n - 1 - ring_pos(n, r, rank));
  return other >= P ? -1 : other;
}

Factorisation::Factorisation(int P, std::uint64_t seed, std::size_t length_index, int repetition, bool random,
                             bool shuffle)
    : P_(P), n_(P % 2 == 0 ? P : P + 1) {
  const int n_rounds = rounds_of(P);
  order_.resize(static_cast<std::size_t>(n_rounds));
  std::iota(order_.begin(), order_.end(), 0);
  if (!random) {
    if (shuffle) {  // the order of earlier versions, draw for draw
      std::uint64_t st = mix_seed(seed, length_index, 0x636f6e63ULL);
      for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[splitmix64(st) % i]);
    }
    return;
  }
  const std::uint64_t key = mix_seed(seed, length_index, static_cast<std::uint64_t>(repetition), 0x72616e64ULL);
  perm_.resize(static_cast<std::size_t>(n_));  // labels of ranks 0..P-1 and of the bye (P odd)
  std::iota(perm_.begin(), perm_.end(), 0);
  shuffle_with(perm_, key);
  inv_.resize(perm_.size());
  for (std::size_t r = 0; r < perm_.size(); ++r) inv_[static_cast<std::size_t>(perm_[r])] = static_cast<int>(r);
  shuffle_with(order_, mix_seed(key, 0x6f72646572ULL));
}

int Factorisation::partner(int step, int rank) const {
  const int k = order_[static_cast<std::size_t>(step)];
  const int other = ring_at(n_, k, n_ - 1 - ring_pos(n_, k, label(rank)));
  const int r = inv_.empty() ? other : inv_[static_cast<std::size_t>(other)];
  return r >= P_ ? -1 : r;
}

namespace {
// Per round the largest f(X, Y) of its lanes (X < Y, partners in that round), summed, plus the
// largest f(X, X): what lanes that run at once and then every group at once take.
template <class T, class F>
T slowest_lanes(const Factorisation& rounds, int groups, const F& f) {
  T total = 0, within = 0;
  for (int q = 0; q < rounds.rounds(); ++q) {
    T slowest = 0;
    for (int X = 0; X < groups; ++X)
      if (const int Y = rounds.partner(q, X); Y > X) slowest = std::max(slowest, f(X, Y));
    total += slowest;
  }
  for (int X = 0; X < groups; ++X) within = std::max(within, f(X, X));
  return total + within;
}
}  // namespace

std::size_t lane_steps(const Factorisation& rounds, int groups, const std::function<std::size_t(int, int)>& pairs) {
  return slowest_lanes<std::size_t>(rounds, groups, pairs);
}

double lane_seconds(const Factorisation& rounds, int groups, const std::function<double(int, int)>& seconds) {
  return slowest_lanes<double>(rounds, groups, seconds);
}

std::vector<std::vector<std::pair<int, int>>> round_robin(int P) {
  std::vector<std::vector<std::pair<int, int>>> rounds;
  for (int r = 0; r < rounds_of(P); ++r) rounds.push_back(round_of(P, r));
  return rounds;
}

TaskList::TaskList(const ModeSpec& spec, const Settings& s, int P, std::size_t length_index)
    : spec_(&spec), P_(P), noise_procs_(s.noise_procs), seed_(s.seed.value_or(0)), length_index_(length_index),
      shuffle_(s.schedule.shuffle) {
  const auto PU = static_cast<std::size_t>(P);
  switch (spec.kind) {
    case TaskKind::ordered_pairs: nwork_ = PU * (PU - 1); break;
    case TaskKind::exchange_pairs: nwork_ = PU * (PU + 1) / 2; break;
    case TaskKind::per_root: nwork_ = PU; break;
    case TaskKind::all_ranks: nwork_ = 1; break;
  }
  nsync_ = spec.common_start && P > 1 ? PU - 1 : 0;
  if (!shuffle_) return;
  const std::uint64_t state = mix_seed(seed_, length_index, 0x73687566ULL);
  if (nwork_ <= kStoredShuffle) {
    perm_.resize(nwork_);
    std::iota(perm_.begin(), perm_.end(), 0u);
    shuffle_with(perm_, state);
  } else {
    key_ = state;
    int bits = 0;
    while ((std::uint64_t{1} << bits) < nwork_) ++bits;
    half_bits_ = (bits + 1) / 2;
  }
}

std::size_t TaskList::permuted(std::size_t w) const {
  if (!shuffle_) return w;
  if (!perm_.empty()) return perm_[w];
  // A 4-round Feistel network on 2 * half_bits_ bits is a bijection; walking the cycle until the
  // value falls below nwork_ restricts it to a bijection of [0, nwork_).
  const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
  std::uint64_t v = w;
  do {
    std::uint64_t l = v >> half_bits_, r = v & mask;
    for (std::uint64_t round = 0; round < 4; ++round) {
      const std::uint64_t f = mix_seed(key_, round, r) & mask;
      const std::uint64_t nl = r;
      r = l ^ f;
      l = nl;
    }
    v = (l << half_bits_) | r;
  } while (v >= nwork_);
  return static_cast<std::size_t>(v);
}

std::size_t TaskList::unpermuted(std::size_t i) const {
  // permuted's Feistel rounds backwards ((l, r) came from (r ^ f(l), l)), walking the cycle the
  // other way until the value falls below nwork_.
  const std::uint64_t mask = (std::uint64_t{1} << half_bits_) - 1;
  std::uint64_t v = i;
  do {
    std::uint64_t l = v >> half_bits_, r = v & mask;
    for (std::uint64_t round = 4; round-- > 0;) {
      const std::uint64_t pl = r ^ (mix_seed(key_, round, l) & mask);
      r = l;
      l = pl;
    }
    v = (l << half_bits_) | r;
  } while (v >= nwork_);
  return static_cast<std::size_t>(v);
}

std::optional<std::vector<std::size_t>> TaskList::positions_of(int rank) const {
  const ModeSpec& spec = *spec_;
  if (spec.uses_noise) return std::nullopt;
  const auto PU = static_cast<std::size_t>(P_), r = static_cast<std::size_t>(rank);
  std::vector<std::size_t> items;  // the work items with the rank, ascending (work()'s order)
  switch (spec.kind) {
    case TaskKind::ordered_pairs:
      for (std::size_t x = 0; x < PU; ++x)
        if (x == r)
          for (std::size_t j = 0; j + 1 < PU; ++j) items.push_back(x * (PU - 1) + j);
        else
          items.push_back(x * (PU - 1) + (r < x ? r : r - 1));
      break;
    case TaskKind::exchange_pairs: {
      auto start = [&](std::size_t x) { return x * PU - x * (x - 1) / 2; };
      for (std::size_t x = 0; x < r; ++x) items.push_back(start(x) + (r - x));
      for (std::size_t y = r; y < PU; ++y) items.push_back(start(r) + (y - r));
      break;
    }
    case TaskKind::per_root:
    case TaskKind::all_ranks:
      items.resize(nwork_);
      std::iota(items.begin(), items.end(), std::size_t{0});
      break;
  }
  std::vector<std::size_t> pos;
  if (rank == 0)
    for (std::size_t u = 0; u < nsync_; ++u) pos.push_back(u);
  else if (r - 1 < nsync_)
    pos.push_back(r - 1);
  std::vector<std::size_t> work;
  if (!shuffle_) {
    work = std::move(items);
  } else if (!perm_.empty()) {
    std::vector<char> mine(nwork_, 0);
    for (std::size_t i : items) mine[i] = 1;
    for (std::size_t w = 0; w < nwork_; ++w)
      if (mine[perm_[w]]) work.push_back(w);
  } else {
    for (std::size_t i : items) work.push_back(unpermuted(i));
    std::sort(work.begin(), work.end());
  }
  for (std::size_t w : work) pos.push_back(nsync_ + w);
  return pos;
}

Task TaskList::pair_task(int x, int y) const {
  const auto PU = static_cast<std::size_t>(P_), X = static_cast<std::size_t>(x), Y = static_cast<std::size_t>(y);
  if (spec_->kind == TaskKind::ordered_pairs && x != y) return work(X * (PU - 1) + (Y < X ? Y : Y - 1));
  if (spec_->kind == TaskKind::exchange_pairs && x <= y) return work(X * PU - X * (X - 1) / 2 + (Y - X));
  throw Error(fmt::format("no task of pair ({}, {}) in mode {}", x, y, spec_->name));
}

Task TaskList::work(std::size_t i) const {
  const ModeSpec& spec = *spec_;
  const int P = P_;
  const auto PU = static_cast<std::size_t>(P);
  Task t;
  switch (spec.kind) {
    case TaskKind::ordered_pairs: {
      t.x = static_cast<int>(i / (PU - 1));
      const auto j = static_cast<int>(i % (PU - 1));
      t.y = j < t.x ? j : j + 1;
      t.leader = spec.results_in_rows ? t.x : t.y;
      break;
    }
    case TaskKind::exchange_pairs: {
      // Row x (pairs (x, x..P-1)) starts at x*P - x(x-1)/2: the last row start <= i.
      auto start = [&](std::size_t x) { return x * PU - x * (x - 1) / 2; };
      std::size_t lo = 0, hi = PU - 1;
      while (lo < hi) {
        const std::size_t mid = (lo + hi + 1) / 2;
        if (start(mid) <= i) lo = mid; else hi = mid - 1;
      }
      t.x = static_cast<int>(lo);
      t.y = static_cast<int>(lo + (i - start(lo)));
      t.leader = t.x;
      break;
    }
    case TaskKind::per_root:
    case TaskKind::all_ranks:
      t.x = spec.kind == TaskKind::per_root ? static_cast<int>(i) : -1;
      t.leader = 0;
      t.members.resize(PU);
      std::iota(t.members.begin(), t.members.end(), 0);
      return t;
  }
  if (spec.uses_noise) {
    const std::vector<int> ex{t.x, t.y};
    t.noise = draw_noise(seed_, P, ex, noise_procs_,
                         mix_seed(length_index_, static_cast<std::uint64_t>(t.x), static_cast<std::uint64_t>(t.y)));
  }
  std::set<int> m{t.x, t.y};
  m.insert(t.noise.begin(), t.noise.end());
  t.members.assign(m.begin(), m.end());
  return t;
}

Task TaskList::operator[](std::size_t u) const {
  if (u < nsync_) {
    Task t;
    t.sync = true;
    t.x = 0;
    t.y = static_cast<int>(u) + 1;
    t.leader = 0;
    t.members = {0, t.y};
    return t;
  }
  return work(permuted(u - nsync_));
}

std::string task_class(const Task& t, const ModeSpec& spec, const std::vector<int>& host_of) {
  if (t.sync) return "clock offsets";
  if (spec.kind == TaskKind::per_root || spec.kind == TaskKind::all_ranks) return "collective";
  return host_of[static_cast<std::size_t>(t.x)] == host_of[static_cast<std::size_t>(t.y)] ? kOnOneHost : kAcrossHosts;
}

std::map<std::string, std::size_t> class_counts(const TaskList& list, const ModeSpec& spec,
                                                const std::vector<int>& host_of) {
  std::map<std::string, std::size_t> n;
  const std::size_t nsync = list.sync_count(), work = list.size() - nsync;
  if (nsync > 0) n["clock offsets"] = nsync;
  if (spec.kind == TaskKind::per_root || spec.kind == TaskKind::all_ranks) {
    if (work > 0) n["collective"] = work;
    return n;
  }
  std::map<int, std::size_t> per_host;
  for (int h : host_of) ++per_host[h];
  std::size_t same = 0;  // ordered pairs of one host, or {x, y} with x <= y (self exchanges included)
  for (const auto& [h, m] : per_host) same += spec.kind == TaskKind::exchange_pairs ? m * (m + 1) / 2 : m * (m - 1);
  if (same > 0) n[kOnOneHost] = same;
  if (work > same) n[kAcrossHosts] = work - same;
  return n;
}

std::vector<std::size_t> spread_indices(std::size_t total, std::size_t n) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < std::min(total, n); ++i) out.push_back(total <= n ? i : i * total / n);
  return out;
}

std::map<std::string, std::vector<Task>> sample_tasks(const TaskList& list, const ModeSpec& spec,
                                                      const std::vector<int>& host_of, std::size_t n) {
  std::map<std::string, std::vector<Task>> by_class;
  const std::size_t nsync = list.sync_count();
  for (std::size_t q : spread_indices(nsync, n)) by_class["clock offsets"].push_back(list[q]);
  if (spec.kind == TaskKind::per_root || spec.kind == TaskKind::all_ranks) {
    for (std::size_t q : spread_indices(list.size() - nsync, n)) by_class["collective"].push_back(list[nsync + q]);
    return by_class;
  }
  const int P = static_cast<int>(host_of.size());
  const bool exchange = spec.kind == TaskKind::exchange_pairs;
  auto host = [&](int r) { return host_of[static_cast<std::size_t>(r)]; };
  auto add = [&](int x, int y) {
    const Task t = exchange ? list.pair_task(std::min(x, y), std::max(x, y)) : list.pair_task(x, y);
    by_class[task_class(t, spec, host_of)].push_back(t);
  };
  for (std::size_t q : spread_indices(static_cast<std::size_t>(P), n)) {
    const auto x = static_cast<int>(q);
    // On one host: the next rank of x's host (an exchange with itself when x is alone there);
    // across hosts: the first rank of another host from half-way round.
    int same = exchange ? x : -1, across = -1;
    for (int d = 1; d < P; ++d)
      if (host((x + d) % P) == host(x)) {
        same = (x + d) % P;
        break;
      }
    for (int d = 0; d < P; ++d)
      if (host((x + P / 2 + d) % P) != host(x)) {
        across = (x + P / 2 + d) % P;
        break;
      }
    if (same >= 0) add(x, same);
    if (across >= 0) add(x, across);
  }
  return by_class;
}

std::vector<Task> make_tasks(const ModeSpec& spec, const Settings& s, int P, std::size_t length_index) {
  const TaskList list(spec, s, P, length_index);
  std::vector<Task> out;
  out.reserve(list.size());
  for (std::size_t u = 0; u < list.size(); ++u) out.push_back(list[u]);
  return out;
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
