// network_analyze compare on pairs of runs from a generator of these tests only (not
// nt::synthesize, not test_heldout's): its own link classes, a lognormal factor per cell, rare
// gross outliers, a new rank placement and new noise in every run, host names shared by the runs.
// No-change pairs must give no finding; planted changes must be found, and name only the hosts
// and ranks involved.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <tuple>

#include "analysis_test_util.hpp"
#include "nt/analysis/compare.hpp"
#include "nt/analysis/html.hpp"
#include "nt/error.hpp"

namespace na = nt::analysis;

namespace {

struct Plan {
  int nodes = 8, rpn = 4, switches = 2;
  double noise = 0.01;        // lognormal sigma per cell
  double outliers = 0.002;    // fraction of cells x U(2, 5)
  std::map<int, double> slow{};                        // node -> factor on all its links
  std::vector<std::tuple<int, int, double>> one_way{}; // sender node, receiver node, factor
  double inter_switch_factor = 1.0;                     // every link between switches
  std::tuple<int, int, double> switch_pair{-1, -1, 1.0};  // links between these two switches (both ways)
  std::pair<int, double> switch_uplink{-1, 1.0};           // every link leaving or entering this switch
  std::set<int> absent{};                               // nodes not in this run
  int moved = -1, moved_to = 0;                         // a node on another switch
  std::int64_t step_at = 0;                             // protocol step (+2.5 us) from this length on
  std::uint64_t seed = 1;
};

struct Gen {
  na::Cube cube;
  std::map<int, std::vector<int>> ranks_of;  // node -> ranks
};

Gen generate(const Plan& p) {
  Gen g;
  std::mt19937_64 rng(p.seed * 104729 + 3);
  std::vector<int> node_of;
  for (int n = 0; n < p.nodes; ++n)
    if (!p.absent.count(n))
      for (int q = 0; q < p.rpn; ++q) node_of.push_back(n);
  std::shuffle(node_of.begin(), node_of.end(), rng);
  const int P = static_cast<int>(node_of.size());
  const int per = (p.nodes + p.switches - 1) / p.switches;
  auto sw = [&](int n) { return n == p.moved ? p.moved_to : n / per; };
  na::Cube& c = g.cube;
  c.P = P;
  c.source = "gen" + std::to_string(p.seed);
  for (int r = 0; r < P; ++r) {
    c.hosts.push_back("host-" + std::to_string(node_of[static_cast<std::size_t>(r)]));
    g.ranks_of[node_of[static_cast<std::size_t>(r)]].push_back(r);
  }
  for (int e = 0; e <= 20; e += 1) c.lengths.push_back(e == 0 ? 0 : std::int64_t{1} << (e - 1));
  c.v.assign(c.lengths.size() * static_cast<std::size_t>(P) * static_cast<std::size_t>(P), std::nanf(""));
  std::normal_distribution<double> N(0.0, 1.0);
  std::uniform_real_distribution<double> U(0.0, 1.0);
  for (std::size_t k = 0; k < c.count(); ++k) {
    const double m = static_cast<double>(c.lengths[k]);
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) {
        if (i == j) continue;
        const int a = node_of[static_cast<std::size_t>(i)], b = node_of[static_cast<std::size_t>(j)];
        double t;
        if (a == b) t = 0.4e-6 + m / 8e9;
        else if (sw(a) == sw(b)) t = 1.5e-6 + m / 5e9;
        else t = (2.9e-6 + m / 2.5e9) * p.inter_switch_factor;
        if (p.step_at > 0 && c.lengths[k] >= p.step_at && a != b) t += 2.5e-6;
        if (p.slow.count(a)) t *= p.slow.at(a);
        else if (p.slow.count(b)) t *= p.slow.at(b);
        if (auto [s1, s2, f] = p.switch_pair; (sw(a) == s1 && sw(b) == s2) || (sw(a) == s2 && sw(b) == s1)) t *= f;
        if (auto [u, f] = p.switch_uplink; u >= 0 && (sw(a) == u) != (sw(b) == u)) t *= f;
        for (auto [s, r, f] : p.one_way)
          if (a == s && b == r) t *= f;
        t *= std::exp(p.noise * N(rng));
        if (U(rng) < p.outliers) t *= 2.0 + 3.0 * U(rng);
        c.at(k, i, j) = static_cast<float>(t);
      }
  }
  return g;
}

