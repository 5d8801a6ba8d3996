// The list+watch loop (reflector.h).
#include "ax/kube/reflector.h"

#include <algorithm>
#include <cmath>

namespace ax::kube {
namespace {

// A watch the server ends this quickly without an event is no normal end
// (timeoutSeconds is minutes): a proxy or a sick server closing at once.
// Reconnecting straight away would spin, so it is backed off like a failure.
constexpr std::chrono::seconds kShortestNormalWatch{1};

class ResourceListerWatcher : public ListerWatcher {
 public:
  ResourceListerWatcher(Client& client, Resource collection,
                        ListWatchOptions options)
      : client_(client),
        collection_(std::move(collection)),
        options_(std::move(options)) {}

  Result<ObjectList> List(CancelToken* cancel) override {
    ListOptions list;
    list.label_selector = options_.label_selector;
    list.field_selector = options_.field_selector;
    list.limit = options_.page_size;
    list.call.cancel = cancel;
    return client_.List(collection_, list);
  }

  WatchOutcome Watch(const WatchRequest& request,
                     const WatchHandler& on_event) override {
    WatchRequest selected = request;
    selected.label_selector = options_.label_selector;
    selected.field_selector = options_.field_selector;
    return RunWatch(client_, collection_, selected, on_event);
  }

 private:
  Client& client_;
  const Resource collection_;
  const ListWatchOptions options_;
};

}  // namespace

std::unique_ptr<ListerWatcher> NewListerWatcher(Client& client,
                                                Resource collection,
                                                ListWatchOptions options) {
  return std::make_unique<ResourceListerWatcher>(client, std::move(collection),
                                                 std::move(options));
}

int RandomWatchTimeout(const Random& random, int min_s, int max_s) {
  const int span = std::max(0, max_s - min_s);
  const int offset = static_cast<int>(std::floor(random() * (span + 1)));
  return min_s + std::min(offset, span);
}

Reflector::Reflector(ListerWatcher& lister_watcher, ReflectorSink& sink,
                     ReflectorOptions options)
    : lister_watcher_(lister_watcher),
      sink_(sink),
      options_(std::move(options)),
      random_(options_.random ? options_.random : OsSeededRandom()) {}

ReflectorCounters Reflector::counters() const {
  ReflectorCounters c;
  c.lists = lists_.load();
  c.relists = c.lists > 0 ? c.lists - 1 : 0;
  c.watches = watches_.load();
  c.watch_restarts = c.watches > 0 ? c.watches - 1 : 0;
  c.failures = failures_.load();
  return c;
}

void Reflector::Report(const Error& error) {
  if (options_.on_error) options_.on_error(error);
}

void Reflector::Run(CancelToken& cancel) {
  Backoff backoff(options_.backoff, random_);
  std::string resource_version;
  bool need_list = true;
  // A 410 right after a fresh list, twice in a row, is no stale client but a
  // confused server: relist after a backoff, not in a tight loop.
  bool expired_before = false;
  while (!cancel.canceled()) {
    if (need_list) {
      auto list = lister_watcher_.List(&cancel);
      if (!list) {
        if (list.error().IsCanceled()) return;
        ++failures_;
        Report(list.error());
        if (!cancel.WaitFor(backoff.Next())) return;
        continue;
      }
      ++lists_;
      backoff.Reset();
      resource_version = list->resource_version;
      sink_.Replace(std::move(list->items), std::move(list->resource_version));
      need_list = false;
    }

    WatchRequest request;
    request.resource_version = resource_version;
    request.timeout_seconds = RandomWatchTimeout(
        random_, options_.min_watch_timeout_s, options_.max_watch_timeout_s);
    request.cancel = &cancel;
    ++watches_;
    const auto started = std::chrono::steady_clock::now();
    WatchOutcome outcome = lister_watcher_.Watch(
        request, [this](const WatchEvent& event) { sink_.Apply(event); });
    resource_version = outcome.resource_version;
    if (outcome.end == WatchEnd::kClosed && outcome.events == 0 &&
        std::chrono::steady_clock::now() - started < kShortestNormalWatch) {
      outcome.end = WatchEnd::kFailed;
      outcome.error = Error{0, std::string(kReasonBadResponse),
                            "watch ended at once without an event"};
    }
    if (outcome.events > 0) {
      backoff.Reset();
      expired_before = false;
    }

    switch (outcome.end) {
      case WatchEnd::kCanceled:
        return;
      case WatchEnd::kClosed:
        backoff.Reset();
        expired_before = false;
        break;
      case WatchEnd::kExpired:
        Report(outcome.error);
        need_list = true;
        if (expired_before && !cancel.WaitFor(backoff.Next())) return;
        expired_before = true;
        break;
      case WatchEnd::kFailed:
        ++failures_;
        Report(outcome.error);
        if (!cancel.WaitFor(backoff.Next())) return;
        break;
    }
  }
}

}  // namespace ax::kube
