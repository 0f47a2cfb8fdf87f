// Unit tests of nt_analysis's fits on synthetic data (nt::synthesize): Hockney lines, protocol
// thresholds, the SimGrid export across a step; the models are in test_analysis_models.cpp, the
// topology and anomalies in test_analysis.cpp.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <tuple>
#include <filesystem>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "analysis_test_util.hpp"
#include "synth_clusters.hpp"
#include "planted_loggp.hpp"
#include "nt/analysis/anomalies.hpp"
#include "nt/analysis/cube.hpp"
#include "nt/analysis/exporters.hpp"
#include "nt/analysis/fits.hpp"
#include "nt/analysis/model_report.hpp"
#include "nt/analysis/models.hpp"
#include "nt/analysis/report.hpp"
#include "nt/analysis/topology.hpp"
#include "nt/error.hpp"
#include "nt/loggp.hpp"
#include "nt/stats.hpp"
#include "nt/synth.hpp"

namespace na = nt::analysis;
using nt::test::partition;

using namespace nt::test::synth_clusters;

// ---------------------------------------------------------------- fits

TEST(Hockney, FitRecoversNoiselessLine) {
  std::vector<double> m, t;
  for (int e = 0; e <= 20; ++e) {
    m.push_back(std::ldexp(1.0, e));
    t.push_back(1.7e-6 + m.back() * 3.1e-10);
  }
  const auto f = na::fit_hockney(m, t);
  EXPECT_NEAR(f.ts, 1.7e-6, 1.7e-6 * 1e-9);
  EXPECT_NEAR(f.tw, 3.1e-10, 3.1e-10 * 1e-9);
  EXPECT_NEAR(f.r2, 1.0, 1e-12);
  EXPECT_LT(f.rel_rms, 1e-9);
}

TEST(Hockney, ClassFitsRecoverSynthParametersWithinOnePercent) {
  nt::SynthParams p = cluster(4, 3, 16, 1);
  p.noise = 0.0;
  const auto h = fits_of(make(p));
  ASSERT_EQ(h.classes.size(), 2u);
  for (const auto& c : h.classes) {
    const double ts = true_ts(p, c.cls), tw = true_tw(p, c.cls);
    EXPECT_TRUE(c.thresholds.empty()) << c.name;
    ASSERT_EQ(c.ranges.size(), 1u);
    EXPECT_NEAR(c.ranges[0].fit.ts, ts, 0.01 * ts) << c.name;
    EXPECT_NEAR(c.ranges[0].fit.tw, tw, 0.01 * tw) << c.name;
  }
  for (const auto& pf : h.pairs) {
    const double ts = true_ts(p, pf.cls);
    ASSERT_EQ(pf.ranges.size(), 1u);
    EXPECT_NEAR(pf.ranges[0].ts, ts, 0.01 * ts);
  }
  EXPECT_EQ(h.pairs.size(), 12u * 11u);
}

TEST(Hockney, ProtocolThresholdSplitsShortAndLongRanges) {
  nt::SynthParams p = cluster(4, 2, 18, 1);
  p.noise = 0.01;
  p.protocol_step = 8192;
  const auto h = fits_of(make(p));
  ASSERT_EQ(h.classes.size(), 2u);
  for (const auto& c : h.classes) {
    ASSERT_EQ(c.thresholds.size(), 1u) << c.name;
    EXPECT_EQ(c.thresholds[0].length, 8192);
    EXPECT_EQ(c.thresholds[0].previous_length, 4096);
    ASSERT_EQ(c.ranges.size(), 2u);
    const double ts = true_ts(p, c.cls), tw = true_tw(p, c.cls);
    // Noise only makes delays grow (by about 0.7% for the median of |N|): 2% bounds.
    EXPECT_NEAR(c.ranges[0].fit.ts, ts, 0.02 * ts);
    EXPECT_NEAR(c.ranges[1].fit.ts, ts + p.protocol_extra, 0.02 * (ts + p.protocol_extra));
    EXPECT_NEAR(c.ranges[1].fit.tw, tw, 0.02 * tw);
  }
}

