// send_recv_and_recv_send: ping-pong x -> y -> x; half the round trip.
#include "common.hpp"

namespace nt::measure {
namespace {
void run(Ctx& c, const Task& t) {
  const int len = c.count_of(c.length);
  if (c.rank == t.x) {
    double* row = c.sample_row(t.y);
    for (int it = 0; it < c.W + c.R; ++it) {
      // The classic order (send, then receive), as MPI_Send + MPI_Recv; waits poll with the
      // task's deadline.
      const double t0 = Ctx::now();
      c.send(c.sbuf.data(), len, MPI_CHAR, t.y, kTagData);
      c.recv(c.rbuf.data(), len, MPI_CHAR, t.y, kTagData);
      const double rtt = Ctx::now() - t0;
      if (it >= c.W) {
        row[it - c.W] = 0.5 * rtt;
        c.timed_seconds += rtt;
      }
    }
  } else if (c.rank == t.y) {
    for (int it = 0; it < c.W + c.R; ++it) {
      c.recv(c.rbuf.data(), len, MPI_CHAR, t.x, kTagData);
      c.send(c.sbuf.data(), len, MPI_CHAR, t.x, kTagData);
    }
  }
}
}  // namespace

void register_send_recv_and_recv_send(Registry& r) {
  ModeSpec m;
  m.mode = Mode::send_recv_and_recv_send;
  m.name = "send_recv_and_recv_send";
  m.description = "ping-pong x->y->x; half the round trip (every statistic of halved samples)";
  m.kind = TaskKind::ordered_pairs;
  m.results_in_rows = true;
  m.concurrent_ok = true;
  m.sync_method = "none needed: round trips on the initiator's clock";
  m.run = run;
  r.add(std::move(m));
}

}  // namespace nt::measure
