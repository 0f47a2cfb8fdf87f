// Unit tests of network_test's pure parts: the registry, LogGP derivation and the loggp file,
// precision, progress and warm-up (sweeps, schedules and noise draws: test_unit.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <filesystem>
#include <set>
#include <tuple>

#include "nt/loggp.hpp"
#include "nt/measure/measure.hpp"
#include "nt/measure/warmup.hpp"

using namespace nt;
using namespace nt::measure;

TEST(Registry, EveryModeAndAliasIsThere) {
  const auto& reg = registry();
  EXPECT_EQ(reg.all().size(), 10u);
  for (const char* name : {"one_to_one", "async_one_to_one", "send_recv_and_recv_send", "all_to_all", "noise",
                           "noise_blocking", "put", "get", "bcast", "loggp"}) {
    const ModeSpec* m = reg.find(std::string(name));
    ASSERT_NE(m, nullptr) << name;
    EXPECT_EQ(m->name, name);
    EXPECT_FALSE(m->description.empty());
    EXPECT_FALSE(m->sync_method.empty());
    EXPECT_TRUE(m->run || m->start) << name;
    // File compatibility: the id is the files' test_type, which readers map back to this name.
    EXPECT_EQ(nt::mode_name(m->mode()), name);
    EXPECT_EQ(reg.find(m->mode()), m);
  }
  // network_test2's codes, which existing files and --resume rely on.
  EXPECT_EQ(reg.find(std::string("one_to_one"))->id, 1);
  EXPECT_EQ(reg.find(std::string("all_to_all"))->id, 2);
  EXPECT_EQ(reg.find(std::string("async_one_to_one"))->id, 3);
  EXPECT_EQ(reg.find(std::string("send_recv_and_recv_send"))->id, 4);
  EXPECT_EQ(reg.find(std::string("bcast"))->id, 7);
  EXPECT_EQ(reg.find(std::string("loggp"))->id, 10);
  // The table is ordered by id, and every alias core's readers know resolves to the same mode.
  for (std::size_t i = 1; i < reg.all().size(); ++i) EXPECT_LT(reg.all()[i - 1].id, reg.all()[i].id);
  for (const auto& m : reg.all())
    for (const auto& alias : m.aliases) EXPECT_EQ(nt::mode_from_name(alias), m.mode()) << alias;
  EXPECT_EQ(reg.find(std::string("put_one_to_one"))->mode(), Mode::put);
  EXPECT_EQ(reg.find(std::string("get_one_to_one"))->mode(), Mode::get);
  EXPECT_EQ(reg.find(std::string("test_noise"))->mode(), Mode::noise);
  EXPECT_EQ(reg.find(std::string("test_noise_blocking"))->mode(), Mode::noise_blocking);
  EXPECT_EQ(reg.find(std::string("nonsense")), nullptr);
  // Results live where the diagonal semantics of share/doc/design.md §3 expect them.
  for (Mode m : {Mode::one_to_one, Mode::send_recv_and_recv_send, Mode::noise_blocking, Mode::put, Mode::get})
    EXPECT_TRUE(diagonal_is_zero(m));
}

TEST(Registry, RefusesClashesOfNamesAndFileIds) {
  auto spec = [](std::string name, int id, std::vector<std::string> aliases = {}) {
    ModeSpec m;
    m.name = std::move(name);
    m.id = id;
    m.aliases = std::move(aliases);
    return m;
  };
  Registry r;
  r.add(spec("one_to_one", 1, {"first"}));
  r.add(spec("brand_new", 11));  // an id the readers do not know yet is allowed
  EXPECT_THROW(r.add(spec("other", 1)), nt::Error);              // id taken
  EXPECT_THROW(r.add(spec("first", 12)), nt::Error);             // an alias as a name
  EXPECT_THROW(r.add(spec("x", 13, {"brand_new"})), nt::Error);  // a name as an alias
  EXPECT_THROW(r.add(spec("x", 0)), nt::Error);                  // no id
  // An id the files know as another mode: its files would read as that mode.
  EXPECT_THROW(r.add(spec("barrier", 5)), nt::Error);
  EXPECT_EQ(r.all().size(), 2u);
  EXPECT_EQ(r.find(std::string("first"))->id, 1);
  EXPECT_EQ(r.all().back().name, "brand_new");
}

