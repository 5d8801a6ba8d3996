// When the sidecar writes its report: at once when the health key (verdict
// per node) differs from the last written report, else when the heartbeat
// has passed since the last write. Pure: `now_ms` is any monotonic clock.
#pragma once

#include <cstdint>
#include <optional>

#include "report/report_builder.h"

namespace ax::probe {

class ReportSchedule {
 public:
  explicit ReportSchedule(int64_t heartbeat_ms) : heartbeat_ms_(heartbeat_ms) {}

  // Nothing written yet, the key changed, or the heartbeat is due.
  bool Due(const HealthKey& key, int64_t now_ms) const;
  // Records a write attempt. A failed write counts too: retrying at once
  // would spin on a broken disk; the next heartbeat retries.
  void Written(HealthKey key, int64_t now_ms);
  // When the next heartbeat falls due; nullopt before the first write (due
  // now).
  std::optional<int64_t> NextHeartbeatMs() const;

 private:
  const int64_t heartbeat_ms_;
  std::optional<int64_t> last_written_ms_;
  HealthKey last_key_;
};

}  // namespace ax::probe
