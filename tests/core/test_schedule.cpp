// The schedule of a run as one value: its name, its prose, its attribute and the reading of files
// that have only the prose (written before the attribute).
#include <set>

#include <gtest/gtest.h>

#include "nt/error.hpp"
#include "nt/params.hpp"
#include "nt/raw_file.hpp"
#include "nt/schedule.hpp"
#include "test_util.hpp"

using namespace nt;

namespace {

Schedule concurrent(int k = 0) {
  Schedule s;
  s.kind = ScheduleKind::concurrent;
  s.pairs_at_once = k;
  return s;
}

// One of each shape network_test can run.
std::vector<Schedule> every_shape() {
  std::vector<Schedule> out;
  out.emplace_back();
  out.emplace_back().shuffle = true;
  out.emplace_back().kind = ScheduleKind::host_pairs;
  out.push_back(concurrent());
  out.push_back(concurrent(4));
  Schedule fixed = concurrent();
  fixed.rounds = Rounds::fixed;
  fixed.shuffle = true;
  out.push_back(fixed);
  Schedule by_switch = concurrent();
  by_switch.by_switch = true;
  by_switch.switch_map = "/tmp/my map=1%.txt";
  by_switch.switches = {0, 0, 1, 1, 2};
  out.push_back(by_switch);
  Schedule retested = concurrent(2);
  retested.retest = {.pairs = 7, .seconds = 0.25, .ratio = 1.0001, .hosts = true};
  out.push_back(retested);
  Schedule seconds_only = concurrent();
  seconds_only.retest.seconds = 2;
  out.push_back(seconds_only);
  Schedule host_lanes;  // --host-pairs --switch-map
  host_lanes.kind = ScheduleKind::host_pairs;
  host_lanes.by_switch = true;
  host_lanes.switch_map = "/tmp/leaves): per length.txt";
  host_lanes.switches = {1, 0, 1, 0};
  out.push_back(host_lanes);
  return out;
}

void expect_same(const Schedule& a, const Schedule& b, const std::string& what) {
  EXPECT_EQ(a.kind, b.kind) << what;
  EXPECT_EQ(a.pairs_at_once, b.pairs_at_once) << what;
  EXPECT_EQ(a.by_switch, b.by_switch) << what;
  EXPECT_EQ(a.switch_map, b.switch_map) << what;
  EXPECT_EQ(a.pair_order_text(), b.pair_order_text()) << what;
}

}  // namespace

TEST(ScheduleValue, AttributeReadsBackAsTheSameSchedule) {
  for (const Schedule& s : every_shape()) {
    const std::string attr = s.to_attribute();
    const Schedule back = Schedule::from_attribute(attr);
    expect_same(back, s, attr);
    EXPECT_EQ(back.to_attribute(), attr);
    EXPECT_EQ(back.switches, s.switches) << attr;
    EXPECT_EQ(back.retested(), s.retested()) << attr;
    if (s.retested()) {
      EXPECT_EQ(back.retest_text(), s.retest_text()) << attr;
    }
  }
  EXPECT_EQ(Schedule().to_attribute(), "sequential");
  EXPECT_EQ(every_shape()[7].to_attribute(),
            "concurrent=2 rounds=random retest=7 retest-seconds=0.25 retest-hosts retest-ratio=1.0001");
  EXPECT_EQ(every_shape()[6].to_attribute(),
            "concurrent rounds=random switch-map=/tmp/my%20map%3D1%25.txt switches=0,0,1,1,2");
  EXPECT_EQ(every_shape()[9].to_attribute(), "host-pairs switch-map=/tmp/leaves%29:%20per%20length.txt switches=1,0,1,0");
}

// Host pairs in switch lanes: a host-pairs schedule (every reader fills the cells between hosts
// from their host pair's measured cell), not a concurrent one, whose prose says the lanes.
TEST(ScheduleValue, HostPairsInSwitchLanes) {
  const Schedule s = every_shape()[9];
  EXPECT_EQ(s.name(), "host-pairs by switch");
  EXPECT_TRUE(s.host_pairs());
  EXPECT_FALSE(s.concurrent() || s.in_lanes() || s.retested());
  const std::string order = s.pair_order_text();
  EXPECT_EQ(order.rfind("host pairs: ", 0), 0u) << order;
  EXPECT_NE(order.find("in lanes by switch (--switch-map /tmp/leaves): per length.txt): per length a random"),
            std::string::npos)
      << order;
  Metadata m;
  m.extra[kAttrSchedule] = s.to_attribute();
  EXPECT_TRUE(filled_by_host_pair(m));
  EXPECT_FALSE(measured_concurrently(m));
  const Schedule plain = Schedule::from_attribute("host-pairs");
  EXPECT_FALSE(plain.by_switch);
  EXPECT_EQ(plain.pair_order_text(), kHostPairsOrder);
}

