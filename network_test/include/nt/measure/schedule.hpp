// Tasks and schedules (pure functions, identical on every rank): which ranks take part in each
// step of a length, in which order, and the noise-rank draws.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "nt/measure/settings.hpp"

namespace nt::measure {

class ModeSpec;

enum class TaskKind {
  ordered_pairs,    // every (x, y), x != y, one after the other
  exchange_pairs,   // every {x, y} x < y once (both directions measured at once), plus (i, i)
  per_root,         // one task per root with every rank (bcast)
  all_ranks,        // one task with every rank (all_to_all)
};

struct Task {
  int x = -1, y = -1;           // sender / receiver (root for per_root), -1 when not used
  int leader = 0;               // the rank that knows when the task is over and signals the next
  std::vector<int> members;     // ranks taking part (leader included), ascending
  std::vector<int> noise;       // noise ranks (noise modes)
  bool sync = false;            // a clock-offset task (leader 0 with rank y) of the common-start modes
  bool has(int r) const;
};

std::uint64_t splitmix64(std::uint64_t& state);
std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b = 0, std::uint64_t c = 0);
// Fisher-Yates with splitmix64 from `state` (uniform, no modulo bias).
void shuffle_ints(std::vector<int>& v, std::uint64_t state);
// Deterministic choice of `count` distinct ranks out of [0, P) excluding `exclude`.
std::vector<int> draw_noise(std::uint64_t seed, int P, const std::vector<int>& exclude, int count,
                            std::uint64_t salt);
// Round-robin tournament (circle method): P-1 rounds (P even) or P rounds (P odd) of disjoint
// pairs {a, b} with a < b; every unordered pair appears exactly once.
std::vector<std::vector<std::pair<int, int>>> round_robin(int P);
// Round r of round_robin(P), computed alone (O(P)); partner_in_round gives one rank's partner
// in O(1) (-1 when it sits the round out, P odd). rounds_of(P) = round_robin(P).size().
int rounds_of(int P);
std::vector<std::pair<int, int>> round_of(int P, int r);
int partner_in_round(int P, int r, int rank);

// One 1-factorisation of the ranks for the concurrent schedule (--concurrent): rounds of disjoint
// pairs in which every unordered pair meets exactly once, with O(P) memory per rank (a
// permutation, its inverse and the order of the rounds; never the P^2/2 pairs).
// random: the circle method applied to a seeded random permutation of the ranks, the rounds in a
// random order; the seed is mix_seed(seed, length index, repetition), so every repetition of a
// length (one per sample) pairs the ranks anew: partner of r in round k = perm^-1(circle(perm(r), k)).
// fixed: the plain circle method of earlier versions, its rounds in a random order with shuffle.
class Factorisation {
 public:
  Factorisation(int P, std::uint64_t seed, std::size_t length_index, int repetition, bool random, bool shuffle);
  int rounds() const noexcept { return static_cast<int>(order_.size()); }
  // The partner of `rank` in round `step` (0 .. rounds()-1), -1 when it sits the round out.
  int partner(int step, int rank) const;
  std::size_t bytes() const noexcept { return (perm_.capacity() + inv_.capacity() + order_.capacity()) * sizeof(int); }

 private:
  int label(int rank) const { return perm_.empty() ? rank : perm_[static_cast<std::size_t>(rank)]; }
  int P_ = 0, n_ = 0;
  std::vector<int> perm_, inv_, order_;  // rank -> circle label, label -> rank (empty: identity)
};

// The steps of lanes that run at once in the rounds of a 1-factorisation of `groups` groups (the
// lanes by switch of --host-pairs and --sample-pairs): per round the fullest lane's pairs(X, Y)
// (X < Y, partners in that round), then the fullest group's own pairs(X, X), every group at once.
// bench/network_test's plan counts them at 100,000 hosts.
std::size_t lane_steps(const Factorisation& rounds, int groups, const std::function<std::size_t(int, int)>& pairs);
// The time of the same lanes when lane {X, Y} takes seconds(X, Y) (X == Y: group X's own pairs):
// per round its slowest lane, then the slowest group. A round lasts as long as its slowest lane,
// which is not its fullest when the lanes' host pairs differ in speed (a slow uplink's lanes).
// --estimate prices the lanes by it.
double lane_seconds(const Factorisation& rounds, int groups, const std::function<double(int, int)>& seconds);


