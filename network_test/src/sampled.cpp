// The sampled schedule (--sample-pairs K): the pairs within each host, then one rank pair of each
// sampled pair of hosts alone (nt::sampled_host_pairs: landmark hosts against every host, every
// host with its next hosts in numbering and with K random partners), one after the other. The
// cells of a sampled host pair get its measured pair's values (fill_by_host_pair, as --host-pairs);
// the cells between hosts not sampled keep none and are missing (NaN) in every file.
//
// Why: with one rank per host, 100,000 hosts are 10^10 ordered pairs, beyond any batch job; the
// sampled pairs are O(H (K + L + N)), and a host's delays to a few landmarks and neighbours place
// it behind its switch while the random partners reach every switch and uplink.
#include <algorithm>

#include "schedules.hpp"
#include "nt/measure/mode.hpp"

namespace nt::measure {

SampledPairList::SampledPairList(const ModeSpec& spec, const Settings& s, const std::vector<int>& host_of,
                                 std::size_t length_index)
    : units_(host_of), list_(spec, unshuffled(s), static_cast<int>(host_of.size()), length_index),
      exchange_(spec.kind == TaskKind::exchange_pairs), k_(length_index),
      pairs_(sampled_host_pairs(units_.size(), s.schedule.sample)) {
  const auto H = static_cast<std::size_t>(units_.size());
  first_.assign(H + 1, 0);
  for (const auto& [a, b] : pairs_) {
    ++first_[static_cast<std::size_t>(a) + 1];
    ++first_[static_cast<std::size_t>(b) + 1];
  }
  for (std::size_t h = 0; h < H; ++h) first_[h + 1] += first_[h];
  by_host_.resize(first_[H]);
  std::vector<std::size_t> next(first_.begin(), first_.end() - 1);
  for (std::size_t i = 0; i < pairs_.size(); ++i) {
    by_host_[next[static_cast<std::size_t>(pairs_[i].first)]++] = static_cast<std::uint32_t>(i);
    by_host_[next[static_cast<std::size_t>(pairs_[i].second)]++] = static_cast<std::uint32_t>(i);
  }
}

std::size_t SampledPairList::bytes() const noexcept {
  return units_.bytes() + pairs_.capacity() * sizeof pairs_[0] + first_.capacity() * sizeof first_[0] +
         by_host_.capacity() * sizeof by_host_[0];
}

int SampledPairList::rank_of(int host, int other) const {
  const auto n = static_cast<std::size_t>(units_.count(host));
  return units_.begin(host)[(static_cast<std::size_t>(other) + k_) % n];
}

std::vector<int> SampledPairList::line_of(int rank) const {
  const int h = units_.of(rank);
  std::vector<int> line(units_.begin(h), units_.end(h));
  for (std::size_t j = first_[static_cast<std::size_t>(h)]; j < first_[static_cast<std::size_t>(h) + 1]; ++j) {
    const auto& [a, b] = pairs_[by_host_[j]];
    const int other = a == h ? b : a;
    line.insert(line.end(), units_.begin(other), units_.end(other));
  }
  std::sort(line.begin(), line.end());
  line.erase(std::unique(line.begin(), line.end()), line.end());
  return line;
}

Task SampledPairList::operator[](std::size_t u) const {
  const auto& [A, B] = pairs_[exchange_ ? u : u / 2];
  const bool back = !exchange_ && u % 2 == 1;
  const int a = back ? B : A, b = back ? A : B;
  const int x = rank_of(a, b), y = rank_of(b, a);
  return exchange_ ? list_.pair_task(std::min(x, y), std::max(x, y)) : list_.pair_task(x, y);
}

std::optional<std::vector<std::size_t>> SampledPairList::positions_of(int rank) const {
  const int h = units_.of(rank);
  std::vector<std::size_t> pos;
  for (std::size_t j = first_[static_cast<std::size_t>(h)]; j < first_[static_cast<std::size_t>(h) + 1]; ++j) {
    const std::size_t i = by_host_[j];
    const int other = pairs_[i].first == h ? pairs_[i].second : pairs_[i].first;
    if (rank_of(h, other) != rank) continue;
    if (exchange_) {
      pos.push_back(i);
    } else {
      pos.push_back(2 * i);
      pos.push_back(2 * i + 1);
    }
  }
  std::sort(pos.begin(), pos.end());
  return pos;
}

std::size_t run_sampled_schedule(Ctx& c, std::size_t k, std::int64_t length, const StepHook& on_step) {
  const Units u(c.hosts);
  run_host_phase(c, u, length);
  const SampledPairList list(c.spec, c.settings, c.hosts, k);
  const std::size_t bytes = c.settings.schedule.by_switch ? run_host_lanes(c, list, k, length, on_step)
                                                          : run_sequential(c, list, length, on_step);
  // The cells this rank's line holds samples of; every other keeps none (NaN), and
  // fill_by_host_pair fills those of the sampled host pairs after the summary.
  return bytes + list.bytes() + u.bytes() + keep_measured_cells(c, list);
}

LinePeers sampled_line_peers(const Ctx& c, std::size_t k) {
  const SampledPairList list(c.spec, c.settings, c.hosts, k);
  return {measured_peers(c, list), list.line_of(c.rank)};
}

std::size_t sampled_tasks(const Ctx& c) { return SampledPairList(c.spec, c.settings, c.hosts, 0).size(); }

}  // namespace nt::measure