std::vector<int> sorted(std::vector<int> v) {
  std::sort(v.begin(), v.end());
  return v;
}

std::string kinds(const na::Comparison& c) {
  std::string s;
  for (const auto& f : c.findings) s += name_of(f.kind) + ": " + f.detail + "\n";
  return s;
}

Plan shape(std::uint64_t seed) {
  // 20 shapes: 6..16 nodes, 1..4 ranks per node, 1..3 switches, 0.5..5 % noise.
  std::mt19937_64 rng(seed * 7 + 1);
  Plan r{.nodes = 6 + static_cast<int>(rng() % 11), .rpn = 1 + static_cast<int>(rng() % 4),
         .switches = 1 + static_cast<int>(rng() % 3),
         .noise = 0.005 + 0.045 * static_cast<double>(rng() % 1000) / 1000.0};
  return r;
}

}  // namespace

// 20 no-change pairs of this generator: new placement and new noise, nothing else changed.
// Every finding kind has one name, the one the outputs print, and that name parses back.
TEST(Compare, EveryFindingKindHasOneNameThatParsesBack) {
  const auto seen =
      nt::test::expect_names_round_trip(na::finding_kind_names(), [](const std::string& n) { return na::finding_kind(n); });
  for (const auto& [name, kind] : na::finding_kind_names()) {
    // The families are the names' prefixes.
    EXPECT_EQ(na::is_link_change(kind), name.rfind("link_", 0) == 0) << name;
    EXPECT_EQ(na::is_class_change(kind), name.rfind("class_", 0) == 0) << name;
    EXPECT_EQ(na::is_host_change(kind), name.rfind("node_", 0) == 0 || name.rfind("link_", 0) == 0 ||
                                            name.rfind("intra_", 0) == 0 || name.rfind("switch_", 0) == 0)
        << name;
  }
  EXPECT_EQ(seen.size(), 17u);
  EXPECT_FALSE(na::finding_kind("node").has_value());
}

TEST(Compare, TwentyNoChangePairsGiveNoFinding) {
  for (std::uint64_t s = 1; s <= 20; ++s) {
    Plan r = shape(s);
    r.seed = 1000 + s;
    const Gen b = generate(r);
    r.seed = 2000 + s;
    const Gen c = generate(r);
    const auto cmp = na::compare_cubes(b.cube, c.cube);
    EXPECT_TRUE(cmp.findings.empty()) << "pair " << s << " (" << r.nodes << " nodes x " << r.rpn << ", "
                                      << r.switches << " switches, noise " << r.noise << "):\n"
                                      << kinds(cmp);
    EXPECT_TRUE(cmp.by_host);
    EXPECT_TRUE(cmp.placement_differs);
  }
}

// The shape (8 nodes x 4 ranks, 2 switches, 1 % noise): a node 1.6x slower, a link 2x
// slower one way, each found alone and naming only its hosts and ranks.
TEST(Compare, SlowNodeAndOneWayLinkNameOnlyTheirRanks) {
  for (std::uint64_t s = 1; s <= 5; ++s) {
    Plan r;
    r.seed = 300 + s;
    const Gen b = generate(r);
    Plan rs = r;
    rs.seed = 400 + s;
    const int slow = static_cast<int>(s % 8);
    rs.slow[slow] = 1.6;
    const Gen c = generate(rs);
    const auto cmp = na::compare_cubes(b.cube, c.cube);
    ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
    const auto& f = cmp.findings.front();
    EXPECT_EQ(name_of(f.kind), "node_slower");
    EXPECT_EQ(f.hosts, std::vector<std::string>{"host-" + std::to_string(slow)});
    EXPECT_EQ(sorted(f.ranks_current), c.ranks_of.at(slow));
    EXPECT_EQ(sorted(f.ranks_baseline), b.ranks_of.at(slow));
    EXPECT_NEAR(f.ratio, 1.6, 0.05);
    EXPECT_GE(f.sigmas, 5.0);

    Plan rl = r;
    rl.seed = 500 + s;
    const int A = static_cast<int>(s % 8), B = static_cast<int>((s + 3) % 8);
    rl.one_way.emplace_back(A, B, 2.0);
    const Gen cl = generate(rl);
    const auto cmpl = na::compare_cubes(b.cube, cl.cube);
    ASSERT_EQ(cmpl.findings.size(), 1u) << kinds(cmpl);
    const auto& fl = cmpl.findings.front();
    EXPECT_EQ(name_of(fl.kind), "link_slower");
    EXPECT_EQ(fl.direction, "one-way");
    EXPECT_EQ(fl.hosts, (std::vector<std::string>{"host-" + std::to_string(A), "host-" + std::to_string(B)}));
    std::vector<int> want = cl.ranks_of.at(A);
    want.insert(want.end(), cl.ranks_of.at(B).begin(), cl.ranks_of.at(B).end());
    EXPECT_EQ(sorted(fl.ranks_current), sorted(want));
    EXPECT_NEAR(fl.ratio, 2.0, 0.08);
  }
}