// The tasks of one length, in execution order (steps of one task each), computed on demand: task
// u is a function of (settings, seed, P, length, u), so no rank stores the P(P-1) tasks of a
// length (about 100 bytes each: 10 GB at 10,000 ranks). A mode with noise ranks draws
// spec.noise_ranks() of them per task. Order: the clock syncs of the common-start modes, then the
// work in sender-major order or, with --shuffle, shuffled from the seed: a Fisher-Yates shuffle
// (the order of earlier versions) when the work has at most kStoredShuffle tasks (4 bytes each:
// 256 KB at most, up to 256 ranks), a keyed bijection of the indices above that (O(1) memory).
// The limit was 2^21 (8 MB per rank up to 1,448 ranks, and each rank scanned the whole
// permutation for its own steps: 4.3 MB per rank and 1.6x the host time of a 1,024-rank
// simulation); --shuffle runs of 257-1,448 ranks now take another order than before.
class TaskList {
 public:
  static constexpr std::size_t kStoredShuffle = std::size_t{1} << 16;
  TaskList(const ModeSpec& spec, const Settings& s, int P, std::size_t length_index);
  std::size_t size() const noexcept { return nsync_ + nwork_; }
  Task operator[](std::size_t u) const;
  std::size_t bytes() const noexcept { return sizeof *this + perm_.capacity() * sizeof(std::uint32_t); }
  // The positions of the tasks `rank` takes part in, ascending, from the closed form of the order:
  // O(P log P) (a stored shuffle is read once); nothing when only computing every task can tell
  // (noise ranks are drawn per task).
  std::optional<std::vector<std::size_t>> positions_of(int rank) const;
  // The work task of pair (x, y) (an ordered pair, or {x, y} with x <= y of exchange pairs), wherever
  // the order puts it; the clock syncs come first (sync_count of them, positions 0..).
  Task pair_task(int x, int y) const;
  std::size_t sync_count() const noexcept { return nsync_; }

 private:
  Task work(std::size_t i) const;  // the i-th task of the unshuffled work list
  std::size_t permuted(std::size_t w) const;
  std::size_t unpermuted(std::size_t i) const;  // the position of work item i (keyed bijection)
  const ModeSpec* spec_;
  int P_ = 0, noise_procs_ = 0;
  std::uint64_t seed_ = 0;
  std::size_t length_index_ = 0, nsync_ = 0, nwork_ = 0;
  bool shuffle_ = false;
  std::vector<std::uint32_t> perm_;  // stored Fisher-Yates order (small lists)
  std::uint64_t key_ = 0;            // keyed bijection (large lists)
  int half_bits_ = 0;
};

// n indices spread evenly over [0, total) (all of them when there are at most n), first included.
std::vector<std::size_t> spread_indices(std::size_t total, std::size_t n);
// Where a task's ranks are, for --estimate's calibration: "clock offsets", "collective", "pairs on
// one host" or "pairs across hosts" (host_of: every rank's host, numbered).
inline constexpr const char* kOnOneHost = "pairs on one host";
inline constexpr const char* kAcrossHosts = "pairs across hosts";
std::string task_class(const Task& t, const ModeSpec& spec, const std::vector<int>& host_of);
// How many tasks of each class a length has, and up to n of each spread over the senders (the
// clock offsets and collectives over the list), from the list without building it: O(P) per
// rank, where the list is P(P-1) tasks of ~100 bytes (1.7 GB per rank at 4,096 ranks).
std::map<std::string, std::size_t> class_counts(const TaskList& list, const ModeSpec& spec,
                                                const std::vector<int>& host_of);
std::map<std::string, std::vector<Task>> sample_tasks(const TaskList& list, const ModeSpec& spec,
                                                      const std::vector<int>& host_of, std::size_t n);

