// ApiWatch (api_watch.h): the informer wiring, its log lines and metrics.
#include "ax/kube_runtime/api_watch.h"

#include "ax/runtime/log.h"

namespace ax::kube {
namespace {

prometheus::MetricFamily Family(std::string name, std::string help,
                                prometheus::MetricType type, double value) {
  prometheus::ClientMetric m;
  if (type == prometheus::MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  return {std::move(name), std::move(help), type, {std::move(m)}};
}

}  // namespace

ApiWatch::ApiWatch(std::unique_ptr<kube::ListerWatcher> lister_watcher,
                   ApiWatchLabels labels, std::function<void()> on_change,
                   kube::ReflectorOptions reflector)
    : labels_(std::move(labels)) {
  auto link = std::make_unique<TrackedListerWatcher>(
      std::move(lister_watcher),
      TrackedListerWatcher::Callbacks{
          .lost =
              [this](const kube::Error& e) {
                runtime::Log(
                    runtime::LogLevel::kWarn,
                    labels_.name + " cannot reach the Kubernetes API; " +
                        labels_.keeping + " and retrying",
                    {{labels_.key, labels_.value}, {"error", e.ToString()}});
              },
          .restored =
              [this] {
                runtime::Log(runtime::LogLevel::kInfo,
                             labels_.name + " reaches the Kubernetes API",
                             {{labels_.key, labels_.value}});
              }});
  link_ = link.get();
  reflector.on_error = [this](const kube::Error& e) {
    // Losses are the link's to log, once; a 410 is routine: relist.
    if (e.IsGone()) {
      runtime::Log(runtime::LogLevel::kInfo,
                   labels_.name + " watch expired, listing again",
                   {{labels_.key, labels_.value}, {"error", e.ToString()}});
    } else {
      runtime::Log(runtime::LogLevel::kDebug,
                   labels_.name + " list or watch failed",
                   {{labels_.key, labels_.value}, {"error", e.ToString()}});
    }
  };
  informer_ = std::make_unique<kube::Informer>(
      std::move(link),
      kube::InformerOptions{.on_change = std::move(on_change),
                            .reflector = std::move(reflector)});
}

ApiWatchStatus ApiWatch::status() const {
  const kube::ReflectorCounters c = informer_->counters();
  return {.connected = link_->connected(),
          .relists = c.relists,
          .watch_restarts = c.watch_restarts,
          .failures = c.failures};
}

std::vector<prometheus::MetricFamily> ApiWatchFamilies(
    const std::string& prefix, const std::string& what,
    const ApiWatchStatus& status) {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> out;
  out.push_back(
      Family(prefix + "_connected",
             "1 while the list/watch of " + what + " reaches the apiserver",
             MetricType::Gauge, status.connected ? 1 : 0));
  out.push_back(Family(
      prefix + "_errors_total",
      "failed lists and watches of " + what + " (each followed by a backoff)",
      MetricType::Counter, static_cast<double>(status.failures)));
  out.push_back(Family(prefix + "_relists_total",
                       "lists after the first (a watch expired: 410 Gone)",
                       MetricType::Counter,
                       static_cast<double>(status.relists)));
  out.push_back(
      Family(prefix + "_watch_restarts_total",
             "watches after the first (server timeouts, failures, expiries)",
             MetricType::Counter, static_cast<double>(status.watch_restarts)));
  return out;
}

}  // namespace ax::kube
