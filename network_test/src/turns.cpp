// Turn-taking: the tasks of one length run one after another without spinning.
//
// Every rank knows the task list of a length (it is computed from the settings and the seed
// alone). The leader of task u-1 (the rank that knows when it is over) sends a "go" message to
// the members of task u; a rank waits for its go with MPI_Irecv + MPI_Test + nanosleep back-off,
// so ranks without work sleep instead of spinning in MPICH's progress engine. Rank 0 opens every
// length after it has written the previous one. Sleeping barriers (idle_barrier) end the rounds
// of the concurrent schedule and the writing of a length.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "runner.hpp"

namespace nt::measure {

double idle_deadline(const Ctx& c, double tasks_ahead) {
  if (c.settings.timeout <= 0) return 0;
  return Ctx::now() + c.settings.timeout * std::max(1.0, tasks_ahead) + 30.0;
}

namespace {
#ifdef NT_SMPI
constexpr bool kSimulatedClock = true;
#else
constexpr bool kSimulatedClock = false;
#endif
// Waits for a "go" that is due soon (this rank was told it is next): no sleeping back-off, whose
// pauses of up to --idle-sleep-max would be paid at every hand-over. Under SMPI a blocking wait
// is exact and costs no host time.
void ready_wait(MPI_Request& req, double deadline, const std::string& why) {
  if constexpr (kSimulatedClock) {
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    return;
  }
  int flag = 0;
  for (unsigned i = 0;; ++i) {
    MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
    if (flag) return;
    if ((i & 1023) == 1023 && deadline > 0 && Ctx::now() > deadline) throw TimeoutError(why);
  }
}

// The positions of the tasks `rank` takes part in, ascending (every task computed only when the
// list cannot tell).
template <class List>
std::vector<std::size_t> member_positions(const List& tasks, int rank) {
  if constexpr (requires { tasks.positions_of(rank); })
    if (auto pos = tasks.positions_of(rank)) return std::move(*pos);
  std::vector<std::size_t> pos;
  for (std::size_t u = 0; u < tasks.size(); ++u)
    if (tasks[u].has(rank)) pos.push_back(u);
  return pos;
}

// Hand-over: the leader of task u-1 sends "go" to the members of task u when u-1 is over. The
// same rank, when it sends the go of u-1, also tells the members of task u that are not in u-1
// that they are next ("ready"): they stop sleeping and poll for their go, so the hand-over costs
// a message latency instead of a sleep of up to --idle-sleep-max. Both sides derive who sends
// what from the task list alone, so the messages from one rank arrive in the order expected.
//
// A rank acts at step u only when it takes part in task u or led task u-1 (rank 0 also sends the
// go of task 0); it visits those steps alone, O(P) of the P(P-1) (computing every task on every
// rank was O(P^2) per rank and length: O(P^3) host time in a simulation, a third of the host
// time at 1,024 simulated ranks).
template <class List>
class Turns {
 public:
  Turns(Ctx& c, const List& tasks, std::int64_t length)
      : c_(c), tasks_(tasks), length_(length), n_(tasks.size()), mine_(member_positions(tasks, c.rank)), at_(n_),
        led_(c.rank == 0 && n_ > 0 ? 0 : n_) {}

  // Runs this rank's steps; returns the bytes of its own list of steps.
  std::size_t run(const StepHook& on_step) {
    std::size_t u = 0;
    while (next_step(u)) {
      if (on_step) on_step(static_cast<double>(u) / static_cast<double>(n_));
      load(u);
      const int prev_leader = u == 0 ? 0 : prev_.leader;
      if (c_.rank == prev_leader) send_go_and_ready(u);
      if (!cur_.has(c_.rank)) continue;
      if (c_.rank != prev_leader) wait_for_go(u, prev_leader);
      run_task(c_, cur_, length_);
      last_ = static_cast<long>(u);
      if (cur_.leader == c_.rank && u + 1 < n_) led_ = u + 1;  // it sends the go of task u+1
    }
    return mine_.capacity() * sizeof mine_[0];
  }

 private:
  // The next step this rank acts at: one where it sends a go only, or one of its own tasks.
  bool next_step(std::size_t& u) {
    if (led_ < n_ && (q_ >= mine_.size() || led_ <= mine_[q_])) {
      u = led_;
      if (q_ < mine_.size() && mine_[q_] == u) ++q_;
    } else if (q_ < mine_.size()) {
      u = mine_[q_++];
    } else {
      return false;
    }
    led_ = n_;
    return true;
  }

