// loggp: Hoefler's parametrised round trips PRTT(n, d, s) per pair over the sweep of sizes
// (netgauge's loggp pattern), from which L, o_s, o_r, g and G are derived (derive_loggp).
#include <algorithm>

#include <CLI/CLI.hpp>

#include "common.hpp"
#include "nt/error.hpp"
#include "nt/loggp.hpp"
#include "nt/stats.hpp"
#include "nt/measure/loggp_fit.hpp"

namespace nt::measure {
namespace {

// loggp's own options.
struct Options {
  int n = 8;                 // messages per PRTT(n, ., s) train
  double break_tol = 0.01;   // smallest relative step of the gap that starts a protocol range (beside 4x the fit's rms)
};
Options& options() {
  static Options o;
  return o;
}

// The per-run state: every size of the sweep is measured within each pair's task; the client
// x keeps, per peer y, 5 blocks of S values (prtt1, prttn, prttd, delay, orecv), and the sink
// gathers them on rank 0, fits each pair and writes <prefix>_loggp.nc.
class Loggp final : public ModeRun {
 public:
  explicit Loggp(Ctx& c)
      : sizes_(c.lengths),
        rows_(static_cast<std::size_t>(c.size) * 5 * sizes_.size(), kNaN) {}
  // Every size of the sweep, whatever `length` (the sweep's first).
  void run(Ctx& c, const Task& t, const Batch& b) override;
  void finish(Ctx& c, const FileInfo& info) override;

