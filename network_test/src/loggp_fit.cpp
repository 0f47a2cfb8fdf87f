// LogGP parameters from parametrised round trips (see share/doc/network_test.md for the model).
#include <algorithm>
#include <cmath>

#include "nt/measure/loggp_fit.hpp"
#include "nt/error.hpp"
#include "nt/loggp.hpp"

namespace nt::measure {
namespace {
struct Line {
  double g = 0, G = 0, rms = 0;
  double at(std::int64_t s) const { return g + G * static_cast<double>(s); }
};

// Least squares of y = g + G*x over the points `idx`, with G constrained to >= 0.
Line fit(const std::vector<std::int64_t>& xs, const std::vector<double>& ys, const std::vector<std::size_t>& idx) {
  Line l;
  if (idx.empty()) return l;
  const auto m = static_cast<double>(idx.size());
  double sx = 0, sy = 0;
  for (auto i : idx) {
    sx += static_cast<double>(xs[i]);
    sy += ys[i];
  }
  const double mx = sx / m, my = sy / m;
  double sxx = 0, sxy = 0;
  for (auto i : idx) {
    const double dx = static_cast<double>(xs[i]) - mx;
    sxx += dx * dx;
    sxy += dx * (ys[i] - my);
  }
  l.G = sxx > 0 ? sxy / sxx : 0.0;
  if (l.G < 0) l.G = 0;
  l.g = my - l.G * mx;
  double ss = 0;
  for (auto i : idx) {
    const double r = ys[i] - l.at(xs[i]);
    ss += r * r;
  }
  l.rms = std::sqrt(ss / m);
  return l;
}

// Protocol ranges of the sizes on the line: grow a range while the next size stays on its line; a
// size that leaves it upwards by more than the fit's noise (4 x the range's rms, at least
// break_tol of the gap and 10 ns), with the next size (if any) above it too, starts a new range: a
// protocol switch makes messages dearer, as a step of the intercept (eager -> rendezvous adds a
// handshake) or of the slope. A single slow or fast point does not break a range.
std::vector<std::vector<std::size_t>> protocol_ranges(const std::vector<std::int64_t>& sizes,
                                                      const std::vector<double>& gap,
                                                      const std::vector<std::size_t>& line, double break_tol) {
  auto above = [&](const Line& l, std::size_t k) {
    const double pred = l.at(sizes[k]);
    return gap[k] - pred > std::max({break_tol * std::fabs(pred), 4.0 * l.rms, 10e-9});
  };
  std::vector<std::vector<std::size_t>> ranges;
  std::size_t at = 0;
  while (at < line.size()) {
    std::size_t m = std::min(line.size(), at + 3);
    std::size_t end = line.size();
    for (std::size_t q = m; q < line.size(); ++q) {
      const Line l = fit(sizes, gap, std::vector<std::size_t>(line.begin() + static_cast<std::ptrdiff_t>(at),
                                                              line.begin() + static_cast<std::ptrdiff_t>(q)));
      if (above(l, line[q]) && (q + 1 == line.size() || above(l, line[q + 1]))) {
        end = q;
        break;
      }
    }
    ranges.emplace_back(line.begin() + static_cast<std::ptrdiff_t>(at), line.begin() + static_cast<std::ptrdiff_t>(end));
    at = end;
  }
  return ranges;
}
}  // namespace

LoggpFit derive_loggp(const std::vector<std::int64_t>& sizes, int n, const std::vector<double>& prtt1,
                      const std::vector<double>& prttn, const std::vector<double>& prttd,
                      const std::vector<double>& delay, const std::vector<double>& orecv, double break_tol) {
  const std::size_t S = sizes.size();
  if (prtt1.size() != S || prttn.size() != S || prttd.size() != S || delay.size() != S || orecv.size() != S)
    throw Error("derive_loggp: inconsistent input sizes");
  if (n < 2) throw UsageError("PRTT trains need n >= 2 messages");
  LoggpFit f;
  if (S == 0) return f;
  const double n1 = static_cast<double>(n - 1);
  f.gap.resize(S);
  f.osend.resize(S);
  for (std::size_t k = 0; k < S; ++k) {
    f.gap[k] = (prttn[k] - prtt1[k]) / n1;
    f.osend[k] = (prttd[k] - prtt1[k]) / n1 - delay[k];
  }
  f.o_s = std::max(0.0, f.osend[0]);
  // The gap of a train is max(o, g + G s): a sender or receiver overhead bounds the small messages
  // (each costs the CPU o_s to send and o_r to receive, whatever the network's gap). A size whose
  // gap is that bound (within 2 %) says only g + G s <= o: it is left out of the line.
  const bool o_r_own = std::isfinite(orecv[0]) && orecv[0] < 0.9 * (0.5 * prtt1[0] - f.o_s);
  const double bound = std::max(f.o_s, o_r_own ? std::max(0.0, orecv[0]) : 0.0);
  std::vector<std::size_t> line;
  for (std::size_t k = 0; k < S; ++k)
    if (!(bound > 0 && std::fabs(f.gap[k] - bound) <= std::max(0.02 * bound, 10e-9))) line.push_back(k);
  f.overhead_bound = line.size() < S ? bound : 0.0;
  const auto ranges = protocol_ranges(sizes, f.gap, line, break_tol);
  if (!ranges.empty()) {
    const Line l = fit(sizes, f.gap, ranges.front());
    f.fit_points = ranges.front().size();
    f.g = l.g;
    f.G = l.G;
    double mean_abs = 0;
    for (auto i : ranges.front()) mean_abs += std::fabs(f.gap[i]);
    mean_abs /= static_cast<double>(ranges.front().size());
    f.residual = mean_abs > 0 ? l.rms / mean_abs : 0.0;
    if (ranges.size() > 1) {
      f.fit_break = static_cast<int>(sizes[ranges[1].front()]);
      const Line l2 = fit(sizes, f.gap, ranges[1]);
      f.g2 = l2.g;
      f.G2 = l2.G;
    }
  }
  if (f.g < 0) f.g = 0;  // an intercept below 0 of a steep line: no gap beyond the bytes'
  // L = PRTT(1,0,s0)/2 - o_s - o_r - G s0 only when o_r is the receive's own time; when it holds
  // the transfer (rendezvous) L would come out 0 (clamped) with nothing to say so: NaN instead,
  // and the reason. A negative L of noisy data is kept as it is (the analysis notes it).
  const auto sep = loggp_separability(sizes, prtt1.data(), f.osend.data(), orecv.data(), f.G, f.fit_break);
  f.separable = sep.separable;
  f.not_separable = sep.reason;
  if (!sep.separable) {
    f.o_r = f.L = std::nan("");
    return f;
  }
  f.o_r = std::max(0.0, orecv[0]);
  f.L = 0.5 * prtt1[0] - f.o_s - f.o_r - f.G * static_cast<double>(sizes[0]);
  return f;
}

}  // namespace nt::measure