TEST(Hockney, ThresholdsIgnoreAnOutlierButSeeStepsUpAndDown) {
  std::vector<std::int64_t> len;
  std::vector<double> t;
  for (int e = 0; e <= 16; ++e) {
    len.push_back(std::int64_t{1} << e);
    t.push_back(1e-6 + static_cast<double>(len.back()) * 1e-9);
  }
  auto u = t;
  u[8] *= 3;  // one disturbed measurement is not a protocol switch
  EXPECT_TRUE(na::find_thresholds(len, u).empty());
  auto low = t;  // nor one fast one
  low[8] /= 3;
  EXPECT_TRUE(na::find_thresholds(len, low).empty());
  auto up = t;  // a rendezvous-like extra 1 us from 4 KiB on
  for (std::size_t k = 12; k < up.size(); ++k) up[k] += 1e-6;
  const auto th = na::find_thresholds(len, up);
  ASSERT_EQ(th.size(), 1u);
  EXPECT_EQ(th[0].length, 4096);
  EXPECT_GT(th[0].jump, 0.1);
  // The same step inside the class noise is not reported.
  EXPECT_TRUE(na::find_thresholds(len, up, {}, 0.25).empty());
  // A step that does not hold (only one length up, then back) is not a threshold.
  auto blip = t;
  for (std::size_t k = 12; k < 14; ++k) blip[k] *= 1.5;
  EXPECT_TRUE(na::find_thresholds(len, blip).empty());
  // Down as well: SMPI charges its receive overhead o_r below the eager threshold only,
  // so the curve drops by o_r there; one line over both sides gets the bandwidth wrong.
  auto down = t;
  for (std::size_t k = 12; k < down.size(); ++k) down[k] -= 0.8e-6;
  const auto dn = na::find_thresholds(len, down);
  ASSERT_EQ(dn.size(), 1u);
  EXPECT_EQ(dn[0].length, 4096);
  EXPECT_EQ(dn[0].previous_length, 2048);
  EXPECT_NEAR(dn[0].jump, (down[12] - t[12]) / t[12], 0.01);  // -15.7 %: the lines' step, signed
  // ... but not inside the class noise, nor as a dip that does not hold.
  EXPECT_TRUE(na::find_thresholds(len, down, {}, 0.25).empty());
  auto dip = t;
  for (std::size_t k = 12; k < 14; ++k) dip[k] /= 1.5;
  EXPECT_TRUE(na::find_thresholds(len, dip).empty());
  for (const auto& x : th) EXPECT_FALSE(x.slope);
  for (const auto& x : dn) EXPECT_FALSE(x.slope);
}

TEST(Hockney, ThresholdsSeeAChangeOfSlopeButNotACurve) {
  // A change of the bandwidth with no step (the lines cross at the switch; SMPI's bandwidth factor
  // changes so at 64 KiB): 1 ns/B up to 8 KiB, 2 ns/B beyond, either way.
  std::vector<std::int64_t> len;
  std::vector<double> faster, slower, bent;
  for (int e = 0; e <= 18; ++e) {
    len.push_back(std::int64_t{1} << e);
    const auto m = static_cast<double>(len.back());
    faster.push_back(2e-6 + std::min(m, 8192.0) * 2e-9 + std::max(0.0, m - 8192) * 1e-9);
    slower.push_back(2e-6 + std::min(m, 8192.0) * 1e-9 + std::max(0.0, m - 8192) * 2e-9);
    // one line bent a little everywhere (a protocol does not do this; a cache may): no switch
    bent.push_back((2e-6 + m * 1e-9) * (1 + 0.01 * std::sin(static_cast<double>(e))));
  }
  for (const auto* curve : {&faster, &slower}) {
    const auto th = na::find_thresholds(len, *curve);
    ASSERT_EQ(th.size(), 1u);
    EXPECT_TRUE(th[0].slope);
    EXPECT_TRUE(th[0].length == 16384 || th[0].length == 8192) << th[0].length;
    EXPECT_NEAR(th[0].slope_change, curve == &faster ? -0.5 : 1.0, 0.1);
    EXPECT_TRUE(na::find_thresholds(len, *curve, {}, 0.9).empty());  // within the class noise: none
  }
  EXPECT_TRUE(na::find_thresholds(len, bent).empty());
}