 private:
  std::vector<std::int64_t> sizes_;
  std::vector<double> rows_;
};

// The busy delay of PRTT(n, d, s) stands for computation: it never yields the core.
void busy_for(double d) {
  if constexpr (kSimulated) {
    // Simulated ranks: the simulator's sleep is the same delay (no MPI progress happens in it
    // either), in one event; a loop on the simulated clock costs a simcall per 10 ns of it (the
    // time SMPI adds to each clock read), minutes of host time per pair at 256 KiB.
#ifdef NT_SMPI
    if (d > 0) {
      timespec ts{};
      ts.tv_sec = static_cast<time_t>(d);
      ts.tv_nsec = static_cast<long>((d - static_cast<double>(ts.tv_sec)) * 1e9);
      smpi_nanosleep(&ts, nullptr);
    }
#endif
    return;
  }
  const double end = Ctx::now() + d;
  while (Ctx::now() < end) {
  }
}

// Client side of PRTT(n, d, s): n messages of len bytes, busy delay d after each send returns,
// then one reply of len bytes.
double prtt_client(Ctx& c, int server, int len, int n, double d) {
  const double t0 = Ctx::now();
  for (int m = 0; m < n; ++m) {
    if (m > 0 && d > 0) busy_for(d);
    c.send(c.sbuf(), len, MPI_CHAR, server, kTagData);
  }
  c.recv(c.rbuf(), len, MPI_CHAR, server, kTagData);
  return Ctx::now() - t0;
}

void prtt_server(Ctx& c, int client, int len, int n) {
  for (int m = 0; m < n; ++m) c.recv(c.rbuf(), len, MPI_CHAR, client, kTagData);
  c.send(c.sbuf(), len, MPI_CHAR, client, kTagData);
}

// o_r: the CPU time of a receive whose message is surely there (Iprobe confirms): the time of
// MPI_Irecv plus that of MPI_Wait after a busy delay longer than the transfer (p1: the round trip
// of one message). Under a protocol that moves the data only once the receive is posted
// (rendezvous; SMPI's default) a blocking MPI_Recv would time L + G s as well; posted first, the
// transfer runs during the delay. Where it still runs inside the wait (no progress without the
// CPU), o_r grows with s and derive_loggp says that L and o_r are not separable. The fastest of
// the batch's samples (v: room for them).
double receive_overhead(Ctx& c, int peer, int len, double p1, const Batch& b, std::vector<double>& v) {
  for (int it = 0; it < b.W + b.R; ++it) {
    c.send(c.sbuf(), len, MPI_CHAR, peer, kTagData);
    busy_for(1.5 * p1);
    int flag = 0;
    unsigned spins = 0;
    while (!flag) {
      MPI_Iprobe(peer, kTagData, c.comm, &flag, MPI_STATUS_IGNORE);
      if ((++spins & 127U) == 0) c.check_deadline();
    }
    MPI_Request req;
    const double t0 = Ctx::now();
    MPI_Irecv(c.rbuf(), len, MPI_CHAR, peer, kTagData, c.comm, &req);
    const double t1 = Ctx::now();
    busy_for(1.5 * p1);
    const double t2 = Ctx::now();
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    const double x = (t1 - t0) + (Ctx::now() - t2);
    if (it >= b.W) v[static_cast<std::size_t>(it - b.W)] = x;
  }
  return *std::min_element(v.begin(), v.end());
}

void Loggp::run(Ctx& c, const Task& t, const Batch& b) {
  const auto S = sizes_.size();
  const int n = options().n;
  const int total = b.W + b.R;
  if (c.rank == t.x) {
    double* out = rows_.data() + static_cast<std::size_t>(t.y) * 5 * S;
    std::vector<double> v(static_cast<std::size_t>(b.R));
    auto measure = [&](int len, int msgs, double d) {
      for (int it = 0; it < total; ++it) {
        const double x = prtt_client(c, t.y, len, msgs, d);
        if (it >= b.W) {
          v[static_cast<std::size_t>(it - b.W)] = x;
          c.add_timed(x);
        }
      }
      // The fastest sample: interference (other processes, time slices) only adds time, and
      // one loaded stretch must not shift a whole size (the medians of a loaded core can).
      return *std::min_element(v.begin(), v.end());
    };
    for (std::size_t k = 0; k < S; ++k) {
      const int len = c.count_of(sizes_[k]);
      const double p1 = measure(len, 1, 0.0);
      const double pn = measure(len, n, 0.0);
      const double d = p1;  // longer than the gap g + G*s of any size that fits the model
      const double pd = measure(len, n, d);
      const double orr = receive_overhead(c, t.y, len, p1, b, v);
      out[0 * S + k] = p1;
      out[1 * S + k] = pn;
      out[2 * S + k] = pd;
      out[3 * S + k] = d;
      out[4 * S + k] = orr;
    }
    char done = 0;
    c.recv(&done, 1, MPI_CHAR, t.y, kTagDone);
  } else if (c.rank == t.y) {
    for (std::size_t k = 0; k < S; ++k) {
      const int len = c.count_of(sizes_[k]);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, 1);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, n);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, n);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, 1);
    }
    char done = 0;
    c.send(&done, 1, MPI_CHAR, t.x, kTagDone);
  }
}

std::filesystem::path loggp_path(const Settings& s) { return s.prefix + "_loggp.nc"; }

