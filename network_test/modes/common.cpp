#include "common.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "nt/error.hpp"
#include "nt/measure/warmup.hpp"

namespace nt::measure::kernels {

namespace {
bool is_noise(const Ctx& c, const Task& t) {
  return std::find(t.noise.begin(), t.noise.end(), c.rank) != t.noise.end();
}
}  // namespace

void one_way(Ctx& c, const Task& t, const Batch& b, NoiseTraffic* noise) {
  if (noise && is_noise(c, t)) return noise->run(c, t);
  const int len = c.count_of(b.length);
  // y -> x: before each iteration a ready message {-1}; after the last, the result {s, the
  // receive stamps of the R samples, their flags}, s the 0-based iteration of the first sample
  // (the warm-up rule of the receiver, warmup.hpp, decides when the pair is warm).
  const auto R = static_cast<std::size_t>(b.R);
  std::vector<double> msg(1 + 2 * R);
  const int msg_count = static_cast<int>(msg.size());
  if (c.rank == t.x) {
    const auto [off, rtt] = c.pair_offset(t.y, true, false);
    if (std::getenv("NT_DEBUG_OFFSETS"))
      std::fprintf(stderr, "debug: %d->%d length %lld offset %.3g s rtt %.3g s\n", t.x, t.y,
                   static_cast<long long>(b.length), off, rtt);
    std::vector<double> sent;
    std::vector<std::uint8_t> sent_flags;
    for (;;) {
      c.recv(msg.data(), msg_count, MPI_DOUBLE, t.y, kTagReady);
      if (msg[0] >= 0) break;
      MPI_Request req;
      c.begin_sample();
      const double ts = Ctx::now();
      MPI_Isend(c.sbuf(), len, MPI_CHAR, t.y, kTagData, c.comm, &req);
      c.wait(req);
      sent.push_back(ts);
      sent_flags.push_back(c.preempted_flag());
    }
    const auto s = static_cast<std::size_t>(msg[0]);
    double* row = c.sample_row(b, t.y);
    std::uint8_t* flags = c.flag_row(b, t.y);
    for (std::size_t k = 0; k < R; ++k) {
      row[k] = (msg[1 + k] - off) - sent[s + k];
      flags[k] = static_cast<std::uint8_t>(sent_flags[s + k] | static_cast<std::uint8_t>(msg[1 + R + k]));
      c.add_timed(row[k]);
    }
    if (noise && !t.noise.empty()) noise->stop(c, t);
  } else if (c.rank == t.y) {
    c.pair_offset(t.x, false, false);
    WarmupRule rule(b.W, b.R, c.first_meeting(t.x) ? 1 : 0);
    std::vector<double> received, received_flags;
    const double ready = -1;
    for (bool done = false; !done;) {
      MPI_Request req;
      MPI_Irecv(c.rbuf(), len, MPI_CHAR, t.x, kTagData, c.comm, &req);
      const double asked = Ctx::now();
      c.send(&ready, 1, MPI_DOUBLE, t.x, kTagReady);
      c.begin_sample();
      c.wait(req);
      const double tr = Ctx::now();
      received.push_back(tr);
      received_flags.push_back(c.preempted_flag());
      done = rule.add(tr - asked);  // the round trip on this rank's clock: ready out, data in
    }
    const auto s = static_cast<std::size_t>(rule.first_sample());
    msg[0] = static_cast<double>(s);
    for (std::size_t k = 0; k < R; ++k) {
      msg[1 + k] = received[s + k];
      msg[1 + R + k] = received_flags[s + k];
    }
    c.send(msg.data(), msg_count, MPI_DOUBLE, t.x, kTagReady);
    c.note_warmup(rule.warmups(), rule.capped());
  }
}

void exchange(Ctx& c, const Task& t, const Batch& b, NoiseTraffic* noise) {
  if (noise && is_noise(c, t)) return noise->run(c, t);
  const int len = c.count_of(b.length);
  MPI_Request reqs[2];
  if (t.x == t.y) {
    if (c.rank != t.x) return;
    timed_samples(c, b, c.sample_row(b, t.x), [&] {
      const double t0 = Ctx::now();
      MPI_Irecv(c.rbuf(), len, MPI_CHAR, c.rank, kTagExchange, c.comm, &reqs[0]);
      MPI_Isend(c.sbuf(), len, MPI_CHAR, c.rank, kTagExchange, c.comm, &reqs[1]);
      std::vector<MPI_Request> v(reqs, reqs + 2);
      c.waitall(v);
      return Ctx::now() - t0;
    });
    if (noise && !t.noise.empty()) noise->stop(c, t);
    return;
  }
  const bool leader = c.rank == t.x;
  const int peer = leader ? t.y : t.x;
  if (c.rank != t.x && c.rank != t.y) return;
  const auto [off, rtt] = c.pair_offset(peer, leader, true);
  const double base = 2.0 * rtt + 2e-6;
  double margin = base;  // adapted like group_samples: doubled after a late start
  double* col = c.sample_row(b, peer);
  std::uint8_t* flags = c.flag_row(b, peer);
  char done = 0;
  std::vector<MPI_Request> v(2);
  for (int it = 0; it < b.W + b.R; ++it) {
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
    c.begin_sample();
    MPI_Irecv(c.rbuf(), len, MPI_CHAR, peer, kTagExchange, c.comm, &v[0]);
    MPI_Isend(c.sbuf(), len, MPI_CHAR, peer, kTagExchange, c.comm, &v[1]);
    c.waitall(v);
    const double d = Ctx::now() - start;
    const std::uint8_t f = c.sample_flags(start, woke, !leader && done);
    if (it >= b.W) {
      col[it - b.W] = d;
      flags[it - b.W] = f;
      if (leader) c.add_timed(d);
    }
    if (!leader) c.send(&done, 1, MPI_CHAR, peer, kTagDone);
  }
  if (leader) {
    c.recv(&done, 1, MPI_CHAR, peer, kTagDone);
    if (noise && !t.noise.empty()) noise->stop(c, t);
  }
}

void group_samples(Ctx& c, const Batch& b, int peer, const std::function<double(double, int)>& body) {
  // Ranks report in their "done" message whether the start had passed when they got it; rank 0
  // then doubles the margin (up to 10 ms), and lets it shrink again slowly while all are on time.
  // On an oversubscribed host this keeps the start common instead of counting late samples.
  char done = 0;
  double base = 5e-6;
  if (c.rank == 0) {
    double worst = 0;
    for (double r : c.rtt_to_root()) worst = std::max(worst, r);
    base = 2.0 * worst + 0.5e-6 * c.size + 5e-6;
  }
  double margin = base;
  std::vector<double> starts(static_cast<std::size_t>(c.size));
  std::vector<MPI_Request> reqs;
  bool late = false;
  for (int it = 0; it < b.W + b.R; ++it) {
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
        starts[static_cast<std::size_t>(r)] = start + c.offset_to_root()[static_cast<std::size_t>(r)];
        reqs.emplace_back();
        MPI_Isend(&starts[static_cast<std::size_t>(r)], 1, MPI_DOUBLE, r, kTagStart, c.comm, &reqs.back());
      }
      c.waitall(reqs);
    } else {
      start = c.recv_double(0, kTagStart);
    }
    late = Ctx::now() > start;
    const double woke = c.spin_until(start);
    c.begin_sample();
    const double timed = body(start, it >= b.W ? it - b.W : -1);
    if (it >= b.W) c.add_timed(timed);
    const std::uint8_t f = c.sample_flags(start, woke, late);
    if (it >= b.W) {
      const auto k = static_cast<std::size_t>(it - b.W);
      if (peer >= 0)
        c.flag_row(b, peer)[k] = f;
      else
        for (int q = 0; q < c.size; ++q) c.flag_row(b, q)[k] = f;
    }
    if (c.rank != 0) {
      done = late ? 1 : 0;
      c.send(&done, 1, MPI_CHAR, 0, kTagDone);
    }
  }
  if (c.rank == 0)
    for (int r = 1; r < c.size; ++r) c.recv(&done, 1, MPI_CHAR, r, kTagDone);
}

