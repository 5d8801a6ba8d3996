// Kubernetes Events about objects ("Node gz-01 went Down"), written as core/v1
// Events: those are what `kubectl describe` and `kubectl get events` show for
// an object, their count/firstTimestamp/lastTimestamp fold repeats into one
// object, and events.k8s.io/v1 readers see them too (same storage). A repeat
// of (object, type, reason, message) bumps count and lastTimestamp with a
// merge patch instead of adding an object, as client-go's correlator does.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>

#include "ax/kube/client.h"

namespace ax::kube {

struct ObjectReference {
  std::string api_version;
  std::string kind;
  std::string ns;
  std::string name;
  std::string uid;
};

// The reference to an object as read from the API (apiVersion, kind,
// metadata.namespace/name/uid).
ObjectReference ReferenceTo(const nlohmann::json& object);

enum class EventType { kNormal, kWarning };

struct EventSource {
  std::string component;  // "ax-operator"
  std::string instance;   // the pod or host name
};

class EventRecorder {
 public:
  using WallClock = std::function<std::chrono::system_clock::time_point()>;

  // Remembers the last `remembered` distinct events for folding repeats.
  EventRecorder(Client& client, EventSource source, size_t remembered = 4096,
                WallClock clock = std::chrono::system_clock::now);

  // Creates the Event (in the object's namespace, "default" for cluster-
  // scoped objects) or bumps the count of the one recorded before. Messages
  // are cut to 1024 bytes. Calls are serialised.
  Result<nlohmann::json> Record(const ObjectReference& about, EventType type,
                                std::string_view reason,
                                std::string_view message,
                                const CallOptions& call = {});

 private:
  struct Recorded {
    std::list<std::string>::iterator age;  // position in lru_
    std::string ns;
    std::string name;
    int64_t count = 0;
  };

  nlohmann::json NewEvent(const ObjectReference& about, EventType type,
                          std::string_view reason, std::string_view message,
                          std::chrono::system_clock::time_point now) const;
  void Remember(const std::string& key, const nlohmann::json& event);

  Client& client_;
  const EventSource source_;
  const size_t remembered_;
  const WallClock clock_;

  std::mutex mu_;
  std::list<std::string> lru_;  // keys, most recent first
  std::unordered_map<std::string, Recorded> recorded_;
};

}  // namespace ax::kube
