// The pure probe scheduler (scheduler.h). Linear scans over the node map:
// a prober has hundreds of nodes, and a scan per wake-up is microseconds.
#include "engine/scheduler.h"

#include <algorithm>
#include <unordered_set>

namespace ax::probe {

NodeTiming Scheduler::Clamp(NodeTiming timing) {
  timing.interval_ms = std::max(timing.interval_ms, kMinIntervalMs);
  timing.timeout_ms = std::max<int64_t>(timing.timeout_ms, 1);
  return timing;
}

void Scheduler::ScheduleNext(Entry& entry, Rng& rng) const {
  const double jitter = std::clamp(config_.jitter_fraction, 0.0, 1.0);
  const auto extra = static_cast<int64_t>(
      static_cast<double>(entry.timing.interval_ms) * jitter * rng.Uniform());
  // From the start, not the end: a slow node keeps its cadence, and a probe
  // that outlived its interval is followed at once by the next.
  entry.next_due_ms = entry.started_ms + entry.timing.interval_ms + extra;
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
    nodes_.emplace(node, entry);
    return;
  }
  Entry& entry = it->second;
  entry.timing = timing;
  entry.next_due_ms = std::min(entry.next_due_ms, now_ms + timing.interval_ms);
}

uint64_t Scheduler::Remove(const std::string& node) {
  auto it = nodes_.find(node);
  if (it == nodes_.end()) return 0;
  const uint64_t id = it->second.running_id;
  if (id != 0) in_flight_.erase(id);
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
  if (in_flight_.size() >= config_.max_in_flight) return launches;
  using Iter = std::map<std::string, Entry>::iterator;
  std::vector<Iter> due;
  for (auto it = nodes_.begin(); it != nodes_.end(); ++it) {
    if (it->second.running_id == 0 && it->second.next_due_ms <= now_ms) {
      due.push_back(it);
    }
  }
  // Oldest due first, so a full pool delays everyone fairly.
  std::stable_sort(due.begin(), due.end(), [](Iter a, Iter b) {
    return a->second.next_due_ms < b->second.next_due_ms;
  });
  const size_t slots = config_.max_in_flight - in_flight_.size();
  if (due.size() > slots) due.resize(slots);
  for (Iter it : due) {
    Entry& entry = it->second;
    entry.running_id = next_id_++;
    entry.started_ms = now_ms;
    entry.deadline_ms = now_ms + entry.timing.timeout_ms;
    in_flight_.emplace(entry.running_id, it->first);
    launches.push_back(
        {entry.running_id, it->first, now_ms, entry.deadline_ms});
  }
  return launches;
}

std::vector<Launch> Scheduler::TakeExpired(int64_t now_ms, Rng& rng) {
  std::vector<Launch> expired;
  for (auto& [name, entry] : nodes_) {
    if (entry.running_id != 0 && entry.deadline_ms <= now_ms) {
      expired.push_back(
          {entry.running_id, name, entry.started_ms, entry.deadline_ms});
      in_flight_.erase(entry.running_id);
      entry.running_id = 0;
      ScheduleNext(entry, rng);
    }
  }
  return expired;
}

bool Scheduler::Complete(uint64_t probe_id, int64_t /*now_ms*/, Rng& rng) {
  auto it = in_flight_.find(probe_id);
  if (it == in_flight_.end()) return false;
  auto node = nodes_.find(it->second);
  in_flight_.erase(it);
  if (node == nodes_.end()) return false;  // cannot happen: Remove drops ids
  Entry& entry = node->second;
  entry.running_id = 0;
  ScheduleNext(entry, rng);
  return true;
}

std::optional<int64_t> Scheduler::NextWakeMs() const {
  std::optional<int64_t> wake;
  const bool slot_free = in_flight_.size() < config_.max_in_flight;
  for (const auto& [name, entry] : nodes_) {
    int64_t t = 0;
    if (entry.running_id != 0) {
      t = entry.deadline_ms;
    } else if (slot_free) {
      t = entry.next_due_ms;
    } else {
      continue;
    }
    if (!wake || t < *wake) wake = t;
  }
  return wake;
}

std::optional<int64_t> Scheduler::NextDueMs(const std::string& node) const {
  auto it = nodes_.find(node);
  if (it == nodes_.end() || it->second.running_id != 0) return std::nullopt;
  return it->second.next_due_ms;
}

}  // namespace ax::probe