void NoiseTraffic::run(Ctx& c, const Task& t) {
  const auto& nz = t.noise;
  const int n0 = nz.front();
  std::vector<int> peers;
  for (int r : nz)
    if (r != c.rank || nz.size() == 1) peers.push_back(r);
  const int len = c.settings.noise_length, m = c.settings.noise_messages;
  const std::size_t need = peers.size() * static_cast<std::size_t>(m) * static_cast<std::size_t>(std::max(len, 1));
  if (rbuf_.size() < need) rbuf_.resize(need);
  if (sbuf_.size() < static_cast<std::size_t>(std::max(len, 1))) sbuf_.resize(static_cast<std::size_t>(std::max(len, 1)));
  MPI_Request stop_req = MPI_REQUEST_NULL;
  char stop_token = 0;
  if (c.rank == n0) MPI_Irecv(&stop_token, 1, MPI_CHAR, t.leader, kTagStop, c.comm, &stop_req);
  std::vector<MPI_Request> reqs;
  for (;;) {
    int cont = 1;
    if (c.rank == n0) {
      int flag = 0;
      MPI_Test(&stop_req, &flag, MPI_STATUS_IGNORE);
      cont = flag ? 0 : 1;
      for (int r : nz)
        if (r != c.rank) c.send(&cont, 1, MPI_INT, r, kTagNoiseFlag);
    } else {
      c.recv(&cont, 1, MPI_INT, n0, kTagNoiseFlag);
    }
    if (!cont) break;
    reqs.clear();
    std::size_t slot = 0;
    for (int p : peers)
      for (int k = 0; k < m; ++k, ++slot) {
        reqs.emplace_back();
        MPI_Irecv(rbuf_.data() + slot * static_cast<std::size_t>(std::max(len, 1)), len, MPI_CHAR, p, kTagNoise,
                  c.comm, &reqs.back());
      }
    for (int p : peers)
      for (int k = 0; k < m; ++k) {
        reqs.emplace_back();
        MPI_Isend(sbuf_.data(), len, MPI_CHAR, p, kTagNoise, c.comm, &reqs.back());
      }
    c.waitall(reqs);
  }
  char done = 0;
  c.send(&done, 1, MPI_CHAR, t.leader, kTagDone);
}

