#include "loadgen_options.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ax::bench {
namespace {

constexpr char kHelp[] = R"(usage: ax_loadgen --server ADDR:PORT [flags]

DNS load generator. Over UDP (the default) it batches datagrams with
sendmmsg/recvmmsg on one socket and keeps up to --inflight queries outstanding;
with --tcp it keeps --connections connections open, each with up to --pipeline
queries outstanding (RFC 7766 pipelining), and reopens a connection the server
closes. It sends as fast as answers free room, or at --rate queries per second
(open loop while room lasts). Prints one JSON object: sent, received, lost,
qps, latency percentiles (µs) and rcodes.

Several --server (UDP): each server is sent to for --slice-ms in turn until
each has had --duration of sending, and the JSON object holds one such report
per server under "targets". A host whose speed drifts by the second (a shared
VM) then slows all of them alike, which servers measured one after the other
are not. The first turn of each is not counted (the generator's cold start).
With --cpu-pid, each server's process CPU time over the run (its idle time in
the others' turns included, read 250 ms after the last turn) is reported per
answer.

Queries come from --queries FILE, or from the built-in mix: --qname (cycled)
x the client subnets (--ecs, --ecs-file, --ecs-random; cycled), each subnet
sent as an EDNS Client Subnet option.

flags:
  --server ADDR:PORT   target, e.g. 127.0.0.1:5353 or [::1]:53 (required;
                       repeatable: interleaved, see above)
  --slice-ms MS        several servers: one server's turn (10..60000) [default: 250]
  --cpu-pid PID        per --server, in order (UDP): the server's process, whose
                       CPU time is reported as server_cpu_s and cpu_us_per_query
  --duration SECONDS   sending time (per server) [default: 10]
  --count N            send N queries instead, as fast as --rate allows, then
                       wait for their answers: the same load on any machine
  --rate QPS           offered rate; 0: closed loop, as fast as possible [default: 0]
  --inflight N         UDP: queries outstanding at most (1..60000) [default: 500]
  --tcp                TCP instead of UDP
  --connections N      TCP: connections (1..4096) [default: 64]
  --pipeline N         TCP: queries outstanding per connection (1..1024) [default: 16]
  --timeout MS         an unanswered query counts as lost after this [default: 1000]
  --batch N            UDP: datagrams per sendmmsg/recvmmsg [default: 64]
  --sources N          send from N loopback addresses 127.0.1.1 .. 127.0.N.1,
                       each in its own /24 as many resolvers are (TCP: one per
                       connection, in turn; IPv4 server on loopback only;
                       0: one address) [default: 0]
  --queries FILE       lines "NAME TYPE [SUBNET]" ('#' comments); SUBNET adds ECS
  --qname NAME         built-in mix: name to ask (repeatable) [default: api.example.test]
  --qtype TYPE         built-in mix: type [default: A]
  --ecs SUBNET         built-in mix: client subnet, e.g. 1.2.3.0/24 (repeatable)
  --ecs-file FILE      built-in mix: client subnets, one a line ('#' comments)
  --ecs-random N       built-in mix: N random public IPv4 /24s (--seed)
  --edns               send an OPT record even without ECS
  --seed N             seed for --ecs-random and the query order [default: 1]
  --label TEXT         copied into the JSON as "label" (one, or one per --server)
  --output FILE        write the JSON there instead of stdout
  --help               this text
)";

bool ParseDouble(const char* text, double min, double max, double* out) {
  char* end = nullptr;
  const double value = std::strtod(text, &end);
  if (end == text || *end != '\0' || !(value >= min && value <= max)) {
    return false;
  }
  *out = value;
  return true;
}

bool ParseInt(const char* text, int min, int max, int* out) {
  double value = 0;
  if (!ParseDouble(text, min, max, &value) ||
      value != static_cast<int>(value)) {
    return false;
  }
  *out = static_cast<int>(value);
  return true;
}

}  // namespace

