// all_to_all: every rank Isend/Irecv to every rank at once from a common start.
#include <sched.h>

#include <algorithm>

#include "common.hpp"

namespace nt::measure {
namespace {
void run(Ctx& c, const Task&, const Batch& b) {
  const int len = c.count_of(b.length);
  const auto P = static_cast<std::size_t>(c.size);
  const auto stride = static_cast<std::size_t>(std::max(len, 1));
  std::vector<MPI_Request> recvs(P), sends(P);
  double worst_local = 0;
  kernels::group_samples(c, b, -1, [&](double start, int k) {
    for (std::size_t i = 0; i < P; ++i)
      MPI_Irecv(c.rbuf() + i * stride, len, MPI_CHAR, static_cast<int>(i), kTagExchange, c.comm, &recvs[i]);
    for (std::size_t i = 0; i < P; ++i)
      MPI_Isend(c.sbuf(), len, MPI_CHAR, static_cast<int>(i), kTagExchange, c.comm, &sends[i]);
    std::size_t left = P;
    unsigned it = 0;
    worst_local = 0;
    double last = Ctx::now();
    while (left > 0) {
      int idx = MPI_UNDEFINED, flag = 0;
      MPI_Testany(static_cast<int>(P), recvs.data(), &idx, &flag, MPI_STATUS_IGNORE);
      const double t = Ctx::now();
      c.note_poll_gap(t - last);
      last = t;
      if (flag && idx != MPI_UNDEFINED) {
        const double d = t - start;
        worst_local = std::max(worst_local, d);
        if (k >= 0) c.sample_row(b, idx)[k] = d;
        --left;
      } else {
        if (c.yield) sched_yield();  // a rank sharing this core may be the sender we wait for
        if ((++it & 127U) == 0) c.check_deadline();
      }
    }
    c.waitall(sends);
    return c.rank == 0 ? worst_local : 0.0;  // rank 0 counts the slowest arrival it saw
  });
}

const Registrar kRegistered{kernels::common_start_mode(
    identify(Mode::all_to_all,
             {.kind = TaskKind::all_ranks,
              .description = "every rank Isend/Irecv to every rank at once; [x][y] = time at y from the common start "
                             "until x's message arrived"}),
    run)};
}  // namespace
}  // namespace nt::measure
