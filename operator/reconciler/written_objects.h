// What this operator wrote, kept for a few seconds so that the next plan sees
// its own writes even when an informer has not delivered them yet: otherwise
// a plan right after a publish reads the old ConfigMap and conflicts, or
// re-emits a NodeDown Event because the status it wrote is not yet cached.
// Reconcile-thread only; no I/O.
#pragma once

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ax/kube/object_cache.h"

namespace ax::controller {

class WrittenObjects {
 public:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::seconds kKeep{10};

  // An object as the apiserver returned it from a write.
  void Record(const nlohmann::json& object, Clock::time_point now);

  // `cached` (an informer's objects of `kind`) with each object replaced by
  // what we wrote when that is newer (a higher resourceVersion), and objects
  // we wrote that the cache does not show added while the cache has not got
  // as far as our write: once it has, an absent object was deleted since
  // (a Canary deleted right after we wrote its status stays deleted). Writes
  // older than kKeep are forgotten first.
  std::vector<nlohmann::json> Merge(std::string_view kind,
                                    const kube::CacheView& cached,
                                    Clock::time_point now);

 private:
  struct Written {
    nlohmann::json object;
    Clock::time_point at;
  };
  // kind -> "namespace/name" -> what we wrote.
  std::map<std::string, std::map<std::string, Written>, std::less<>> written_;
};

// Whether resourceVersion `a` is newer than `b`. They are opaque to clients
// in principle; etcd-backed apiservers issue increasing integers, and when
// either is not one we trust the informer (false).
bool NewerResourceVersion(const nlohmann::json& a, const nlohmann::json& b);
bool NewerResourceVersion(std::string_view a, std::string_view b);

}  // namespace ax::controller
