// LogGP derivation (pure). Inputs per size s_k: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d_k,s), o_r(s).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace nt::measure {

struct LoggpFit {
  double L = 0, o_s = 0, o_r = 0, g = 0, G = 0, residual = 0;
  int fit_break = -1;             // first size where the fit breaks, -1 none
  std::size_t fit_points = 0;     // sizes used by the fit
  std::vector<double> gap;        // (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1)
  std::vector<double> osend;      // (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d
};
LoggpFit derive_loggp(const std::vector<std::int64_t>& sizes, int n, const std::vector<double>& prtt1,
                      const std::vector<double>& prttn, const std::vector<double>& prttd,
                      const std::vector<double>& delay, const std::vector<double>& orecv, double break_tol);

}  // namespace nt::measure
