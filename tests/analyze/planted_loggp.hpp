// A loggp file's contents with planted per-class parameters, for the analyze tests and the
// analyze_make_synth helper: intra-node L=0.3 us, o_s=0.1 us, o_r=0.12 us, g=0.2 us, G=1e-10 s/B,
// fit break at 16 KiB; inter-node 1.5 / 0.4 / 0.5 / 0.8 us, 1e-9 s/B, break at 1 KiB. The PRTT
// curves are the exact LogGP values of those parameters (n = 8, d = 10 us).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "nt/loggp.hpp"

namespace nt::test {

inline LoggpData planted_loggp(const std::vector<int>& node_of_rank, std::vector<std::string> hosts) {
  LoggpData d;
  const int P = static_cast<int>(node_of_rank.size());
  d.ranks = P;
  d.sizes = {1, 64, 1024, 16384};
  d.prtt_n = 8;
  d.prtt_delay = 1e-5;
  d.info.params.proc_num = P;
  d.info.params.mode = Mode::loggp;
  d.info.meta.hosts = std::move(hosts);
  const std::size_t PP = static_cast<std::size_t>(P) * static_cast<std::size_t>(P), S = d.sizes.size();
  for (auto* v : {&d.L, &d.o_s, &d.o_r, &d.g, &d.G, &d.residual}) v->assign(PP, std::nan(""));
  d.fit_break.assign(PP, -1);
  for (auto* v : {&d.prtt1, &d.prttn, &d.prttd}) v->assign(PP * S, std::nan(""));
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) {
      if (i == j) continue;
      const bool intra = node_of_rank[static_cast<std::size_t>(i)] == node_of_rank[static_cast<std::size_t>(j)];
      const auto x = static_cast<std::size_t>(i) * static_cast<std::size_t>(P) + static_cast<std::size_t>(j);
      d.L[x] = intra ? 0.3e-6 : 1.5e-6;
      d.o_s[x] = intra ? 0.1e-6 : 0.4e-6;
      d.o_r[x] = intra ? 0.12e-6 : 0.5e-6;
      d.g[x] = intra ? 0.2e-6 : 0.8e-6;
      d.G[x] = intra ? 1e-10 : 1e-9;
      d.residual[x] = 0.01;
      d.fit_break[x] = intra ? 16384 : 1024;
      for (std::size_t s = 0; s < S; ++s) {
        const double one_way = d.L[x] + d.o_s[x] + d.o_r[x] + static_cast<double>(d.sizes[s]) * d.G[x];
        d.prtt1[x * S + s] = 2 * one_way;
        d.prttn[x * S + s] = 2 * one_way + 7 * d.g[x];
        d.prttd[x * S + s] = 2 * one_way + 7 * (d.prtt_delay + d.o_s[x]);
      }
    }
  return d;
}

}  // namespace nt::test
