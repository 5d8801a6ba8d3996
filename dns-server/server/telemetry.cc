// Per-query accounting. Everything on the query path writes the worker's own
// cells; nothing allocates except AnswerCounter's once-per-snapshot switch.
#include "server/telemetry.h"

#include <chrono>

namespace ax::dns {

size_t QueryObserver::Respond(Responder& responder, const QueryRefs& refs,
                              const QueryMeta& meta,
                              std::span<const uint8_t> query,
                              std::span<uint8_t> out) {
  responder.Prepare(refs.geo_refs(), meta, query, &prepared_);
  return Respond(responder, refs, meta, prepared_, out);
}

size_t QueryObserver::Respond(Responder& responder, const QueryRefs& refs,
                              const QueryMeta& meta, const PreparedQuery& query,
                              std::span<uint8_t> out) {
  if (until_timed_-- != 0) {
    const size_t size = responder.Complete(refs.state.get(), refs.geo_refs(),
                                           meta, query, out, &info_);
    Count(refs, meta);
    return size;
  }
  until_timed_ = kTimedEvery - 1;
  const auto start = std::chrono::steady_clock::now();
  const size_t size = responder.Complete(refs.state.get(), refs.geo_refs(),
                                         meta, query, out, &info_);
  const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  const double seconds = static_cast<double>(ns) * 1e-9;
  size_t bucket = 0;
  while (bucket < kDurationBounds.size() && seconds > kDurationBounds[bucket]) {
    ++bucket;
  }
  counters_.duration_buckets[bucket].Add();
  counters_.duration_count.Add();
  counters_.duration_sum_ns.Add(static_cast<uint64_t>(ns));
  Count(refs, meta);
  return size;
}

void QueryObserver::Count(const QueryRefs& refs, const QueryMeta& meta) {
  const ResponseInfo& info = info_;
  const size_t protocol = static_cast<size_t>(meta.transport);
  if (info.rrl_limited) {
    (info.dropped ? counters_.rrl_drops : counters_.rrl_slips).Add();
  }
  if (info.dropped) {
    if (!info.rrl_limited) counters_.malformed[protocol].Add();
    return;
  }
  counters_.queries[protocol][QtypeIndex(info.qtype)][RcodeIndex(info.rcode)]
      .Add();
  if (info.truncated) counters_.truncated[protocol].Add();
  if (info.ecs) counters_.ecs[protocol].Add();
  if (info.geo_failed) counters_.geo_failures.Add();
  if (info.domain == kNoIndex || info.route == kNoIndex) return;
  answers_.Count(refs.state, info);
  if (log_ && log_->Sampled()) {
    log_->Push({.ts_ms = meta.now_ms,
                .source = meta.source,
                .transport = meta.transport,
                .info = info,
                .state = refs.state});
  }
}

QueryObserver* Telemetry::AddWorker() {
  std::lock_guard lock(mu_);
  observers_.push_back(std::make_unique<QueryObserver>(
      decision_log_ ? decision_log_->AddProducer() : nullptr));
  if (serving_) observers_.back()->answers().Prepare(serving_);
  return observers_.back().get();
}

void Telemetry::Serve(const std::shared_ptr<const ServingState>& state) {
  std::lock_guard lock(mu_);
  serving_ = state;
  for (const auto& o : observers_) o->answers().Prepare(state);
}

std::vector<const QueryCounters*> Telemetry::Counters() const {
  std::lock_guard lock(mu_);
  std::vector<const QueryCounters*> out;
  for (const auto& o : observers_) out.push_back(&o->counters());
  return out;
}

AnswerSeries Telemetry::CollectAnswers() {
  std::lock_guard lock(mu_);
  std::vector<AnswerCounter*> workers;
  for (const auto& o : observers_) workers.push_back(&o->answers());
  return answer_totals_.Collect(workers);
}

}  // namespace ax::dns
