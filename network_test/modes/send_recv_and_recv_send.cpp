// send_recv_and_recv_send: ping-pong x -> y -> x; half the round trip.
#include "common.hpp"

namespace nt::measure {
namespace {
void run(Ctx& c, const Task& t, const Batch& b) {
  const int len = c.count_of(b.length);
  if (c.rank == t.x) {
    // The classic order (send, then receive), as MPI_Send + MPI_Recv; waits poll with the
    // task's deadline. The sample is half the round trip.
    kernels::timed_samples(
        c, b, c.sample_row(b, t.y),
        [&] {
          const double t0 = Ctx::now();
          c.send(c.sbuf(), len, MPI_CHAR, t.y, kTagData);
          c.recv(c.rbuf(), len, MPI_CHAR, t.y, kTagData);
          return Ctx::now() - t0;
        },
        0.5);
  } else if (c.rank == t.y) {
    for (int it = 0; it < b.W + b.R; ++it) {
      c.recv(c.rbuf(), len, MPI_CHAR, t.x, kTagData);
      c.send(c.sbuf(), len, MPI_CHAR, t.x, kTagData);
    }
  }
}

const Registrar kRegistered{identify(Mode::send_recv_and_recv_send, {
    .concurrent_ok = true,
    .run = run,
    .description = "ping-pong x->y->x; half the round trip (every statistic of halved samples)",
    .sync_method = "none needed: round trips on the initiator's clock",
})};
}  // namespace
}  // namespace nt::measure
