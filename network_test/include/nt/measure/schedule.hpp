// Tasks and schedules (pure functions, identical on every rank): which ranks take part in each
// step of a length, in which order, and the noise-rank draws.
#pragma once

#include <cstdint>
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
// Deterministic choice of `count` distinct ranks out of [0, P) excluding `exclude`.
std::vector<int> draw_noise(std::uint64_t seed, int P, const std::vector<int>& exclude, int count,
                            std::uint64_t salt);
// Round-robin tournament (circle method): P-1 rounds (P even) or P rounds (P odd) of disjoint
// pairs {a, b} with a < b; every unordered pair appears exactly once.
std::vector<std::vector<std::pair<int, int>>> round_robin(int P);
// Tasks of one length, in execution order (steps of one task each). A mode with noise ranks
// draws spec.noise_ranks() of them per task.
std::vector<Task> make_tasks(const ModeSpec& spec, const Settings& s, int P, std::size_t length_index);

}  // namespace nt::measure