// The units the schedules pair: hosts (numbered 0 .. H-1 as Ctx::hosts; their ranks in rank order)
// when some host runs several ranks, else the ranks. O(P). host_of: every rank's host. Used by the
// lanes of --concurrent=K (lanes.cpp) and the host pairs of --retest-hosts.
class Units {
 public:
  explicit Units(const std::vector<int>& host_of);
  bool by_host() const { return by_host_; }
  int size() const { return static_cast<int>(first_.size()) - 1; }
  int of(int rank) const { return unit_[static_cast<std::size_t>(rank)]; }
  const int* begin(int u) const { return ranks_.data() + first_[static_cast<std::size_t>(u)]; }
  const int* end(int u) const { return ranks_.data() + first_[static_cast<std::size_t>(u) + 1]; }
  int count(int u) const { return first_[static_cast<std::size_t>(u) + 1] - first_[static_cast<std::size_t>(u)]; }
  int most_ranks() const;
  std::size_t bytes() const { return (first_.capacity() + ranks_.capacity() + unit_.capacity()) * sizeof(int); }

 private:
  bool by_host_ = false;
  std::vector<int> first_, ranks_, unit_;
};

// --retest-hosts: the tasks of the host pairs of length k, one after the other, computed on demand
// (O(P) per rank, never the H^2 tasks): ordered host pairs (A, B) in A-major order (unordered
// A < B for exchange modes), each measured by rank (B + k) mod n_A of host A and rank
// (A + k) mod n_B of host B (its ranks in rank order), so that every rank of a host takes its
// share and each length picks others (host_pairs.cpp).
class HostPairList {
 public:
  HostPairList(const ModeSpec& spec, const Settings& s, const std::vector<int>& host_of, std::size_t length_index);
  std::size_t size() const noexcept { return n_; }
  Task operator[](std::size_t u) const;
  // The positions of the tasks `rank` takes part in, ascending: O(H log H).
  std::optional<std::vector<std::size_t>> positions_of(int rank) const;
  // Host's rank that measures its pair with `other` (hosts as Units numbers them).
  int rank_of(int host, int other) const;

 private:
  std::size_t index_of(int a, int b) const;  // a != b (a < b for exchange modes)
  Units units_;
  TaskList list_;  // the pairs' own tasks (pair_task)
  int H_;
  bool exchange_;
  std::size_t k_, n_ = 0;
};

// --sample-pairs: the tasks of the sampled host pairs of length k (nt::sampled_host_pairs of the
// schedule's Sampling, the hosts as Units numbers them), one after the other: per pair {A, B}
// (A < B) the task A -> B then B -> A (one exchange in exchange modes), each measured by the ranks
// HostPairList picks at that length. O(H (K + L + N)) per rank (sampled.cpp).
class SampledPairList {
 public:
  SampledPairList(const ModeSpec& spec, const Settings& s, const std::vector<int>& host_of, std::size_t length_index);
  std::size_t size() const noexcept { return exchange_ ? pairs_.size() : 2 * pairs_.size(); }
  Task operator[](std::size_t u) const;
  std::optional<std::vector<std::size_t>> positions_of(int rank) const;
  int rank_of(int host, int other) const;
  std::size_t host_pairs() const noexcept { return pairs_.size(); }
  std::size_t bytes() const noexcept;
  // The ranks of rank's host and of every host sampled with it, ascending: the cells of rank's line
  // that hold values once each sampled host pair's cells have its measured pair's (fill_by_host_pair).
  std::vector<int> line_of(int rank) const;
  // The hosts sampled with host h, ascending, each given to f until it returns false; returns
  // whether every one was (the lanes by switch walk a host's partners, not every host).
  template <class F>
  bool each_partner(int h, const F& f) const {
    for (std::size_t j = first_[static_cast<std::size_t>(h)]; j < first_[static_cast<std::size_t>(h) + 1]; ++j) {
      const auto& [a, b] = pairs_[by_host_[j]];
      if (!f(a == h ? b : a)) return false;
    }
    return true;
  }

 private:
  Units units_;
  TaskList list_;
  bool exchange_;
  std::size_t k_;
  std::vector<std::pair<int, int>> pairs_;    // the sampled host pairs, ascending
  std::vector<std::size_t> first_;            // per host, where its pairs start in by_host_
  std::vector<std::uint32_t> by_host_;        // per host, the indices of its pairs in pairs_
};

// Every task of one length as a list (tests): TaskList in a vector.
std::vector<Task> make_tasks(const ModeSpec& spec, const Settings& s, int P, std::size_t length_index);

}  // namespace nt::measure
