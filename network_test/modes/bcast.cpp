// bcast: MPI_Bcast from each root x; [x][y] = time at y from a common start until the call returns.
#include "common.hpp"

namespace nt::measure {
namespace {
void run(Ctx& c, const Task& t, const Batch& b) {
  const int len = c.count_of(b.length);
  const int root = t.x;
  double* col = c.sample_row(b, root);
  kernels::group_samples(c, b, root, [&](double start, int k) {
    char* buf = c.rank == root ? c.sbuf() : c.rbuf();
    if (c.yield) {
      // Oversubscribed: MPI_Bcast polls without yielding, so a rank of the tree that shares a
      // core with a polling rank waits for a time slice; the nonblocking broadcast completed by
      // a yielding poll lets every rank of the tree run.
      MPI_Request req;
      MPI_Ibcast(buf, len, MPI_CHAR, root, c.comm, &req);
      c.wait(req);
    } else {
      MPI_Bcast(buf, len, MPI_CHAR, root, c.comm);
    }
    const double d = Ctx::now() - start;
    if (k >= 0) col[k] = d;
    return c.rank == root ? d : 0.0;
  });
}

const Registrar kRegistered{kernels::common_start_mode(
    identify(Mode::bcast,
             {.kind = TaskKind::per_root,
              .description =
                  "MPI_Bcast from each root x; [x][y] = time at y from a synchronised start until MPI_Bcast returns"}),
    run)};
}  // namespace
}  // namespace nt::measure