namespace {
// PRTTs of the LogGP model: one message costs o_s + L + G*s + o_r each way; trains of n
// messages add (n-1)*(g + G*s); with a delay d > gap the sender needs (n-1)*(o_s + d).
struct Model {
  double L = 1.0e-6, os = 0.3e-6, orr = 0.25e-6, g = 0.4e-6, G = 0.5e-9;
};
void simulate(const Model& m, const std::vector<std::int64_t>& sizes, int n, std::vector<double>& p1,
              std::vector<double>& pn, std::vector<double>& pd, std::vector<double>& d, std::vector<double>& orr,
              std::int64_t step_at = -1, double step = 0) {
  for (auto s : sizes) {
    const double extra = step_at >= 0 && s >= step_at ? step : 0.0;
    const double gap = m.g + m.G * static_cast<double>(s) + extra;
    const double one = 2 * (m.os + m.L + m.G * static_cast<double>(s) + m.orr);
    p1.push_back(one);
    pn.push_back(one + (n - 1) * gap);
    d.push_back(one);
    pd.push_back(one + (n - 1) * (m.os + one));
    orr.push_back(m.orr);
  }
}
}  // namespace

TEST(Loggp, RecoversTheModelParameters) {
  const Model m;
  const std::vector<std::int64_t> sizes{0, 64, 256, 1024, 4096, 16384};
  std::vector<double> p1, pn, pd, d, orr;
  simulate(m, sizes, 8, p1, pn, pd, d, orr);
  const LoggpFit f = derive_loggp(sizes, 8, p1, pn, pd, d, orr, 0.25);
  EXPECT_NEAR(f.G, m.G, 1e-15);
  EXPECT_NEAR(f.g, m.g, 1e-12);
  EXPECT_NEAR(f.o_s, m.os, 1e-12);
  EXPECT_NEAR(f.o_r, m.orr, 1e-12);
  EXPECT_NEAR(f.L, m.L, 1e-12);
  EXPECT_EQ(f.fit_break, -1);
  EXPECT_LT(f.residual, 1e-9);
  EXPECT_EQ(f.fit_points, sizes.size());
}

TEST(Loggp, FindsTheProtocolSwitch) {
  const Model m;
  const std::vector<std::int64_t> sizes{0, 1024, 2048, 4096, 8192, 16384, 32768, 65536};
  std::vector<double> p1, pn, pd, d, orr;
  simulate(m, sizes, 8, p1, pn, pd, d, orr, 16384, 5e-6);
  const LoggpFit f = derive_loggp(sizes, 8, p1, pn, pd, d, orr, 0.25);
  EXPECT_EQ(f.fit_break, 16384);
  EXPECT_EQ(f.fit_points, 5u);
  EXPECT_NEAR(f.G, m.G, 1e-15);  // fitted on the eager range only
}

TEST(Loggp, ANoisyPointDoesNotBreakTheFit) {
  const Model m;
  const std::vector<std::int64_t> sizes{0, 1, 4, 16, 64, 256, 1024};
  std::vector<double> p1, pn, pd, d, orr;
  simulate(m, sizes, 8, p1, pn, pd, d, orr);
  pn[1] -= 7 * 0.05e-6;  // one fast and one slow outlier among the tiny sizes
  pn[4] += 7 * 0.3e-6;
  const LoggpFit f = derive_loggp(sizes, 8, p1, pn, pd, d, orr, 0.25);
  EXPECT_EQ(f.fit_break, -1);
  EXPECT_EQ(f.fit_points, sizes.size());
}

// Under a protocol that moves the data only once the receive is posted, the receive overhead
// probe times the transfer: o_r(s) = L + G s + o_r. L = PRTT/2 - o_s - o_r would be 0; the fit
// says that L and o_r are not separable instead (both NaN, a reason), for either sign of it: the
// receive taking the whole one-way delay, or growing with the size.
TEST(Loggp, ATransferInsideTheReceiveIsNotSeparable) {
  const Model m;
  const std::vector<std::int64_t> sizes{0, 64, 256, 1024, 4096, 16384};
  std::vector<double> p1, pn, pd, d, orr;
  simulate(m, sizes, 8, p1, pn, pd, d, orr);
  for (std::size_t k = 0; k < sizes.size(); ++k) orr[k] = m.L + m.G * static_cast<double>(sizes[k]) + m.orr;
  LoggpFit f = derive_loggp(sizes, 8, p1, pn, pd, d, orr, 0.25);
  EXPECT_FALSE(f.separable);
  EXPECT_TRUE(std::isnan(f.L));
  EXPECT_TRUE(std::isnan(f.o_r));
  EXPECT_NE(f.not_separable.find("not separable"), std::string::npos) << f.not_separable;
  EXPECT_NEAR(f.G, m.G, 1e-15);  // the rest is measured as before
  EXPECT_NEAR(f.o_s, m.os, 1e-12);
  // Growing, and most of the delay at the smallest size (a receive that holds most of L).
  for (std::size_t k = 0; k < sizes.size(); ++k) orr[k] = 0.8 * m.L + m.G * static_cast<double>(sizes[k]);
  f = derive_loggp(sizes, 8, p1, pn, pd, d, orr, 0.25);
  EXPECT_FALSE(f.separable);
  EXPECT_NE(f.not_separable.find("grows with the size"), std::string::npos) << f.not_separable;
  // Growing from a small o_r: a per-byte cost of the receive (a copy), L still measured.
  for (std::size_t k = 0; k < sizes.size(); ++k) orr[k] = m.orr + m.G * static_cast<double>(sizes[k]);
  f = derive_loggp(sizes, 8, p1, pn, pd, d, orr, 0.25);
  EXPECT_TRUE(f.separable) << f.not_separable;
  EXPECT_NEAR(f.L, m.L, 1e-12);
  // A receive overhead that stays put is the receive's own: L and o_r measured.
  for (auto* v : {&p1, &pn, &pd, &d, &orr}) v->clear();
  simulate(m, sizes, 8, p1, pn, pd, d, orr);
  f = derive_loggp(sizes, 8, p1, pn, pd, d, orr, 0.25);
  EXPECT_TRUE(f.separable);
  EXPECT_NEAR(f.L, m.L, 1e-12);
}

