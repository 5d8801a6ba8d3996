// The Canary analysis' Prometheus reader, shared by ax-operator and
// standalone ax-dns: keeps evaluating the PromQL the latest plan asked for
// (Plan::canary_queries), each at its interval, with
// GET <prometheus>/api/v1/query on its own thread, and hands the latest
// reading per (Canary, metric, node) to the next plan. Each reading calls
// back (a step may be waiting for one). Reading a reply is
// prometheus_reply.h's, pure; judging the readings is the plan's.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "ax/controller/canary_metrics.h"

namespace ax::signals {

using controller::CanaryQuery;
using controller::CanaryReadings;
using controller::MetricReading;

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

}  // namespace ax::signals
