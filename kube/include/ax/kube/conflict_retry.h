// Read-modify-write under optimistic concurrency: get the object, let the
// caller change it, PUT it (or its status) with the resourceVersion it was
// read at, and on 409 Conflict start over from a fresh read, a few times, as
// client-go's RetryOnConflict. Any other error ends it at once.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>

#include "ax/kube/client.h"

namespace ax::kube {

// Changes `object` in place; false: leave it as it is (nothing is written
// and the read object is returned).
using Mutation = std::function<bool(nlohmann::json& object)>;

enum class UpdateTarget { kObject, kStatus };

struct RetryOptions {
  int attempts = 5;  // writes tried, the first included
  // Pause before re-reading after a conflict: the other writer is usually
  // done by then.
  std::chrono::milliseconds delay{10};
  CallOptions call;  // for every read and write; its cancel also ends pauses
};

// The written object, or the error of the last attempt (a Conflict when all
// attempts conflicted).
Result<nlohmann::json> UpdateWithRetry(
    Client& client, const Resource& object, const Mutation& mutate,
    UpdateTarget target = UpdateTarget::kObject,
    const RetryOptions& options = {});

}  // namespace ax::kube
