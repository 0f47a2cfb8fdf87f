// The steps of --sample-pairs --switch-map at sizes no simulation reaches (the plan for 100,000
// hosts): H hosts of one rank in G switches of consecutive hosts, the sampled host pairs of
// nt::sampled_host_pairs, the rounds of the switches' 1-factorisation as network_test draws them
// (nt::measure::Factorisation, --rounds random). A step is one host pair measured in the fullest
// lane of a round (the lanes run at once), then in the fullest switch: nt::measure::lane_steps,
// which network_test's estimate calls too. Prints the host pairs, the steps with the sequential
// sample's (every host pair one after the other) beside them, and the lanes' share.
//
//   nt_sampled_lanes_steps H G [K L N SEED]      (defaults: K 4, L 2, N 2, seed 1)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "nt/measure/schedule.hpp"
#include "nt/schedule.hpp"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: nt_sampled_lanes_steps HOSTS SWITCHES [K L N SEED]\n");
    return 2;
  }
  const int H = std::atoi(argv[1]), G = std::atoi(argv[2]);
  nt::Sampling s;
  s.partners = argc > 3 ? std::atoi(argv[3]) : 4;
  s.landmarks = argc > 4 ? std::atoi(argv[4]) : 2;
  s.neighbours = argc > 5 ? std::atoi(argv[5]) : 2;
  s.seed = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 1;
  if (H < 2 || G < 1 || G > H) {
    std::fprintf(stderr, "nt_sampled_lanes_steps: need 2 <= HOSTS and 1 <= SWITCHES <= HOSTS\n");
    return 2;
  }
  const auto of = [&](int h) { return static_cast<std::size_t>(static_cast<long long>(h) * G / H); };
  const auto pairs = nt::sampled_host_pairs(H, s);
  const auto g = static_cast<std::size_t>(G);
  std::vector<std::size_t> in_lane(g * g, 0);
  for (const auto& [a, b] : pairs) ++in_lane[std::min(of(a), of(b)) * g + std::max(of(a), of(b))];
  const nt::measure::Factorisation f(G, s.seed, 0, 0, true, false);
  const std::size_t total = nt::measure::lane_steps(f, G, [&](int X, int Y) {
    return in_lane[static_cast<std::size_t>(X) * g + static_cast<std::size_t>(Y)];
  });
  std::size_t within = 0, busiest = 0;  // every pair of switches meets in one round: its fullest lane
  for (std::size_t X = 0; X < g; ++X) {
    within = std::max(within, in_lane[X * g + X]);
    for (std::size_t Y = X + 1; Y < g; ++Y) busiest = std::max(busiest, in_lane[X * g + Y]);
  }
  const std::size_t steps = total - within;
  std::printf("hosts %d switches %d partners %d landmarks %d neighbours %d seed %llu: %zu host pairs; lanes: %d "
              "rounds, %zu steps across switches (fullest lane %zu) + %zu within the fullest switch = %zu steps, "
              "%.4f of the %zu one after the other\n",
              H, G, s.partners, s.landmarks, s.neighbours, static_cast<unsigned long long>(s.seed), pairs.size(),
              f.rounds(), steps, busiest, within, steps + within,
              static_cast<double>(steps + within) / static_cast<double>(pairs.size()), pairs.size());
  return 0;
}