TEST(ScheduleValue, NamesAndProse) {
  EXPECT_EQ(Schedule().name(), "sequential");
  EXPECT_EQ(every_shape()[2].name(), "host-pairs");
  EXPECT_EQ(concurrent().name(), "concurrent");
  EXPECT_EQ(concurrent(3).name(), "concurrent=3");
  EXPECT_EQ(Schedule().pair_order_text(), "sender-major");
  EXPECT_EQ(every_shape()[1].pair_order_text(), "shuffled per length from the seed");
  EXPECT_EQ(every_shape()[2].pair_order_text(), kHostPairsOrder);
  EXPECT_EQ(concurrent().pair_order_text(),
            "concurrent: per sample a random 1-factorisation (circle method on a permutation of the ranks and an "
            "order of the rounds drawn with splitmix64 from the seed, the length index and the sample); every pair "
            "of a round at once (loaded network)");
  Schedule r = concurrent();
  r.retest.pairs = 2;
  EXPECT_EQ(r.retest_text(),
            "per length, the cells whose loaded median is above 1.2 x the median of their line, highest ratio "
            "first, at most 2 pairs: measured again alone, one pair after the other, with the same samples "
            "(variable isolated; missing where not re-tested)");
}

TEST(ScheduleValue, MalformedAttributesAreOneClearError) {
  for (const std::string bad : {"", "round-robin", "concurrent=0", "concurrent=x", "sequential retest=2",
                                "concurrent rounds=sometimes", "concurrent retest=two", "concurrent  shuffle",
                                "concurrent switch-map=%G1", "concurrent colour=blue", "sequential switch-map=m",
                                "sequential switches=0,1", "host-pairs retest-hosts", "host-pairs rounds=fixed retest=1"}) {
    try {
      Schedule::from_attribute(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("attribute schedule"), std::string::npos) << e.what();
    }
  }
}

// Files written before the attribute: the prose of pair_order says the kind, K, the rounds and
// the switch map's file.
TEST(ScheduleValue, OlderFilesReadFromTheirProse) {
  for (Schedule s : every_shape()) {
    Metadata m;
    m.extra[kAttrPairOrder] = s.pair_order_text();
    const auto read = schedule_of(m);
    ASSERT_TRUE(read);
    if (s.by_switch) s.switches.clear();
    expect_same(*read, s, m.extra[kAttrPairOrder]);
    EXPECT_EQ(measured_concurrently(m), s.concurrent());
    EXPECT_EQ(filled_by_host_pair(m), s.host_pairs());
  }
  EXPECT_FALSE(schedule_of(Metadata{}));  // a legacy file, another tool's
  EXPECT_FALSE(measured_concurrently(Metadata{}));
}

// A result file as network_test wrote it before the attribute (pair_order only) and one with both:
// the attribute decides where it is.
TEST(ScheduleValue, OldStyleFileStillReads) {
  const auto dir = test::scratch_dir();
  auto d = test::make_dataset(4, {0, 64});
  Schedule s = concurrent();
  s.by_switch = true;
  s.switch_map = "switches.txt";
  d->mutable_info().meta.extra[kAttrPairOrder] = s.pair_order_text();
  write_raw(dir / "old_median.nc", *d, false);
  const RawReader old(dir / "old_median.nc");
  EXPECT_EQ(old.meta().extra.count(kAttrSchedule), 0u);
  const auto read = schedule_of(old.meta());
  ASSERT_TRUE(read);
  EXPECT_TRUE(read->concurrent() && read->by_switch);
  EXPECT_EQ(read->switch_map, "switches.txt");

  s.switches = {0, 0, 1, 1};
  d->mutable_info().meta.extra[kAttrSchedule] = s.to_attribute();
  write_raw(dir / "new_median.nc", *d, false);
  const RawReader now(dir / "new_median.nc");
  const auto both = schedule_of(now.meta());
  ASSERT_TRUE(both);
  EXPECT_EQ(both->switches, (std::vector<int>{0, 0, 1, 1}));
}