void NoiseTraffic::stop(Ctx& c, const Task& t) {
  char token = 1;
  c.send(&token, 1, MPI_CHAR, t.noise.front(), kTagStop);
  for (int r : t.noise) c.recv(&token, 1, MPI_CHAR, r, kTagDone);
}

ModeSpec common_start_mode(ModeSpec m, void (*run)(Ctx&, const Task&, const Batch&)) {
  m.sync_method = kCommonStartMethod;
  m.results_in_rows = false;
  m.common_start = true;
  m.run = run;
  return m;
}

ModeSpec noise_mode(ModeSpec m, void (*kernel)(Ctx&, const Task&, const Batch&, NoiseTraffic*)) {
  // The per-run state: the traffic's buffers, around the mode's kernel.
  class WithNoise final : public ModeRun {
   public:
    explicit WithNoise(void (*k)(Ctx&, const Task&, const Batch&, NoiseTraffic*)) : kernel_(k) {}
    void run(Ctx& c, const Task& t, const Batch& b) override { kernel_(c, t, b, &noise_); }

   private:
    void (*kernel_)(Ctx&, const Task&, const Batch&, NoiseTraffic*);
    NoiseTraffic noise_;
  };
  m.uses_noise = true;
  m.pair_clocks = true;
  m.min_ranks = 3;
  m.option_group = "noise, noise_blocking";
  m.add_options = [](CLI::App& app, Settings& s) {
    app.add_option("-l,--noise-length", s.noise_length, "length of each noise message")
        ->type_name("BYTES")
        ->capture_default_str();
    app.add_option("-m,--noise-messages", s.noise_messages,
                   "messages each noise rank sends to every other noise rank per round")
        ->type_name("N")
        ->capture_default_str();
    app.add_option("-p,--noise-procs", s.noise_procs, "noise ranks per pair, 1..P-2")
        ->type_name("N")
        ->capture_default_str();
  };
  m.validate = [name = m.name](const Settings& s, int P) {
    if (s.noise_procs < 1 || s.noise_procs > P - 2)
      throw UsageError(
          fmt::format("mode {} needs between 1 and P-2 = {} noise ranks (-p), got {}", name, P - 2, s.noise_procs));
    if (s.noise_length < 0) throw UsageError("noise message length (-l) must not be negative");
    if (s.noise_messages < 1) throw UsageError("noise messages (-m) must be at least 1");
  };
  m.start = [kernel](Ctx&) -> std::unique_ptr<ModeRun> { return std::make_unique<WithNoise>(kernel); };
  return m;
}

}  // namespace nt::measure::kernels
