// The Canary analysis' Prometheus reader (metric_reader.h).
#include "ax/signals/metric_reader.h"

#include <httplib.h>

#include <algorithm>
#include <utility>

#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"
#include "ax/signals/prometheus_reply.h"

namespace ax::signals {
namespace {

constexpr int64_t kIdleWaitMs = 1000;
constexpr time_t kConnectTimeoutS = 3;
constexpr time_t kReadTimeoutS = 10;

// "http://host:9090/prefix" -> ("http://host:9090", "/prefix").
std::pair<std::string, std::string> SplitBase(const std::string& url) {
  const size_t scheme = url.find("://");
  const size_t path =
      url.find('/', scheme == std::string::npos ? 0 : scheme + 3);
  if (path == std::string::npos) return {url, ""};
  std::string prefix = url.substr(path);
  while (!prefix.empty() && prefix.back() == '/') prefix.pop_back();
  return {url.substr(0, path), prefix};
}

MetricReading Evaluate(const CanaryQuery& q) {
  const auto [base, prefix] = SplitBase(q.prometheus);
  httplib::Client client(base);
  client.set_connection_timeout(kConnectTimeoutS, 0);
  client.set_read_timeout(kReadTimeoutS, 0);
  const httplib::Params params{{"query", q.promql}};
  auto res = client.Get(prefix + "/api/v1/query", params, httplib::Headers{});
  const int64_t now = runtime::WallMs();
  if (!res) {
    return {
        std::nullopt, now,
        "Prometheus " + q.prometheus + ": " + httplib::to_string(res.error())};
  }
  return ParsePrometheusReply(res->status, res->body, now);
}

}  // namespace

MetricReader::MetricReader(std::function<void()> changed)
    : changed_(std::move(changed)) {}

MetricReader::~MetricReader() { Stop(); }

void MetricReader::Start() {
  thread_ = std::thread([this] { Run(); });
}

void MetricReader::Stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void MetricReader::Want(std::vector<CanaryQuery> queries) {
  std::lock_guard lock(mu_);
  std::map<Key, Entry> next;
  for (CanaryQuery& q : queries) {
    Key key{q.canary, q.metric, q.node};
    auto old = entries_.find(key);
    if (old != entries_.end() && old->second.query == q) {
      next.emplace(key, std::move(old->second));
    } else {
      next.emplace(key, Entry{std::move(q), {}, 0});  // read at once
    }
  }
  entries_ = std::move(next);
  wake_.notify_all();
}

CanaryReadings MetricReader::Readings() const {
  std::lock_guard lock(mu_);
  CanaryReadings out;
  for (const auto& [key, e] : entries_) {
    if (e.reading.at_ms == 0) continue;  // not read yet
    out[e.query.canary][e.query.metric][e.query.node] = e.reading;
  }
  return out;
}

void MetricReader::Run() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    const int64_t now = runtime::WallMs();
    auto due = std::min_element(entries_.begin(), entries_.end(),
                                [](const auto& a, const auto& b) {
                                  return a.second.due_ms < b.second.due_ms;
                                });
    if (due == entries_.end() || due->second.due_ms > now) {
      const int64_t wait =
          due == entries_.end()
              ? kIdleWaitMs
              : std::min(kIdleWaitMs, due->second.due_ms - now);
      wake_.wait_for(lock, std::chrono::milliseconds(wait));
      continue;
    }
    const Key key = due->first;
    const CanaryQuery query = due->second.query;
    due->second.due_ms = now + std::max<int64_t>(query.interval_ms, 1000);
    lock.unlock();
    MetricReading reading = Evaluate(query);
    lock.lock();
    auto it = entries_.find(key);
    if (it == entries_.end() || !(it->second.query == query)) continue;
    const MetricReading& before = it->second.reading;
    if (!reading.error.empty() && reading.error != before.error) {
      runtime::Log(runtime::LogLevel::kWarn, "canary metric not read",
                   {{"canary", query.canary},
                    {"metric", query.metric},
                    {"node", query.node},
                    {"error", reading.error}});
    }
    it->second.reading = std::move(reading);
    // Every reading, changed or not: a step may be waiting for one taken
    // since it began.
    lock.unlock();
    changed_();
    lock.lock();
  }
}

}  // namespace ax::signals
