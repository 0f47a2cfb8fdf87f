// Pair clocks before the sweep: the clock offset of every pair of hosts, estimated once by the
// hosts' first ranks (the fastest of --sync-rounds ping-pongs, the same estimate each task made
// before), and given to every rank of each host. A task then only checks its host pair's offset
// with one ping-pong (Ctx::pair_offset): ranks of a host read its clock, so the offset of a host
// pair is that of all its rank pairs, at every length.
//
// The host pairs run in the rounds of a round-robin tournament of the hosts (H-1 rounds of
// disjoint pairs at once): 1-byte ping-pongs load no link measurably, and the fastest of K round
// trips is the one no other pair delayed. At 64 hosts: 63 rounds of 10 ping-pongs, where the
// tasks of one length ran 65,280 such estimates one after the other. The sampled schedule
// (--sample-pairs) measures the offsets of its sampled host pairs only: O(H (K + L + N)) pairs
// instead of H^2 / 2, the point of sampling at 100,000 hosts (and what a simulation holds per
// communicating pair).
#include <algorithm>
#include <string>
#include <vector>

#include "runner.hpp"

namespace nt::measure {

void measure_host_clocks(Ctx& c) {
  RunnerState& state = runner(c);
  if (state.host_clocks_measured || !c.spec.pair_clocks || c.hosts.empty()) return;
  state.host_clocks_measured = true;
  const int H = static_cast<int>(state.host_clocks.size());
  if (H < 2) return;
  std::vector<int> first(static_cast<std::size_t>(H), -1);  // each host's first rank
  for (int r = 0; r < c.size; ++r) {
    int& f = first[static_cast<std::size_t>(c.hosts[static_cast<std::size_t>(r)])];
    if (f < 0) f = r;
  }
  const int mine = c.hosts[static_cast<std::size_t>(c.rank)];
  const bool leads = first[static_cast<std::size_t>(mine)] == c.rank;
  std::vector<char> wanted(static_cast<std::size_t>(H), 1);  // the host pairs whose offset is needed
  if (leads && c.settings.schedule.sampled()) {
    std::fill(wanted.begin(), wanted.end(), 0);
    for (const auto& [a, b] : sampled_host_pairs(H, c.settings.schedule.sample))
      if (a == mine || b == mine) wanted[static_cast<std::size_t>(a == mine ? b : a)] = 1;
  }
  std::vector<double> table(2 * static_cast<std::size_t>(H), 0.0);  // [2h] offset, [2h + 1] round trip
  if (leads) {
    c.begin_task("the clock offsets of the host pairs", c.settings.timeout * H);
    for (int round = 0; round < rounds_of(H); ++round) {
      const int other = partner_in_round(H, round, mine);
      if (other < 0 || !wanted[static_cast<std::size_t>(other)]) continue;  // the same verdict on both sides
      const int peer = first[static_cast<std::size_t>(other)];
      double pair[2] = {0, 0};
      if (mine < other) {  // the lower host leads and tells the other what it found
        const auto [off, rtt] = c.estimate_offset(peer, true);
        pair[0] = off;
        pair[1] = rtt;
        c.send(pair, 2, MPI_DOUBLE, peer, kTagSync);
      } else {
        c.estimate_offset(peer, false);
        c.recv(pair, 2, MPI_DOUBLE, peer, kTagSync);
        pair[0] = -pair[0];
      }
      table[2 * static_cast<std::size_t>(other)] = pair[0];
      table[2 * static_cast<std::size_t>(other) + 1] = pair[1];
      if (mine < other) ++state.fixed.host_offsets;
    }
    c.begin_task({}, 0);
  }
  // Every rank of the host gets its first rank's table.
  MPI_Comm host;
  MPI_Comm_split(c.comm, mine, c.rank, &host);
#ifdef NT_SMPI
  MPI_Bcast(table.data(), 2 * H, MPI_DOUBLE, 0, host);  // see idle_barrier: blocking under SMPI
#else
  MPI_Request req;
  MPI_Ibcast(table.data(), 2 * H, MPI_DOUBLE, 0, host, &req);
  c.idle_wait(req, idle_deadline(c, H),
              "timeout: rank " + std::to_string(c.rank) + " waited too long for the clock offsets of its host");
#endif
  MPI_Comm_free(&host);
  const double now = Ctx::now();
  for (int h = 0; h < H; ++h) {
    if (h == mine) continue;
    HostClock& k = state.host_clocks[static_cast<std::size_t>(h)];
    k.offset = table[2 * static_cast<std::size_t>(h)];
    k.rtt = table[2 * static_cast<std::size_t>(h) + 1];
    k.when = now;
  }
}

}  // namespace nt::measure
