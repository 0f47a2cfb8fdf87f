// Unit tests of nt_analysis's models, LogGP, exports and the commands' library side: hand-made
// loggp files and the worked examples of MODELS.md; the fits are in test_analysis_fits.cpp, the
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

// ---------------------------------------------------------------- models (MODELS.md checks)

TEST(Models, OptimalBroadcastTreeT8_6_2_4) {
  EXPECT_EQ(na::optimal_broadcast_time(8, 6, 2, 4), 24);
  const auto tree = na::optimal_broadcast_tree(8, 6, 2, 4);
  ASSERT_EQ(tree.size(), 8u);
  const std::vector<std::pair<int, int>> want = {{0, 24}, {1, 14}, {2, 4}, {3, 0}, {4, 10}, {5, 0}, {6, 6}, {7, 2}};
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(tree[i].proc, want[i].first);
    EXPECT_EQ(tree[i].time, want[i].second);
  }
  EXPECT_EQ(tree[0].children, (std::vector<int>{1, 4, 6, 7}));
  EXPECT_EQ(tree[1].children, (std::vector<int>{2, 3}));
  EXPECT_EQ(tree[4].children, (std::vector<int>{5}));
  for (int leaf : {2, 3, 5, 6, 7}) EXPECT_TRUE(tree[static_cast<std::size_t>(leaf)].children.empty());
  // T*(7; 6, 2, 4) drops node (7, 2).
  const auto t7 = na::optimal_broadcast_tree(7, 6, 2, 4);
  ASSERT_EQ(t7.size(), 7u);
  EXPECT_EQ(t7[0].children, (std::vector<int>{1, 4, 6}));
  // The real-valued min-heap tree has the same time.
  EXPECT_DOUBLE_EQ(na::optimal_broadcast_time_real(8, 6, 2, 4), 24.0);
}

TEST(Models, ReachCountsAndBounds) {
  const auto f = na::reach_counts(24, 6, 2, 4);
  EXPECT_EQ(f[9], 1);
  EXPECT_EQ(f[10], 2);
  EXPECT_EQ(f[14], 3);
  EXPECT_EQ(f[20], 5);
  EXPECT_EQ(f[23], 6);
  EXPECT_EQ(f[24], 8);
  // min{g, L+2o} log P <= T < max{g, L+2o} log(4P), and the real tree agrees with the integer one.
  for (auto [L, o, g] : {std::tuple{6, 2, 4}, std::tuple{1, 1, 5}, std::tuple{10, 0, 1}, std::tuple{3, 2, 2}})
    for (int P : {2, 3, 5, 8, 13, 64, 100, 1000}) {
      const int T = na::optimal_broadcast_time(P, L, o, g);
      const double lo = std::min(g, L + 2 * o) * std::log2(P), hi = std::max(g, L + 2 * o) * std::log2(4.0 * P);
      EXPECT_LE(lo, T + 1e-9);
      EXPECT_LT(T, hi);
      EXPECT_DOUBLE_EQ(na::optimal_broadcast_time_real(P, L, o, g), T) << P << " " << L << " " << o << " " << g;
    }
}

TEST(Models, Summation82OperandsOnS7_5_2_4Takes29Cycles) {
  const auto s = na::optimal_summation(82, 7, 5, 2, 4);
  EXPECT_EQ(s.T_broadcast, 24);
  EXPECT_EQ(s.operands_in_T, 47);
  EXPECT_EQ(s.time, 29);
}

