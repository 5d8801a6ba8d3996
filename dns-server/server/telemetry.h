// What the query path records, per worker: a QueryObserver wraps each
// Respond call, samples its duration (1 query in kTimedEvery), bumps the
// worker's counters and answer cells and offers sampled decisions to the
// decision log. Telemetry owns the observers; the metrics collector reads
// them at scrape time. Observers are added at startup, before any scrape;
// snapshots may be served before and after.
#pragma once

#include <memory>
#include <mutex>
#include <span>
#include <vector>

#include "responder/responder.h"
#include "server/answer_counters.h"
#include "server/decision_log.h"
#include "server/query_context.h"
#include "server/query_counters.h"

namespace ax::dns {

class QueryObserver {
 public:
  // Every this many queries, one is timed: two clock reads per 64 queries.
  static constexpr uint32_t kTimedEvery = 64;

  explicit QueryObserver(DecisionLog::Producer* log) : log_(log) {}

  // responder.Complete(...) of a prepared query with the accounting around
  // it (the timed share measures Complete: parsing is not in it).
  size_t Respond(Responder& responder, const QueryRefs& refs,
                 const QueryMeta& meta, const PreparedQuery& query,
                 std::span<uint8_t> out);
  // The same for a query not prepared yet (TCP answers one at a time).
  size_t Respond(Responder& responder, const QueryRefs& refs,
                 const QueryMeta& meta, std::span<const uint8_t> query,
                 std::span<uint8_t> out);

  const QueryCounters& counters() const { return counters_; }
  AnswerCounter& answers() { return answers_; }

 private:
  void Count(const QueryRefs& refs, const QueryMeta& meta);

  QueryCounters counters_;
  AnswerCounter answers_;
  DecisionLog::Producer* const log_;  // null: no decision log
  uint32_t until_timed_ = 0;
  ResponseInfo info_;
  PreparedQuery prepared_;  // the unprepared Respond's
};

class Telemetry {
 public:
  explicit Telemetry(DecisionLog* decision_log) : decision_log_(decision_log) {}

  // An observer for one more worker thread (UDP worker or TCP loop), with
  // answer cells for the state being served, if any.
  QueryObserver* AddWorker();

  // `state` is about to be served: every worker's answer cells for it are
  // allocated now, on the caller's thread (SnapshotStore's on-serve hook).
  void Serve(const std::shared_ptr<const ServingState>& state);

  std::vector<const QueryCounters*> Counters() const;
  // Answer counts by name; also frees retired per-snapshot cells, so it is
  // called periodically even when nobody scrapes.
  AnswerSeries CollectAnswers();

 private:
  DecisionLog* const decision_log_;  // null: off
  mutable std::mutex mu_;            // the observer list and answer totals
  std::vector<std::unique_ptr<QueryObserver>> observers_;
  std::shared_ptr<const ServingState> serving_;  // the last Serve
  AnswerTotals answer_totals_;
};

}  // namespace ax::dns
