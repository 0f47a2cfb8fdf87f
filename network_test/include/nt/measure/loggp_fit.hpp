// LogGP derivation (pure). Inputs per size s_k: PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d_k,s), o_r(s).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace nt::measure {

struct LoggpFit {
  double L = 0, o_s = 0, o_r = 0, g = 0, G = 0, residual = 0;
  int fit_break = -1;             // first size where the fit breaks, -1 none
  std::size_t fit_points = 0;     // sizes used by the fit
  // The gap line of the range from fit_break on (NaN without a break): a protocol's own g and G.
  double g2 = std::nan(""), G2 = std::nan("");
  // The overhead that bounds the gap of small messages, max(o_s, o_r): the gap is
  // max(overhead_bound, g + G s); 0 when no size was left out of the line for it.
  double overhead_bound = 0;
  std::vector<double> gap;        // (PRTT(n,0,s) - PRTT(1,0,s)) / (n-1)
  std::vector<double> osend;      // (PRTT(n,d,s) - PRTT(1,0,s)) / (n-1) - d
  // false when o_r holds the transfer (nt::loggp_separability): then L and o_r are NaN, and
  // `not_separable` says why.
  bool separable = true;
  std::string not_separable;
};
LoggpFit derive_loggp(const std::vector<std::int64_t>& sizes, int n, const std::vector<double>& prtt1,
                      const std::vector<double>& prttn, const std::vector<double>& prttd,
                      const std::vector<double>& delay, const std::vector<double>& orecv, double break_tol);

}  // namespace nt::measure