// Noise-free runs (a simulator's) have a robust sigma of 0; a slow node must still be
// found (the ratio alone decides there), with 1 and 2 switches, and at 0.05 % noise; an unchanged
// noise-free pair gives nothing.
TEST(Compare, NoiseFreeRunsStillShowASlowNode) {
  for (double noise : {0.0, 0.0005})
    for (int switches : {1, 2}) {
      Plan r{.nodes = 8, .rpn = 2, .switches = switches, .noise = noise, .outliers = 0};
      r.seed = 700 + static_cast<std::uint64_t>(switches);
      const Gen b = generate(r);
      Plan same = r;
      same.seed = 710 + static_cast<std::uint64_t>(switches);
      EXPECT_TRUE(na::compare_cubes(b.cube, generate(same).cube).findings.empty());
      Plan rs = same;
      rs.slow[5] = 3.75;
      const Gen c = generate(rs);
      const auto cmp = na::compare_cubes(b.cube, c.cube);
      const std::string what = "noise " + std::to_string(noise) + ", " + std::to_string(switches) + " switch(es)";
      ASSERT_EQ(cmp.findings.size(), 1u) << what << "\n" << kinds(cmp);
      const auto& f = cmp.findings.front();
      EXPECT_EQ(name_of(f.kind), "node_slower") << what;
      EXPECT_EQ(f.hosts, std::vector<std::string>{"host-5"}) << what;
      EXPECT_EQ(sorted(f.ranks_current), c.ranks_of.at(5)) << what;
      EXPECT_NEAR(f.ratio, 3.75, 0.05) << what;
      EXPECT_GE(f.sigmas, 5.0) << what;
    }
}

