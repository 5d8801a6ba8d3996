// Re-read and retry on 409 Conflict (conflict_retry.h).
#include "ax/kube/conflict_retry.h"

#include <thread>

namespace ax::kube {

Result<nlohmann::json> UpdateWithRetry(Client& client, const Resource& object,
                                       const Mutation& mutate,
                                       UpdateTarget target,
                                       const RetryOptions& options) {
  for (int attempt = 1;; ++attempt) {
    auto current = client.Get(object, options.call);
    if (!current) return current.error();
    nlohmann::json changed = *current;
    if (!mutate(changed)) return current;
    auto written = target == UpdateTarget::kStatus
                       ? client.UpdateStatus(object, changed, options.call)
                       : client.Update(object, changed, options.call);
    if (written || !written.error().IsConflict() ||
        attempt >= options.attempts) {
      return written;
    }
    if (options.call.cancel != nullptr) {
      if (!options.call.cancel->WaitFor(options.delay)) return written;
    } else {
      std::this_thread::sleep_for(options.delay);
    }
  }
}

}  // namespace ax::kube
