// When to probe which node: pure logic with the clock and the RNG as
// arguments, no sockets and no threads (the engine does the I/O).
//
// Rules: one probe per node at a time and at most one start per interval
// (nodes are keyed by name, so a node used by many domains is probed once);
// a new node's first probe is due within a small cold-start spread, not after
// an interval; later starts come interval * (1 + U[0, jitter)) after the
// previous start, which spreads nodes apart; at most max_in_flight probes run
// at once (the oldest due goes first); each probe has a deadline of start +
// timeout after which it counts as timed out, whatever its socket does; a
// removed node is forgotten at once and its in-flight probe becomes stale.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ax/rng.h"

namespace ax::probe {

struct SchedulerConfig {
  size_t max_in_flight = 64;
  // Each period is interval * (1 + U[0, jitter_fraction)); clamped to [0, 1].
  double jitter_fraction = 0.1;
  // A new node's first probe: now + U[0, min(spread, interval)).
  int64_t cold_start_spread_ms = 200;
};

struct NodeTiming {
  int64_t interval_ms = 5000;  // raised to kMinIntervalMs
  int64_t timeout_ms = 2000;   // raised to 1
};

// A probe the engine must start now (TakeDue) or give up on (TakeExpired).
struct Launch {
  uint64_t probe_id = 0;  // never reused; 0 is never an id
  std::string node;
  int64_t started_ms = 0;
  int64_t deadline_ms = 0;
};

class Scheduler {
 public:
  // A floor so a zero interval in a manifest cannot become a busy loop.
  static constexpr int64_t kMinIntervalMs = 10;

  explicit Scheduler(SchedulerConfig config) : config_(config) {}

  // Adds `node` (first probe within the cold-start spread) or updates the
  // timing of a known one (its next start moves no later than now + the new
  // interval; a running probe keeps its deadline).
  void Upsert(const std::string& node, NodeTiming timing, int64_t now_ms,
              Rng& rng);
  // Forgets `node`. Returns the id of its in-flight probe (0: none) so the
  // caller can drop the connection; Complete() will refuse that id.
  uint64_t Remove(const std::string& node);
  // Makes the node set exactly `nodes` (first occurrence wins on duplicate
  // names). Returns the in-flight ids of removed nodes.
  std::vector<uint64_t> SetNodes(
      const std::vector<std::pair<std::string, NodeTiming>>& nodes,
      int64_t now_ms, Rng& rng);

  // The probes to start now, oldest due first, within the in-flight bound.
  std::vector<Launch> TakeDue(int64_t now_ms);
  // In-flight probes past their deadline. They are finished here (next start
  // scheduled); the caller reports them as timeouts and drops the sockets.
  std::vector<Launch> TakeExpired(int64_t now_ms, Rng& rng);
  // A probe ended. False: discard its result (node removed, or the probe
  // already expired).
  bool Complete(uint64_t probe_id, int64_t now_ms, Rng& rng);

  // The earliest time something is due or a deadline passes; nullopt when
  // there are no nodes. Due times only count while a slot is free.
  std::optional<int64_t> NextWakeMs() const;

  size_t size() const { return nodes_.size(); }
  size_t in_flight() const { return in_flight_.size(); }
  bool contains(const std::string& node) const { return nodes_.count(node); }
  // When `node` is next due (nullopt: unknown node or running now).
  std::optional<int64_t> NextDueMs(const std::string& node) const;

 private:
  struct Entry {
    NodeTiming timing;
    int64_t next_due_ms = 0;
    uint64_t running_id = 0;  // 0: not in flight
    int64_t started_ms = 0;
    int64_t deadline_ms = 0;
  };

  // std::map iterators stay valid until their own node is erased.
  using Node = std::map<std::string, Entry>::iterator;
  // An idle node by next due time, then name: the oldest due goes first.
  using DueKey = std::pair<int64_t, Node>;
  struct DueOrder {
    bool operator()(const DueKey& a, const DueKey& b) const {
      return a.first != b.first ? a.first < b.first
                                : a.second->first < b.second->first;
    }
  };

  static NodeTiming Clamp(NodeTiming timing);
  // Ends the node's running probe and schedules its next start.
  void Finish(Node node, Rng& rng);
  // Sets the next start from the last one and indexes the node as idle.
  void ScheduleNext(Node node, Rng& rng);

  SchedulerConfig config_;
  std::map<std::string, Entry> nodes_;
  // Indexes over nodes_, so a wake-up costs O(log n) rather than scans of
  // every node (at 500 nodes, three scans per wake-up were ~7% of the probe
  // thread's CPU): idle nodes by due time, running probes by deadline.
  std::set<DueKey, DueOrder> idle_;
  std::set<std::pair<int64_t, uint64_t>> deadlines_;  // (deadline, id)
  std::unordered_map<uint64_t, Node> in_flight_;      // id -> node
  uint64_t next_id_ = 1;
};

}  // namespace ax::probe
