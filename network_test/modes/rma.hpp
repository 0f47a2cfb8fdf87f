// One-sided modes (put, get): the window of a run and the timed loop of an origin-target pair.
#pragma once

#include <memory>

#include "common.hpp"

namespace nt::measure::kernels {

// One window of the largest length on every rank, for the whole run (collective to make and
// to free: made at the run's start, freed at its end on every rank).
class RmaRun : public ModeRun {
 public:
  using Op = void (*)(Ctx& c, MPI_Win win, int target, int len);
  RmaRun(Ctx& c, Op op) : op_(op) {
    void* base = nullptr;
    MPI_Win_allocate(static_cast<MPI_Aint>(c.max_length), 1, MPI_INFO_NULL, c.comm, &base, &win_);
  }
  ~RmaRun() override {
    if (win_ != MPI_WIN_NULL) MPI_Win_free(&win_);
  }
  RmaRun(const RmaRun&) = delete;
  RmaRun& operator=(const RmaRun&) = delete;

  // Task t with `origin` timing op + MPI_Win_flush at `target` under a shared lock, into
  // the target's cell of the origin's samples. The target polls (MPI_Test drives MPICH's
  // progress engine for RMA emulated by active messages) until the origin is done.
  void pair(Ctx& c, int origin, int target) {
    const int len = c.count_of(c.length);
    char token = 0;
    if (c.rank == origin) {
      c.recv(&token, 1, MPI_CHAR, target, kTagReady);
      MPI_Win_lock(MPI_LOCK_SHARED, target, 0, win_);
      timed_samples(c, c.sample_row(target), [&] {
        const double t0 = Ctx::now();
        op_(c, win_, target, len);
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

 private:
  Op op_;
  MPI_Win win_ = MPI_WIN_NULL;
};

}  // namespace nt::measure::kernels
