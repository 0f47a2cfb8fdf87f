// The host pairs: --retest-hosts (after the concurrent rounds of a length, one rank pair of every
// pair of hosts measured alone, and each cell between two hosts given its host pair's isolated
// value), the --host-pairs schedule (those pairs alone and the pairs within each host, without the
// loaded pass), and the Units of the schedules.
//
// Why: a pair through a bottleneck (a leaf uplink that a quarter of the pairs cross) shares it
// with another lane in most rounds of any schedule with several pairs at once, so neither more
// samples nor the smallest of a host pair's loaded cells give its own delay (256 simulated ranks,
// 4 per host, 2:1 tree, an uplink at 1/8: the host-pair floor of --concurrent=4 was up to 4.5 %
// above the sequential delays and the leaves split). A host pair's ranks share its cables: one of
// its R^2 rank pairs measured alone is the pair's own delay for all of them, at 1/R^2 of the
// sequential schedule's pairs (R ranks per host).
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "schedules.hpp"
#include "nt/measure/mode.hpp"
#include "nt/stats.hpp"

namespace nt::measure {

Settings unshuffled(const Settings& s) {
  Settings plain = s;  // the pairs' own tasks, whatever the order of the sweep
  plain.schedule.shuffle = false;
  return plain;
}

Units::Units(const std::vector<int>& host_of) {
  const int P = static_cast<int>(host_of.size());
  const int H = host_of.empty() ? 0 : 1 + *std::max_element(host_of.begin(), host_of.end());
  by_host_ = H < P;
  const auto PU = static_cast<std::size_t>(P);
  first_.assign(static_cast<std::size_t>(by_host_ ? H : P) + 1, 0);
  unit_.resize(PU);
  for (std::size_t r = 0; r < PU; ++r) {
    unit_[r] = by_host_ ? host_of[r] : static_cast<int>(r);
    ++first_[static_cast<std::size_t>(unit_[r]) + 1];
  }
  std::partial_sum(first_.begin(), first_.end(), first_.begin());
  std::vector<int> next(first_.begin(), first_.end() - 1);
  ranks_.resize(PU);
  for (std::size_t r = 0; r < PU; ++r)
    ranks_[static_cast<std::size_t>(next[static_cast<std::size_t>(unit_[r])]++)] = static_cast<int>(r);
}

int Units::most_ranks() const {
  int m = 0;
  for (int u = 0; u < size(); ++u) m = std::max(m, count(u));
  return m;
}

HostPairList::HostPairList(const ModeSpec& spec, const Settings& s, const std::vector<int>& host_of,
                           std::size_t length_index)
    : units_(host_of), list_(spec, unshuffled(s), static_cast<int>(host_of.size()), length_index),
      H_(units_.size()), exchange_(spec.kind == TaskKind::exchange_pairs), k_(length_index) {
  const auto H = static_cast<std::size_t>(H_);
  n_ = H < 2 ? 0 : (exchange_ ? H * (H - 1) / 2 : H * (H - 1));
}

int HostPairList::rank_of(int host, int other) const {
  const auto n = static_cast<std::size_t>(units_.count(host));
  return units_.begin(host)[(static_cast<std::size_t>(other) + k_) % n];
}

std::size_t HostPairList::index_of(int a, int b) const {
  const auto H = static_cast<std::size_t>(H_), A = static_cast<std::size_t>(a), B = static_cast<std::size_t>(b);
  if (exchange_) return A * H - A * (A + 1) / 2 + (B - A - 1);
  return A * (H - 1) + (B < A ? B : B - 1);
}

Task HostPairList::operator[](std::size_t u) const {
  int a = 0, b = 0;
  if (exchange_) {  // row a (pairs (a, a+1 .. H-1)) starts at index_of(a, a + 1): the last start <= u
    int lo = 0, hi = H_ - 2;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (index_of(mid, mid + 1) <= u) lo = mid; else hi = mid - 1;
    }
    a = lo;
    b = a + 1 + static_cast<int>(u - index_of(a, a + 1));
  } else {
    const auto H1 = static_cast<std::size_t>(H_ - 1);
    a = static_cast<int>(u / H1);
    const auto j = static_cast<int>(u % H1);
    b = j < a ? j : j + 1;
  }
  const int x = rank_of(a, b), y = rank_of(b, a);
  return exchange_ ? list_.pair_task(std::min(x, y), std::max(x, y)) : list_.pair_task(x, y);
}

std::optional<std::vector<std::size_t>> HostPairList::positions_of(int rank) const {
  const int h = units_.of(rank);
  std::vector<std::size_t> pos;
  for (int other = 0; other < H_; ++other) {
    if (other == h || rank_of(h, other) != rank) continue;
    if (exchange_) {
      pos.push_back(index_of(std::min(h, other), std::max(h, other)));
    } else {
      pos.push_back(index_of(h, other));
      pos.push_back(index_of(other, h));
    }
  }
  std::sort(pos.begin(), pos.end());
  return pos;
}