// The other kinds: a node repaired (faster), a link slower both ways, a node gone, every
// inter-switch link slower, a node on another switch.
TEST(Compare, OtherChangesAreFound) {
  Plan r{.nodes = 12, .rpn = 2, .switches = 3, .noise = 0.02};
  Plan before = r;
  before.seed = 11;
  before.slow[4] = 1.8;
  Plan after = r;
  after.seed = 12;
  {
    const auto cmp = na::compare_cubes(generate(before).cube, generate(after).cube);
    ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
    EXPECT_EQ(name_of(cmp.findings[0].kind), "node_faster");
    EXPECT_EQ(cmp.findings[0].hosts, std::vector<std::string>{"host-4"});
    EXPECT_NEAR(cmp.findings[0].ratio, 1 / 1.8, 0.03);
  }
  Plan base = r;
  base.seed = 21;
  const Gen b = generate(base);
  {
    Plan x = r;
    x.seed = 22;
    x.one_way = {{1, 9, 1.7}, {9, 1, 1.7}};
    const auto cmp = na::compare_cubes(b.cube, generate(x).cube);
    ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
    EXPECT_EQ(name_of(cmp.findings[0].kind), "link_slower");
    EXPECT_EQ(cmp.findings[0].direction, "both");
    EXPECT_EQ(cmp.findings[0].hosts, (std::vector<std::string>{"host-1", "host-9"}));
  }
  {
    Plan x = r;
    x.seed = 23;
    x.absent = {7};
    const auto cmp = na::compare_cubes(b.cube, generate(x).cube);
    ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
    EXPECT_EQ(name_of(cmp.findings[0].kind), "node_missing");
    EXPECT_EQ(cmp.findings[0].hosts, std::vector<std::string>{"host-7"});
    EXPECT_EQ(sorted(cmp.findings[0].ranks_baseline), generate(base).ranks_of.at(7));
    // ... and the other way round: a node added.
    const auto back = na::compare_cubes(generate(x).cube, b.cube);
    ASSERT_EQ(back.findings.size(), 1u) << kinds(back);
    EXPECT_EQ(name_of(back.findings[0].kind), "node_added");
  }
  {
    Plan x = r;
    x.seed = 24;
    x.inter_switch_factor = 1.4;
    const auto cmp = na::compare_cubes(b.cube, generate(x).cube);
    ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
    EXPECT_EQ(name_of(cmp.findings[0].kind), "class_slower");
    EXPECT_NE(cmp.findings[0].detail.find("inter-switch"), std::string::npos);
    EXPECT_TRUE(cmp.findings[0].ranks_current.empty());
  }
  {
    Plan x = r;
    x.seed = 25;
    x.moved = 2;  // from switch 0 to switch 2
    x.moved_to = 2;
    const auto cmp = na::compare_cubes(b.cube, generate(x).cube);
    bool moved = false;
    for (const auto& f : cmp.findings) {
      if (name_of(f.kind) == "node_moved") {
        moved = true;
        EXPECT_EQ(f.hosts, std::vector<std::string>{"host-2"});
      }
      for (const auto& h : f.hosts) EXPECT_EQ(h, "host-2") << kinds(cmp);  // nothing else named
    }
    EXPECT_TRUE(moved) << kinds(cmp);
  }
}

// A topology change never hides a host's finding: a node on another switch and a slow
// node in the same run are both reported. (Reports that group one network apart, no move:
// tests/smpi, case compare, where a noise-free baseline's report misses the switch level.)
TEST(Compare, MoveAndSlowNodeAreBothReported) {
  Plan r{.nodes = 12, .rpn = 2, .switches = 3, .noise = 0.01};
  r.seed = 31;
  const Gen b = generate(r);
  Plan x = r;
  x.seed = 32;
  x.moved = 2;
  x.moved_to = 2;
  x.slow[7] = 2.0;
  const auto cmp = na::compare_cubes(b.cube, generate(x).cube);
  std::map<std::string, std::vector<std::string>> found;
  for (const auto& f : cmp.findings) found[name_of(f.kind)] = f.hosts;
  EXPECT_EQ(found["node_moved"], std::vector<std::string>{"host-2"}) << kinds(cmp);
  EXPECT_EQ(found["node_slower"], std::vector<std::string>{"host-7"}) << kinds(cmp);
}

TEST(Compare, ProtocolThresholdChange) {
  Plan r;
  r.noise = 0.01;
  r.seed = 31;
  r.step_at = 16384;
  const Gen b = generate(r);
  r.seed = 32;
  r.step_at = 65536;
  const auto cmp = na::compare_cubes(b.cube, generate(r).cube);
  bool found = false;
  for (const auto& f : cmp.findings)
    if (name_of(f.kind) == "threshold_changed") {
      found = true;
      EXPECT_NE(f.detail.find("16 KiB"), std::string::npos) << f.detail;
      EXPECT_NE(f.detail.find("64 KiB"), std::string::npos) << f.detail;
    }
  EXPECT_TRUE(found) << kinds(cmp);
}

TEST(Compare, BadInputIsAUsageError) {
  Plan r;
  r.seed = 41;
  const Gen b = generate(r);
  r.seed = 42;
  Gen c = generate(r);
  na::Cube other = c.cube;
  other.mode = nt::Mode::async_one_to_one;
  EXPECT_THROW(na::compare_cubes(b.cube, other), nt::UsageError);
  other = c.cube;
  other.statistic = nt::Statistic::average;
  EXPECT_THROW(na::compare_cubes(b.cube, other), nt::UsageError);
  other = c.cube;
  for (auto& h : other.hosts) h = "other-" + h;
  EXPECT_THROW(na::compare_cubes(b.cube, other), nt::UsageError);
  // Host names on one side only and another placement: the node groups differ, so no match by number.
  other = c.cube;
  other.hosts.clear();
  EXPECT_THROW(na::compare_cubes(b.cube, other), nt::UsageError);
  // ... the same placement (the baseline itself with new noise would do; here: the same cube): matched by number.
  na::Cube same = b.cube;
  same.hosts.clear();
  const auto cmp = na::compare_cubes(b.cube, same);
  EXPECT_FALSE(cmp.by_host);
  EXPECT_TRUE(cmp.findings.empty()) << kinds(cmp);
  // No common length.
  other = c.cube;
  for (auto& l : other.lengths) l = l * 3 + 7;
  EXPECT_THROW(na::compare_cubes(b.cube, other), nt::UsageError);
}

