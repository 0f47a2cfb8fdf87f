// The linear sweep rule lives once in core (nt::linear_sweep, nt::kMaxSweepLengths): network_test's
// -b/-e/-s and network_convert synth's --begin/--end/--step give the same lengths for the same
// numbers, and both refuse a sweep of more than kMaxSweepLengths lengths and accept one of exactly
// that many.
#include <gtest/gtest.h>

#include "nt/error.hpp"
#include "nt/measure/measure.hpp"
#include "nt/sweep.hpp"
#include "nt/convert/convert.hpp"

namespace {

std::vector<std::int64_t> from_network_test(std::int64_t b, std::int64_t e, std::int64_t s) {
  nt::measure::Settings st;
  st.begin = static_cast<decltype(st.begin)>(b);
  st.end = static_cast<decltype(st.end)>(e);
  st.step = static_cast<decltype(st.step)>(s);
  st.many_lengths = true;  // the hard limit, beyond the sane count refused without --many-lengths
  return nt::measure::make_sweep(st);
}

std::vector<std::int64_t> from_convert(std::int64_t b, std::int64_t e, std::int64_t s) {
  return nt::convert::sweep_lengths({b, e, s});
}

}  // namespace

TEST(SweepRule, BothProgramsGiveTheSameLengths) {
  const std::int64_t cases[][3] = {{0, 1000, 250}, {0, 999, 250}, {7, 7, 1}, {1, 100, 33}, {0, 1 << 20, 4096}};
  for (const auto& c : cases) {
    const auto a = from_network_test(c[0], c[1], c[2]);
    EXPECT_EQ(a, from_convert(c[0], c[1], c[2])) << c[0] << " " << c[1] << " " << c[2];
    EXPECT_EQ(a, nt::linear_sweep(c[0], c[1], c[2]));
    EXPECT_EQ(static_cast<std::int64_t>(a.size()), nt::linear_sweep_size(c[0], c[1], c[2]));
  }
}

TEST(SweepRule, BothProgramsRefuseTheSameLimit) {
  const std::int64_t at_limit = nt::kMaxSweepLengths - 1;  // 0..at_limit: exactly kMaxSweepLengths lengths
  EXPECT_EQ(from_network_test(0, at_limit, 1).size(), static_cast<std::size_t>(nt::kMaxSweepLengths));
  EXPECT_EQ(from_convert(0, at_limit, 1), from_network_test(0, at_limit, 1));
  EXPECT_THROW(from_network_test(0, at_limit + 1, 1), nt::UsageError);
  EXPECT_THROW(from_convert(0, at_limit + 1, 1), nt::UsageError);
}
