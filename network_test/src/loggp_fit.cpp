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
};

// Least squares of y = g + G*x over [0, m), with G constrained to >= 0.
Line fit(const std::vector<std::int64_t>& xs, const std::vector<double>& ys, std::size_t m) {
  Line l;
  if (m == 0) return l;
  double sx = 0, sy = 0;
  for (std::size_t i = 0; i < m; ++i) {
    sx += static_cast<double>(xs[i]);
    sy += ys[i];
  }
  const double mx = sx / static_cast<double>(m), my = sy / static_cast<double>(m);
  double sxx = 0, sxy = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double dx = static_cast<double>(xs[i]) - mx;
    sxx += dx * dx;
    sxy += dx * (ys[i] - my);
  }
  l.G = sxx > 0 ? sxy / sxx : 0.0;
  if (l.G < 0) l.G = 0;
  l.g = my - l.G * mx;
  double ss = 0;
  for (std::size_t i = 0; i < m; ++i) {
    const double r = ys[i] - (l.g + l.G * static_cast<double>(xs[i]));
    ss += r * r;
  }
  l.rms = std::sqrt(ss / static_cast<double>(m));
  return l;
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
  // Grow the fitted range while the next size stays on the line; the first size that leaves it
  // marks a protocol change (e.g. eager -> rendezvous).
  // A protocol switch makes messages dearer from that size on, so a break needs the size AND the
  // next one (if any) above the line by more than the tolerance; a single slow or fast point
  // (noise, or a steep slope extrapolated from a few tiny sizes) does not break the fit.
  std::size_t m = std::min<std::size_t>(3, S);
  auto above = [&](const Line& l, std::size_t k) {
    const double pred = l.g + l.G * static_cast<double>(sizes[k]);
    return f.gap[k] - pred > std::max({break_tol * std::fabs(pred), 4.0 * l.rms, 50e-9});
  };
  for (std::size_t k = m; k < S; ++k) {
    const Line l = fit(sizes, f.gap, k);
    if (above(l, k) && (k + 1 == S || above(l, k + 1))) {
      f.fit_break = static_cast<int>(sizes[k]);
      break;
    }
    m = k + 1;
  }
  const Line l = fit(sizes, f.gap, m);
  f.fit_points = m;
  f.g = std::max(0.0, l.g);
  f.G = l.G;
  double mean_abs = 0;
  for (std::size_t i = 0; i < m; ++i) mean_abs += std::fabs(f.gap[i]);
  mean_abs /= static_cast<double>(m);
  f.residual = mean_abs > 0 ? l.rms / mean_abs : 0.0;
  f.o_s = std::max(0.0, f.osend[0]);
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
