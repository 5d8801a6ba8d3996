// A client-timing distribution small enough to ship in a Kubernetes object
// and merge across nodes' logs: counts in logarithmic buckets, each 2^(1/16)
// (about 4.4%) wider than the one before, from 0.1 ms up. A median read from
// it is within one bucket of the samples' own, and typically within 1%. Pure
// data and arithmetic; the MeasurementReport (measurement_report.h) carries it,
// the geo suggestions (geo_suggest.h) read medians from it.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace ax {

class LatencyHistogram {
 public:
  // Buckets 0 .. kBuckets-1: bucket i holds [Lower(i), Lower(i+1)); bucket 0
  // also what is faster than 0.1 ms, the last also what is slower than its
  // bound (0.1 ms * 2^(kBuckets/16): over an hour).
  static constexpr uint32_t kBuckets = 400;
  static double Lower(uint32_t bucket);
  static uint32_t BucketOf(double ms);

  LatencyHistogram() = default;
  // From the shipped form: counts of buckets first, first+1, ... Nullopt when
  // they overrun kBuckets.
  static std::optional<LatencyHistogram> FromCounts(
      uint32_t first, std::vector<uint64_t> counts);

  void Add(double ms, uint64_t count = 1);
  void Merge(const LatencyHistogram& other);

  uint64_t count() const { return total_; }
  // The shipped form: the first non-empty bucket and the counts from it to
  // the last non-empty one (zeros between kept). Empty: first 0, no counts.
  uint32_t first() const { return first_; }
  const std::vector<uint64_t>& counts() const { return counts_; }

  // The middle sample's value, interpolated geometrically inside its bucket;
  // nullopt when empty.
  std::optional<double> Median() const;

  bool operator==(const LatencyHistogram&) const = default;

 private:
  void AddToBucket(uint32_t bucket, uint64_t count);
  void Grow(uint32_t bucket);  // makes `bucket` addressable in counts_

  uint32_t first_ = 0;
  std::vector<uint64_t> counts_;
  uint64_t total_ = 0;
};

}  // namespace ax
