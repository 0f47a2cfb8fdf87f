// loggp: Hoefler's parametrised round trips PRTT(n, d, s) per pair over the sweep of sizes
// (netgauge's loggp pattern), from which L, o_s, o_r, g and G are derived (derive_loggp).
#include <algorithm>
#include <CLI/CLI.hpp>

#include "common.hpp"
#include "nt/stats.hpp"

namespace nt::measure {
namespace {

// The busy delay of PRTT(n, d, s) stands for computation: it never yields the core.
void busy_for(double d) {
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
    c.send(c.sbuf.data(), len, MPI_CHAR, server, kTagData);
  }
  c.recv(c.rbuf.data(), len, MPI_CHAR, server, kTagData);
  return Ctx::now() - t0;
}

void prtt_server(Ctx& c, int client, int len, int n) {
  for (int m = 0; m < n; ++m) c.recv(c.rbuf.data(), len, MPI_CHAR, client, kTagData);
  c.send(c.sbuf.data(), len, MPI_CHAR, client, kTagData);
}

void run(Ctx& c, const Task& t) {
  const auto S = c.sizes.size();
  const int n = c.settings.loggp_n;
  const int total = c.W + c.R;
  if (c.rank == t.x) {
    double* out = c.loggp_rows.data() + static_cast<std::size_t>(t.y) * 5 * S;
    std::vector<double> v(static_cast<std::size_t>(c.R));
    auto measure = [&](int msgs, double d) {
      for (int it = 0; it < total; ++it) {
        const double x = prtt_client(c, t.y, c.count_of(c.length), msgs, d);
        if (it >= c.W) {
          v[static_cast<std::size_t>(it - c.W)] = x;
          c.timed_seconds += x;
        }
      }
      // The fastest sample: interference (other processes, time slices) only adds time, and
      // one loaded stretch must not shift a whole size (the medians of a loaded core can).
      return *std::min_element(v.begin(), v.end());
    };
    for (std::size_t k = 0; k < S; ++k) {
      c.length = c.sizes[k];
      const int len = c.count_of(c.length);
      const double p1 = measure(1, 0.0);
      const double pn = measure(n, 0.0);
      const double d = p1;  // longer than the gap g + G*s of any size that fits the model
      const double pd = measure(n, d);
      // o_r: the reply is surely there (Iprobe confirms); time only the receive call.
      for (int it = 0; it < total; ++it) {
        c.send(c.sbuf.data(), len, MPI_CHAR, t.y, kTagData);
        busy_for(1.5 * p1);
        int flag = 0;
        unsigned spins = 0;
        while (!flag) {
          MPI_Iprobe(t.y, kTagData, c.comm, &flag, MPI_STATUS_IGNORE);
          if ((++spins & 127U) == 0) c.check_deadline();
        }
        const double t0 = Ctx::now();
        MPI_Recv(c.rbuf.data(), len, MPI_CHAR, t.y, kTagData, c.comm, MPI_STATUS_IGNORE);
        const double x = Ctx::now() - t0;
        if (it >= c.W) v[static_cast<std::size_t>(it - c.W)] = x;
      }
      const double orr = *std::min_element(v.begin(), v.end());
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
      const int len = c.count_of(c.sizes[k]);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, 1);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, n);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, n);
      for (int it = 0; it < total; ++it) prtt_server(c, t.x, len, 1);
    }
    char done = 0;
    c.send(&done, 1, MPI_CHAR, t.x, kTagDone);
  }
}
}  // namespace

void register_loggp(Registry& r) {
  ModeSpec m;
  m.mode = Mode::loggp;
  m.name = "loggp";
  m.description = "LogGP parameters per pair from PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s) over the sweep (writes <prefix>_loggp.nc)";
  m.kind = TaskKind::ordered_pairs;
  m.results_in_rows = true;
  m.sync_method = "none needed: round trips on the client's clock (Hoefler's PRTT method, as netgauge's loggp pattern)";
  m.options = {{"--loggp-n N", "messages per PRTT(n, ., s) train (default 8, at least 2)"},
               {"--loggp-break-tol F", "relative deviation from the g+G*s fit that marks a protocol change (default 0.25)"}};
  m.add_options = [](CLI::App& app, Settings& s) {
    app.add_option("--loggp-n", s.loggp_n, "loggp: messages per PRTT(n, ., s) train")->capture_default_str();
    app.add_option("--loggp-break-tol", s.loggp_break_tol, "loggp: relative deviation that breaks the g+G*s fit")
        ->capture_default_str();
  };
  m.run = run;
  r.add(std::move(m));
}

}  // namespace nt::measure
