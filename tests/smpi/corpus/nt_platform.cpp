// SimGrid's own cluster topologies (FAT_TREE, DRAGONFLY, TORUS), built by SimGrid's C++ platform
// interface from a JSON spec, with faults on any link. Two products of this one file:
//
//   libnt_platform.so   smpirun -platform libnt_platform.so ... (the spec: $NT_PLATFORM_SPEC)
//   nt_platform_truth   nt_platform_truth SPEC.json TRUTH.json: the hosts with their coordinates and,
//                       per fault, the links it slowed and every ordered host pair whose route
//                       crosses them (what the analysis must find), from SimGrid's own routing.
//
// The topology and its routing are SimGrid's (create_fatTree_zone and friends), not the project's:
// this file only names the hosts, adds a loopback per host (the ranks of one host talk through it)
// and changes the links that a fault names. A fault names its links by a route, so that the
// corpus can say "the uplink of host 5's leaf" without knowing SimGrid's link names:
//   {"from": 5, "to": 60, "index": 1, "bw": 0.125, "lat": 1, "both": true}
// is the second link of the route from host 5 to host 60 (index < 0 counts from the end), and with
// "both" also its other direction (the _UP/_DOWN twin of a split-duplex link); or by name:
//   {"match": "blue_link_between_group_0_and_1", "bw": 0.5}
// slows every link whose name contains the text; with "direction": "UP" (or "DOWN") only those
// whose name ends so (one direction of a split-duplex link); or by exact names:
//   {"names": ["link_from_3_60_3_UP", ...], "bw": 0.5}
// bw and lat multiply the link's value. An optional "base" list of the same form changes links
// before the faults and is not a fault (e.g. uplinks faster than the host cables); an optional
// "noise" object varies every network link over time, seeded (nt_noise.hpp). With "emit_routes":
// true the truth also lists every link (name, bandwidth, latency as built, before the base and the
// faults) and every route as indices into that list, from which scripts/corpus_random.py draws
// faults by name and predicts each pair's delay.
#include "nt_noise.hpp"

#include <simgrid/s4u.hpp>

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
using nlohmann::json;

