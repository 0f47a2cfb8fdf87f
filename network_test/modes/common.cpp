#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace nt::measure::kernels {

bool is_noise(const Ctx& c, const Task& t) {
  return std::find(t.noise.begin(), t.noise.end(), c.rank) != t.noise.end();
}

void one_way(Ctx& c, const Task& t) {
  if (is_noise(c, t)) return c.run_noise(t);
  const int len = c.count_of(c.length);
  char ready = 0;
  std::vector<double> stamps(static_cast<std::size_t>(c.R));
  if (c.rank == t.x) {
    const auto [off, rtt] = c.estimate_offset(t.y, true);
    if (std::getenv("NT_DEBUG_OFFSETS"))
      std::fprintf(stderr, "debug: %d->%d length %lld offset %.3g s rtt %.3g s\n", t.x, t.y,
                   static_cast<long long>(c.length), off, rtt);
    std::vector<double> sent(static_cast<std::size_t>(c.R));
    for (int it = 0; it < c.W + c.R; ++it) {
      c.recv(&ready, 1, MPI_CHAR, t.y, kTagReady);
      MPI_Request req;
      const double ts = Ctx::now();
      MPI_Isend(c.sbuf.data(), len, MPI_CHAR, t.y, kTagData, c.comm, &req);
      c.wait(req);
      if (it >= c.W) sent[static_cast<std::size_t>(it - c.W)] = ts;
    }
    c.recv(stamps.data(), c.R, MPI_DOUBLE, t.y, kTagResult);
    double* row = c.sample_row(t.y);
    for (int k = 0; k < c.R; ++k) {
      row[k] = (stamps[static_cast<std::size_t>(k)] - off) - sent[static_cast<std::size_t>(k)];
      c.timed_seconds += row[k];
    }
    if (!t.noise.empty()) c.stop_noise(t);
  } else if (c.rank == t.y) {
    c.estimate_offset(t.x, false);
    for (int it = 0; it < c.W + c.R; ++it) {
      MPI_Request req;
      MPI_Irecv(c.rbuf.data(), len, MPI_CHAR, t.x, kTagData, c.comm, &req);
      c.send(&ready, 1, MPI_CHAR, t.x, kTagReady);
      c.wait(req);
      const double tr = Ctx::now();
      if (it >= c.W) stamps[static_cast<std::size_t>(it - c.W)] = tr;
    }
    c.send(stamps.data(), c.R, MPI_DOUBLE, t.x, kTagResult);
  }
}

void exchange(Ctx& c, const Task& t) {
  if (is_noise(c, t)) return c.run_noise(t);
  const int len = c.count_of(c.length);
  MPI_Request reqs[2];
  if (t.x == t.y) {
    if (c.rank != t.x) return;
    double* col = c.sample_row(t.x);
    for (int it = 0; it < c.W + c.R; ++it) {
      const double t0 = Ctx::now();
      MPI_Irecv(c.rbuf.data(), len, MPI_CHAR, c.rank, kTagExchange, c.comm, &reqs[0]);
      MPI_Isend(c.sbuf.data(), len, MPI_CHAR, c.rank, kTagExchange, c.comm, &reqs[1]);
      std::vector<MPI_Request> v(reqs, reqs + 2);
      c.waitall(v);
      const double d = Ctx::now() - t0;
      if (it >= c.W) {
        col[it - c.W] = d;
        c.timed_seconds += d;
      }
    }
    if (!t.noise.empty()) c.stop_noise(t);
    return;
  }
  const bool leader = c.rank == t.x;
  const int peer = leader ? t.y : t.x;
  if (c.rank != t.x && c.rank != t.y) return;
  const auto [off, rtt] = c.estimate_offset(peer, leader);
  const double base = 2.0 * rtt + 2e-6;
  double margin = base;  // adapted like group_samples: doubled after a late start
  double* col = c.sample_row(peer);
  std::uint8_t* flags = c.flag_row(peer);
  char done = 0;
  std::vector<MPI_Request> v(2);
  for (int it = 0; it < c.W + c.R; ++it) {
    double start = 0;
    if (leader) {
      if (it > 0) {
        c.recv(&done, 1, MPI_CHAR, peer, kTagDone);
        margin = done ? std::min(2.0 * margin, 10e-3) : std::max(base, 0.95 * margin);
      }
      start = Ctx::now() + margin;
      c.send_double(start + off, peer, kTagStart);
    } else {
      start = c.recv_double(peer, kTagStart);
      done = Ctx::now() > start ? 1 : 0;
    }
    const double woke = c.spin_until(start);
    c.poll_gap = 0;
    MPI_Irecv(c.rbuf.data(), len, MPI_CHAR, peer, kTagExchange, c.comm, &v[0]);
    MPI_Isend(c.sbuf.data(), len, MPI_CHAR, peer, kTagExchange, c.comm, &v[1]);
    c.waitall(v);
    const double d = Ctx::now() - start;
    const std::uint8_t f = c.sample_flags(start, woke, !leader && done);
    if (it >= c.W) {
      col[it - c.W] = d;
      flags[it - c.W] = f;
      if (leader) c.timed_seconds += d;
    }
    if (!leader) c.send(&done, 1, MPI_CHAR, peer, kTagDone);
  }
  if (leader) {
    c.recv(&done, 1, MPI_CHAR, peer, kTagDone);
    if (!t.noise.empty()) c.stop_noise(t);
  }
}