namespace {
// The reference network of a held-out platform, as network_test measures it on SMPI:
// 2 leaves x 2 hosts x `rpn` ranks; a message of m bytes takes o_s + L + (m + 16) G, plus o_r below
// the eager threshold of 16 KiB (SMPI charges o_r there only). L 4 us within a leaf, 8 us across,
// `intra` within a host; G 0.4 ns/B; o_s 0.5 us, o_r 1.5 us; a deterministic wobble of 0.2 %.
constexpr double kOs = 0.5e-6, kOr = 1.5e-6, kG = 0.4e-9;
na::Cube overhead_step_cube(int rpn, double intra = 1e-6) {
  na::Cube c;
  const int hosts = 4;
  c.P = hosts * rpn;
  for (int e = 0; e <= 18; e += (e < 10 ? 2 : 1)) c.lengths.push_back(e == 0 ? 0 : std::int64_t{1} << e);
  for (int r = 0; r < c.P; ++r) c.hosts.push_back(fmt::format("h{}", r / rpn));
  const auto P = static_cast<std::size_t>(c.P);
  c.v.assign(c.lengths.size() * P * P, 0.0f);
  for (std::size_t k = 0; k < c.lengths.size(); ++k)
    for (int i = 0; i < c.P; ++i)
      for (int j = 0; j < c.P; ++j) {
        if (i == j) continue;
        const int hi = i / rpn, hj = j / rpn;
        const double L = hi == hj ? intra : (hi / 2 == hj / 2 ? 4e-6 : 8e-6);
        const auto m = static_cast<double>(c.lengths[k]);
        const double wobble = 1 + 0.002 * std::sin(static_cast<double>(7 * i + 3 * j) + static_cast<double>(k));
        c.at(k, i, j) = static_cast<float>(
            wobble * (kOs + L + (m + 16) * kG + (c.lengths[k] < 16384 ? kOr : 0.0)));
      }
  return c;
}

// What SMPI makes of an exported platform for one message of m bytes from rank i to j: the sender's
// overhead smpi/ois, then the route's latencies times smpi/lat-factor and the payload (m + 16)
// over its slowest link's bandwidth times smpi/bw-factor (each factor list: the entry of the
// largest size below the payload; the overheads: below m itself).
struct SimgridText {
  std::map<std::string, std::pair<double, double>> links;  // id: latency s, bandwidth B/s
  std::map<std::string, std::string> host_of_rank;
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> routes;
  std::map<std::string, std::string> config;