void add_line_peers(const Ctx& c, const Task& t, std::vector<std::size_t>& peers) {
  const int holder = c.spec.results_in_rows ? t.x : t.y, peer = c.spec.results_in_rows ? t.y : t.x;
  if (holder == c.rank) peers.push_back(static_cast<std::size_t>(peer));
  if (c.spec.kind == TaskKind::exchange_pairs && t.y == c.rank && t.x != t.y) peers.push_back(static_cast<std::size_t>(t.x));
}

void run_host_phase(Ctx& c, const Units& u, std::int64_t length) {
  idle_barrier(c, 1, length);  // the previous length is written: no rank measures beside rank 0's writes
  run_within_host(c, u, length);
  run_self_exchange(c, length);
  idle_barrier(c, 2, length);
}

std::size_t run_host_pair_schedule(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step) {
  const Units u(c.hosts);
  run_host_phase(c, u, length);
  const HostPairList list(c.spec, c.settings, c.hosts, k);
  const std::size_t bytes =
      c.settings.schedule.by_switch ? run_host_lanes(c, list, k, length, on_step) : run_sequential(c, list, length, on_step);
  // The cells this rank's line holds samples of; every other keeps none (NaN in the _all file, its
  // statistics filled from its host pair by fill_by_host_pair after the summary).
  return bytes + u.bytes() + keep_measured_cells(c, list);
}

std::size_t keep_measured_cells(Ctx& c, const std::vector<std::size_t>& peers) {
  const auto P = static_cast<std::size_t>(c.size);
  std::vector<char> measured(P, 0);
  for (std::size_t q = 0; q < P; ++q) measured[q] = c.hosts[q] == c.hosts[static_cast<std::size_t>(c.rank)] ? 1 : 0;
  for (std::size_t q : peers) measured[q] = 1;
  SampleStore& store = runner(c).store;
  for (std::size_t j = 0; j < store.used.size(); ++j)  // every slot; its peer
    if (!measured[store.peers.empty() ? j : static_cast<std::size_t>(store.peers[j])]) store.used[j] = 0;
  return P;
}

LinePeers host_pair_line_peers(const Ctx& c, std::size_t k) {
  return {measured_peers(c, HostPairList(c.spec, c.settings, c.hosts, k)), {}};
}

void fill_by_host_pair(const Ctx& c, std::vector<double>& isolated) { fill_line_by_host_pair(c, {}, isolated); }

void fill_line_by_host_pair(const Ctx& c, const std::vector<int>& line, std::vector<double>& isolated) {
  const std::vector<Statistic>& stats = standard_statistics();
  const auto S = stats.size(), P = static_cast<std::size_t>(c.size), L = line.empty() ? P : line.size();
  const auto med = static_cast<std::size_t>(std::find(stats.begin(), stats.end(), Statistic::median) - stats.begin());
  auto host_at = [&](std::size_t j) { return c.hosts[line.empty() ? j : static_cast<std::size_t>(line[j])]; };
  const int mine = c.hosts[static_cast<std::size_t>(c.rank)];
  // The line's hosts, ascending: the same on every rank of this host (the exchange's layout).
  std::vector<int> hosts(L);
  for (std::size_t j = 0; j < L; ++j) hosts[j] = host_at(j);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  const std::size_t H = hosts.size();
  auto index = [&](int h) { return static_cast<std::size_t>(std::lower_bound(hosts.begin(), hosts.end(), h) - hosts.begin()); };
  struct Best {
    double median;
    int rank;
  };
  std::vector<Best> best(H, Best{std::numeric_limits<double>::infinity(), c.rank});
  std::vector<std::size_t> cell(H, L);
  for (std::size_t j = 0; j < L; ++j) {
    const int h = host_at(j);
    const double m = isolated[med * L + j];
    if (h != mine && std::isfinite(m) && m < best[index(h)].median) {
      best[index(h)].median = m;
      cell[index(h)] = j;
    }
  }
  MPI_Comm host;
  MPI_Comm_split(c.comm, mine, c.rank, &host);
  MPI_Allreduce(MPI_IN_PLACE, best.data(), static_cast<int>(H), MPI_DOUBLE_INT, MPI_MINLOC, host);
  std::vector<double> values(H * S, 0.0);  // the winning cell's statistics, from the rank holding it
  for (std::size_t h = 0; h < H; ++h)
    if (best[h].rank == c.rank && cell[h] < L)
      for (std::size_t s = 0; s < S; ++s) values[h * S + s] = isolated[s * L + cell[h]];
  MPI_Allreduce(MPI_IN_PLACE, values.data(), static_cast<int>(values.size()), MPI_DOUBLE, MPI_SUM, host);
  MPI_Comm_free(&host);
  for (std::size_t j = 0; j < L; ++j) {
    const int h = host_at(j);
    const std::size_t x = index(h);
    if (h == mine || !std::isnan(isolated[med * L + j]) || !std::isfinite(best[x].median)) continue;
    for (std::size_t s = 0; s < S; ++s) isolated[s * L + j] = values[x * S + s];
  }
}

}  // namespace nt::measure
