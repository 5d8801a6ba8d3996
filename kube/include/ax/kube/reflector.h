// The list+watch loop behind an informer, as client-go's reflector: list,
// watch from the list's resourceVersion with a random timeoutSeconds
// (300-600 s), resume after the server ends a watch, relist on 410 Gone, back
// off (backoff.h) after failures and after watches that end at once, until
// canceled. Where the objects go is the
// sink's business (informer.h); how to list and watch is a ListerWatcher's.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "ax/kube/backoff.h"
#include "ax/kube/cancel.h"
#include "ax/kube/client.h"
#include "ax/kube/watch.h"

namespace ax::kube {

// How the reflector reaches the objects; a test can wrap the real one.
class ListerWatcher {
 public:
  virtual ~ListerWatcher() = default;
  virtual Result<ObjectList> List(CancelToken* cancel) = 0;
  // request.cancel is set; the selectors are the ListerWatcher's own.
  virtual WatchOutcome Watch(const WatchRequest& request,
                             const WatchHandler& on_event) = 0;
};

struct ListWatchOptions {
  std::string label_selector;
  std::string field_selector;
  int64_t page_size = 500;
};

// Lists (paginated) and watches `collection` through `client`, which must
// outlive it.
std::unique_ptr<ListerWatcher> NewListerWatcher(Client& client,
                                                Resource collection,
                                                ListWatchOptions options = {});

// Receives what the reflector learns, on the reflector's thread.
class ReflectorSink {
 public:
  virtual ~ReflectorSink() = default;
  // The complete set of objects after each (re)list, and the list's
  // resourceVersion.
  virtual void Replace(std::vector<nlohmann::json> items,
                       std::string resource_version) = 0;
  // An ADDED, MODIFIED or DELETED event after that list.
  virtual void Apply(const WatchEvent& event) = 0;
};

struct ReflectorOptions {
  int min_watch_timeout_s = 300;
  int max_watch_timeout_s = 600;
  BackoffPolicy backoff;
  Random random;  // null: OsSeededRandom()
  // Told about every failed list or watch (for logs), on the loop's thread.
  std::function<void(const Error&)> on_error;
};

struct ReflectorCounters {
  uint64_t lists = 0;
  uint64_t relists = 0;  // lists after the first
  uint64_t watches = 0;
  uint64_t watch_restarts = 0;  // watches after the first
  // Failed lists and watches (not 410s), watches ended at once included.
  uint64_t failures = 0;
};

// A watch timeout in [min_s, max_s] from a uniform [0, 1) draw.
int RandomWatchTimeout(const Random& random, int min_s, int max_s);

class Reflector {
 public:
  Reflector(ListerWatcher& lister_watcher, ReflectorSink& sink,
            ReflectorOptions options);

  // Lists and watches until `cancel` is canceled; returns promptly then.
  void Run(CancelToken& cancel);

  ReflectorCounters counters() const;

 private:
  void Report(const Error& error);

  ListerWatcher& lister_watcher_;
  ReflectorSink& sink_;
  const ReflectorOptions options_;
  const Random random_;
  std::atomic<uint64_t> lists_{0}, watches_{0}, failures_{0};
};

}  // namespace ax::kube
