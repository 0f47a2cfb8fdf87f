// One task on a member rank: the clock-offset task of rank 0 and a peer, or the mode's
// measurement (in --precision's batches), with the measured pair pinned to two cores on an
// oversubscribed machine. The order of the tasks is turns.cpp's.
#include <sched.h>

#include <string>

#include "runner.hpp"

namespace nt::measure {

namespace {

void run_sync_task(Ctx& c, const Task& t) {
  if (c.rank == 0) {
    const auto [off, rtt] = c.estimate_offset(t.y, true);
    runner(c).offset_to_root[static_cast<std::size_t>(t.y)] = off;
    runner(c).rtt_to_root[static_cast<std::size_t>(t.y)] = rtt;
  } else if (c.rank == t.y) {
    c.estimate_offset(0, false);
  }
}

}  // namespace

void run_task(Ctx& c, const Task& t, std::int64_t length) {
  debug_stall(c, length);
  c.begin_task(c.spec.describe(t) + " at length " + std::to_string(length), c.settings.timeout);
  // Oversubscribed machine: put the two measured ranks on different cores for the task, so that
  // they never take turns on one core while the other is busy elsewhere.
  cpu_set_t saved;
  bool pinned = false;
  if (c.yield && !t.sync && t.x >= 0 && t.y >= 0 && t.x != t.y && (c.rank == t.x || c.rank == t.y) &&
      c.machines[static_cast<std::size_t>(t.x)] == c.machines[static_cast<std::size_t>(t.y)] &&
      sched_getaffinity(0, sizeof saved, &saved) == 0 && CPU_COUNT(&saved) >= 2) {
    int want = c.rank == t.x ? 0 : 1, seen = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &saved) && seen++ == want) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pinned = sched_setaffinity(0, sizeof one, &one) == 0;
        break;
      }
  }
  RunnerState& state = runner(c);
  Batch b = state.samples;
  b.length = length;
  if (t.sync)
    run_sync_task(c, t);
  else if (c.settings.precision > 0 && !state.calibrating)
    run_adaptive(c, t, b, [&](const Batch& part) { state.mode->run(c, t, part); });
  else
    state.mode->run(c, t, b);
  if (pinned) sched_setaffinity(0, sizeof saved, &saved);
  c.begin_task({}, 0);
}

}  // namespace nt::measure
