// Latency histogram with 1 µs buckets up to 1 s (8 MB of counters, fine for a
// benchmark tool); slower answers land in the last bucket.
#ifndef AX_TESTS_BENCH_TOOLS_LATENCY_HISTOGRAM_H_
#define AX_TESTS_BENCH_TOOLS_LATENCY_HISTOGRAM_H_

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ax::bench {

class LatencyHistogram {
 public:
  LatencyHistogram() : buckets_(kBuckets, 0) {}

  void Add(uint64_t ns) {
    const uint64_t us = std::min<uint64_t>(ns / 1000, kBuckets - 1);
    ++buckets_[us];
    ++count_;
    sum_ns_ += ns;
    max_ns_ = std::max(max_ns_, ns);
  }

  uint64_t count() const { return count_; }
  double mean_us() const {
    return count_ ? static_cast<double>(sum_ns_) / 1000.0 / count_ : 0;
  }
  double max_us() const { return static_cast<double>(max_ns_) / 1000.0; }

  // The bucket (µs) holding the q-quantile, q in [0, 1].
  uint64_t QuantileUs(double q) const {
    if (count_ == 0) return 0;
    const auto rank =
        static_cast<uint64_t>(q * static_cast<double>(count_ - 1));
    uint64_t seen = 0;
    for (uint64_t us = 0; us < kBuckets; ++us) {
      seen += buckets_[us];
      if (seen > rank) return us;
    }
    return kBuckets - 1;
  }

 private:
  static constexpr uint64_t kBuckets = 1000000;
  std::vector<uint64_t> buckets_;
  uint64_t count_ = 0;
  uint64_t sum_ns_ = 0;
  uint64_t max_ns_ = 0;
};

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_LATENCY_HISTOGRAM_H_
