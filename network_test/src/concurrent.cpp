// The concurrent schedule (--concurrent): rounds of disjoint pairs measured at once.
//
// With --rounds random (the default) every sample of a length is one repetition of its own
// 1-factorisation (schedule.hpp, Factorisation): a pair meets other partners' traffic in every
// sample, so the statistics over samples average the contention of a round out instead of
// repeating it. Plain --concurrent runs every pair of a round at once (a loaded network, on
// purpose); --concurrent=K runs K lanes of pairs, one host in one lane at a time (lanes.cpp).
#include <algorithm>

#include <fmt/format.h>

#include "schedules.hpp"

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

// Sample counts of a repetition (the runner's samples while it is in scope): with random rounds
// samples [i R / n, (i + 1) R / n) of the n repetitions (at their position in the store), the
// warm-up in full before the first and one unrecorded round before each later one (the path is
// warm, the partner new); fixed rounds measure every sample in their one repetition. Restores the
// run's counts when it goes out of scope.
class RepetitionSamples {
 public:
  RepetitionSamples(Ctx& c, int repetition) : samples_(runner(c).samples), run_(samples_) {
    if (c.settings.schedule.rounds != Rounds::random) return;
    const long n = concurrent_repetitions(c.settings), i = repetition;
    const auto first = static_cast<int>(i * run_.R / n), end = static_cast<int>((i + 1) * run_.R / n);
    samples_.R = end - first;
    samples_.base = first;
    samples_.W = repetition == 0 ? run_.W : std::min(run_.W, 1);
  }
  ~RepetitionSamples() { samples_ = run_; }
  RepetitionSamples(const RepetitionSamples&) = delete;
  RepetitionSamples& operator=(const RepetitionSamples&) = delete;

 private:
  Batch& samples_;
  const Batch run_;
};

// Rounds [0, rounds) of f, every pair of a round at once, a barrier after each (the next round,
// repetition or phase starts when every pair is over). on_round(q): before round q.
template <class OnRound>
void run_factorisation(Ctx& c, const Factorisation& f, int rounds, std::int64_t length, const OnRound& on_round) {
  for (int q = 0; q < rounds; ++q) {
    on_round(q);
    const int other = f.partner(q, c.rank);
    if (other >= 0) run_pair_of_round(c, std::min(c.rank, other), std::max(c.rank, other), length);
    idle_barrier(c, 2, length);
  }
}

Factorisation factorisation(const Ctx& c, std::size_t k, int repetition) {
  const Schedule& s = c.settings.schedule;
  return Factorisation(c.size, c.settings.seed.value_or(0), k, repetition, s.rounds == Rounds::random, s.shuffle);
}
}  // namespace

void run_self_exchange(Ctx& c, std::int64_t length) {
  if (c.spec.kind != TaskKind::exchange_pairs) return;
  Task t = pair_task(c, c.rank, c.rank);
  t.members = {c.rank};
  t.leader = c.rank;
  run_task(c, t, length);
}

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

int concurrent_repetitions(const Settings& s) {
  return s.schedule.rounds == Rounds::random ? std::min(s.repeats, kMaxRepetitions) : 1;
}

int concurrent_rounds(const Ctx& c, int limit) { return limit > 0 ? lane_rounds(c, limit) : rounds_of(c.size); }

double concurrent_round_share(const Ctx& c, int limit, int rounds) {
  return limit > 0 ? lane_calibration_share(c, limit, rounds) : std::min(rounds, rounds_of(c.size));
}

void run_concurrent_rounds(Ctx& c, std::size_t k, std::int64_t length, int repetition, int rounds, int limit) {
  const RepetitionSamples samples(c, repetition);
  if (limit > 0) return run_lane_calibration(c, k, length, repetition, rounds, limit);
  const Factorisation f = factorisation(c, k, repetition);
  run_factorisation(c, f, std::min(rounds, f.rounds()), length, [](int) {});
}

std::size_t run_concurrent(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step) {
  const int reps = concurrent_repetitions(c.settings);
  std::size_t bytes = 0;
  idle_barrier(c, 1, length);  // the previous length is written
  for (int rep = 0; rep < reps; ++rep) {
    const RepetitionSamples samples(c, rep);
    const auto progress = [&](double within) {
      if (on_step) on_step((rep + within) / reps);
    };
    if (c.settings.schedule.in_lanes()) {
      bytes = std::max(bytes, run_lanes(c, k, length, rep, progress));
      continue;
    }
    const Factorisation f = factorisation(c, k, rep);
    bytes = std::max(bytes, f.bytes());
    run_factorisation(c, f, f.rounds(), length, [&](int q) { progress(static_cast<double>(q) / f.rounds()); });
  }
  run_self_exchange(c, length);
  return bytes;
}

}  // namespace nt::measure
