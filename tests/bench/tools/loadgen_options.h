// Command line of ax_loadgen.
#ifndef AX_TESTS_BENCH_TOOLS_LOADGEN_OPTIONS_H_
#define AX_TESTS_BENCH_TOOLS_LOADGEN_OPTIONS_H_

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ax::bench {

struct LoadgenOptions {
  // ADDR:PORT. Several: the load is interleaved, each sending for slice_ms
  // in turn (UDP only), so that the host's drift falls on all of them alike.
  std::vector<std::string> servers;
  int slice_ms = 250;         // several servers: one server's turn
  std::vector<int> cpu_pids;  // per server: its process CPU time is reported
  double duration_s = 10;     // sending time, unless count is set
  uint64_t count = 0;        // queries to send; 0: as many as duration_s allows
  double rate = 0;           // queries/s; 0: as fast as the window allows
  int inflight = 500;        // queries outstanding at most
  int timeout_ms = 1000;     // a query unanswered this long is lost
  int batch = 64;            // datagrams per sendmmsg/recvmmsg
  int sources = 0;           // 127.0.i.1 source addresses; 0: the kernel's
  bool tcp = false;          // pipelined TCP instead of UDP
  int connections = 64;      // TCP: connections kept open
  int pipeline = 16;         // TCP: queries outstanding per connection
  std::string queries_file;  // lines "NAME TYPE [SUBNET]"
  std::vector<std::string> qnames;  // built-in mix: names (cycled)
  std::string qtype = "A";          // built-in mix: type
  std::vector<std::string> ecs;     // built-in mix: subnets (cycled)
  std::string ecs_file;             // built-in mix: subnets, one a line
  int ecs_random = 0;               // built-in mix: N random public /24s
  bool edns = false;                // OPT even without ECS
  uint64_t seed = 1;                // for --ecs-random and the mix order
  std::vector<std::string> labels;  // copied into the JSON: one, or per server
  std::string output;               // JSON file; stdout when empty
};

// --timeout in nanoseconds: an unanswered query is lost after this.
inline uint64_t TimeoutNs(const LoadgenOptions& options) {
  return static_cast<uint64_t>(options.timeout_ms) * 1'000'000ULL;
}

// How long one server is sent to: duration_s, or no limit (the count ends it).
inline uint64_t SendingNs(const LoadgenOptions& options) {
  if (options.count > 0) return std::numeric_limits<uint64_t>::max();
  return static_cast<uint64_t>(options.duration_s * 1e9);
}

// When sending that began at start_ns for sending_ns stops (no limit stays
// none).
inline uint64_t SendingEndNs(uint64_t start_ns, uint64_t sending_ns) {
  const uint64_t never = std::numeric_limits<uint64_t>::max();
  return sending_ns > never - start_ns ? never : start_ns + sending_ns;
}

// How many more queries may be sent after `sent`: what is left of the count,
// or no limit.
inline uint64_t QueriesLeft(const LoadgenOptions& options, uint64_t sent) {
  if (options.count == 0) return std::numeric_limits<uint64_t>::max();
  return sent < options.count ? options.count - sent : 0;
}

// Parses argv. Returns 0 to run, 1 after printing --help, 2 on a usage error
// (message on stderr).
int ParseLoadgenOptions(int argc, char** argv, LoadgenOptions* options);

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_LOADGEN_OPTIONS_H_