// The reference platform's gap (SMPI with o_s 1 us, o_r 2 us, L 5 us, 1.25 GB/s, eager below
// 64 KiB): a train leaves one message every max(o_s, o_r, G s) below the threshold and every
// o_s + L + G s above it. The overhead-bound sizes are left out of the line (G came out 78 % low
// and a switch was found at 4 KiB), and the step of the intercept (6 us on 58 us, 10 %: under the
// old 25 %) starts a new range, whose line is g2 + G2 s.
TEST(Loggp, OverheadBoundGapAndAStepOfTheIntercept) {
  const double L = 5e-6, os = 1e-6, orr = 2e-6, G = 0.8e-9;
  const std::vector<std::int64_t> sizes{0, 16, 64, 256, 1024, 2048, 4096, 8192, 16384, 32768, 65536, 131072, 262144};
  std::vector<double> p1, pn, pd, d, o;
  for (auto s : sizes) {
    const double x = static_cast<double>(s);
    const bool eager = s < 65536;
    const double one = os + L + G * x + (eager ? orr : 0.0);
    const double gap = eager ? std::max({os, orr, G * x}) : os + L + G * x;
    p1.push_back(2 * one);
    pn.push_back(2 * one + 7 * gap);
    d.push_back(2 * one);
    pd.push_back(2 * one + 7 * (os + 2 * one));
    o.push_back(eager ? orr : 0.0);
  }
  const LoggpFit f = derive_loggp(sizes, 8, p1, pn, pd, d, o, 0.01);
  EXPECT_NEAR(f.G, G, 1e-15);
  EXPECT_NEAR(f.g, 0.0, 1e-12);
  EXPECT_EQ(f.fit_break, 65536);
  EXPECT_NEAR(f.G2, G, 1e-15);
  EXPECT_NEAR(f.g2, os + L, 1e-12);
  EXPECT_NEAR(f.overhead_bound, orr, 1e-12);
  EXPECT_NEAR(f.L, L, 1e-12);
  EXPECT_NEAR(f.o_s, os, 1e-12);
  EXPECT_NEAR(f.o_r, orr, 1e-12);
  // The same without overheads and with a step of 2 % only: still found, beyond the fit's noise.
  std::vector<double> pn2;
  for (std::size_t k = 0; k < sizes.size(); ++k) {
    const double x = static_cast<double>(sizes[k]);
    pn2.push_back(p1[k] + 7 * (G * x + (sizes[k] >= 65536 ? 0.02 * G * x : 0.0)));
  }
  const LoggpFit f2 = derive_loggp(sizes, 8, p1, pn2, pd, d, std::vector<double>(sizes.size(), 0.0), 0.01);
  EXPECT_EQ(f2.fit_break, 65536);
  EXPECT_NEAR(f2.G, G, 1e-15);
}

TEST(Loggp, SlopeIsNeverNegative) {
  const std::vector<std::int64_t> sizes{0, 8, 16};
  const std::vector<double> p1{2e-6, 2e-6, 2e-6}, pn{5e-6, 4.9e-6, 4.8e-6}, pd{30e-6, 30e-6, 30e-6},
      d{2e-6, 2e-6, 2e-6}, orr{0.1e-6, 0.1e-6, 0.1e-6};
  const LoggpFit f = derive_loggp(sizes, 4, p1, pn, pd, d, orr, 0.25);
  EXPECT_EQ(f.G, 0.0);
  EXPECT_NEAR(f.g, (3e-6 + 2.9e-6 + 2.8e-6) / 3 / 3, 1e-12);
}

