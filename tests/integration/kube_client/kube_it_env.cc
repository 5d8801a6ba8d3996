// A watch from resourceVersion 1 (kube_it_env.h).
#include "kube_it_env.h"

namespace ax::kube::it {

WatchOutcome WatchFromResourceVersionOne(Client& client,
                                         const Resource& collection) {
  const WatchRequest from_one{.resource_version = "1", .timeout_seconds = 5};
  WatchOutcome outcome;
  for (int attempt = 0; attempt < 50; ++attempt) {
    outcome = RunWatch(client, collection, from_one, [](const WatchEvent&) {});
    if (outcome.end != WatchEnd::kFailed || outcome.error.http_status != 429)
      break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return outcome;
}

}  // namespace ax::kube::it