TEST(Models, KChain) {
  const int P[] = {100, 200, 300, 400};
  // MODELS.md's example values are the seed's practical rule k* >= sqrt(P-1) (its Fig. 7 labels).
  const int rec[] = {10, 15, 18, 20};
  // The exact optimum of t(k) = ((P-1)/k + 1)a + (k-1)b for a=3, b=2 is near sqrt(a(P-1)/b).
  const int opt[] = {12, 17, 21, 24};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(na::kchain_recommended_k(P[i]), rec[i]);
    EXPECT_EQ(na::kchain_optimal_k(P[i], 3, 2), opt[i]);
    int brute = 1;
    for (int k = 1; k < P[i]; ++k)
      if (na::kchain_time(k, P[i], 3, 2) < na::kchain_time(brute, P[i], 3, 2)) brute = k;
    EXPECT_EQ(brute, opt[i]);
    const double ks = na::kchain_k_star(P[i], 3, 2);
    EXPECT_NEAR(na::kchain_time(1, P[i], 3, 2) * 0 + ((P[i] - 1) / ks + 1) * 3 + (ks - 1) * 2, na::kchain_optimal_time(P[i], 3, 2), 1e-9);
  }
}

TEST(Models, LogPAndHockneyCollectives) {
  na::LogGP p{6, 2, 4, 0};
  EXPECT_DOUBLE_EQ(na::logp_binomial_bcast(8, p, 1), 3 * 10.0);
  EXPECT_DOUBLE_EQ(na::logp_flat_bcast(8, p, 1), 10 + 6 * 4.0);
  EXPECT_DOUBLE_EQ(na::logp_optimal_bcast(8, p, 1), 24.0);
  na::Hockney h{2.0, 0.5};
  EXPECT_DOUBLE_EQ(na::hockney_bcast_binomial(8, h, 4), 3 * 4.0);
  EXPECT_DOUBLE_EQ(na::hockney_bcast_flat(8, h, 4), 7 * 4.0);
  EXPECT_DOUBLE_EQ(na::hockney_allgather_hypercube(16, h, 4), 2 * 4 + 0.5 * 4 * 15);
  EXPECT_DOUBLE_EQ(na::hockney_allgather_mesh(16, h, 4), 2 * 2 * 3 + 0.5 * 4 * 15);
  EXPECT_DOUBLE_EQ(na::hockney_alltoall_ring(4, h, 4), (2 + 0.5 * 4 * 2) * 3);
  // Binomial reduce at the root, P = 8 (commutative): m*lambda + 2(o+L+max(o+m*gamma, g)) + 2o + L + m*gamma.
  EXPECT_DOUBLE_EQ(na::logp_binomial_reduce_root(8, p, 10, 0.1, 0.2), 1 + 2 * (2 + 6 + 4) + 4 + 6 + 2);
}

TEST(Models, BcastPredictionsAndHierarchy) {
  na::ClassParams intra, inter;
  intra.cls = 0;
  intra.have_loggp = true;
  intra.loggp = {1.0, 0.0, 1.0, 0.0};
  inter.cls = 1;
  inter.have_loggp = true;
  inter.loggp = {10.0, 0.0, 10.0, 0.0};
  inter.hockney = {na::RangeFit{0, 0, 0, 1, na::LineFit{10.0, 0.5, 1, 0, 1}}};
  const auto rows = na::predict_bcast(8, {0, 4}, inter, nullptr, na::Hierarchy{4, 2, &intra});
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_DOUBLE_EQ(rows[0].hierarchical, 2 * 10.0 + 1 * 1.0);  // binomial over 4 nodes, then inside the node pair
  EXPECT_DOUBLE_EQ(rows[0].logp_binomial, 3 * 10.0);
  EXPECT_DOUBLE_EQ(rows[0].logp_optimal, na::optimal_broadcast_time_real(8, 10.0, 0.0, 10.0));
  EXPECT_DOUBLE_EQ(rows[1].hockney_binomial, 3 * (10.0 + 4 * 0.5));
  EXPECT_DOUBLE_EQ(rows[1].hockney_flat, 7 * (10.0 + 4 * 0.5));
  EXPECT_LT(rows[0].measured, 0);  // nothing measured
  EXPECT_GE(rows[0].kchain_k, 1);
}

// ---------------------------------------------------------------- LogGP from a loggp file

