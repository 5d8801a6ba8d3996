// One streaming watch request (watch.h).
#include "ax/kube/watch.h"

#include <optional>

#include "ax/kube/line_splitter.h"
#include "json_util.h"

namespace ax::kube {
namespace {

// How long past timeoutSeconds the stream may stay silent before we stop
// trusting it (the server closes it at timeoutSeconds).
constexpr std::chrono::seconds kReadMargin{30};

Error StreamError(std::string message) {
  return Error{200, std::string(kReasonBadResponse), std::move(message)};
}

}  // namespace

Result<WatchEvent> ParseWatchEvent(std::string_view line) {
  const nlohmann::json parsed = ParseJson(line);
  const std::string type = StringField(parsed, "type");
  const nlohmann::json* object = ObjectField(parsed, "object");
  if (object == nullptr) {
    return StreamError("watch: not an event: " +
                       std::string(line.substr(0, 200)));
  }
  WatchEvent event;
  if (type == "ADDED") {
    event.type = WatchEventType::kAdded;
  } else if (type == "MODIFIED") {
    event.type = WatchEventType::kModified;
  } else if (type == "DELETED") {
    event.type = WatchEventType::kDeleted;
  } else if (type == "BOOKMARK") {
    event.type = WatchEventType::kBookmark;
  } else if (type == "ERROR") {
    event.type = WatchEventType::kError;
  } else {
    return StreamError("watch: unknown event type \"" + type + "\"");
  }
  event.object = *object;
  return event;
}

WatchOutcome RunWatch(Client& client, const Resource& collection,
                      const WatchRequest& request,
                      const WatchHandler& on_event) {
  WatchOutcome outcome;
  outcome.resource_version = request.resource_version;
  // Why the stream ended from our side: an ERROR event, a bad line.
  std::optional<Error> stream_error;
  const auto on_line = [&](std::string_view line) {
    auto event = ParseWatchEvent(line);
    if (!event) {
      stream_error = event.error();
      return false;
    }
    if (event->type == WatchEventType::kError) {
      stream_error = ErrorFromStatus(event->object, 500);
      return false;
    }
    if (std::string rv = MetadataField(event->object, "resourceVersion");
        !rv.empty()) {
      outcome.resource_version = std::move(rv);
    }
    if (event->type != WatchEventType::kBookmark) {
      ++outcome.events;
      on_event(*event);
    }
    return true;
  };

  LineSplitter lines;
  const auto on_data = [&](std::string_view data) {
    if (lines.Feed(data, on_line)) return true;
    if (lines.overflowed()) {
      stream_error =
          StreamError("watch: an event longer than " +
                      std::to_string(LineSplitter::kDefaultMaxLine) + " bytes");
    }
    return false;
  };
  const std::string target =
      WithQuery(ResourcePath(collection.Named("")),
                {{"watch", "1"},
                 {"resourceVersion", request.resource_version},
                 {"allowWatchBookmarks", request.allow_bookmarks ? "true" : ""},
                 {"timeoutSeconds", std::to_string(request.timeout_seconds)},
                 {"labelSelector", request.label_selector},
                 {"fieldSelector", request.field_selector}});
  const CallOptions call{
      std::chrono::seconds(request.timeout_seconds) + kReadMargin,
      request.cancel};
  auto streamed = client.GetStream(target, on_data, call);

  if (stream_error) {
    outcome.error = std::move(*stream_error);
  } else if (!streamed) {
    outcome.error = streamed.error();
  } else {
    outcome.end = WatchEnd::kClosed;
    return outcome;
  }
  if (outcome.error.IsCanceled()) {
    outcome.end = WatchEnd::kCanceled;
  } else if (outcome.error.IsGone()) {
    outcome.end = WatchEnd::kExpired;
  } else {
    outcome.end = WatchEnd::kFailed;
  }
  return outcome;
}

}  // namespace ax::kube
