// One watch request: GET ...?watch=1 from a resourceVersion, its newline-
// delimited JSON events parsed as they stream in (LineSplitter), bookmarks
// advancing the resourceVersion, and how the stream ended, including 410 Gone
// as the HTTP status or as an in-stream ERROR event. Reconnecting, relisting
// and backing off are the reflector's (reflector.h).
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "ax/kube/cancel.h"
#include "ax/kube/client.h"
#include "ax/kube/resource.h"
#include "ax/kube/result.h"

namespace ax::kube {

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  // The object; for kError a metav1.Status; for kBookmark an object of the
  // watched kind carrying only metadata.resourceVersion.
  nlohmann::json object;
};

// One line of a watch stream: {"type": ..., "object": {...}}.
Result<WatchEvent> ParseWatchEvent(std::string_view line);

struct WatchRequest {
  // Where to start: a list's or the last event's resourceVersion. "" would
  // mean "from now" and lose what happened since the list.
  std::string resource_version;
  // The server ends the stream after this many seconds (> 0); the reflector
  // randomises it so many clients do not reconnect in step.
  int timeout_seconds = 300;
  bool allow_bookmarks = true;
  std::string label_selector;
  std::string field_selector;
  CancelToken* cancel = nullptr;
};

enum class WatchEnd {
  kClosed,    // the server ended the stream (timeoutSeconds): resume
  kExpired,   // 410: resource_version is too old; list again
  kFailed,    // no stream or a broken one: back off, then resume
  kCanceled,  // the request's CancelToken was canceled
};

struct WatchOutcome {
  WatchEnd end = WatchEnd::kClosed;
  // The last resourceVersion seen (event or bookmark), else the request's.
  std::string resource_version;
  uint64_t events = 0;  // ADDED/MODIFIED/DELETED delivered
  Error error;          // for kExpired and kFailed
};

// Gets ADDED, MODIFIED and DELETED events, in the server's order.
using WatchHandler = std::function<void(const WatchEvent& event)>;

// Runs one watch of `collection` (its name is ignored) until the stream
// ends. The read timeout is timeout_seconds plus a margin, so a server that
// went silent is noticed even without TCP keepalive.
WatchOutcome RunWatch(Client& client, const Resource& collection,
                      const WatchRequest& request,
                      const WatchHandler& on_event);

}  // namespace ax::kube
