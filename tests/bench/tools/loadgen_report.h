// What one ax_loadgen run counted, how an answer is checked against the query
// it answers, and the JSON object printed at the end. Shared by the UDP and TCP
// generators; no socket code lives here.
#ifndef AX_TESTS_BENCH_TOOLS_LOADGEN_REPORT_H_
#define AX_TESTS_BENCH_TOOLS_LOADGEN_REPORT_H_

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

#include "latency_histogram.h"
#include "loadgen_options.h"
#include "query_set.h"

namespace ax::bench {

struct RunResult {
  uint64_t sent = 0;
  uint64_t received = 0;
  uint64_t timeouts = 0;   // unanswered after --timeout
  uint64_t unmatched = 0;  // no query outstanding with that ID and question
  uint64_t send_errors = 0;
  uint64_t truncated = 0;
  uint64_t rcodes[16] = {};
  uint64_t reconnects = 0;  // TCP: connections reopened
  uint64_t dropped = 0;     // TCP: outstanding when their connection closed
  uint64_t sending_ns = 0;  // time spent sending (its turns' sum, interleaved)
  uint64_t turns = 0;       // interleaved: turns this server had
  int64_t cpu_ns = -1;      // --cpu-pid: the server's CPU time in its turns
  LatencyHistogram latency;
};

// Counts `answer` (size octets) as the answer to `query`, sent `latency_ns`
// ago, when it is a response echoing the query's question; returns false (and
// counts it unmatched) otherwise. The caller has matched the ID.
bool CountAnswer(const QueryTemplate& query, const uint8_t* answer, size_t size,
                 uint64_t latency_ns, RunResult* result);

// One JSON object, without a newline: the run's settings, counters, qps,
// latency percentiles (µs), rcodes and, when measured, the server's CPU time.
void PrintReport(FILE* out, const LoadgenOptions& options,
                 const std::string& label, const std::string& server,
                 const QuerySet& queries, const RunResult& result);

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_LOADGEN_REPORT_H_
