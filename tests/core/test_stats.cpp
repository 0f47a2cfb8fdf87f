#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <set>
#include <vector>

#include "nt/stats.hpp"

using nt::median;

TEST(Stats, MedianOddCount) {
  const std::vector<double> x{5, 1, 4, 2, 3};
  EXPECT_DOUBLE_EQ(median(x), 3.0);
}

TEST(Stats, MedianEvenCountIsMeanOfMiddleTwo) {
  const std::vector<double> x{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(median(x), 2.5);
  const std::vector<double> y{10, 20};
  EXPECT_DOUBLE_EQ(median(y), 15.0);
}

TEST(Stats, MedianInplaceEqualsMedianAndOnlyReorders) {
  std::vector<double> x{4, 1, 3, 2, 9, 0.5};
  const double m = median(x);
  auto y = x;
  EXPECT_DOUBLE_EQ(nt::median_inplace(y), m);
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  EXPECT_EQ(x, y);
  std::vector<double> e;
  EXPECT_THROW(nt::median_inplace(e), std::invalid_argument);
}

TEST(Stats, MedianSingleAndDuplicates) {
  EXPECT_DOUBLE_EQ(median(std::vector<double>{7}), 7.0);
  EXPECT_DOUBLE_EQ(median(std::vector<double>{2, 2, 9, 2}), 2.0);
}

TEST(Stats, MeanAndSampleStddevByHand) {
  // 2,4,4,4,5,5,7,9: mean 5, sum of squares 32, sample variance 32/7.
  const std::vector<double> x{2, 4, 4, 4, 5, 5, 7, 9};
  EXPECT_DOUBLE_EQ(nt::mean(x), 5.0);
  EXPECT_NEAR(nt::sample_stddev(x), std::sqrt(32.0 / 7.0), 1e-15);
  EXPECT_DOUBLE_EQ(nt::sample_stddev(std::vector<double>{3.0}), 0.0);
}

TEST(Stats, SummaryOdd) {
  const std::vector<double> x{3e-6, 1e-6, 2e-6};
  const auto s = nt::summarize(x);
  EXPECT_EQ(s.count, 3u);
  EXPECT_DOUBLE_EQ(s.mean, 2e-6);
  EXPECT_DOUBLE_EQ(s.median, 2e-6);
  EXPECT_DOUBLE_EQ(s.min, 1e-6);
  EXPECT_DOUBLE_EQ(s.max, 3e-6);
  EXPECT_NEAR(s.stddev, 1e-6, 1e-21);  // sqrt((1+0+1)/2) us
}

TEST(Stats, SummaryValueMapsEveryStandardStatistic) {
  const std::vector<double> x{4e-6, 1e-6, 2e-6, 9e-6};
  const auto s = nt::summarize(x);
  EXPECT_DOUBLE_EQ(nt::summary_value(s, nt::Statistic::average), 4e-6);
  EXPECT_DOUBLE_EQ(nt::summary_value(s, nt::Statistic::median), 3e-6);
  EXPECT_DOUBLE_EQ(nt::summary_value(s, nt::Statistic::min), 1e-6);
  EXPECT_DOUBLE_EQ(nt::summary_value(s, nt::Statistic::max), 9e-6);
  EXPECT_DOUBLE_EQ(nt::summary_value(s, nt::Statistic::deviation), nt::sample_stddev(x));
  // Five distinct values: no two statistics share a field.
  std::set<double> seen;
  for (auto st : nt::standard_statistics()) seen.insert(nt::summary_value(s, st));
  EXPECT_EQ(seen.size(), nt::standard_statistics().size());
  EXPECT_THROW(nt::summary_value(s, nt::Statistic::all), std::invalid_argument);
}

TEST(Stats, EmptyInputThrows) {
  const std::vector<double> e;
  EXPECT_THROW(nt::mean(e), std::invalid_argument);
  EXPECT_THROW(nt::median(e), std::invalid_argument);
  EXPECT_THROW(nt::summarize(e), std::invalid_argument);
}

TEST(Stats, MeanKeepsDigitsOfManyNearlyEqualValues) {
  std::vector<double> x(100000, 1.0 + 1e-12);
  x.push_back(1.0);
  EXPECT_NEAR(nt::mean(x), 1.0 + 1e-12 * 100000.0 / 100001.0, 1e-15);
}

TEST(Stats, FiniteMedianSkipsNanAndInfinity) {
  const double nan = std::nan("");
  const std::vector<double> x{nan, 4, 1, INFINITY, 3, 2};
  EXPECT_DOUBLE_EQ(nt::finite_median(x), 2.5);
  EXPECT_TRUE(std::isnan(nt::finite_median(std::vector<double>{nan, nan})));
  EXPECT_TRUE(std::isnan(nt::finite_median(std::vector<double>{})));
}
