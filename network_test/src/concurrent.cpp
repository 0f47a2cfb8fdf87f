// The concurrent schedule (--concurrent): rounds of disjoint pairs measured at once.
//
// With --rounds random (the default) every sample of a length is one repetition of its own
// 1-factorisation (schedule.hpp, Factorisation): a pair meets other partners' traffic in every
// sample, so the statistics over samples average the contention of a round out instead of
// repeating it. --concurrent=K splits each round into sub-rounds of at most K pairs.
#include <algorithm>

#include <fmt/format.h>

#include "internal.hpp"

namespace nt::measure {

namespace {
Task pair_task(const Ctx& c, int x, int y) {
  Task t;
  t.x = x;
  t.y = y;
  t.leader = c.spec.results_in_rows ? x : y;
  t.members = {std::min(x, y), std::max(x, y)};
  return t;
}

// This rank's part of one round: its pair {a, b} (a < b), both directions or one exchange.
void run_pair_of_round(Ctx& c, int a, int b, std::int64_t length) {
  if (c.spec.kind == TaskKind::ordered_pairs) {
    run_task(c, pair_task(c, a, b), length);
    run_task(c, pair_task(c, b, a), length);
  } else {
    Task t = pair_task(c, a, b);
    t.leader = a;
    run_task(c, t, length);
  }
}

void run_self_exchange(Ctx& c, std::int64_t length) {
  if (c.spec.kind != TaskKind::exchange_pairs) return;
  Task t = pair_task(c, c.rank, c.rank);
  t.members = {c.rank};
  t.leader = c.rank;
  run_task(c, t, length);
}

// Sample counts of a repetition: with random rounds samples [i R / n, (i + 1) R / n) of the n
// repetitions (at their position in the store), the warm-up in full before the first and one
// unrecorded round before each later one (the path is warm, the partner new); fixed rounds
// measure every sample in their one repetition. Restores the run's counts when it goes out of scope.
class RepetitionSamples {
 public:
  RepetitionSamples(Ctx& c, int repetition) : c_(c), R_(c.R), W_(c.W), base_(c.store.base) {
    if (c.settings.rounds != "random") return;
    const long n = concurrent_repetitions(c.settings), i = repetition;
    const auto first = static_cast<int>(i * R_ / n), end = static_cast<int>((i + 1) * R_ / n);
    c.R = end - first;
    c.store.base = first;
    c.W = repetition == 0 ? W_ : std::min(W_, 1);
  }
  ~RepetitionSamples() {
    c_.R = R_;
    c_.W = W_;
    c_.store.base = base_;
  }
  RepetitionSamples(const RepetitionSamples&) = delete;
  RepetitionSamples& operator=(const RepetitionSamples&) = delete;

 private:
  Ctx& c_;
  const int R_, W_, base_;
};

// Rounds [0, rounds) of f, each in sub_rounds(f.slots(), limit) sub-rounds. on_round(q): before round q.
template <class OnRound>
void run_factorisation(Ctx& c, const Factorisation& f, int rounds, int limit, std::int64_t length,
                       const OnRound& on_round) {
  const int subs = sub_rounds(f.slots(), limit);
  for (int q = 0; q < rounds; ++q) {
    on_round(q);
    const int other = f.partner(q, c.rank);
    const int mine = other >= 0 ? f.slot(q, c.rank) % subs : -1;
    for (int sub = 0; sub < subs; ++sub) {
      if (sub == mine) run_pair_of_round(c, std::min(c.rank, other), std::max(c.rank, other), length);
      idle_barrier(c, 2, length);
    }
  }
}

Factorisation factorisation(const Ctx& c, std::size_t k, int repetition) {
  return Factorisation(c.size, c.settings.seed.value_or(0), k, repetition, c.settings.rounds == "random",
                       c.settings.shuffle);
}
}  // namespace

int concurrent_repetitions(const Settings& s) {
  return s.rounds == "random" ? std::min(s.repeats, kMaxRepetitions) : 1;
}

void run_concurrent_rounds(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit) {
  const Factorisation f = factorisation(c, k, repetition);
  const RepetitionSamples samples(c, repetition);
  run_factorisation(c, f, std::min(rounds, f.rounds()), limit, length, [](int) {});
}

std::size_t run_concurrent(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step) {
  const int reps = concurrent_repetitions(c.settings);
  std::size_t bytes = 0;
  idle_barrier(c, 1, length);  // the previous length is written
  for (int rep = 0; rep < reps; ++rep) {
    const Factorisation f = factorisation(c, k, rep);
    bytes = std::max(bytes, f.bytes());
    const RepetitionSamples samples(c, rep);
    const double all = static_cast<double>(reps) * f.rounds();
    run_factorisation(c, f, f.rounds(), c.settings.concurrent_limit, length, [&](int q) {
      if (on_step) on_step((static_cast<double>(rep) * f.rounds() + q) / all);
    });
  }
  run_self_exchange(c, length);
  return bytes;
}

}  // namespace nt::measure