int ParseLoadgenOptions(int argc, char** argv, LoadgenOptions* options) {
  bool duration_given = false;
  for (int i = 1; i < argc; ++i) {
    const std::string_view flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::fputs(kHelp, stdout);
      return 1;
    }
    if (flag == "--edns" || flag == "--tcp") {
      (flag == "--edns" ? options->edns : options->tcp) = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "ax_loadgen: %s needs a value (see --help)\n",
                   argv[i]);
      return 2;
    }
    const char* value = argv[++i];
    bool ok = true;
    if (flag == "--server") {
      options->servers.emplace_back(value);
    } else if (flag == "--slice-ms") {
      ok = ParseInt(value, 10, 60000, &options->slice_ms);
    } else if (flag == "--cpu-pid") {
      int pid = 0;
      ok = ParseInt(value, 1, 1 << 30, &pid);
      options->cpu_pids.push_back(pid);
    } else if (flag == "--duration") {
      ok = ParseDouble(value, 0.1, 86400, &options->duration_s);
      duration_given = true;
    } else if (flag == "--count") {
      double count = 0;
      ok = ParseDouble(value, 1, 1e12, &count) && count == std::floor(count);
      options->count = static_cast<uint64_t>(count);
    } else if (flag == "--rate") {
      ok = ParseDouble(value, 0, 1e8, &options->rate);
    } else if (flag == "--inflight") {
      ok = ParseInt(value, 1, 60000, &options->inflight);
    } else if (flag == "--timeout") {
      ok = ParseInt(value, 1, 60000, &options->timeout_ms);
    } else if (flag == "--batch") {
      ok = ParseInt(value, 1, 1024, &options->batch);
    } else if (flag == "--connections") {
      ok = ParseInt(value, 1, 4096, &options->connections);
    } else if (flag == "--pipeline") {
      ok = ParseInt(value, 1, 1024, &options->pipeline);
    } else if (flag == "--sources") {
      ok = ParseInt(value, 0, 254, &options->sources);
    } else if (flag == "--queries") {
      options->queries_file = value;
    } else if (flag == "--qname") {
      options->qnames.emplace_back(value);
    } else if (flag == "--qtype") {
      options->qtype = value;
    } else if (flag == "--ecs") {
      options->ecs.emplace_back(value);
    } else if (flag == "--ecs-file") {
      options->ecs_file = value;
    } else if (flag == "--ecs-random") {
      ok = ParseInt(value, 1, 10000000, &options->ecs_random);
    } else if (flag == "--seed") {
      double seed = 0;
      ok = ParseDouble(value, 0, 9e15, &seed);
      options->seed = static_cast<uint64_t>(seed);
    } else if (flag == "--label") {
      options->labels.emplace_back(value);
    } else if (flag == "--output") {
      options->output = value;
    } else {
      std::fprintf(stderr, "ax_loadgen: unknown flag %s (see --help)\n",
                   argv[i - 1]);
      return 2;
    }
    if (!ok) {
      std::fprintf(stderr, "ax_loadgen: bad value for %s: %s\n", argv[i - 1],
                   value);
      return 2;
    }
  }
  if (duration_given && options->count > 0) {
    std::fprintf(stderr,
                 "ax_loadgen: --count and --duration exclude each other\n");
    return 2;
  }
  const size_t servers = options->servers.size();
  if (servers == 0) {
    std::fprintf(stderr, "ax_loadgen: --server is required (see --help)\n");
    return 2;
  }
  if (servers > 1 && (options->tcp || options->count > 0)) {
    std::fprintf(stderr,
                 "ax_loadgen: several --server interleave UDP sending time: "
                 "not with --tcp or --count\n");
    return 2;
  }
  if (options->tcp && !options->cpu_pids.empty()) {
    std::fprintf(stderr, "ax_loadgen: --cpu-pid is for UDP\n");
    return 2;
  }
  if (!options->cpu_pids.empty() && options->cpu_pids.size() != servers) {
    std::fprintf(stderr, "ax_loadgen: %zu --cpu-pid for %zu --server\n",
                 options->cpu_pids.size(), servers);
    return 2;
  }
  if (options->labels.size() > 1 && options->labels.size() != servers) {
    std::fprintf(stderr, "ax_loadgen: %zu --label for %zu --server\n",
                 options->labels.size(), servers);
    return 2;
  }
  if (!options->queries_file.empty() &&
      (!options->qnames.empty() || !options->ecs.empty() ||
       !options->ecs_file.empty() || options->ecs_random > 0)) {
    std::fprintf(stderr,
                 "ax_loadgen: --queries excludes the built-in mix flags\n");
    return 2;
  }
  return 0;
}

}  // namespace ax::bench
