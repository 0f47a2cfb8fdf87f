// put: MPI_Put from origin x into target y, completed at the target.
#include "common.hpp"

namespace nt::measure {
namespace {
void run(Ctx& c, const Task& t) {
  const int len = c.count_of(c.length);
  char token = 0;
  if (c.rank == t.x) {
    c.recv(&token, 1, MPI_CHAR, t.y, kTagReady);
    double* row = c.sample_row(t.y);
    MPI_Win_lock(MPI_LOCK_SHARED, t.y, 0, c.win);
    for (int it = 0; it < c.W + c.R; ++it) {
      const double t0 = Ctx::now();
      MPI_Put(c.sbuf.data(), len, MPI_CHAR, t.y, 0, len, MPI_CHAR, c.win);
      MPI_Win_flush(t.y, c.win);
      const double d = Ctx::now() - t0;
      if (it >= c.W) {
        row[it - c.W] = d;
        c.timed_seconds += d;
      }
    }
    MPI_Win_unlock(t.y, c.win);
    c.send(&token, 1, MPI_CHAR, t.y, kTagDone);
  } else if (c.rank == t.y) {
    // The target keeps polling (MPI_Test drives MPICH's progress engine for RMA emulated by
    // active messages) until the origin is done.
    MPI_Request req;
    MPI_Irecv(&token, 1, MPI_CHAR, t.x, kTagDone, c.comm, &req);
    c.send(&token, 1, MPI_CHAR, t.x, kTagReady);
    c.wait(req);
  }
}
}  // namespace

void register_put(Registry& r) {
  ModeSpec m;
  m.mode = Mode::put;
  m.name = "put";
  m.description = "MPI_Put from origin x into target y + MPI_Win_flush (complete at the target), passive target";
  m.kind = TaskKind::ordered_pairs;
  m.results_in_rows = true;
  m.needs_window = true;
  m.concurrent_ok = true;
  m.sync_method = "none needed: origin clock; one window of the largest length, MPI_Win_lock(shared) per pair, "
                  "each sample MPI_Put + MPI_Win_flush (completes at origin and target)";
  m.run = run;
  r.add(std::move(m));
}

}  // namespace nt::measure