void group_samples(Ctx& c, int peer, const std::function<void(double, int)>& body) {
  // Ranks report in their "done" message whether the start had passed when they got it; rank 0
  // then doubles the margin (up to 10 ms), and lets it shrink again slowly while all are on time.
  // On an oversubscribed host this keeps the start common instead of counting late samples.
  char done = 0;
  double base = 5e-6;
  if (c.rank == 0) {
    double worst = 0;
    for (double r : c.rtt_to_root) worst = std::max(worst, r);
    base = 2.0 * worst + 0.5e-6 * c.size + 5e-6;
  }
  double margin = base;
  std::vector<double> starts(static_cast<std::size_t>(c.size));
  std::vector<MPI_Request> reqs;
  bool late = false;
  for (int it = 0; it < c.W + c.R; ++it) {
    double start = 0;
    if (c.rank == 0) {
      if (it > 0) {
        bool any_late = late;
        for (int r = 1; r < c.size; ++r) {
          c.recv(&done, 1, MPI_CHAR, r, kTagDone);
          any_late = any_late || done != 0;
        }
        margin = any_late ? std::min(2.0 * margin, 10e-3) : std::max(base, 0.95 * margin);
      }
      start = Ctx::now() + margin;
      reqs.clear();
      for (int r = 1; r < c.size; ++r) {
        starts[static_cast<std::size_t>(r)] = start + c.offset_to_root[static_cast<std::size_t>(r)];
        reqs.emplace_back();
        MPI_Isend(&starts[static_cast<std::size_t>(r)], 1, MPI_DOUBLE, r, kTagStart, c.comm, &reqs.back());
      }
      c.waitall(reqs);
    } else {
      start = c.recv_double(0, kTagStart);
    }
    late = Ctx::now() > start;
    const double woke = c.spin_until(start);
    c.poll_gap = 0;
    body(start, it >= c.W ? it - c.W : -1);
    const std::uint8_t f = c.sample_flags(start, woke, late);
    if (it >= c.W) {
      const auto k = static_cast<std::size_t>(it - c.W);
      if (peer >= 0)
        c.flag_row(peer)[k] = f;
      else
        for (int q = 0; q < c.size; ++q) c.flag_row(q)[k] = f;
    }
    if (c.rank != 0) {
      done = late ? 1 : 0;
      c.send(&done, 1, MPI_CHAR, 0, kTagDone);
    }
  }
  if (c.rank == 0)
    for (int r = 1; r < c.size; ++r) c.recv(&done, 1, MPI_CHAR, r, kTagDone);
}

}  // namespace nt::measure::kernels
