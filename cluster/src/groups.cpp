// Topology classes of ranks from a clustered file (see rank_classes in cluster.hpp).
#include <map>
#include <memory>
#include <set>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "nt/json_text.hpp"
#include "nt/cluster/cluster.hpp"
#include "nt/clustered.hpp"
#include "nt/error.hpp"
#include "nt/netcdf.hpp"

namespace nt::cluster {

namespace {

bool swappable(const std::vector<int>& c, std::size_t P, std::size_t a, std::size_t b) {
  if (c[a * P + a] != c[b * P + b] || c[a * P + b] != c[b * P + a]) return false;
  for (std::size_t j = 0; j < P; ++j) {
    if (j == a || j == b) continue;
    if (c[a * P + j] != c[b * P + j] || c[j * P + a] != c[j * P + b]) return false;
  }
  return true;
}

// "0-7,9,12-15"
std::string ranges(const std::vector<int>& v) {
  std::string s;
  for (std::size_t q = 0; q < v.size();) {
    std::size_t e = q;
    while (e + 1 < v.size() && v[e + 1] == v[e] + 1) ++e;
    if (!s.empty()) s += ',';
    s += e == q ? std::to_string(v[q]) : fmt::format("{}-{}", v[q], v[e]);
    q = e + 1;
  }
  return s;
}

}  // namespace

RankClasses rank_classes(const std::vector<std::vector<int>>& regions, int P) {
  const auto n = static_cast<std::size_t>(P);
  for (const auto& c : regions)
    if (c.size() != n * n) throw Error("internal: region clustering of the wrong size");
  RankClasses rc;
  rc.class_of.assign(n, -1);
  for (std::size_t a = 0; a < n; ++a) {
    for (std::size_t k = 0; k < rc.members.size() && rc.class_of[a] < 0; ++k) {
      const auto rep = static_cast<std::size_t>(rc.members[k].front());
      bool all = true;
      for (const auto& c : regions) all = all && swappable(c, n, rep, a);
      if (all) rc.class_of[a] = static_cast<int>(k);
    }
    if (rc.class_of[a] < 0) {
      rc.class_of[a] = static_cast<int>(rc.members.size());
      rc.members.emplace_back();
    }
    rc.members[static_cast<std::size_t>(rc.class_of[a])].push_back(static_cast<int>(a));
  }
  return rc;
}

namespace {

// The file's dataset and every region's cluster of each pair: read from a clustered file, or
// clustered here (cluster_first) from any other.
std::unique_ptr<Dataset> open_regions(const std::filesystem::path& path, const Options* cluster_first,
                                      std::vector<std::vector<int>>& regions) {
  bool clustered = false;
  if (nc::sniff(path) != nc::Magic::none) {
    const nc::File probe = nc::File::open(path);
    clustered = probe.find_var("info") && probe.find_var("length");
  }
  if (clustered) {
    auto ds = open_clustered(path);
    const nc::File f = nc::File::open(path);
    const auto P = static_cast<std::size_t>(ds->ranks());
    const std::size_t nn = f.dim("n").length;
    const int vinfo = f.var("info").id;
    regions.resize(nn);
    for (std::size_t r = 0; r < nn; ++r) {
      for_each_info_block(*ds, r, {});  // every offset checked before P x P of them are held
      regions[r].resize(P * P);
      f.get(vinfo, {r, 0, 0}, {1, P, P}, regions[r].data());
    }
    return ds;
  }
  if (!cluster_first) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw FileError(path, "no such file");
    throw FileError(path, "not a clustered file (give --threshold to cluster it here, or run network_cluster "
                          "compress first)");
  }
  auto ds = open_dataset(path);
  CompressMemory memory;
  memory.keep_cluster_of = true;
  Result res = compress(*ds, *cluster_first, memory);
  for (auto& reg : res.regions) regions.push_back(std::move(reg.cluster_of));
  return ds;
}

// The hosts of a class's ranks, sorted (empty without host names).
std::set<std::string> hosts_of_class(const std::vector<int>& members, const std::vector<std::string>& hosts) {
  std::set<std::string> hs;
  if (hosts.empty()) return hs;
  for (int a : members) hs.insert(hosts[static_cast<std::size_t>(a)]);
  return hs;
}

std::string classes_json(const std::filesystem::path& path, std::size_t P, std::size_t nn, const RankClasses& rc,
                         const std::vector<std::string>& hosts,
                         const std::map<std::string, std::set<int>>& classes_of_host) {
  nlohmann::json j;
  j["file"] = path.string();
  j["ranks"] = P;
  j["regions"] = nn;
  j["class_of_rank"] = rc.class_of;
  j["classes"] = nlohmann::json::array();
  for (const auto& m : rc.members) {
    nlohmann::json c;
    c["ranks"] = m;
    if (!hosts.empty()) c["hosts"] = hosts_of_class(m, hosts);
    j["classes"].push_back(c);
  }
  nlohmann::json split = nlohmann::json::object();
  for (const auto& [h, cs] : classes_of_host)
    if (cs.size() > 1) split[h] = cs;
  j["hosts_split_over_classes"] = split;
  return nt::json_text(j, 2) + "\n";
}

std::string classes_text(const std::filesystem::path& path, std::size_t P, std::size_t nn, const RankClasses& rc,
                         const std::vector<std::string>& hosts,
                         const std::map<std::string, std::set<int>>& classes_of_host) {
  std::string o = fmt::format("{}: {} ranks in {} topology classes (ranks interchangeable in all {} regions)\n",
                              path.string(), P, rc.members.size(), nn);
  for (std::size_t k = 0; k < rc.members.size(); ++k) {
    const auto& m = rc.members[k];
    std::string hs;
    for (const auto& h : hosts_of_class(m, hosts)) hs += (hs.empty() ? "" : ",") + h;
    o += fmt::format("  class {}: {} ranks: {}{}\n", k, m.size(), ranges(m), hs.empty() ? "" : "  hosts: " + hs);
  }
  for (const auto& [h, cs] : classes_of_host)
    if (cs.size() > 1) {
      std::string list;
      for (int c : cs) list += (list.empty() ? "" : ", ") + std::to_string(c);
      o += fmt::format("  note: host {} is split over classes {}: some of its ranks behave differently\n", h, list);
    }
  return o;
}

}  // namespace

std::string groups_report(const std::filesystem::path& path, bool json, const Options* cluster_first) {
  std::vector<std::vector<int>> regions;
  const auto ds = open_regions(path, cluster_first, regions);
  const auto P = static_cast<std::size_t>(ds->ranks());
  const RankClasses rc = rank_classes(regions, ds->ranks());
  const auto& names = ds->meta().hosts;
  const std::vector<std::string> hosts = names.size() == P ? names : std::vector<std::string>{};
  // Classes per host: a host split over several classes holds a rank that behaves differently.
  std::map<std::string, std::set<int>> classes_of_host;
  for (std::size_t a = 0; a < hosts.size(); ++a) classes_of_host[hosts[a]].insert(rc.class_of[a]);
  return json ? classes_json(path, P, regions.size(), rc, hosts, classes_of_host)
              : classes_text(path, P, regions.size(), rc, hosts, classes_of_host);
}

}  // namespace nt::cluster
