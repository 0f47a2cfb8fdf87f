// The loggp result file `<prefix>_loggp.nc` (written by network_test's loggp mode, read by
// network_analyze). CDF-2 like the raw files, with the same parameter scalars and attributes
// (test_type = 10), and per pair (x = sender, y = receiver; diagonal NaN):
//   double L(x, y), o_s(x, y), o_r(x, y), g(x, y), G(x, y)   // seconds; G in seconds per byte
//   double residual(x, y)                                   // relative RMS residual of the g+G*s fit
//   int fit_break(x, y)                                     // first size (bytes) where the fit breaks, -1 none
//   int separable(x, y)                                     // 1: L and o_r measured apart; 0: not (L, o_r NaN)
//   double g2(x, y), G2(x, y)                               // the gap line from fit_break on (NaN: none)
//   int size(s)                                             // the message sizes of the sweep
//   double prtt1(x, y, s), prttn(x, y, s), prttd(x, y, s)   // PRTT(1,0,s), PRTT(n,0,s), PRTT(n,d,s)
// global attributes: prtt_n (n), prtt_delay (d, seconds), method description.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "nt/params.hpp"

namespace nt {

struct LoggpData {
  FileInfo info;                       // params.mode == Mode::loggp
  int ranks = 0;
  std::vector<std::int64_t> sizes;     // bytes
  int prtt_n = 0;                      // messages per PRTT(n, ., s) train
  double prtt_delay = 0.0;             // d in seconds
  // Per pair, P*P values at [x*P + y].
  std::vector<double> L, o_s, o_r, g, G, residual;
  std::vector<int> fit_break;
  // Per pair and size, P*P*S values at [(x*P + y)*S + s].
  std::vector<double> prtt1, prttn, prttd;
  // Added (optional, empty when a file lacks them), per pair and size like prtt1:
  //   double delay(x, y, s)   d used for PRTT(n, d, s) at that size (seconds)
  //   double o_r_s(x, y, s)   measured receive overhead o_r(s)
  //   double o_s_s(x, y, s)   derived send overhead o_s(s) = (PRTT(n,d,s) - PRTT(1,0,s))/(n-1) - d
  std::vector<double> delay, orecv, osend;
  // Per pair (P*P, -1 on the diagonal; empty in files written before it existed): 1 when L and
  // o_r were measured apart, 0 when the receive overhead could not be told from the transfer
  // (loggp_separability), and then L and o_r of that pair are NaN.
  std::vector<int> separable;
  // Per pair (P*P; empty in older files): the gap line g2 + G2 s of the protocol range from
  // fit_break on, NaN without a break.
  std::vector<double> g2, G2;
};

// Whether a pair's receive overhead o_r was measured apart from the transfer. o_r is the time of a
// receive whose message was announced before it was posted; when the data only moves once the
// receive is posted (a rendezvous protocol, or SMPI's default) that time holds L + G s as well, and
// L = PRTT(1,0,s)/2 - o_s - o_r would be 0 with o_r standing for the whole one-way delay. Not
// separable when (1) o_r at the smallest size is 90 % or more of the one-way delay left after o_s,
// or (2) o_r there is half of it or more and grows with the size like the transfer: over the sizes
// below `upto` (all when < 0) its least-squares slope is at least half of G (and G > 0). A small o_r
// that grows is a per-byte receive cost (a copy), not the transfer. `reason` says which.
struct Separability {
  bool separable = true;
  std::string reason;
};
Separability loggp_separability(const std::vector<std::int64_t>& sizes, const double* prtt1, const double* osend,
                                const double* orecv, double G, std::int64_t upto = -1);

void write_loggp(const std::filesystem::path& path, const LoggpData& d, bool overwrite);
LoggpData read_loggp(const std::filesystem::path& path);

}  // namespace nt