TEST(Compare, PngIsWellFormed) {
  const std::string png = na::encode_png_rgb(2, 1, {255, 0, 0, 0, 0, 255});
  ASSERT_GE(png.size(), 8u + 25u + 12u);
  EXPECT_EQ(png.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(png.substr(12, 4), "IHDR");
  EXPECT_EQ(png.substr(png.size() - 8, 4), "IEND");
  EXPECT_EQ(na::base64("Man"), "TWFu");
  EXPECT_EQ(na::base64("Ma"), "TWE=");
  EXPECT_EQ(na::base64("M"), "TQ==");
  EXPECT_THROW(na::encode_png_rgb(2, 2, {1, 2, 3}), nt::Error);
}

// The path between two of three switches slower (an uplink): one finding for the switch pair, naming
// the hosts of both switches and no other.
TEST(Compare, SlowerPathBetweenTwoSwitches) {
  Plan r{.nodes = 12, .rpn = 2, .switches = 3, .noise = 0.02, .seed = 61};
  const Gen b = generate(r);
  r.seed = 62;
  r.switch_pair = {0, 1, 1.8};
  const auto cmp = na::compare_cubes(b.cube, generate(r).cube);
  ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
  const auto& f = cmp.findings.front();
  EXPECT_EQ(name_of(f.kind), "switch_link_slower");
  EXPECT_EQ(f.direction, "both");
  EXPECT_EQ(f.hosts, (std::vector<std::string>{"host-0", "host-1", "host-2", "host-3", "host-4", "host-5", "host-6",
                                               "host-7"}));
  EXPECT_NEAR(f.ratio, 1.8, 0.08);
}

// One switch's uplink slower: every link leaving or entering it. Only that switch's hosts are named.
TEST(Compare, SlowerUplinkOfOneSwitch) {
  Plan r{.nodes = 12, .rpn = 2, .switches = 3, .noise = 0.02, .seed = 71};
  const Gen b = generate(r);
  r.seed = 72;
  r.switch_uplink = {2, 1.8};
  const auto cmp = na::compare_cubes(b.cube, generate(r).cube);
  ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
  const auto& f = cmp.findings.front();
  EXPECT_EQ(name_of(f.kind), "switch_slower");
  std::vector<std::string> hosts = f.hosts;
  std::sort(hosts.begin(), hosts.end());
  EXPECT_EQ(hosts, (std::vector<std::string>{"host-10", "host-11", "host-8", "host-9"}));
  EXPECT_NEAR(f.ratio, 1.8, 0.08);
}

// Two switches, the links from the first to the second slower, the way back not: one one-way
// finding for the pair of switch groups (half of the class changed: not a class shift).
TEST(Compare, OneWayBetweenTwoSwitches) {
  Plan r;
  r.seed = 81;
  const Gen b = generate(r);
  r.seed = 82;
  for (int x = 0; x < 4; ++x)
    for (int y = 4; y < 8; ++y) r.one_way.emplace_back(x, y, 1.7);
  const auto cmp = na::compare_cubes(b.cube, generate(r).cube);
  ASSERT_EQ(cmp.findings.size(), 1u) << kinds(cmp);
  EXPECT_EQ(name_of(cmp.findings[0].kind), "switch_link_slower");
  EXPECT_EQ(cmp.findings[0].direction, "one-way");
  EXPECT_EQ(cmp.findings[0].hosts.size(), 8u);
  EXPECT_NEAR(cmp.findings[0].ratio, 1.7, 0.07);
}
