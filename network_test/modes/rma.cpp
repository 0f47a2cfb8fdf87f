// One-sided modes (put, get): see rma.hpp.
#include "rma.hpp"

#include <memory>
#include <string>

namespace nt::measure::kernels {
namespace {

class RmaRun final : public ModeRun {
 public:
  RmaRun(Ctx& c, RmaOp op, bool origin_is_x) : op_(op), origin_is_x_(origin_is_x) {
    void* base = nullptr;
    MPI_Win_allocate(static_cast<MPI_Aint>(c.max_length), 1, MPI_INFO_NULL, c.comm, &base, &win_);
  }
  ~RmaRun() override {
    if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
  }
  RmaRun(const RmaRun&) = delete;
  RmaRun& operator=(const RmaRun&) = delete;

  void run(Ctx& c, const Task& t, const Batch& b) override {
    if (origin_is_x_)
      pair(c, t.x, t.y, b);
    else
      pair(c, t.y, t.x, b);
  }

 private:
  // `origin` times op (messages of b.length bytes) + MPI_Win_flush at `target` under a shared
  // lock, into the target's cell of its samples. The target polls (MPI_Test drives MPICH's
  // progress engine for RMA emulated by active messages) until the origin is done.
  void pair(Ctx& c, int origin, int target, const Batch& b) {
    const int len = c.count_of(b.length);
    char token = 0;
    if (c.rank == origin) {
      c.recv(&token, 1, MPI_CHAR, target, kTagReady);
      MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win_);
      timed_samples(c, b, c.sample_row(b, target), [&] {
        const double t0 = Ctx::now();
        if (op_ == RmaOp::put)
          MPI_Put(c.sbuf(), len, MPI_CHAR, target, 0, len, MPI_CHAR, win_);
        else
          MPI_Get(c.rbuf(), len, MPI_CHAR, target, 0, len, MPI_CHAR, win_);
        MPI_Win_flush(target, win_);
        return Ctx::now() - t0;
      });
      MPI_Win_unlock(target, win_);
      c.send(&token, 1, MPI_CHAR, target, kTagDone);
    } else if (c.rank == target) {
      MPI_Request req;
      MPI_Irecv(&token, 1, MPI_CHAR, origin, kTagDone, c.comm, &req);
      c.send(&token, 1, MPI_CHAR, origin, kTagReady);
      c.wait(req);
    }
  }

  RmaOp op_;
  bool origin_is_x_;
  MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace

ModeSpec rma_mode(ModeSpec m, RmaOp op) {
  m.concurrent_ok = true;
  m.start = [op, x = m.results_in_rows](Ctx& c) -> std::unique_ptr<ModeRun> {
    return std::make_unique<RmaRun>(c, op, x);
  };
  m.sync_method = std::string("none needed: origin clock; one window of the largest length, MPI_Win_lock(shared) per "
                              "pair, each sample ") +
                  (op == RmaOp::put ? "MPI_Put + MPI_Win_flush (completes at origin and target)"
                                    : "MPI_Get + MPI_Win_flush");
  return m;
}

}  // namespace nt::measure::kernels
