// Seeded noise on the links of a SimGrid platform (the corpus's noisy scenarios), included
// by nt_platform.cpp. The spec's "noise" object:
//
//   {"seed": 1, "bw": 0.1, "lat": 0.1, "period": 5e-5, "spike_prob": 0.002, "spike": 0.05}
//
// Every `period` simulated seconds each network link (not the hosts' loopbacks) draws a new
// bandwidth, its base (faults included) times a factor uniform in [1 - bw, 1], and a new latency,
// its base times a factor uniform in [1, 1 + lat]; with probability spike_prob a host's cable (one
// direction: the first link of its routes, or the last) stalls for that period, its bandwidth at
// `spike` times its base (OS noise, a rare outlier on one host: a 1 KiB message that meets it takes
// about 15 us more at 0.05). The draws come from one generator seeded by `seed`, over the links in
// name order: the same spec gives the same simulation.
//
// The outliers are stalls of bandwidth, not latency spikes, and the corpus sets lat to 0: SimGrid
// 3.32 aborts ("Variable penalty should not be negative", lmm/System.cpp) when a link's latency drops
// by much while a flow crosses it, which a spike's end does, and a message in its latency phase when
// its route's latency changes waits until the simulator's next event (a 1 KiB sample of 5 us took
// 54 us, the next period): an artifact of the simulator, not noise. Bandwidth changes have neither.
//
// SimGrid 3.32 accepts link profiles only before a link is sealed, and its cluster builders seal
// their links, so the noise is a daemon actor (started with the simulation, killed when the last
// MPI rank ends) that sets the links' values through the public s4u interface at each period.
#ifndef NT_CORPUS_NOISE_HPP
#define NT_CORPUS_NOISE_HPP

#include <simgrid/s4u.hpp>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace nt_corpus {

struct NoiseSpec {
  std::uint64_t seed = 1;
  double bw = 0;          // bandwidth factor in [1 - bw, 1]
  double lat = 0;         // latency factor in [1, 1 + lat]
  double period = 5e-5;   // simulated seconds between two draws
  double spike_prob = 0;  // per host cable and period
  double spike = 0.05;    // a stalled cable's bandwidth factor
};

inline NoiseSpec read_noise(const nlohmann::json& j) {
  NoiseSpec n;
  n.seed = j.value("seed", std::uint64_t{1});
  n.bw = j.value("bw", 0.0);
  n.lat = j.value("lat", 0.0);
  n.period = j.value("period", n.period);
  n.spike_prob = j.value("spike_prob", 0.0);
  n.spike = j.value("spike", n.spike);
  if (n.bw < 0 || n.bw >= 1 || n.lat < 0 || n.period <= 0 || n.spike_prob < 0 || n.spike_prob > 1 || n.spike <= 0 ||
      n.spike > 1)
    throw std::runtime_error("noise: bw in [0, 1), lat >= 0, period > 0, spike_prob and spike in [0, 1], spike > 0");
  return n;
}

class Noise {
 public:
  // links: every noisy link; cables: the subset that may spike. Bases are read now (after the faults).
  Noise(const NoiseSpec& spec, std::vector<simgrid::s4u::Link*> links, const std::set<std::string>& cables)
      : spec_(spec), rng_(spec.seed) {
    std::sort(links.begin(), links.end(),
              [](const auto* a, const auto* b) { return a->get_name() < b->get_name(); });
    for (auto* l : links)
      items_.push_back({l, l->get_bandwidth(), l->get_latency(), cables.count(l->get_name()) > 0});
  }

  // One draw for every link.
  void step() {
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (const auto& it : items_) {
      double bw = it.bw * (1.0 - spec_.bw * u(rng_));
      if (it.cable && spec_.spike_prob > 0 && u(rng_) < spec_.spike_prob) bw = it.bw * spec_.spike;
      it.link->set_bandwidth(bw);
      if (spec_.lat > 0) it.link->set_latency(it.lat * (1.0 + spec_.lat * u(rng_)));
    }
  }

  // The daemon that draws every period, from the start of the simulation.
  static void start(std::shared_ptr<Noise> noise, simgrid::s4u::Host* where) {
    simgrid::s4u::Actor::create("nt_noise", where, [noise]() {
      simgrid::s4u::Actor::self()->daemonize();
      for (;;) {
        noise->step();
        simgrid::s4u::this_actor::sleep_for(noise->spec_.period);
      }
    });
  }

 private:
  struct Item {
    simgrid::s4u::Link* link;
    double bw, lat;
    bool cable;
  };
  NoiseSpec spec_;
  std::mt19937_64 rng_;
  std::vector<Item> items_;
};

}  // namespace nt_corpus

#endif