TEST(Loggp, FileRoundTrip) {
  LoggpData d;
  d.ranks = 2;
  d.sizes = {0, 100};
  d.prtt_n = 8;
  d.prtt_delay = 2e-6;
  d.info.meta.hosts = {"a", "b"};
  d.info.params.num_repeats = 5;
  const double nan = std::nan("");
  d.L = {nan, 1e-6, 2e-6, nan};
  d.o_s = {nan, 0.1e-6, 0.2e-6, nan};
  d.o_r = d.o_s;
  d.g = d.o_s;
  d.G = {nan, 1e-9, 2e-9, nan};
  d.residual = {nan, 0.01, 0.02, nan};
  d.fit_break = {-1, -1, 100, -1};
  for (auto* v : {&d.prtt1, &d.prttn, &d.prttd, &d.delay, &d.orecv, &d.osend})
    for (int i = 0; i < 8; ++i) v->push_back(1e-6 * (i + 1));
  const auto path = std::filesystem::temp_directory_path() / "nt_unit_loggp.nc";
  std::filesystem::remove(path);
  write_loggp(path, d, false);
  EXPECT_THROW(write_loggp(path, d, false), nt::Error);  // never overwritten without --force
  const LoggpData r = read_loggp(path);
  EXPECT_EQ(r.ranks, 2);
  EXPECT_EQ(r.sizes, d.sizes);
  EXPECT_EQ(r.prtt_n, 8);
  EXPECT_DOUBLE_EQ(r.prtt_delay, 2e-6);
  EXPECT_EQ(r.info.params.mode, Mode::loggp);
  EXPECT_EQ(r.fit_break, d.fit_break);
  EXPECT_DOUBLE_EQ(r.L[1], 1e-6);
  EXPECT_TRUE(std::isnan(r.L[0]));
  EXPECT_EQ(r.prttd, d.prttd);
  EXPECT_EQ(r.orecv, d.orecv);
  EXPECT_EQ(r.osend, d.osend);
  std::filesystem::remove(path);
}

// The distribution-free 95 % interval of the median: no finite interval below 8 samples, the
// textbook ranks for n = 100 (x_(40), x_(61)), and a narrow sample is precise where a wide one
// is not.
TEST(Precision, MedianConfidenceInterval) {
  using nt::measure::median_ci_indices;
  for (std::size_t n : {0u, 1u, 5u, 7u}) {
    const auto [lo, hi] = median_ci_indices(n);
    EXPECT_GT(lo, hi) << n;
  }
  const auto [lo10, hi10] = median_ci_indices(10);
  EXPECT_EQ(lo10, 0u);
  EXPECT_EQ(hi10, 9u);
  const auto [lo, hi] = median_ci_indices(100);
  EXPECT_EQ(lo, 39u);
  EXPECT_EQ(hi, 60u);
  std::vector<double> narrow, wide;
  for (int i = 0; i < 100; ++i) {
    narrow.push_back(1.0 + 0.001 * (i % 10));
    wide.push_back(1.0 + 0.5 * (i % 10));
  }
  EXPECT_TRUE(nt::measure::median_precise(narrow, 0.02));
  EXPECT_FALSE(nt::measure::median_precise(wide, 0.02));
  std::vector<double> few{1, 1, 1, 1, 1};
  EXPECT_FALSE(nt::measure::median_precise(few, 0.5)) << "too few samples for any interval";
}

// --precision's next batch: done at the target or at -n; sized from the interval otherwise, but
// never more than the samples taken, so one outlier among the first ten (worst ~5) asks for ten
// more, not for the rest of -n; at least a quarter; a non-finite interval doubles.
TEST(Precision, NextBatchAtMostDoubles) {
  using nt::measure::next_batch;
  EXPECT_EQ(next_batch(10, 1.0, 200), 0);
  EXPECT_EQ(next_batch(10, 0.3, 200), 0);
  EXPECT_EQ(next_batch(200, 5.0, 200), 0);
  EXPECT_EQ(next_batch(10, 5.0, 200), 10);
  EXPECT_EQ(next_batch(10, std::numeric_limits<double>::infinity(), 200), 10);
  EXPECT_EQ(next_batch(40, 1.05, 200), 10) << "at least a quarter of what we have";
  EXPECT_EQ(next_batch(100, 1.2, 200), 53) << "1.2 * 100 * (1.44 - 1)";
  EXPECT_EQ(next_batch(150, 5.0, 200), 50) << "at most what is left";
  EXPECT_EQ(next_batch(199, 5.0, 200), 1) << "the last sample, even below the quarter";
  EXPECT_EQ(next_batch(10, std::nan(""), 200), 0);
}

