// LatencyHistogram (latency_histogram.h): bucket arithmetic, merging and the
// interpolated median.
#include "ax/latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ax {
namespace {

constexpr double kFloorMs = 0.1;
constexpr double kBucketsPerDoubling = 16;

uint64_t SaturatingAdd(uint64_t a, uint64_t b) {
  return a > std::numeric_limits<uint64_t>::max() - b
             ? std::numeric_limits<uint64_t>::max()
             : a + b;
}

}  // namespace

double LatencyHistogram::Lower(uint32_t bucket) {
  return kFloorMs * std::exp2(bucket / kBucketsPerDoubling);
}

uint32_t LatencyHistogram::BucketOf(double ms) {
  // NaN and anything at or under the floor land in bucket 0.
  if (!(ms > kFloorMs)) return 0;
  const double index =
      std::floor(std::log2(ms / kFloorMs) * kBucketsPerDoubling);
  return index >= kBuckets - 1 ? kBuckets - 1 : static_cast<uint32_t>(index);
}

std::optional<LatencyHistogram> LatencyHistogram::FromCounts(
    uint32_t first, std::vector<uint64_t> counts) {
  if (first >= kBuckets || counts.size() > kBuckets - first) {
    return std::nullopt;
  }
  LatencyHistogram h;
  for (size_t i = 0; i < counts.size(); ++i) {
    h.AddToBucket(first + static_cast<uint32_t>(i), counts[i]);
  }
  return h;
}

void LatencyHistogram::Grow(uint32_t bucket) {
  if (counts_.empty()) {
    first_ = bucket;
    counts_.assign(1, 0);
  } else if (bucket < first_) {
    counts_.insert(counts_.begin(), first_ - bucket, 0);
    first_ = bucket;
  } else if (bucket - first_ >= counts_.size()) {
    counts_.resize(bucket - first_ + 1, 0);
  }
}

void LatencyHistogram::Add(double ms, uint64_t count) {
  AddToBucket(BucketOf(ms), count);
}

void LatencyHistogram::AddToBucket(uint32_t bucket, uint64_t count) {
  if (count == 0) return;
  Grow(bucket);
  uint64_t& slot = counts_[bucket - first_];
  slot = SaturatingAdd(slot, count);
  total_ = SaturatingAdd(total_, count);
}

void LatencyHistogram::Merge(const LatencyHistogram& other) {
  for (size_t i = 0; i < other.counts_.size(); ++i) {
    AddToBucket(other.first_ + static_cast<uint32_t>(i), other.counts_[i]);
  }
}

std::optional<double> LatencyHistogram::Median() const {
  if (total_ == 0) return std::nullopt;
  // The middle sample (the lower middle of an even count), placed evenly
  // among its bucket's samples on the logarithmic scale.
  const uint64_t rank = (total_ + 1) / 2;
  uint64_t before = 0;
  for (size_t i = 0; i < counts_.size(); ++i) {
    if (before + counts_[i] >= rank) {
      const double within =
          (static_cast<double>(rank - before) - 0.5) / counts_[i];
      return Lower(first_ + static_cast<uint32_t>(i)) *
             std::exp2(within / kBucketsPerDoubling);
    }
    before += counts_[i];
  }
  return std::nullopt;  // unreachable while total_ is the counts' sum
}

}  // namespace ax
