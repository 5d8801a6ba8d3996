// The Canary analysis' Prometheus reader: keeps evaluating the PromQL the
// latest plan asked for (Plan::canary_queries), each at its interval, with
// GET <prometheus>/api/v1/query on its own thread, and hands the latest
// reading per (Canary, metric, node) to the next plan. Each reading wakes the
// reconciler (a step may be waiting for one). Reading replies is
// ParsePrometheusReply, pure.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <vector>

#include "ax/controller/canary_metrics.h"

namespace ax::controller {

// One instant-query reply (HTTP `status`, `body`) read at `at_ms`: one
// series' value; no data for an empty result or NaN (0/0: no requests);
// an error naming what Prometheus or the reply said.
MetricReading ParsePrometheusReply(int status, std::string_view body,
                                   int64_t at_ms);

class MetricReader {
 public:
  // `changed` is called (on the reader's thread) after each reading.
  explicit MetricReader(std::function<void()> changed);
  ~MetricReader();  // Stop()
  MetricReader(const MetricReader&) = delete;
  MetricReader& operator=(const MetricReader&) = delete;

  void Start();
  void Stop();

  // The queries to evaluate from now on; readings of others are dropped.
  void Want(std::vector<CanaryQuery> queries);
  CanaryReadings Readings() const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;
  struct Entry {
    CanaryQuery query;
    MetricReading reading;
    int64_t due_ms = 0;  // next evaluation (wall clock); 0: now
  };

  void Run();

  const std::function<void()> changed_;
  mutable std::mutex mu_;
  std::condition_variable wake_;
  std::map<Key, Entry> entries_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace ax::controller
