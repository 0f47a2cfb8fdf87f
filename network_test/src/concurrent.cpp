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
    if (c.settings.rounds != Rounds::random) return;
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

// The hand-over between the sub-rounds of --concurrent=K (more than one sub-round per round): the
// pairs of sub-round g start when every pair of the sub-round before it (the previous one with a
// pair: only the bye's slot makes one empty) is over, as a barrier after every sub-round would
// have it, but with messages among their members alone: each member of sub-round g-1 tells the
// collector of g (the first rank of g's first pair) that it is done, and the collector tells the
// other members of g to go. About 4K one-byte messages per sub-round where a barrier of all P ranks
// took P log2 P (under SMPI each one a simulated message: 2,048 per sub-round at 256 ranks, 20x
// the hand-over's, and most of the host time of a concurrent simulation). A rank visits only its
// own sub-round of each round: O(K) work per round.
class HandOver {
 public:
  HandOver(Ctx& c, const Factorisation& f, int rounds, int subs, std::int64_t length)
      : c_(c), f_(f), subs_(subs), end_(rounds * subs), length_(length) {}

  // The members of sub-round g (= round * subs + s): both ranks of each pair of its slots.
  std::vector<int> members(int g) const {
    std::vector<int> out;
    const int q = g / subs_;
    for (int j = g % subs_; j < f_.slots(); j += subs_) {
      const auto [a, b] = f_.pair_in_slot(q, j);
      if (a >= 0 && b >= 0) out.insert(out.end(), {a, b});
    }
    return out;
  }

  // Before this rank's pair of sub-round g (whose members are `mine`): wait until the pairs of the
  // sub-round before it are over.
  void before(int g, const std::vector<int>& mine) {
    int prev = g - 1;
    std::vector<int> done_by;
    while (prev >= 0 && (done_by = members(prev)).empty()) --prev;
    if (prev < 0) return;  // the first sub-round: the caller's barrier started it
    const int collector = mine.front();
    char token = 0;
    if (c_.rank != collector) return wait_for(recv_from(collector, token));
    // Every receive posted first: SMPI moves a message when its receive is posted, so receiving
    // one after the other cost a message latency per member (+10 % simulated time at K = 16).
    std::vector<char> tokens(done_by.size());
    std::vector<MPI_Request> dones;
    for (std::size_t i = 0; i < done_by.size(); ++i)
      if (done_by[i] != c_.rank) dones.push_back(recv_from(done_by[i], tokens[i]));
    for (MPI_Request& r : dones) wait_for(r);
    // The goes all at once, then one wait (a blocking send per member would start the last
    // member's pair after the others' sends).
    token = kGo;
    std::vector<MPI_Request> reqs;
    for (int m : mine)
      if (m != c_.rank) MPI_Isend(&token, 1, MPI_CHAR, m, kTagGo, c_.comm, &reqs.emplace_back());
    c_.waitall(reqs);
  }

  // After this rank's pair of sub-round g: tell the collector of the next sub-round with a pair.
  void after(int g) {
    for (int next = g + 1; next < end_; ++next) {
      const std::vector<int> m = members(next);
      if (m.empty()) continue;
      char done = kDone;
      if (m.front() != c_.rank) c_.send(&done, 1, MPI_CHAR, m.front(), kTagGo);
      return;
    }
  }

 private:
  static constexpr char kDone = 3, kGo = 4;
  MPI_Request recv_from(int peer, char& token) {
    MPI_Request req;
    MPI_Irecv(&token, 1, MPI_CHAR, peer, kTagGo, c_.comm, &req);
    return req;
  }
  void wait_for(MPI_Request req) {
    c_.idle_wait(req, idle_deadline(c_, 2),
                 fmt::format("timeout: rank {} waited too long for the other pairs at length {}", c_.rank, length_));
  }
  Ctx& c_;
  const Factorisation& f_;
  const int subs_, end_;
  const std::int64_t length_;
};

// Rounds [0, rounds) of f, each in sub_rounds(f.slots(), limit) sub-rounds, then a barrier (the
// next repetition or phase starts when every pair is over). on_round(q): before round q.
template <class OnRound>
void run_factorisation(Ctx& c, const Factorisation& f, int rounds, int limit, std::int64_t length,
                       const OnRound& on_round) {
  const int subs = sub_rounds(f.slots(), limit);
  HandOver hand(c, f, rounds, subs, length);
  for (int q = 0; q < rounds; ++q) {
    on_round(q);
    const int other = f.partner(q, c.rank);
    if (subs == 1) {  // every pair at once: the round ends with a barrier of all ranks
      if (other >= 0) run_pair_of_round(c, std::min(c.rank, other), std::max(c.rank, other), length);
      if (q + 1 < rounds) idle_barrier(c, 2, length);
      continue;
    }
    if (other < 0) continue;  // the bye of an odd P
    const int g = q * subs + f.slot(q, c.rank) % subs;
    hand.before(g, hand.members(g));
    run_pair_of_round(c, std::min(c.rank, other), std::max(c.rank, other), length);
    hand.after(g);
  }
  idle_barrier(c, 2, length);
}

Factorisation factorisation(const Ctx& c, std::size_t k, int repetition) {
  return Factorisation(c.size, c.settings.seed.value_or(0), k, repetition, c.settings.rounds == Rounds::random,
                       c.settings.shuffle);
}
}  // namespace

int concurrent_repetitions(const Settings& s) {
  return s.rounds == Rounds::random ? std::min(s.repeats, kMaxRepetitions) : 1;
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