namespace {

using Coord = std::vector<unsigned long>;

struct Built {
  std::vector<sg4::Host*> hosts;          // by SimGrid's id within the cluster
  std::vector<Coord> coords;
  std::map<std::string, std::pair<double, double>> built;  // every link's bandwidth and latency as built
  json faults = json::array();            // per fault: the links changed
  std::shared_ptr<nt_corpus::Noise> noise;  // when the spec asks for noise
};

json read_spec(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read the platform spec " + path);
  return json::parse(in);
}

template <class T>
std::vector<T> list(const json& j) {
  return j.get<std::vector<T>>();
}

sg4::NetZone* create_cluster(const json& spec, sg4::NetZone* root, Built& b) {
  const int cores = spec.value("cores", 1);
  const double lo_bw = spec.value("loopback_bw", 1.0e11);
  const double lo_lat = spec.value("loopback_lat", 1.0e-7);
  auto netpoint = [&b, cores](sg4::NetZone* z, const Coord& coord, unsigned long id) {
    auto* h = z->create_host("host" + std::to_string(id), 1e9)->set_core_count(cores)->seal();
    if (b.hosts.size() <= id) {
      b.hosts.resize(id + 1);
      b.coords.resize(id + 1);
    }
    b.hosts[id] = h;
    b.coords[id] = coord;
    return std::make_pair(h->get_netpoint(), static_cast<simgrid::kernel::routing::NetPoint*>(nullptr));
  };
  auto loopback = [lo_bw, lo_lat](sg4::NetZone* z, const Coord&, unsigned long id) {
    return z->create_link("loopback" + std::to_string(id), lo_bw)
        ->set_latency(lo_lat)
        ->set_sharing_policy(sg4::Link::SharingPolicy::FATPIPE)
        ->seal();
  };
  const sg4::ClusterCallbacks cb(netpoint, loopback, {});
  const std::string topo = spec.at("topology");
  const json& p = spec.at("params");
  const double bw = spec.at("bandwidth");
  const double lat = spec.at("latency");
  const auto policy = sg4::Link::SharingPolicy::SPLITDUPLEX;
  if (topo == "FAT_TREE") {
    const sg4::FatTreeParams ft(p.at("levels"), list<unsigned>(p.at("down")), list<unsigned>(p.at("up")),
                                list<unsigned>(p.at("count")));
    return sg4::create_fatTree_zone("cluster", root, ft, cb, bw, lat, policy);
  }
  if (topo == "DRAGONFLY") {
    auto pair = [&p](const char* k) {
      auto v = list<unsigned>(p.at(k));
      return std::make_pair(v.at(0), v.at(1));
    };
    const sg4::DragonflyParams df(pair("groups"), pair("chassis"), pair("routers"), p.at("nodes"));
    return sg4::create_dragonfly_zone("cluster", root, df, cb, bw, lat, policy);
  }
  if (topo == "TORUS")
    return sg4::create_torus_zone("cluster", root, list<unsigned long>(p.at("dimensions")), cb, bw, lat, policy);
  throw std::runtime_error("unknown topology '" + topo + "' (FAT_TREE, DRAGONFLY or TORUS)");
}

std::vector<sg4::Link*> route(const sg4::Host* a, const sg4::Host* b) {
  std::vector<sg4::Link*> links;
  double latency = 0;
  a->route_to(b, links, &latency);
  return links;
}

// The other direction of a split-duplex link: name_UP <-> name_DOWN.
sg4::Link* twin(const sg4::Engine& e, const sg4::Link* l) {
  const std::string& n = l->get_name();
  for (const auto& [from, to] : {std::pair<std::string, std::string>{"_UP", "_DOWN"}, {"_DOWN", "_UP"}}) {
    if (n.size() > from.size() && n.compare(n.size() - from.size(), from.size(), from) == 0)
      return e.link_by_name_or_null(n.substr(0, n.size() - from.size()) + to);
  }
  return nullptr;
}

std::vector<sg4::Link*> fault_links(const sg4::Engine& e, const json& f, const Built& b) {
  std::vector<sg4::Link*> out;
  if (f.contains("names")) {
    for (const auto& n : f.at("names")) {
      auto* l = e.link_by_name_or_null(n.get<std::string>());
      if (l == nullptr) throw std::runtime_error("fault: no link named " + n.get<std::string>());
      out.push_back(l);
    }
  } else if (f.contains("match")) {
    const std::string text = f.at("match"), end = f.contains("direction") ? "_" + f.at("direction").get<std::string>() : "";
    for (auto* l : e.get_all_links()) {
      const std::string& n = l->get_name();
      const bool ends = n.size() >= end.size() && n.compare(n.size() - end.size(), end.size(), end) == 0;
      if (n.find(text) != std::string::npos && ends) out.push_back(l);
    }
  } else {
    const auto from = f.at("from").get<std::size_t>(), to = f.at("to").get<std::size_t>();
    if (from >= b.hosts.size() || to >= b.hosts.size()) throw std::runtime_error("fault: no such host");
    auto links = route(b.hosts[from], b.hosts[to]);
    long i = f.value("index", 0L);
    if (i < 0) i += static_cast<long>(links.size());
    if (i < 0 || i >= static_cast<long>(links.size())) throw std::runtime_error("fault: the route has no such link");
    out.push_back(links[static_cast<std::size_t>(i)]);
    if (f.value("both", false))
      if (auto* t = twin(e, out.back())) out.push_back(t);
  }
  if (out.empty()) throw std::runtime_error("fault " + f.dump() + " names no link");
  return out;
}

// The noise of the spec on every link of a route between two hosts (loopbacks excluded); a host's
// cable is the first link of its routes and its other direction.
std::shared_ptr<nt_corpus::Noise> make_noise(const json& j, const Built& b) {
  const auto spec = nt_corpus::read_noise(j);
  std::set<sg4::Link*> links;
  std::set<std::string> cables;
  const std::size_t H = b.hosts.size();
  for (std::size_t i = 0; i < H; ++i)
    for (std::size_t k = 0; k < H; ++k) {
      if (i == k) continue;
      auto r = route(b.hosts[i], b.hosts[k]);
      links.insert(r.begin(), r.end());
      if (!r.empty()) {
        cables.insert(r.front()->get_name());
        cables.insert(r.back()->get_name());
      }
    }
  return std::make_shared<nt_corpus::Noise>(spec, std::vector<sg4::Link*>(links.begin(), links.end()), cables);
}

Built build(const sg4::Engine& e, const json& spec) {
  Built b;
  auto* root = sg4::create_full_zone("root");
  create_cluster(spec, root, b)->seal();
  root->seal();
  for (auto* l : e.get_all_links()) b.built[l->get_name()] = {l->get_bandwidth(), l->get_latency()};
  for (const json& f : spec.value("base", json::array()))
    for (auto* l : fault_links(e, f, b)) {
      l->set_bandwidth(l->get_bandwidth() * f.value("bw", 1.0));
      l->set_latency(l->get_latency() * f.value("lat", 1.0));
    }
  for (const json& f : spec.value("faults", json::array())) {
    json changed = json::array();
    for (auto* l : fault_links(e, f, b)) {
      l->set_bandwidth(l->get_bandwidth() * f.value("bw", 1.0));
      l->set_latency(l->get_latency() * f.value("lat", 1.0));
      changed.push_back(l->get_name());
    }
    b.faults.push_back({{"spec", f}, {"links", changed}});
  }
  if (spec.contains("noise")) b.noise = make_noise(spec.at("noise"), b);
  return b;
}

// Every link as built and every route as indices into that list (hosts x hosts).
void add_routes(const Built& b, json& out) {
  std::map<std::string, std::size_t> index;
  json links = json::array();
  for (const auto& [name, v] : b.built) {
    index[name] = links.size();
    links.push_back({{"name", name}, {"bw", v.first}, {"lat", v.second}});
  }
  json routes = json::array();
  for (auto* a : b.hosts) {
    json row = json::array();
    for (auto* c : b.hosts) {
      json r = json::array();
      for (auto* l : route(a, c)) r.push_back(index.at(l->get_name()));
      row.push_back(r);
    }
    routes.push_back(row);
  }
  out["links"] = links;
  out["routes"] = routes;
}

// Per fault, every ordered host pair whose route crosses one of its links.
json truth(const Built& b) {
  const std::size_t H = b.hosts.size();
  std::vector<std::set<std::string>> fault_links(b.faults.size());
  for (std::size_t k = 0; k < b.faults.size(); ++k)
    for (const auto& n : b.faults[k]["links"]) fault_links[k].insert(n.get<std::string>());
  std::vector<json> pairs(b.faults.size(), json::array());
  json hops = json::array();  // links per route, a distance the analysis may see as classes
  for (std::size_t i = 0; i < H; ++i) {
    json row = json::array();
    for (std::size_t j = 0; j < H; ++j) {
      auto links = route(b.hosts[i], b.hosts[j]);
      row.push_back(i == j ? 0 : links.size());
      if (i == j) continue;
      for (std::size_t k = 0; k < fault_links.size(); ++k)
        for (auto* l : links)
          if (fault_links[k].count(l->get_name())) {
            pairs[k].push_back({i, j});
            break;
          }
    }
    hops.push_back(row);
  }
  json hosts = json::array();
  for (std::size_t i = 0; i < H; ++i) hosts.push_back({{"name", b.hosts[i]->get_name()}, {"coord", b.coords[i]}});
  json faults = b.faults;
  for (std::size_t k = 0; k < faults.size(); ++k) faults[k]["pairs"] = pairs[k];
  return {{"hosts", hosts}, {"hops", hops}, {"faults", faults}};
}

}  // namespace