// --sample-pairs: the attribute keeps K, the landmarks, the neighbours and the seed, so a reader
// draws the same host pairs the run measured.
TEST(ScheduleValue, SampledAttributeAndItsPairs) {
  Schedule s;
  s.kind = ScheduleKind::sampled;
  s.sample = {.partners = 3, .landmarks = 2, .neighbours = 1, .seed = 18446744073709551557ULL};
  const std::string attr = s.to_attribute();
  EXPECT_EQ(attr, "sampled partners=3 landmarks=2 neighbours=1 seed=18446744073709551557");
  const Schedule back = Schedule::from_attribute(attr);
  EXPECT_TRUE(back.sampled() && back.by_host_pair() && !back.host_pairs());
  EXPECT_EQ(back.to_attribute(), attr);
  EXPECT_EQ(back.name(), "sampled");
  EXPECT_NE(back.pair_order_text().find("the cells between hosts not sampled are missing"), std::string::npos);
  Metadata m;
  m.extra[kAttrSchedule] = attr;
  EXPECT_TRUE(sampled_pairs(m));
  EXPECT_FALSE(filled_by_host_pair(m) || measured_concurrently(m));
  for (const std::string bad : {"sampled partners=-1", "sampled seed=x", "sequential switch-map=m", "sampled retest=2"})
    EXPECT_THROW(Schedule::from_attribute(bad), Error) << bad;
  // In lanes by switch (--sample-pairs --switch-map): the kind stays "sampled", the map follows.
  Schedule lanes = back;
  lanes.by_switch = true;
  lanes.switch_map = "map file";
  lanes.switches = {0, 1};
  const std::string lanes_attr = lanes.to_attribute();
  EXPECT_EQ(lanes_attr, attr + " switch-map=map%20file switches=0,1");
  const Schedule lanes_back = Schedule::from_attribute(lanes_attr);
  EXPECT_TRUE(lanes_back.sampled() && lanes_back.by_switch);
  EXPECT_EQ(lanes_back.switch_map, "map file");
  EXPECT_EQ(lanes_back.name(), "sampled by switch");
  EXPECT_NE(lanes_back.pair_order_text().find("pairs in lanes by switch (--switch-map map file)"), std::string::npos);
  m.extra[kAttrSchedule] = lanes_attr;
  EXPECT_TRUE(sampled_pairs(m));
  EXPECT_FALSE(filled_by_host_pair(m) || measured_concurrently(m));

  const int H = 40;
  const auto pairs = sampled_host_pairs(H, back.sample);
  EXPECT_EQ(pairs, sampled_host_pairs(H, back.sample));  // the same on every rank and reader
  EXPECT_LE(pairs.size(), static_cast<std::size_t>(H * (3 + 2 + 1)));
  EXPECT_LT(pairs.size(), static_cast<std::size_t>(H * (H - 1) / 2));
  std::vector<std::set<int>> partners(H);
  for (const auto& [a, b] : pairs) {
    ASSERT_LT(a, b);
    ASSERT_LT(b, H);
    partners[static_cast<std::size_t>(a)].insert(b);
    partners[static_cast<std::size_t>(b)].insert(a);
  }
  const auto landmarks = sampled_landmarks(H, back.sample);
  ASSERT_EQ(landmarks.size(), 2u);
  EXPECT_EQ(landmarks[1] - landmarks[0], H / 2);  // spread evenly over the numbers
  for (int l : landmarks) EXPECT_EQ(partners[static_cast<std::size_t>(l)].size(), static_cast<std::size_t>(H - 1));
  for (int h = 0; h < H; ++h) {
    EXPECT_TRUE(partners[static_cast<std::size_t>(h)].count((h + 1) % H)) << h;  // its next host
    EXPECT_GE(partners[static_cast<std::size_t>(h)].size(), 3u + 1u) << h;      // K partners, a neighbour
  }
  Sampling other = back.sample;
  other.seed = 1;
  EXPECT_NE(sampled_host_pairs(H, other), pairs);
  other.partners = 100;  // more partners than hosts: every pair
  EXPECT_EQ(sampled_host_pairs(H, other).size(), static_cast<std::size_t>(H * (H - 1) / 2));
  EXPECT_TRUE(sampled_host_pairs(1, other).empty());
}