  explicit SimgridText(const std::string& xml) {
    const std::regex prop(R"re(<prop id="([^"]+)" value="([^"]+)"/>)re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), prop), end; it != end; ++it) config[(*it)[1]] = (*it)[2];
    const std::regex host(R"re(<host id="([^"]+)"[^>]*>\s*<prop id="ranks" value="([^"]+)"/>)re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), host), end; it != end; ++it) {
      std::stringstream ranks((*it)[2]);
      for (std::string r; std::getline(ranks, r, ',');) host_of_rank[r] = (*it)[1];
    }
    const std::regex link(R"re(<link id="([^"]+)" bandwidth="([0-9.]+)MBps" latency="([0-9.]+)us")re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), link), end; it != end; ++it)
      links[(*it)[1]] = {std::stod((*it)[3]) * 1e-6, std::stod((*it)[2]) * 1e6};
    const std::regex route(R"re(<route src="([^"]+)" dst="([^"]+)"[^>]*>(.*?)</route>)re");
    const std::regex ctn(R"re(<link_ctn id="([^"]+)")re");
    for (std::sregex_iterator it(xml.begin(), xml.end(), route), end; it != end; ++it) {
      const std::string body = (*it)[3];
      auto& ids = routes[{(*it)[1], (*it)[2]}];
      for (std::sregex_iterator l(body.begin(), body.end(), ctn); l != end; ++l) ids.push_back((*l)[1]);
    }
  }
  // SimGrid's size-dependent lists: the values of the last entry whose size is below `size`
  // (before the first: the first).
  std::vector<double> lookup(const std::string& name, double size) const {
    const auto it = config.find(name);
    if (it == config.end()) return {0.0};
    std::vector<std::pair<double, std::vector<double>>> entries;
    std::stringstream list(it->second);
    for (std::string e; std::getline(list, e, ';');) {
      std::stringstream parts(e);
      std::string x;
      std::getline(parts, x, ':');
      entries.emplace_back(std::stod(x), std::vector<double>{});
      while (std::getline(parts, x, ':')) entries.back().second.push_back(std::stod(x));
    }
    std::sort(entries.begin(), entries.end());
    std::vector<double> v = entries.front().second;
    for (const auto& [at, values] : entries)
      if (size > at) v = values;
    return v;
  }
  double delay(int i, int j, double m) const {
    const auto& ids = routes.at({host_of_rank.at(std::to_string(i)), host_of_rank.at(std::to_string(j))});
    double lat = 0, bw = std::numeric_limits<double>::infinity();
    for (const auto& id : ids) {
      lat += links.at(id).first;
      bw = std::min(bw, links.at(id).second);
    }
    const auto o = lookup("smpi/ois", m);
    // SMPI's sleep per clock read (smpi/wtime): one falls inside every delay network_test measures.
    const auto wtime = config.find("smpi/wtime");
    return (wtime == config.end() ? 0.0 : std::stod(wtime->second)) + o[0] + (o.size() > 1 ? o[1] * m : 0.0) + lat * lookup("smpi/lat-factor", m + 16)[0] +
           (m + 16) / (bw * lookup("smpi/bw-factor", m + 16)[0]);
  }
};
}  // namespace

TEST(Hockney, AnOverheadChargedBelowTheThresholdOnlyStepsDownAndSplitsTheRanges) {
  // One Hockney range over the step got G 5-6 % low; per range it is G.
  const auto c = overhead_step_cube(2);
  const auto h = na::fit_classes_and_pairs(c, na::find_topology(c));
  ASSERT_EQ(h.classes.size(), 3u);
  for (const auto& f : h.classes) {
    ASSERT_EQ(f.thresholds.size(), 1u) << f.name;
    EXPECT_EQ(f.thresholds[0].length, 16384) << f.name;
    EXPECT_LT(f.thresholds[0].jump, 0.0) << f.name;
    ASSERT_EQ(f.ranges.size(), 2u) << f.name;
    EXPECT_NEAR(f.ranges.back().fit.tw, kG, 0.01 * kG) << f.name;
    EXPECT_NEAR(f.ranges.front().fit.tw, kG, 0.02 * kG) << f.name;
  }
  // The model without a loggp file takes that G.
  const auto m = na::make_model(c, nullptr, nullptr, "", {});
  for (const auto& p : m.params) EXPECT_NEAR(p.loggp.G, kG, 0.01 * kG) << p.name;
}

TEST(Export, SimgridGivesBackEveryClassAcrossAnAdditiveStep) {
  // One latency/bandwidth factor per length served every class, and o_r, an additive
  // step, is a different ratio for each: 2.3 % off at the threshold. The additive part is now an
  // overhead (smpi/os, smpi/ois), the rest the factors: every cell within 1 % (the wobble of the
  // cells around their class is 0.2 %), with one rank per host (two classes) and two (three).
  for (int rpn : {1, 2}) {
    const auto c = overhead_step_cube(rpn);
    na::ReportOptions o;
    o.find_deviation_beside = false;
    const auto r = na::make_report(c, o);
    const std::string xml = na::export_simgrid(r, c);
    const SimgridText sim(xml);
    EXPECT_FALSE(std::regex_search(xml, std::regex("[ =\":;]-[0-9]"))) << "a negative value: " << xml;
    double worst = 0;
    for (std::size_t k = 0; k < c.count(); ++k)
      for (int i = 0; i < c.P; ++i)
        for (int j = 0; j < c.P; ++j) {
          if (i == j) continue;
          const double want = c.at(k, i, j), got = sim.delay(i, j, static_cast<double>(c.lengths[k]));
          worst = std::max(worst, std::abs(got / want - 1));
          EXPECT_NEAR(got, want, 0.01 * want) << "rpn " << rpn << " length " << c.lengths[k] << " " << i << "->" << j;
        }
    EXPECT_LT(worst, 0.005) << "rpn " << rpn;
    // The additive part is the sender's overhead, the same for MPI_Send and MPI_Isend.
    ASSERT_TRUE(sim.config.count("smpi/os") && sim.config.count("smpi/ois")) << xml;
    EXPECT_EQ(sim.config.at("smpi/os"), sim.config.at("smpi/ois"));
  }
}

TEST(Hockney, NoThresholdOnPlainLinesWithNoise) {
  for (std::uint64_t seed : {1, 2, 3}) {
    nt::SynthParams p = cluster(3, 2, 20);
    p.seed = seed;
    p.noise = 0.05;
    auto s = make(p);
    const auto t = na::find_topology(s.cube);
    const auto h = na::fit_classes_and_pairs(s.cube, t);
    for (const auto& c : h.classes) EXPECT_TRUE(c.thresholds.empty()) << c.name << " seed " << seed;
  }
}
