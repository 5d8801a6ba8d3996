// The UDP side of ax_loadgen: batched sendmmsg/recvmmsg on one socket.
#ifndef AX_TESTS_BENCH_TOOLS_UDP_GENERATOR_H_
#define AX_TESTS_BENCH_TOOLS_UDP_GENERATOR_H_

#include <vector>

#include "loadgen_options.h"
#include "loadgen_report.h"
#include "net_util.h"
#include "query_set.h"

namespace ax::bench {

// Sends the load for --duration (or --count queries), then waits up to
// --timeout for the answers outstanding; to several servers, in turns of
// --slice-ms (loadgen_options.h), one result each. Returns false (message on
// stderr) on a socket error that ends the run.
bool RunUdp(const LoadgenOptions& options, const QuerySet& queries,
            const std::vector<SocketAddress>& servers,
            std::vector<RunResult>* results);

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_UDP_GENERATOR_H_
