// core/v1 Event creation and repeat folding (event_recorder.h).
#include "ax/kube/event_recorder.h"

#include <cstdio>

#include "ax/kube/kube_time.h"
#include "json_util.h"

namespace ax::kube {
namespace {

constexpr size_t kMaxMessage = 1024;
constexpr size_t kMaxNamePrefix = 253 - 17;  // room for ".<16 hex digits>"

// At most kMaxMessage bytes, not cutting a UTF-8 sequence in two.
std::string_view CutMessage(std::string_view message) {
  if (message.size() <= kMaxMessage) return message;
  size_t end = kMaxMessage;
  while (end > 0 && (static_cast<unsigned char>(message[end]) & 0xC0) == 0x80) {
    --end;
  }
  return message.substr(0, end);
}

std::string EventNamespace(const ObjectReference& about) {
  return about.ns.empty() ? "default" : about.ns;
}

}  // namespace

ObjectReference ReferenceTo(const nlohmann::json& object) {
  return ObjectReference{
      StringField(object, "apiVersion"), StringField(object, "kind"),
      MetadataField(object, "namespace"), MetadataField(object, "name"),
      MetadataField(object, "uid")};
}

EventRecorder::EventRecorder(Client& client, EventSource source,
                             size_t remembered, WallClock clock)
    : client_(client),
      source_(std::move(source)),
      remembered_(remembered),
      clock_(std::move(clock)) {}

nlohmann::json EventRecorder::NewEvent(
    const ObjectReference& about, EventType type, std::string_view reason,
    std::string_view message, std::chrono::system_clock::time_point now) const {
  // client-go names events "<object>.<unix nanoseconds in hex>".
  char suffix[24];
  std::snprintf(suffix, sizeof(suffix), ".%llx",
                static_cast<unsigned long long>(
                    std::chrono::duration_cast<std::chrono::nanoseconds>(
                        now.time_since_epoch())
                        .count()));
  const std::string stamp = FormatTime(now);
  nlohmann::json involved = {{"apiVersion", about.api_version},
                             {"kind", about.kind},
                             {"name", about.name}};
  if (!about.ns.empty()) involved["namespace"] = about.ns;
  if (!about.uid.empty()) involved["uid"] = about.uid;
  return {
      {"apiVersion", "v1"},
      {"kind", "Event"},
      {"metadata",
       {{"name", about.name.substr(0, kMaxNamePrefix) + suffix},
        {"namespace", EventNamespace(about)}}},
      {"involvedObject", std::move(involved)},
      {"type", type == EventType::kWarning ? "Warning" : "Normal"},
      {"reason", reason},
      {"message", CutMessage(message)},
      {"count", 1},
      {"firstTimestamp", stamp},
      {"lastTimestamp", stamp},
      {"source",
       {{"component", source_.component}, {"host", source_.instance}}},
      {"reportingComponent", source_.component},
      {"reportingInstance", source_.instance},
  };
}

void EventRecorder::Remember(const std::string& key,
                             const nlohmann::json& event) {
  const auto count = event.find("count");
  Recorded& entry = recorded_[key];
  if (entry.name.empty()) {
    lru_.push_front(key);
  } else {
    lru_.splice(lru_.begin(), lru_, entry.age);
  }
  entry.age = lru_.begin();
  entry.ns = MetadataField(event, "namespace");
  entry.name = MetadataField(event, "name");
  entry.count = count != event.end() && count->is_number_integer()
                    ? count->get<int64_t>()
                    : 1;
  while (recorded_.size() > remembered_) {
    recorded_.erase(lru_.back());
    lru_.pop_back();
  }
}

Result<nlohmann::json> EventRecorder::Record(const ObjectReference& about,
                                             EventType type,
                                             std::string_view reason,
                                             std::string_view message,
                                             const CallOptions& call) {
  const std::string_view cut = CutMessage(message);
  std::string key = about.uid + '\x1f' + about.kind + '\x1f' + about.ns +
                    '\x1f' + about.name + '\x1f' +
                    (type == EventType::kWarning ? "W" : "N") + '\x1f';
  key.append(reason);
  key += '\x1f';
  key.append(cut);

  std::lock_guard lock(mu_);
  const auto now = clock_();
  if (const auto it = recorded_.find(key); it != recorded_.end()) {
    const nlohmann::json patch = {{"count", it->second.count + 1},
                                  {"lastTimestamp", FormatTime(now)}};
    auto patched = client_.MergePatch(
        Events().In(it->second.ns).Named(it->second.name), patch, call);
    // A 404: the apiserver dropped it (events live an hour): start anew.
    if (patched || !patched.error().IsNotFound()) {
      if (patched) Remember(key, *patched);
      return patched;
    }
  }
  auto created = client_.Create(Events().In(EventNamespace(about)),
                                NewEvent(about, type, reason, cut, now), call);
  if (created) Remember(key, *created);
  return created;
}

}  // namespace ax::kube
