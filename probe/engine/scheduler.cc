// The pure probe scheduler (scheduler.h): the node map and two ordered
// indexes over it (idle nodes by due time, running probes by deadline), kept
// in step by every change, so a wake-up only looks at what is due.
#include "engine/scheduler.h"

#include <algorithm>
#include <unordered_set>

namespace ax::probe {

NodeTiming Scheduler::Clamp(NodeTiming timing) {
  timing.interval_ms = std::max(timing.interval_ms, kMinIntervalMs);
  timing.timeout_ms = std::max<int64_t>(timing.timeout_ms, 1);
  return timing;
}

void Scheduler::ScheduleNext(Node node, Rng& rng) {
  Entry& entry = node->second;
  const double jitter = std::clamp(config_.jitter_fraction, 0.0, 1.0);
  const auto extra = static_cast<int64_t>(
      static_cast<double>(entry.timing.interval_ms) * jitter * rng.Uniform());
  // From the start, not the end: a slow node keeps its cadence, and a probe
  // that outlived its interval is followed at once by the next.
  entry.next_due_ms = entry.started_ms + entry.timing.interval_ms + extra;
  idle_.emplace(entry.next_due_ms, node);
}

void Scheduler::Finish(Node node, Rng& rng) {
  Entry& entry = node->second;
  deadlines_.erase({entry.deadline_ms, entry.running_id});
  in_flight_.erase(entry.running_id);
  entry.running_id = 0;
  ScheduleNext(node, rng);
}

void Scheduler::Upsert(const std::string& node, NodeTiming timing,
                       int64_t now_ms, Rng& rng) {
  timing = Clamp(timing);
  auto it = nodes_.find(node);
  if (it == nodes_.end()) {
    Entry entry;
    entry.timing = timing;
    const int64_t spread =
        std::min(config_.cold_start_spread_ms, timing.interval_ms);
    entry.next_due_ms =
        now_ms +
        (spread > 0
             ? static_cast<int64_t>(static_cast<double>(spread) * rng.Uniform())
             : 0);
    it = nodes_.emplace(node, entry).first;
    idle_.emplace(entry.next_due_ms, it);
    return;
  }
  Entry& entry = it->second;
  entry.timing = timing;
  // A running node's next start is set when its probe ends.
  if (entry.running_id != 0) return;
  const int64_t due = std::min(entry.next_due_ms, now_ms + timing.interval_ms);
  if (due == entry.next_due_ms) return;
  idle_.erase({entry.next_due_ms, it});
  entry.next_due_ms = due;
  idle_.emplace(due, it);
}

uint64_t Scheduler::Remove(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return 0;
  const Entry& entry = it->second;
  const uint64_t id = entry.running_id;
  if (id != 0) {
    deadlines_.erase({entry.deadline_ms, id});
    in_flight_.erase(id);
  } else {
    idle_.erase({entry.next_due_ms, it});
  }
  nodes_.erase(it);
  return id;
}

std::vector<uint64_t> Scheduler::SetNodes(
    const std::vector<std::pair<std::string, NodeTiming>>& nodes,
    int64_t now_ms, Rng& rng) {
  std::unordered_set<std::string> wanted;
  for (const auto& [name, timing] : nodes) {
    if (wanted.insert(name).second) Upsert(name, timing, now_ms, rng);
  }
  std::vector<std::string> gone;
  for (const auto& [name, entry] : nodes_) {
    if (!wanted.count(name)) gone.push_back(name);
  }
  std::vector<uint64_t> cancelled;
  for (const auto& name : gone) {
    if (const uint64_t id = Remove(name)) cancelled.push_back(id);
  }
  return cancelled;
}

std::vector<Launch> Scheduler::TakeDue(int64_t now_ms) {
  std::vector<Launch> launches;
  while (!idle_.empty() && idle_.begin()->first <= now_ms &&
         in_flight_.size() < config_.max_in_flight) {
    const Node node = idle_.begin()->second;
    idle_.erase(idle_.begin());
    Entry& entry = node->second;
    entry.running_id = next_id_++;
    entry.started_ms = now_ms;
    entry.deadline_ms = now_ms + entry.timing.timeout_ms;
    in_flight_.emplace(entry.running_id, node);
    deadlines_.emplace(entry.deadline_ms, entry.running_id);
    launches.push_back(
        {entry.running_id, node->first, now_ms, entry.deadline_ms});
  }
  return launches;
}

std::vector<Launch> Scheduler::TakeExpired(int64_t now_ms, Rng& rng) {
  std::vector<Launch> expired;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    const Node node = in_flight_.at(deadlines_.begin()->second);
    const Entry& entry = node->second;
    expired.push_back(
        {entry.running_id, node->first, entry.started_ms, entry.deadline_ms});
    Finish(node, rng);
  }
  return expired;
}

bool Scheduler::Complete(uint64_t probe_id, int64_t /*now_ms*/, Rng& rng) {
  auto it = in_flight_.find(probe_id);
  if (it == in_flight_.end()) return false;
  Finish(it->second, rng);
  return true;
}

std::optional<int64_t> Scheduler::NextWakeMs() const {
  std::optional<int64_t> wake;
  if (!deadlines_.empty()) wake = deadlines_.begin()->first;
  // Due times only matter while a slot is free.
  if (!idle_.empty() && in_flight_.size() < config_.max_in_flight) {
    const int64_t due = idle_.begin()->first;
    if (!wake || due < *wake) wake = due;
  }
  return wake;
}

std::optional<int64_t> Scheduler::NextDueMs(const std::string& node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || it->second.running_id != 0) return std::nullopt;
  return it->second.next_due_ms;
}

}  // namespace ax::probe