// smpirun -platform libnt_platform.so: the spec comes from $NT_PLATFORM_SPEC.
extern "C" void load_platform(const sg4::Engine& e);
void load_platform(const sg4::Engine& e) {
  const char* path = std::getenv("NT_PLATFORM_SPEC");
  if (path == nullptr || *path == '\0') {
    std::cerr << "nt_platform: set NT_PLATFORM_SPEC to the platform's JSON spec\n";
    std::exit(2);
  }
  try {
    const Built b = build(e, read_spec(path));
    if (b.noise) nt_corpus::Noise::start(b.noise, b.hosts.at(0));  // SMPI's start fires no signal
  } catch (const std::exception& ex) {
    std::cerr << "nt_platform: error: " << ex.what() << "\n";
    std::exit(2);
  }
}

#ifdef NT_PLATFORM_TRUTH_MAIN
int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: nt_platform_truth SPEC.json TRUTH.json\n";
    return 2;
  }
  try {
    int simgrid_argc = 1;
    sg4::Engine e(&simgrid_argc, argv);
    const json spec = read_spec(argv[1]);
    const Built b = build(e, spec);
    json t = truth(b);
    if (spec.value("emit_routes", false)) add_routes(b, t);
    std::ofstream out(std::string(argv[2]) + ".tmp");
    out << t.dump() << "\n";
    out.close();
    if (!out || std::rename((std::string(argv[2]) + ".tmp").c_str(), argv[2]) != 0)
      throw std::runtime_error(std::string("cannot write ") + argv[2]);
  } catch (const std::exception& ex) {
    std::cerr << "nt_platform_truth: error: " << ex.what() << "\n";
    return 2;
  }
  return 0;
}
#endif