// Progress's ETA: a latency + bandwidth fit of the lengths done predicts the ones to come, so a
// geometric sweep is not "0 %" at length 12 of 22.
TEST(Progress, PredictsFromTheLengthsDone) {
  using nt::measure::predict_time;
  EXPECT_LT(predict_time({}, {1, 2}), 0.0);
  // d = 1 ms + 1 ns/B exactly: the fit recovers it.
  std::vector<std::pair<std::int64_t, double>> done;
  for (std::int64_t l : {0, 1024, 4096, 16384}) done.emplace_back(l, 1e-3 + 1e-9 * static_cast<double>(l));
  EXPECT_NEAR(predict_time(done, {1 << 20}), 1e-3 + 1e-9 * (1 << 20), 1e-9);
  EXPECT_NEAR(predict_time(done, {0, 0}), 2e-3, 1e-9);
  // Noise that would make the slope negative: constant time, never a negative prediction.
  EXPECT_NEAR(predict_time({{0, 2e-3}, {100, 1e-3}}, {1000}), 1.5e-3, 1e-12);
  // One length seen: half of its time is latency at 16 KiB.
  EXPECT_NEAR(predict_time({{16384, 2e-3}}, {0}), 1e-3, 1e-12);
  EXPECT_NEAR(predict_time({{0, 1e-3}}, {16384}), 2e-3, 1e-12);
}

// The warm-up rule (warmup.hpp): the samples start at the first iteration after the minimum whose
// round trip agrees with the next one's, or after --warmup iterations when none does.
TEST(Warmup, SamplesStartWhereTwoRoundTripsAgree) {
  using nt::measure::WarmupRule;
  auto feed = [](WarmupRule& r, const std::vector<double>& q) {
    int n = 0;
    for (double v : q) {
      ++n;
      if (r.add(v)) return n;
    }
    return -1;  // not done
  };
  {  // warm from the start, a pair met before: no warm-up, the three iterations are the samples
    WarmupRule r(10, 3, 0);
    EXPECT_EQ(feed(r, {10e-6, 10e-6, 10e-6, 10e-6}), 3);
    EXPECT_EQ(r.first_sample(), 0);
    EXPECT_FALSE(r.capped());
  }
  {  // a pair's first task: at least one warm-up iteration even when warm
    WarmupRule r(10, 3, 1);
    EXPECT_EQ(feed(r, {10e-6, 10e-6, 10e-6, 10e-6, 10e-6}), 4);
    EXPECT_EQ(r.first_sample(), 1);
  }
  {  // a cold first iteration (connection, first touch): the samples start at the second
    WarmupRule r(10, 3, 0);
    EXPECT_EQ(feed(r, {80e-6, 10e-6, 10.5e-6, 10e-6, 10e-6}), 4);
    EXPECT_EQ(r.warmups(), 1);
  }
  {  // slowing down twice: the rule waits for two agreeing round trips
    WarmupRule r(10, 2, 0);
    EXPECT_EQ(feed(r, {80e-6, 40e-6, 20e-6, 10e-6, 10.2e-6, 10e-6}), 5);
    EXPECT_EQ(r.warmups(), 3);
  }
  {  // never agreeing: --warmup is the cap, as a fixed warm-up
    WarmupRule r(3, 2, 0);
    EXPECT_EQ(feed(r, {10e-6, 20e-6, 40e-6, 80e-6, 160e-6, 320e-6}), 5);
    EXPECT_EQ(r.warmups(), 3);
    EXPECT_TRUE(r.capped());
  }
  {  // --warmup 0: the first R iterations, without looking
    WarmupRule r(0, 3, 1);
    EXPECT_EQ(feed(r, {80e-6, 10e-6, 10e-6, 10e-6}), 3);
    EXPECT_EQ(r.warmups(), 0);
  }
  {  // one sample needs the next iteration to confirm it
    WarmupRule r(10, 1, 0);
    EXPECT_EQ(feed(r, {10e-6, 10e-6, 10e-6}), 2);
    EXPECT_EQ(r.first_sample(), 0);
  }
  // Within tolerance: 10 % of the smaller plus 0.25 us.
  EXPECT_TRUE(WarmupRule::agree(10e-6, 11e-6));
  EXPECT_FALSE(WarmupRule::agree(10e-6, 11.3e-6));
  EXPECT_TRUE(WarmupRule::agree(1e-6, 1.3e-6));
}
