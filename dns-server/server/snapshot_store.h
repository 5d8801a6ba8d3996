// The snapshot the data plane serves, behind one atomic pointer, plus the last
// N loaded versions for rollback. Loads build and validate a new ServingState
// off to the side and swap only when everything is valid; a bad load keeps the
// last good state and is recorded. Versions only go up, except by an explicit
// Rollback. Writers serialise on a mutex; readers never lock.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ax/snapshot.h"
#include "responder/serving_state.h"

namespace ax::dns {

struct SnapshotInfo {
  uint64_t version = 0;
  std::string content_hash;
  int64_t generated_at_ms = 0;
  int64_t loaded_at_ms = 0;
  std::string source;  // "file:/etc/ax/snapshot.json", "standalone:DIR", ...
};

struct StoreStatus {
  std::optional<SnapshotInfo> current;
  std::vector<SnapshotInfo> history;  // oldest first; includes current
  bool rolled_back = false;  // current was chosen by Rollback, not a load
  uint64_t loads = 0;        // successful swaps
  uint64_t errors = 0;       // refused loads (and errors sources reported)
  std::string last_error;
  int64_t last_error_at_ms = 0;
};

enum class LoadOutcome : uint8_t {
  kSwapped,    // the new snapshot is now served
  kUnchanged,  // same version and content as current: nothing to do
  kRejected,   // invalid or a version that does not go up: last good kept
};

class SnapshotStore {
 public:
  explicit SnapshotStore(std::vector<ZoneConfig> zones, size_t history = 5);

  // Runs on every newly built state before it is served, on the loading
  // thread (e.g. to attach compiled geo tables). Set before the first load.
  void SetPrepare(std::function<void(const ServingState&)> prepare) {
    prepare_ = std::move(prepare);
  }

  // Runs under the store's lock just before a state becomes the one served
  // (a load or a rollback): what must exist before any query sees it (the
  // workers' answer cells) is allocated here, not on a query thread. Set
  // before the first load.
  void SetOnServe(
      std::function<void(const std::shared_ptr<const ServingState>&)> hook) {
    on_serve_ = std::move(hook);
  }

  // Runs under the store's lock right after a state became the one served:
  // whoever waits for a new version (version_watch.h) sees it when woken.
  void SetAfterServe(std::function<void()> hook) {
    after_serve_ = std::move(hook);
  }

  // What readers serve from; null until the first successful load.
  std::shared_ptr<const ServingState> Current() const {
    return current_.load(std::memory_order_acquire);
  }
  // Counts the states served so far: a reader that saw the same count before
  // Current() still holds what Current() would return (query_context.h).
  uint64_t serves() const { return serves_.load(std::memory_order_acquire); }

  // A snapshot document (strict ParseSnapshot). `error`, if given, says why a
  // load was rejected.
  LoadOutcome Load(std::string_view json, std::string_view source,
                   std::string* error = nullptr);
  // A snapshot built in process (standalone); still runs ValidateSnapshot.
  LoadOutcome Load(std::shared_ptr<const Snapshot> snapshot,
                   std::string_view source, std::string* error = nullptr);

  // Serves the kept snapshot with `version` / the one loaded before current.
  // Later loads must still exceed the highest version ever loaded.
  bool Rollback(uint64_t version, std::string* error);
  bool Rollback(std::string* error);

  // The version a new in-process build should carry: above every version
  // loaded so far, so it is never refused as going backwards.
  uint64_t NextVersion() const;

  // Records an error a source hit before it had anything to load (missing
  // file, broken manifests), so /v1/snapshot and readiness can report it.
  void RecordError(std::string message);

  StoreStatus Status() const;

 private:
  LoadOutcome Publish(const std::shared_ptr<const Snapshot>& snapshot,
                      std::string_view source, std::string* error);
  LoadOutcome Reject(std::string message, std::string* error);
  void SwapTo(size_t index);  // requires mu_

  struct Entry {
    std::shared_ptr<const ServingState> state;
    SnapshotInfo info;
  };

  const std::vector<ZoneConfig> zones_;
  const size_t max_history_;
  std::function<void(const ServingState&)> prepare_;
  std::function<void()> after_serve_;
  std::function<void(const std::shared_ptr<const ServingState>&)> on_serve_;
  std::atomic<std::shared_ptr<const ServingState>> current_;
  std::atomic<uint64_t> serves_{0};  // bumped after each store to current_

  mutable std::mutex mu_;
  std::deque<Entry> history_;  // load order, oldest first
  size_t current_index_ = 0;   // into history_, when not empty
  uint64_t high_water_ = 0;    // highest version ever loaded
  bool rolled_back_ = false;
  uint64_t loads_ = 0;
  uint64_t errors_ = 0;
  std::string last_error_;
  int64_t last_error_at_ms_ = 0;
};

}  // namespace ax::dns
