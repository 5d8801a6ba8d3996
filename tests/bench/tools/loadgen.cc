// ax_loadgen: DNS load generator for tests/bench/peers/run.sh, over UDP
// (udp_generator.cc) or pipelined TCP (tcp_generator.cc). Builds the query mix,
// runs one generator (UDP: over one or several servers in turns) and prints
// its JSON report (loadgen_report.cc). See --help.
#include <arpa/inet.h>
#include <netinet/in.h>

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "loadgen_options.h"
#include "loadgen_report.h"
#include "net_util.h"
#include "query_set.h"
#include "tcp_generator.h"
#include "udp_generator.h"

namespace ax::bench {
namespace {

bool IsIpv4Loopback(const SocketAddress& address) {
  if (address.family() != AF_INET) return false;
  const auto* v4 = reinterpret_cast<const sockaddr_in*>(address.get());
  return (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
}

std::string LabelOf(const LoadgenOptions& options, size_t i) {
  if (options.labels.empty()) return "";
  return options.labels[options.labels.size() == 1 ? 0 : i];
}

// One server: its report. Several: {"slice_ms": N, "targets": [reports]}.
void PrintReports(FILE* out, const LoadgenOptions& options,
                  const QuerySet& queries,
                  const std::vector<RunResult>& results) {
  if (results.size() == 1) {
    PrintReport(out, options, LabelOf(options, 0), options.servers[0], queries,
                results[0]);
    std::fputc('\n', out);
    return;
  }
  std::fprintf(out, "{\"slice_ms\": %d, \"targets\": [", options.slice_ms);
  for (size_t i = 0; i < results.size(); ++i) {
    if (i > 0) std::fputs(", ", out);
    PrintReport(out, options, LabelOf(options, i), options.servers[i], queries,
                results[i]);
  }
  std::fputs("]}\n", out);
}

int Main(int argc, char** argv) {
  LoadgenOptions options;
  switch (ParseLoadgenOptions(argc, argv, &options)) {
    case 1:
      return 0;
    case 2:
      return 2;
    default:
      break;
  }
  QuerySet queries;
  std::string error;
  if (!BuildQuerySet(options, &queries, &error)) {
    std::fprintf(stderr, "ax_loadgen: %s\n", error.c_str());
    return 2;
  }
  for (const QueryTemplate& q : queries.queries) {
    if (q.wire.size() > 512) {
      std::fprintf(stderr, "ax_loadgen: a query is over 512 bytes\n");
      return 2;
    }
  }
  std::vector<SocketAddress> servers;
  for (const std::string& text : options.servers) {
    const std::optional<SocketAddress> server = ParseEndpoint(text);
    if (!server) {
      std::fprintf(stderr, "ax_loadgen: bad --server %s\n", text.c_str());
      return 2;
    }
    if (options.sources > 0 && !IsIpv4Loopback(*server)) {
      std::fprintf(stderr,
                   "ax_loadgen: --sources needs an IPv4 loopback --server\n");
      return 2;
    }
    servers.push_back(*server);
  }
  FILE* out = stdout;
  if (!options.output.empty()) {
    out = std::fopen(options.output.c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "ax_loadgen: %s\n",
                   ErrnoMessage("open " + options.output).c_str());
      return 1;
    }
  }
  std::vector<RunResult> results(1);
  const bool ok = options.tcp
                      ? RunTcp(options, queries, servers[0], &results[0])
                      : RunUdp(options, queries, servers, &results);
  if (ok) PrintReports(out, options, queries, results);
  if (out != stdout && std::fclose(out) != 0) {
    std::fprintf(stderr, "ax_loadgen: %s\n",
                 ErrnoMessage("write " + options.output).c_str());
    return 1;
  }
  return ok ? 0 : 1;
}

}  // namespace
}  // namespace ax::bench

int main(int argc, char** argv) { return ax::bench::Main(argc, argv); }
