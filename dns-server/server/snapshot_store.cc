// SnapshotStore: validate off to the side, swap one pointer, keep history for
// rollback. Everything but Current() runs under mu_; loads are rare.
#include "server/snapshot_store.h"

#include <chrono>

#include "ax/runtime/clock.h"
#include "ax/runtime/log.h"
#include "ax/snapshot_json.h"
#include "ax/snapshot_validate.h"

namespace ax::dns {
namespace {

// The first few errors: the first ones are the most telling, and a corrupt
// document can produce many.
std::string JoinErrors(const std::vector<SnapshotError>& errors) {
  std::string text;
  size_t shown = 0;
  for (const SnapshotError& e : errors) {
    if (shown++ == 5) {
      text += "; and " + std::to_string(errors.size() - 5) + " more";
      break;
    }
    if (!text.empty()) text += "; ";
    text += e.ToString();
  }
  return text;
}

}  // namespace

SnapshotStore::SnapshotStore(std::vector<ZoneConfig> zones, size_t history)
    : zones_(std::move(zones)), max_history_(history == 0 ? 1 : history) {}

LoadOutcome SnapshotStore::Load(std::string_view json, std::string_view source,
                                std::string* error) {
  ParseSnapshotResult parsed = ParseSnapshot(json);
  if (!parsed.snapshot) {
    return Reject(std::string(source) + ": " + JoinErrors(parsed.errors),
                  error);
  }
  return Publish(std::make_shared<const Snapshot>(std::move(*parsed.snapshot)),
                 source, error);
}

LoadOutcome SnapshotStore::Load(std::shared_ptr<const Snapshot> snapshot,
                                std::string_view source, std::string* error) {
  if (!snapshot) return Reject(std::string(source) + ": no snapshot", error);
  const std::vector<SnapshotError> errors = ValidateSnapshot(*snapshot);
  if (!errors.empty()) {
    return Reject(std::string(source) + ": " + JoinErrors(errors), error);
  }
  return Publish(snapshot, source, error);
}

LoadOutcome SnapshotStore::Publish(
    const std::shared_ptr<const Snapshot>& snapshot, std::string_view source,
    std::string* error) {
  const uint64_t version = snapshot->version;
  const std::string hash = snapshot->content_hash;
  {
    std::lock_guard lock(mu_);
    if (!history_.empty()) {
      const SnapshotInfo& cur = history_[current_index_].info;
      if (version == cur.version && hash == cur.content_hash) {
        return LoadOutcome::kUnchanged;
      }
    }
  }
  // Built outside the lock: ServingState::Make is the expensive part.
  std::string make_error;
  std::shared_ptr<const ServingState> state =
      ServingState::Make(snapshot, zones_, &make_error);
  if (!state) return Reject(std::string(source) + ": " + make_error, error);
  if (prepare_) prepare_(*state);

  std::unique_lock lock(mu_);
  if (version <= high_water_) {
    const uint64_t high = high_water_;
    lock.unlock();
    return Reject(std::string(source) + ": version " + std::to_string(version) +
                      " is not above " + std::to_string(high) +
                      ", the highest loaded; versions never go backwards",
                  error);
  }
  history_.push_back(Entry{
      std::move(state), SnapshotInfo{version, hash, snapshot->generated_at_ms,
                                     runtime::WallMs(), std::string(source)}});
  while (history_.size() > max_history_) history_.pop_front();
  high_water_ = version;
  rolled_back_ = false;
  loads_++;
  SwapTo(history_.size() - 1);
  lock.unlock();
  runtime::Log(runtime::LogLevel::kInfo, "snapshot loaded",
               {{"version", version}, {"hash", hash}, {"source", source}});
  return LoadOutcome::kSwapped;
}

LoadOutcome SnapshotStore::Reject(std::string message, std::string* error) {
  runtime::Log(runtime::LogLevel::kError,
               "snapshot rejected, keeping the last good one",
               {{"error", message}});
  if (error) *error = message;
  RecordError(std::move(message));
  return LoadOutcome::kRejected;
}

void SnapshotStore::SwapTo(size_t index) {
  if (on_serve_) on_serve_(history_[index].state);
  current_index_ = index;
  current_.store(history_[index].state, std::memory_order_release);
  serves_.fetch_add(1, std::memory_order_release);
  if (after_serve_) after_serve_();
}

bool SnapshotStore::Rollback(uint64_t version, std::string* error) {
  std::lock_guard lock(mu_);
  for (size_t i = 0; i < history_.size(); ++i) {
    if (history_[i].info.version != version) continue;
    SwapTo(i);
    rolled_back_ = true;
    runtime::Log(runtime::LogLevel::kWarn, "snapshot rolled back",
                 {{"version", version}});
    return true;
  }
  std::string kept;
  for (const Entry& e : history_) {
    kept += (kept.empty() ? "" : ", ") + std::to_string(e.info.version);
  }
  *error = "version " + std::to_string(version) +
           " is not kept (kept: " + (kept.empty() ? "none" : kept) + ")";
  return false;
}

bool SnapshotStore::Rollback(std::string* error) {
  uint64_t version = 0;
  {
    std::lock_guard lock(mu_);
    if (history_.empty() || current_index_ == 0) {
      *error = "no earlier snapshot is kept";
      return false;
    }
    version = history_[current_index_ - 1].info.version;
  }
  return Rollback(version, error);
}

uint64_t SnapshotStore::NextVersion() const {
  std::lock_guard lock(mu_);
  return high_water_ + 1;
}

void SnapshotStore::RecordError(std::string message) {
  std::lock_guard lock(mu_);
  errors_++;
  last_error_ = std::move(message);
  last_error_at_ms_ = runtime::WallMs();
}

StoreStatus SnapshotStore::Status() const {
  std::lock_guard lock(mu_);
  StoreStatus s;
  if (!history_.empty()) s.current = history_[current_index_].info;
  for (const Entry& e : history_) s.history.push_back(e.info);
  s.rolled_back = rolled_back_;
  s.loads = loads_;
  s.errors = errors_;
  s.last_error = last_error_;
  s.last_error_at_ms = last_error_at_ms_;
  return s;
}

}  // namespace ax::dns