  // Tasks u-1, u and u+1 of step u, and the leader of u-2 (it sent the go of u-1 and the ready
  // of u); moved along when the steps are consecutive.
  void load(std::size_t u) {
    if (at_ < n_ && u == at_ + 1) {
      prev_prev_leader_ = at_ >= 1 ? prev_.leader : 0;
      prev_ = std::move(cur_);
      cur_ = std::move(next_);
    } else {
      prev_prev_leader_ = u >= 2 ? tasks_[u - 2].leader : 0;
      prev_ = u >= 1 ? tasks_[u - 1] : Task{};
      cur_ = tasks_[u];
    }
    next_ = u + 1 < n_ ? tasks_[u + 1] : Task{};
    at_ = u;
  }

  // The go of task u to its members, and the ready of task u+1 to its members not in task u.
  void send_go_and_ready(std::size_t u) {
    char go = 1;
    for (int m : cur_.members)
      if (m != c_.rank) c_.send(&go, 1, MPI_CHAR, m, kTagGo);
    if (u + 1 < n_) {
      char ready = 2;
      for (int m : next_.members)
        if (m != c_.rank && !cur_.has(m)) c_.send(&ready, 1, MPI_CHAR, m, kTagGo);
    }
  }

  // A member of task u that did not send its go waits for it (and first for its ready when it
  // was told it is next).
  void wait_for_go(std::size_t u, int prev_leader) {
    const std::string why =
        u == 0 ? fmt::format("timeout: rank {} got no start signal for length {} from rank 0", c_.rank, length_)
               : fmt::format("timeout: rank {} waited for its turn too long: {} at length {} did not finish", c_.rank,
                             c_.spec.describe(prev_), length_);
    const double deadline = idle_deadline(c_, static_cast<double>(static_cast<long>(u) - last_));
    // Told it is next (a ready from the sender of the go of task u-1)?
    const bool told = u >= 1 && !prev_.has(c_.rank) && c_.rank != prev_prev_leader_;
    if (told) {
      char ready = 0;
      MPI_Request req;
      MPI_Irecv(&ready, 1, MPI_CHAR, prev_prev_leader_, kTagGo, c_.comm, &req);
#ifdef NT_SMPI
      MPI_Wait(&req, MPI_STATUS_IGNORE);  // each MPI_Test of a poll costs simulated time
#else
      c_.idle_wait(req, deadline, why);
#endif
    }
    char go = 0;
    MPI_Request req;
    MPI_Irecv(&go, 1, MPI_CHAR, prev_leader, kTagGo, c_.comm, &req);
    // Told, or in task u-1, or the sender of the readies: the go is near. On an oversubscribed
    // host polling would take the core from the measuring pair: sleep as before there.
    if ((u >= 1 && !c_.yield) || kSimulatedClock)
      ready_wait(req, deadline, why);
    else  // the first task waits for rank 0 to write the previous length
      c_.idle_wait(req, deadline, why);
  }

  Ctx& c_;
  const List& tasks_;
  const std::int64_t length_;
  const std::size_t n_;
  const std::vector<std::size_t> mine_;  // the steps of this rank's tasks, ascending
  std::size_t q_ = 0;                    // the next of them
  std::size_t at_;                       // the step loaded (n_: none)
  std::size_t led_;                      // a step where this rank sends a go only (n_: none)
  long last_ = -1;                       // the step of this rank's last task
  Task prev_, cur_, next_;
  int prev_prev_leader_ = 0;
};

}  // namespace

std::size_t run_sequential(Ctx& c, const std::vector<Task>& tasks, std::int64_t length, const StepHook& on_step) {
  return Turns(c, tasks, length).run(on_step);
}
std::size_t run_sequential(Ctx& c, const TaskList& tasks, std::int64_t length, const StepHook& on_step) {
  return Turns(c, tasks, length).run(on_step);
}
std::size_t run_sequential(Ctx& c, const HostPairList& tasks, std::int64_t length, const StepHook& on_step) {
  return Turns(c, tasks, length).run(on_step);
}
std::size_t run_sequential(Ctx& c, const SampledPairList& tasks, std::int64_t length, const StepHook& on_step) {
  return Turns(c, tasks, length).run(on_step);
}

void idle_barrier(Ctx& c, MPI_Comm comm, double deadline, const std::string& why) {
#ifdef NT_SMPI
  // SMPI 3.32: an MPI_Ibarrier on a node's communicator between two on the world's deadlocked the
  // simulation (every rank in a wait, found by SimGrid) whenever several ranks shared a simulated
  // host; a blocking barrier is what the blocking wait below amounts to there anyway.
  (void)c;
  (void)deadline;
  (void)why;
  MPI_Barrier(comm);
#else
  MPI_Request req;
  MPI_Ibarrier(comm, &req);
  c.idle_wait(req, deadline, why);
#endif
}

void idle_barrier(Ctx& c, double tasks_ahead, std::int64_t length) {
  idle_barrier(c, c.comm, idle_deadline(c, tasks_ahead),
               fmt::format("timeout: rank {} waited too long for the other pairs at length {}", c.rank, length));
}


}  // namespace nt::measure
