// get: MPI_Get by origin y from target x, completed at the origin.
#include "common.hpp"

namespace nt::measure {
namespace {
void run(Ctx& c, const Task& t) {
  const int len = c.count_of(c.length);
  char token = 0;
  if (c.rank == t.y) {  // origin
    c.recv(&token, 1, MPI_CHAR, t.x, kTagReady);
    double* col = c.sample_row(t.x);
    MPI_Win_lock(MPI_LOCK_SHARED, t.x, 0, c.win);
    for (int it = 0; it < c.W + c.R; ++it) {
      const double t0 = Ctx::now();
      MPI_Get(c.rbuf.data(), len, MPI_CHAR, t.x, 0, len, MPI_CHAR, c.win);
      MPI_Win_flush(t.x, c.win);
      const double d = Ctx::now() - t0;
      if (it >= c.W) {
        col[it - c.W] = d;
        c.timed_seconds += d;
      }
    }
    MPI_Win_unlock(t.x, c.win);
    c.send(&token, 1, MPI_CHAR, t.x, kTagDone);
  } else if (c.rank == t.x) {  // target
    MPI_Request req;
    MPI_Irecv(&token, 1, MPI_CHAR, t.y, kTagDone, c.comm, &req);
    c.send(&token, 1, MPI_CHAR, t.y, kTagReady);
    c.wait(req);
  }
}
}  // namespace

void register_get(Registry& r) {
  ModeSpec m;
  m.mode = Mode::get;
  m.name = "get";
  m.description = "MPI_Get by origin y from target x + MPI_Win_flush (data arrived at y), passive target";
  m.kind = TaskKind::ordered_pairs;
  m.results_in_rows = false;
  m.needs_window = true;
  m.concurrent_ok = true;
  m.sync_method = "none needed: origin clock; one window of the largest length, MPI_Win_lock(shared) per pair, "
                  "each sample MPI_Get + MPI_Win_flush";
  m.run = run;
  r.add(std::move(m));
}

}  // namespace nt::measure
