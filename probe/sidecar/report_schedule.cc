// ReportSchedule (report_schedule.h).
#include "sidecar/report_schedule.h"

#include <utility>

namespace ax::probe {

bool ReportSchedule::Due(const HealthKey& key, int64_t now_ms) const {
  if (!last_written_ms_) return true;
  if (key != last_key_) return true;
  return now_ms - *last_written_ms_ >= heartbeat_ms_;
}

void ReportSchedule::Written(HealthKey key, int64_t now_ms) {
  last_key_ = std::move(key);
  last_written_ms_ = now_ms;
}

std::optional<int64_t> ReportSchedule::NextHeartbeatMs() const {
  if (!last_written_ms_) return std::nullopt;
  return *last_written_ms_ + heartbeat_ms_;
}

}  // namespace ax::probe
