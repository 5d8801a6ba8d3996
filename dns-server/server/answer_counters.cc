// Switching cells on a snapshot change, and folding them into named totals.
#include "server/answer_counters.h"

#include <algorithm>
#include <unordered_set>

namespace ax::dns {
namespace {

// Pops a whole retired stack (acquire: the worker's last writes are visible).
AnswerCells* TakeAll(std::atomic<AnswerCells*>& stack) {
  return stack.exchange(nullptr, std::memory_order_acquire);
}

}  // namespace

AnswerCells::AnswerCells(std::shared_ptr<const ServingState> s)
    : state(std::move(s)) {
  const Snapshot& snapshot = state->snapshot();
  columns = snapshot.regions.size() + 1;
  const size_t domains = snapshot.domains.size();
  by_region = std::make_unique<Counter[]>(domains * columns);
  spilled = std::make_unique<Counter[]>(domains * columns);
  by_node = std::make_unique<Counter[]>(domains * snapshot.nodes.size());
}

AnswerCounter::~AnswerCounter() {
  delete ready_.load();
  delete current_.load();
  for (AnswerCells* c = TakeAll(retired_); c;) delete std::exchange(c, c->next);
}

void AnswerCounter::Prepare(std::shared_ptr<const ServingState> state) {
  auto* fresh = new AnswerCells(std::move(state));
  // Never taken, so never counted: freeing it loses nothing.
  delete ready_.exchange(fresh, std::memory_order_acq_rel);
}

AnswerCells* AnswerCounter::Switch(const ServingState* state) {
  AnswerCells* taken = ready_.exchange(nullptr, std::memory_order_acq_rel);
  if (!taken) return nullptr;
  if (taken->state.get() != state) {
    // Cells of a newer state (this query's state is already replaced): put
    // them back, unless a still newer one arrived, which makes them stale.
    AnswerCells* expected = nullptr;
    if (!ready_.compare_exchange_strong(expected, taken,
                                        std::memory_order_acq_rel)) {
      delete taken;
    }
    return nullptr;
  }
  AnswerCells* old = current_.exchange(taken, std::memory_order_acq_rel);
  if (old) {
    // Lock-free push; the scraper only ever takes the whole stack.
    old->next = retired_.load(std::memory_order_relaxed);
    while (!retired_.compare_exchange_weak(
        old->next, old, std::memory_order_release, std::memory_order_relaxed)) {
    }
  }
  return taken;
}

void AnswerTotals::Fold(const AnswerCells& cells, AnswerSeries& into) const {
  const Snapshot& s = cells.state->snapshot();
  for (size_t d = 0; d < s.domains.size(); ++d) {
    const SnapshotDomain& domain = s.domains[d];
    for (size_t r = 0; r < cells.columns; ++r) {
      const uint64_t n = cells.by_region[d * cells.columns + r].Get();
      if (n == 0) continue;
      const Route& route = s.routes[domain.routes[r]];
      const std::string region = r < s.regions.size() ? s.regions[r].name : "";
      into.by_region[{domain.name, region, RouteSourceName(route.source)}] += n;
      if (const uint64_t spilled = cells.spilled[d * cells.columns + r].Get()) {
        into.spilled[{domain.name, region}] += spilled;
      }
    }
    for (size_t node = 0; node < s.nodes.size(); ++node) {
      const uint64_t n = cells.by_node[d * s.nodes.size() + node].Get();
      if (n > 0) into.by_node[{domain.name, s.nodes[node].name}] += n;
    }
  }
}

AnswerSeries AnswerTotals::Collect(const std::vector<AnswerCounter*>& workers) {
  // A cell is in exactly one place: live (current), retired or folded. Taking
  // the retired stacks before and after reading the live pointers catches every
  // cell retired meanwhile; a live one seen retired is only folded.
  std::vector<AnswerCells*> retired;
  for (AnswerCounter* w : workers) {
    for (AnswerCells* c = TakeAll(w->retired_); c; c = c->next) {
      retired.push_back(c);
    }
  }
  std::vector<AnswerCells*> live;
  for (AnswerCounter* w : workers) {
    if (AnswerCells* c = w->current_.load(std::memory_order_acquire)) {
      live.push_back(c);
    }
  }
  std::unordered_set<AnswerCells*> retired_late;
  for (AnswerCounter* w : workers) {
    for (AnswerCells* c = TakeAll(w->retired_); c; c = c->next) {
      retired.push_back(c);
      retired_late.insert(c);
    }
  }
  for (AnswerCells* c : retired) Fold(*c, folded_);
  AnswerSeries out = folded_;
  for (AnswerCells* c : live) {
    if (!retired_late.count(c)) Fold(*c, out);
  }
  // Freed last: a retired cell's `next` is read while walking the stacks.
  for (AnswerCells* c : retired) delete c;
  return out;
}

}  // namespace ax::dns
