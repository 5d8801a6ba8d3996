// LatencyHistogram: medians within a bucket (4.4%), and on average within
// 1%, of the samples' own on seeded
// distributions of several shapes, merging equals adding everything to one,
// the shipped form normalises and round-trips, out-of-range values land in
// the end buckets.
#include "ax/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "ax/median.h"

namespace ax {
namespace {

TEST(LatencyHistogramTest, MedianIsWithinABucketOfTheSamples) {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> skewed(std::log(40.0), 0.6);
  std::uniform_real_distribution<double> flat(0.5, 900);
  std::exponential_distribution<double> fast(1 / 3.0);
  double error_sum = 0;
  int medians = 0;
  for (int round = 0; round < 30; ++round) {
    for (int shape = 0; shape < 3; ++shape) {
      LatencyHistogram h;
      std::vector<double> values;
      const int n = 1 + round * 37;
      for (int i = 0; i < n; ++i) {
        const double v = shape == 0   ? skewed(rng)
                         : shape == 1 ? flat(rng)
                                      : 0.2 + fast(rng);
        h.Add(v);
        values.push_back(v);
      }
      const double exact = *Median(values);
      ASSERT_EQ(h.count(), static_cast<uint64_t>(n));
      // An even count's median is the mean of two samples; the histogram
      // reads the lower one, so allow the gap between them too.
      std::sort(values.begin(), values.end());
      const double low = values[(values.size() - 1) / 2];
      EXPECT_NEAR(*h.Median(), low, low * 0.045)
          << "shape " << shape << " n " << n << " exact " << exact;
      error_sum += std::abs(*h.Median() - low) / low;
      ++medians;
    }
  }
  EXPECT_LT(error_sum / medians, 0.01);
}

TEST(LatencyHistogramTest, MergeEqualsAddingEverythingToOne) {
  std::mt19937_64 rng(3);
  std::lognormal_distribution<double> ms(std::log(25.0), 1.0);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 500; ++i) {
    const double v = ms(rng);
    (i % 3 == 0 ? a : b).Add(v);
    all.Add(v);
  }
  LatencyHistogram merged = a;
  merged.Merge(b);
  EXPECT_EQ(merged, all);
  EXPECT_EQ(merged.count(), 500u);
}

TEST(LatencyHistogramTest, ShippedFormNormalisesAndRoundTrips) {
  // Leading and trailing empty buckets are dropped, inner ones kept.
  const auto h = LatencyHistogram::FromCounts(10, {0, 0, 3, 0, 5, 0});
  ASSERT_TRUE(h);
  EXPECT_EQ(h->first(), 12u);
  EXPECT_EQ(h->counts(), (std::vector<uint64_t>{3, 0, 5}));
  EXPECT_EQ(h->count(), 8u);
  EXPECT_EQ(LatencyHistogram::FromCounts(h->first(), h->counts()), h);
  // The middle (4th of 8) sample is in the 5-count bucket's first share.
  EXPECT_GE(*h->Median(), LatencyHistogram::Lower(14));
  EXPECT_LT(*h->Median(), LatencyHistogram::Lower(15));

  EXPECT_FALSE(LatencyHistogram::FromCounts(LatencyHistogram::kBuckets, {}));
  EXPECT_FALSE(
      LatencyHistogram::FromCounts(LatencyHistogram::kBuckets - 1, {1, 1}));
  const auto empty = LatencyHistogram::FromCounts(0, {0, 0});
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->count(), 0u);
  EXPECT_FALSE(empty->Median());
}

TEST(LatencyHistogramTest, OutOfRangeValuesLandInTheEndBuckets) {
  EXPECT_EQ(LatencyHistogram::BucketOf(0), 0u);
  EXPECT_EQ(LatencyHistogram::BucketOf(-5), 0u);
  EXPECT_EQ(LatencyHistogram::BucketOf(std::nan("")), 0u);
  EXPECT_EQ(LatencyHistogram::BucketOf(1e12), LatencyHistogram::kBuckets - 1);
  EXPECT_EQ(LatencyHistogram::BucketOf(std::numeric_limits<double>::infinity()),
            LatencyHistogram::kBuckets - 1);
  // Each bucket holds its own lower bound.
  for (uint32_t b = 0; b < LatencyHistogram::kBuckets; b += 37) {
    const double inside = LatencyHistogram::Lower(b) * 1.001;
    EXPECT_EQ(LatencyHistogram::BucketOf(inside), b);
  }
}

}  // namespace
}  // namespace ax