TEST(LogGP, ClassParametersFromAHandMadeLoggpFile) {
  // Ranks 0,2 on one node, 1,3 on another; planted parameters in planted_loggp.hpp.
  const nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  const auto dir = std::filesystem::temp_directory_path() / "nt_analyze_test_loggp";
  std::filesystem::create_directories(dir);
  const auto path = dir / "hand_loggp.nc";
  nt::write_loggp(path, d, true);
  const auto back = nt::read_loggp(path);
  const auto cube = na::cube_from_loggp(back);
  const auto t = na::find_topology(cube);
  ASSERT_EQ(t.levels[0].groups, (std::vector<std::vector<int>>{{0, 2}, {1, 3}}));
  const auto h = na::fit_classes_and_pairs(cube, t);
  const auto ps = na::class_params(&cube, t, &h, &back, {});
  ASSERT_EQ(ps.size(), 2u);
  EXPECT_EQ(ps[0].name, "intra-node");
  EXPECT_TRUE(ps[0].have_loggp);
  EXPECT_DOUBLE_EQ(ps[0].loggp.L, 0.3e-6);
  EXPECT_DOUBLE_EQ(ps[0].o_s, 0.1e-6);
  EXPECT_DOUBLE_EQ(ps[0].o_r, 0.12e-6);
  // One o for LogP: L + 2o = L + o_s + o_r, the one-way delay (the "L+2o" of the text and JSON).
  EXPECT_DOUBLE_EQ(ps[0].loggp.o, 0.11e-6);
  EXPECT_NEAR(ps[0].loggp.message(0), 0.3e-6 + 0.1e-6 + 0.12e-6, 1e-18);
  EXPECT_NEAR(na::to_json(ps[1])["L_plus_2o"].get<double>(), 1.5e-6 + 0.4e-6 + 0.5e-6, 1e-18);
  EXPECT_DOUBLE_EQ(na::to_json(ps[1])["o_s"].get<double>(), 0.4e-6);
  EXPECT_DOUBLE_EQ(ps[0].loggp.g, 0.2e-6);
  EXPECT_DOUBLE_EQ(ps[0].loggp.G, 1e-10);
  EXPECT_EQ(ps[0].fit_break, 16384);
  EXPECT_DOUBLE_EQ(ps[1].loggp.L, 1.5e-6);
  EXPECT_DOUBLE_EQ(ps[1].loggp.G, 1e-9);
  EXPECT_EQ(ps[1].fit_break, 1024);
  EXPECT_EQ(ps[1].pairs, 8u);
  // LogGOPSim line of the class with most pairs (inter-node: 8 pairs vs 4): G = 1 ns/B keeps three
  // digits in units of 10 ps; one o with o + L + o = the one-way delay (2.401 us at 1 B), both
  // overheads in a comment.
  const std::string lg = na::export_loggopsim(ps);
  EXPECT_NE(lg.find("# time unit: 10 ps"), std::string::npos) << lg;
  EXPECT_NE(lg.find("-L 150000 -o 45050 -g 80000 -G 100 -S 1024"), std::string::npos) << lg;
  EXPECT_NE(lg.find("o_s = 4e-07s, o_r = 5e-07s"), std::string::npos) << lg;
  std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------- exports

// LogGOPSim takes integers: the unit is the coarsest power of ten in which G keeps three digits
// (0.82 and 1.71 ns/B were 1 and 2 in whole ns), stated in the header; -o is one overhead with
// o + L + o the measured one-way delay.
TEST(Export, LoggopsimUnitKeepsThreeDigitsOfG) {
  for (auto [G, unit, scale] : {std::tuple{0.82e-9, "1 ps", 1e-12}, std::tuple{1.71e-9, "10 ps", 1e-11},
                                std::tuple{0.04e-9, "100 fs", 1e-13}, std::tuple{6e-9, "10 ps", 1e-11}}) {
    na::ClassParams p;
    p.name = "inter-node";
    p.pairs = 2;
    p.have_loggp = true;
    p.t0 = 8.02e-6;
    p.loggp = {5e-6, 1e-6, 0.0, G};
    p.o_s = 1e-6;
    p.o_r = 2e-6;
    const std::string lg = na::export_loggopsim({p});
    EXPECT_NE(lg.find(std::string("# time unit: ") + unit + " "), std::string::npos) << lg;
    long long L = 0, o = 0, g = -1, Gi = 0, S = 0;
    const auto at = lg.find("\n-L ");
    ASSERT_NE(at, std::string::npos) << lg;
    ASSERT_EQ(std::sscanf(lg.c_str() + at + 1, "-L %lld -o %lld -g %lld -G %lld -S %lld", &L, &o, &g, &Gi, &S), 5) << lg;
    EXPECT_GE(Gi, 100) << lg;
    EXPECT_NEAR(static_cast<double>(Gi) * scale, G, 0.005 * G) << lg;
    EXPECT_NEAR(static_cast<double>(L + 2 * o) * scale, 8.02e-6, 1e-3 * 8.02e-6) << lg;
    EXPECT_NE(lg.find("o_s = 1e-06s, o_r = 2e-06s"), std::string::npos) << lg;
  }
}

TEST(Export, CsvHasOneLinePerPairAndRange) {
  nt::SynthParams p = cluster(3, 2, 14);
  p.protocol_step = 4096;
  auto s = make(p);
  const auto r = na::make_report(s.cube, {});
  const std::string csv = na::export_csv(r);
  const auto lines = std::count(csv.begin(), csv.end(), '\n');
  EXPECT_EQ(lines, 1 + 6 * 5 * 2);
  EXPECT_EQ(csv.rfind("sender,receiver,", 0), 0u);
}

// ---------------------------------------------------------------- the commands' library side

TEST(Stats, RobustSpreadIsTheScaledMadOfTheFiniteValues) {
  const double nan = std::nan(""), inf = std::numeric_limits<double>::infinity();
  const auto r = nt::robust_spread(std::vector<double>{4, 1, 100, 3, nan, 2, inf});
  EXPECT_DOUBLE_EQ(r.median, 3.0);
  EXPECT_DOUBLE_EQ(r.sigma, 1.4826);  // |x - 3| = 1, 2, 97, 0, 1: median 1
  EXPECT_DOUBLE_EQ(nt::robust_sigma_of_deviations(std::vector<double>{0.5, 2, 1}), 1.4826);
  EXPECT_TRUE(std::isnan(nt::robust_spread(std::vector<double>{nan}).sigma));
}

TEST(ModelReport, PredictionsAreTheFormulasWithTheChosenClass) {
  nt::SynthParams p = cluster(4, 2, 10);
  auto s = make(p);
  const auto m = na::make_model(s.cube, nullptr, nullptr, "", {});
  EXPECT_EQ(m.prediction_class, "inter-node");  // the coarsest class present
  EXPECT_EQ(m.processes, 8);
  ASSERT_EQ(m.bcast.size(), s.cube.lengths.size());
  ASSERT_EQ(m.collectives.size(), s.cube.lengths.size());
  const auto& cp = na::pick_class(m.params, "inter-node");
  const double lambda = na::pick_class(m.params, "intra-node").hockney_for(1e18).tw;
  for (std::size_t k = 0; k < m.collectives.size(); ++k) {
    const auto x = static_cast<double>(s.cube.lengths[k]);
    const auto h = cp.hockney_for(x);
    const auto& c = m.collectives[k];
    EXPECT_DOUBLE_EQ(c.allgather_ring, na::hockney_allgather_ring(8, h, x));
    EXPECT_DOUBLE_EQ(c.alltoall_mesh, na::hockney_alltoall_mesh(8, h, x));
    EXPECT_DOUBLE_EQ(c.scatter_gather, na::hockney_scatter(8, h, x));
    EXPECT_DOUBLE_EQ(c.reduce_binomial_logp_root, na::logp_binomial_reduce_root(8, cp.loggp, x, lambda, lambda));
    EXPECT_GE(c.reduce_kchain_k, 1);
    EXPECT_DOUBLE_EQ(m.bcast[k].hockney_binomial, na::hockney_bcast_binomial(8, h, x));
    EXPECT_LT(m.bcast[k].measured, 0);  // no bcast file
  }
  const auto j = na::to_json(m);
  EXPECT_EQ(j["processes"], 8);
  EXPECT_EQ(j["prediction_class"], "inter-node");
  EXPECT_EQ(j["classes"].size(), 2u);
  EXPECT_TRUE(j["bcast"][0]["measured"].is_null());
  EXPECT_DOUBLE_EQ(j["collectives"][3]["allgather_ring"].get<double>(), m.collectives[3].allgather_ring);
  EXPECT_EQ(j["groups"].size(), 4u);
  const auto text = na::to_text(m);
  EXPECT_NE(text.find("Broadcast on 8 processes, inter-node parameters"), std::string::npos) << text;
  EXPECT_NE(text.find("(o, g assumed;"), std::string::npos);
  // One G: without a loggp file the model's G is the long-range Hockney tw, the G of the LogGOPSim
  // export (it printed 0 while the export used the fitted tw).
  for (const auto& c : m.params) {
    EXPECT_GT(c.loggp.G, 0) << c.name;
    EXPECT_DOUBLE_EQ(c.loggp.G, c.hockney_for(1e18).tw) << c.name;
    EXPECT_NE(text.find(fmt::format("G {:.4g} s/B", c.loggp.G)), std::string::npos) << text;
  }
  const auto lgs = na::export_loggopsim(m.params);
  EXPECT_NE(lgs.find(fmt::format("G={:.6g}s/B", m.params.back().loggp.G)), std::string::npos) << lgs;
  // --class and the overrides of o and g.
  na::ModelOptions mo;
  mo.o = 1e-7;
  mo.g = 3e-6;
  const auto intra = na::make_model(s.cube, nullptr, nullptr, "intra-node", mo);
  EXPECT_EQ(intra.prediction_class, "intra-node");
  for (const auto& c : intra.params) {
    EXPECT_DOUBLE_EQ(c.loggp.o, 1e-7);
    EXPECT_DOUBLE_EQ(c.loggp.g, 3e-6);
  }
  try {
    (void)na::make_model(s.cube, nullptr, nullptr, "inter-galactic", {});
    ADD_FAILURE() << "no such class";
  } catch (const nt::UsageError& e) {
    EXPECT_STREQ(e.what(), "--class inter-galactic: no such class in the data (have: intra-node inter-node)");
  }
  na::ModelRequest q;
  EXPECT_THROW((void)na::make_model(q), nt::UsageError);  // neither a delay file nor a loggp file
  q.options.g = -1.0;
  EXPECT_THROW((void)na::make_model(q), nt::UsageError);
}

TEST(Export, FormatsByNameGiveTheirExports) {
  std::vector<std::string> names;
  for (const auto& [n, f] : na::export_formats()) names.push_back(n);
  EXPECT_EQ(names, (std::vector<std::string>{"json", "loggopsim", "simgrid", "csv"}));
  nt::SynthParams p = cluster(3, 2, 8);
  auto s = make(p);
  const auto r = na::make_report(s.cube, {});
  EXPECT_EQ(na::export_text(r, na::ExportFormat::csv), na::export_csv(r));
  EXPECT_EQ(na::export_text(r, na::ExportFormat::simgrid, &s.cube), na::export_simgrid(r, s.cube));
  EXPECT_THROW((void)na::export_text(r, na::ExportFormat::simgrid), nt::Error);
  EXPECT_EQ(na::export_text(r, na::ExportFormat::loggopsim), na::export_loggopsim(r.params));
  const auto j = nlohmann::json::parse(na::export_text(r, na::ExportFormat::json));
  EXPECT_EQ(j["groups"].size(), 3u);
  EXPECT_EQ(j["hockney"]["pairs"].size(), 30u);  // every pair in the JSON export
}

TEST(ModelReport, NegativeLoggpMediansAreShownAsZeroWithANote) {
  nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  for (auto& g : d.g) g = -std::fabs(g);  // a gap line whose intercept fell below 0
  const auto cube = na::cube_from_loggp(d);
  const auto m = na::make_model(cube, &d, nullptr, "", {});
  for (const auto& c : m.params) EXPECT_EQ(c.loggp.g, 0.0) << c.name;
  ASSERT_EQ(m.notes.size(), 2u);
  EXPECT_NE(m.notes[0].find("median g is negative"), std::string::npos) << m.notes[0];
  nt::test::expect_no_negative(na::to_json(m), "model");
  nt::test::expect_no_negative_text(na::to_text(m));
  const auto lg = na::export_loggopsim(m.params);  // the export says so too, and has -g 0
  EXPECT_NE(lg.find("# note: inter-node: the loggp file's median g is negative"), std::string::npos) << lg;
  EXPECT_NE(lg.find(" -g 0 "), std::string::npos) << lg;
}

// A loggp file whose receive overhead held the transfer (measured with a blocking receive under a
// rendezvous protocol, as network_test did before it posted the receive first): L and o_r are not
// separable for the inter-node pairs. Without a flag in the file (an older file) the analysis finds
// it from the per-size data; the model says so in its text and JSON (L null, "separable": false,
// the reason, L + o_r) instead of a clamped L = 0, and keeps L + 2o the one-way delay.
TEST(ModelReport, AReceiveThatHoldsTheTransferIsNotSeparable) {
  nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  const auto P = static_cast<std::size_t>(d.ranks), S = d.sizes.size();
  d.orecv.assign(P * P * S, std::nan(""));
  d.osend.assign(P * P * S, std::nan(""));
  for (std::size_t x = 0; x < P * P; ++x) {
    if (!std::isfinite(d.L[x])) continue;
    const bool inter = d.L[x] > 1e-6;
    for (std::size_t k = 0; k < S; ++k) {
      const double s = static_cast<double>(d.sizes[k]);
      d.osend[x * S + k] = d.o_s[x];
      d.orecv[x * S + k] = inter ? d.L[x] + d.G[x] * s + d.o_r[x] : d.o_r[x];
    }
    if (inter) d.L[x] = 0;  // what the old fit wrote: clamped
  }
  const auto cube = na::cube_from_loggp(d);
  const auto m = na::make_model(cube, &d, nullptr, "", {});
  ASSERT_EQ(m.params.size(), 2u);
  const auto& intra = m.params[0];
  const auto& inter = m.params[1];
  EXPECT_TRUE(intra.separable);
  EXPECT_DOUBLE_EQ(intra.loggp.L, 0.3e-6);
  EXPECT_FALSE(inter.separable);
  EXPECT_NE(inter.not_separable_reason.find("not separable"), std::string::npos) << inter.not_separable_reason;
  EXPECT_NEAR(inter.L_plus_o_r, 1.5e-6 + 0.5e-6, 1e-12);
  EXPECT_NEAR(inter.loggp.L + 2 * inter.loggp.o, 1.5e-6 + 0.4e-6 + 0.5e-6, 1e-12);  // the one-way delay
  const auto j = na::to_json(m);
  const auto& jc = j["classes"][1];
  EXPECT_EQ(jc["class"], "inter-node");
  EXPECT_TRUE(jc["L"].is_null());
  EXPECT_TRUE(jc["o_r"].is_null());
  EXPECT_EQ(jc["separable"], false);
  EXPECT_NE(jc["not_separable_reason"].get<std::string>().find("rendezvous"), std::string::npos) << jc;
  EXPECT_EQ(j["classes"][0]["separable"], true);
  const auto text = na::to_text(m);
  EXPECT_NE(text.find("L and o_r not separable"), std::string::npos) << text;
  // The flag written by network_test is taken as it is.
  d.separable.assign(P * P, 1);
  const auto m2 = na::make_model(cube, &d, nullptr, "", {});
  EXPECT_TRUE(m2.params[1].separable);
}

// The gap's protocol ranges of the loggp file (g2 + G2 s from the fit break on) are the class's
// second range in the model, and the overheads bound the gap of small messages.
TEST(ModelReport, GapRangesAndTheOverheadBound) {
  nt::LoggpData d = nt::test::planted_loggp({0, 1, 0, 1}, {"a", "b", "a", "b"});
  const auto P = static_cast<std::size_t>(d.ranks);
  d.g2.assign(P * P, std::nan(""));
  d.G2.assign(P * P, std::nan(""));
  for (std::size_t x = 0; x < P * P; ++x)
    if (std::isfinite(d.L[x])) {
      d.g2[x] = d.L[x] + d.o_s[x];
      d.G2[x] = 2 * d.G[x];
      d.g[x] = 0.1e-6;  // below the overheads: the gap of small messages is max(o_s, o_r)
    }
  const auto cube = na::cube_from_loggp(d);
  const auto m = na::make_model(cube, &d, nullptr, "", {});
  const auto& inter = m.params[1];
  ASSERT_EQ(inter.gap_ranges.size(), 2u);
  EXPECT_EQ(inter.gap_ranges[0].to, 1024);
  EXPECT_EQ(inter.gap_ranges[1].from, 1024);
  EXPECT_DOUBLE_EQ(inter.gap_ranges[1].g, 1.9e-6);
  EXPECT_DOUBLE_EQ(inter.gap_ranges[1].G, 2e-9);
  EXPECT_DOUBLE_EQ(inter.overhead_bound, 0.5e-6);
  const auto j = na::to_json(m)["classes"][1];
  EXPECT_EQ(j["gap_ranges"].size(), 2u);
  EXPECT_TRUE(j["gap_ranges"][1]["to"].is_null());
  EXPECT_DOUBLE_EQ(j["gap_overhead_bound"].get<double>(), 0.5e-6);
  EXPECT_NE(na::to_text(m).find("gap max("), std::string::npos);
}

// The exact median over millions of pair fits, found in passes with a bounded number of
// values held, equals finite_median of the whole multiset: ties, zeros of both signs, negatives,
// NaN and infinities (skipped), odd and even counts, caps from 1 to above the count.
TEST(StreamedMedian, EqualsFiniteMedianOfTheWholeMultiset) {
  std::mt19937_64 rng(23);
  std::normal_distribution<double> N01(0.0, 1.0);
  std::vector<std::vector<double>> sets;
  for (std::size_t n : {1, 2, 3, 10, 101, 1000, 4097}) {
    std::vector<double> x;
    for (std::size_t q = 0; q < n; ++q) x.push_back(1e-6 * std::exp(0.05 * N01(rng)));  // a ts-like spread
    sets.push_back(x);
    std::vector<double> t;  // heavy ties, signs, non-finite values
    for (std::size_t q = 0; q < n; ++q) {
      const auto r = rng() % 7;
      t.push_back(r == 0 ? 0.0 : r == 1 ? -0.0 : r == 2 ? 2.5 : r == 3 ? -3.0 : r == 4 ? std::nan("")
                  : r == 5 ? std::numeric_limits<double>::infinity() : 2.5 + 1e-12 * static_cast<double>(q % 3));
    }
    sets.push_back(t);
    sets.push_back(std::vector<double>(n, 7.25));  // all equal: every key bit has to be resolved
  }
  sets.push_back({});
  sets.push_back({std::nan("")});
  for (const auto& x : sets)
    for (std::size_t cap : {1, 2, 16, 500, 100000}) {
      na::StreamedMedian m(cap);
      int passes = 0;
      while (!m.done()) {
        ASSERT_LT(passes++, 5) << "size " << x.size() << ", cap " << cap;
        // every pass offers the values in another order
        std::vector<double> y = x;
        std::shuffle(y.begin(), y.end(), rng);
        for (double v : y) m.offer(v);
        m.end_pass();
      }
      const double want = nt::finite_median(x);
      if (std::isnan(want)) EXPECT_TRUE(std::isnan(m.value()));
      else EXPECT_EQ(m.value(), want) << "size " << x.size() << ", cap " << cap;
    }
}
