// The TCP side of ax_loadgen: pipelined queries over many connections.
#ifndef AX_TESTS_BENCH_TOOLS_TCP_GENERATOR_H_
#define AX_TESTS_BENCH_TOOLS_TCP_GENERATOR_H_

#include "loadgen_options.h"
#include "loadgen_report.h"
#include "net_util.h"
#include "query_set.h"

namespace ax::bench {

// Opens --connections connections, keeps --pipeline queries outstanding on
// each for --duration (or until --count are sent), then waits up to --timeout
// for the rest. Returns false (message on stderr) when no connection can be
// opened at all.
bool RunTcp(const LoadgenOptions& options, const QuerySet& queries,
            const SocketAddress& server, RunResult* result);

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_TCP_GENERATOR_H_
