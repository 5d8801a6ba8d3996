// GSLB answers counted by snapshot indices: per (domain, region) and per
// (domain, node), in arrays allocated for each worker by the thread that makes
// a snapshot current (Prepare), never by a query: a worker only takes the
// cells waiting for it. Names are attached only when the scraper folds the
// counts into totals keyed by domain/region/node names, so series survive
// snapshot changes. One AnswerCounter per worker (single writer);
// AnswerTotals::Collect is the only reader and the only place counted cells
// are freed.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "responder/responder.h"
#include "responder/serving_state.h"
#include "server/query_counters.h"

namespace ax::dns {

// Cells for one snapshot; `next` links retired cells for the scraper.
struct AnswerCells {
  explicit AnswerCells(std::shared_ptr<const ServingState> state);

  std::shared_ptr<const ServingState> state;  // for names; pins the address
  size_t columns = 0;  // regions + 1 (the last: unclassified clients)
  std::unique_ptr<Counter[]> by_region;  // domain * columns + region
  std::unique_ptr<Counter[]> spilled;    // the same, answers spilled over
  std::unique_ptr<Counter[]> by_node;    // domain * nodes + node
  AnswerCells* next = nullptr;
};

class AnswerCounter {
 public:
  AnswerCounter() = default;
  ~AnswerCounter();
  AnswerCounter(const AnswerCounter&) = delete;
  AnswerCounter& operator=(const AnswerCounter&) = delete;

  // Allocates the cells for `state`, which is about to be served, and leaves
  // them for the worker; cells prepared earlier and not taken are freed.
  // Called off the query path, before `state` is published.
  void Prepare(std::shared_ptr<const ServingState> state);

  // Counts one decision (info.domain and info.route set) made on `state`.
  // A query still answered from a state replaced twice meanwhile finds no
  // cells for it and is not counted here.
  void Count(const std::shared_ptr<const ServingState>& state,
             const ResponseInfo& info) {
    AnswerCells* cells = current_.load(std::memory_order_relaxed);
    if (!cells || cells->state.get() != state.get()) {
      cells = Switch(state.get());
      if (!cells) return;
    }
    const uint32_t region = info.region == kNoIndex
                                ? static_cast<uint32_t>(cells->columns - 1)
                                : info.region;
    const size_t cell = info.domain * cells->columns + region;
    cells->by_region[cell].Add();
    if (info.decision.spilled) cells->spilled[cell].Add();
    const size_t nodes = state->snapshot().nodes.size();
    for (uint32_t i = 0; i < info.decision.count; ++i) {
      cells->by_node[info.domain * nodes + info.decision.nodes[i]].Add();
    }
  }

 private:
  friend class AnswerTotals;
  // The prepared cells of `state` made current, or null when none wait.
  AnswerCells* Switch(const ServingState* state);

  // Ownership moves only by exchange: whoever takes a pointer out owns it.
  std::atomic<AnswerCells*> ready_{nullptr};  // prepared, not yet taken
  std::atomic<AnswerCells*> current_{nullptr};
  std::atomic<AnswerCells*> retired_{nullptr};  // a stack, popped whole
};

// Answer counts by names, summed over every worker and snapshot.
struct AnswerSeries {
  // (domain, region, route source) -> answers; region "" is unclassified.
  std::map<std::tuple<std::string, std::string, std::string>, uint64_t>
      by_region;
  // (domain, region) -> answers spilled over to the region's fallback.
  std::map<std::pair<std::string, std::string>, uint64_t> spilled;
  // (domain, node) -> answers that included the node.
  std::map<std::pair<std::string, std::string>, uint64_t> by_node;
};

class AnswerTotals {
 public:
  // Folds retired cells into the kept totals (freeing them) and returns the
  // totals plus every worker's live cells. Monotonic across calls: each cell
  // is counted either live or folded, never both in one call.
  AnswerSeries Collect(const std::vector<AnswerCounter*>& workers);

 private:
  void Fold(const AnswerCells& cells, AnswerSeries& into) const;

  AnswerSeries folded_;
};

}  // namespace ax::dns