void Loggp::finish(Ctx& c, const FileInfo& info) {
  const auto& sizes = sizes_;
  const auto S = sizes.size();
  const auto PU = static_cast<std::size_t>(c.size);
  std::vector<double> all(c.rank == 0 ? PU * PU * 5 * S : 0);
  MPI_Request req;
  const int block = static_cast<int>(PU * 5 * S);
  MPI_Igather(rows_.data(), block, MPI_DOUBLE, all.data(), block, MPI_DOUBLE, 0, c.comm, &req);
  c.idle_wait(req, idle_deadline(c, static_cast<double>(PU * PU)), "timeout: waiting for the loggp results");
  if (c.rank != 0) return;

  LoggpData d;
  d.info = info;
  d.ranks = c.size;
  d.sizes = sizes;
  d.prtt_n = options().n;
  const std::size_t pairs = PU * PU;
  for (auto* v : {&d.L, &d.o_s, &d.o_r, &d.g, &d.G, &d.residual}) v->assign(pairs, kNaN);
  d.fit_break.assign(pairs, -1);
  d.separable.assign(pairs, -1);
  d.g2.assign(pairs, kNaN);
  d.G2.assign(pairs, kNaN);
  for (auto* v : {&d.prtt1, &d.prttn, &d.prttd, &d.delay, &d.orecv, &d.osend}) v->assign(pairs * S, kNaN);
  for (std::size_t x = 0; x < PU; ++x)
    for (std::size_t y = 0; y < PU; ++y) {
      if (x == y) continue;
      const double* b = all.data() + (x * PU + y) * 5 * S;
      std::vector<double> p1(b, b + S), pn(b + S, b + 2 * S), pd(b + 2 * S, b + 3 * S), dl(b + 3 * S, b + 4 * S),
          orr(b + 4 * S, b + 5 * S);
      const LoggpFit f = derive_loggp(sizes, d.prtt_n, p1, pn, pd, dl, orr, options().break_tol);
      const std::size_t i = x * PU + y;
      d.L[i] = f.L;
      d.o_s[i] = f.o_s;
      d.o_r[i] = f.o_r;
      d.g[i] = f.g;
      d.G[i] = f.G;
      d.residual[i] = f.residual;
      d.fit_break[i] = f.fit_break;
      d.separable[i] = f.separable ? 1 : 0;
      d.g2[i] = f.g2;
      d.G2[i] = f.G2;
      const auto at = static_cast<std::ptrdiff_t>(i * S);
      std::copy(p1.begin(), p1.end(), d.prtt1.begin() + at);
      std::copy(pn.begin(), pn.end(), d.prttn.begin() + at);
      std::copy(pd.begin(), pd.end(), d.prttd.begin() + at);
      std::copy(dl.begin(), dl.end(), d.delay.begin() + at);
      std::copy(orr.begin(), orr.end(), d.orecv.begin() + at);
      std::copy(f.osend.begin(), f.osend.end(), d.osend.begin() + at);
      for (double v : dl) d.prtt_delay = std::max(d.prtt_delay, v);
    }
  write_loggp(loggp_path(c.settings), d, c.settings.force);
}

const Registrar kRegistered{identify(Mode::loggp, {
    .per_length = false,
    .add_options =
        [](CLI::App& app, Settings&) {
          app.add_option("--loggp-n", options().n, "messages per PRTT(n, ., s) train, at least 2")
              ->type_name("N")
              ->capture_default_str();
          app.add_option("--loggp-break-tol", options().break_tol,
                         "smallest relative step above the g+G*s line that starts a new protocol range (the step "
                         "must also exceed 4x the range's rms residual)")
              ->type_name("F")
              ->capture_default_str();
        },
    .validate =
        [](const Settings& s, int) {
          if (s.estimate) throw UsageError("--estimate does not apply to loggp (its run is a fixed set of trains per pair)");
          if (s.resume) throw UsageError("--resume is not available for loggp (it writes its file at the end)");
          if (s.raw) throw UsageError("--raw does not apply to loggp (the file holds every PRTT median)");
          if (s.precision > 0) throw UsageError("--precision does not apply to loggp (its trains have fixed lengths)");
          if (options().n < 2) throw UsageError("--loggp-n must be at least 2");
          if (!(options().break_tol > 0)) throw UsageError("--loggp-break-tol must be positive");
        },
    .own_files = [](const Settings& s) { return std::vector<std::filesystem::path>{loggp_path(s)}; },
    .start = [](Ctx& c) -> std::unique_ptr<ModeRun> { return std::make_unique<Loggp>(c); },
    .description = "LogGP parameters per pair from PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) over the sweep (writes "
                   "<prefix>_loggp.nc)",
    .sync_method = "none needed: round trips on the client's clock (Hoefler's PRTT method, as netgauge's loggp pattern)",
})};
}  // namespace
}  // namespace nt::measure
