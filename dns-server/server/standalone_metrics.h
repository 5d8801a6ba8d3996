// ax_dns_standalone_*: what the last standalone pass decided that the
// operator would have written as status, for /metrics: manifest objects left
// out as invalid, documents that are no object, and each Canary's share and
// phase. Set by the reconcile thread after each pass, read at scrape time;
// the probe's own families are probe/metrics'.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <cstddef>
#include <mutex>
#include <string>
#include <vector>

#include "ax/gather.h"

namespace ax::dns {

class StandaloneMetrics : public prometheus::Collectable {
 public:
  // `objects`: the held objects after the pass, whose Canary statuses hold
  // phase and percent (a Canary not planned yet has none and is left out).
  void Observe(size_t invalid_objects, size_t manifest_errors,
               const ApiObjects& objects);

  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  struct CanaryView {
    std::string name;
    std::string phase;
    double percent = 0;
  };

  mutable std::mutex mu_;
  size_t invalid_objects_ = 0;
  size_t manifest_errors_ = 0;
  std::vector<CanaryView> canaries_;
};

}  // namespace ax::dns
