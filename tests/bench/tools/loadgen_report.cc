#include "loadgen_report.h"

#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <string>

#include "dns_query.h"

namespace ax::bench {
namespace {

// The text as a JSON string body (quotes, backslashes, control characters).
std::string JsonEscape(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char escaped[8];
      std::snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace

bool CountAnswer(const QueryTemplate& query, const uint8_t* answer, size_t size,
                 uint64_t latency_ns, RunResult* result) {
  // A response (QR set) echoing the question: same bytes after the ID, flags
  // and counts.
  if (size < query.question_end || (answer[2] & 0x80) == 0 ||
      std::memcmp(answer + kDnsHeaderSize, query.wire.data() + kDnsHeaderSize,
                  query.question_end - kDnsHeaderSize) != 0) {
    ++result->unmatched;
    return false;
  }
  result->latency.Add(latency_ns);
  ++result->received;
  ++result->rcodes[answer[3] & 0x0F];
  if (answer[2] & 0x02) ++result->truncated;
  return true;
}

void PrintReport(FILE* out, const LoadgenOptions& options,
                 const std::string& label, const std::string& server,
                 const QuerySet& queries, const RunResult& r) {
  const double seconds = static_cast<double>(r.sending_ns) / 1e9;
  const uint64_t lost = r.sent - r.received;
  std::fprintf(out, "{\"label\": \"%s\", \"server\": \"%s\", ",
               JsonEscape(label).c_str(), JsonEscape(server).c_str());
  if (r.turns > 0) {
    std::fprintf(out, "\"slice_ms\": %d, \"turns\": %" PRIu64 ", ",
                 options.slice_ms, r.turns);
  }
  if (r.cpu_ns >= 0) {
    const double cpu_s = static_cast<double>(r.cpu_ns) / 1e9;
    std::fprintf(
        out, "\"server_cpu_s\": %.6f, \"cpu_us_per_query\": %.4f, ", cpu_s,
        1e6 * cpu_s / static_cast<double>(std::max<uint64_t>(1, r.received)));
  }
  if (options.tcp) {
    std::fprintf(out,
                 "\"transport\": \"tcp\", \"connections\": %d, "
                 "\"pipeline\": %d, \"inflight\": %d, \"reconnects\": %" PRIu64
                 ", \"dropped\": %" PRIu64 ", ",
                 options.connections, options.pipeline,
                 options.connections * options.pipeline, r.reconnects,
                 r.dropped);
  } else {
    std::fprintf(out, "\"transport\": \"udp\", \"inflight\": %d, ",
                 options.inflight);
  }
  std::fprintf(out,
               "\"duration_s\": %.3f, \"rate_target\": %.0f, "
               "\"sources\": %d, \"queries\": %zu, \"subnets\": %zu, ",
               seconds, options.rate, options.sources, queries.queries.size(),
               queries.subnets);
  std::fprintf(out,
               "\"sent\": %" PRIu64 ", \"received\": %" PRIu64
               ", \"lost\": %" PRIu64 ", \"timeouts\": %" PRIu64
               ", \"unmatched\": %" PRIu64 ", \"send_errors\": %" PRIu64
               ", \"truncated\": %" PRIu64 ", ",
               r.sent, r.received, lost, r.timeouts, r.unmatched, r.send_errors,
               r.truncated);
  std::fprintf(
      out, "\"sent_qps\": %.0f, \"qps\": %.0f, \"loss_pct\": %.4f, ",
      static_cast<double>(r.sent) / seconds,
      static_cast<double>(r.received) / seconds,
      r.sent ? 100.0 * static_cast<double>(lost) / static_cast<double>(r.sent)
             : 0.0);
  const LatencyHistogram& latency = r.latency;
  std::fprintf(
      out,
      "\"latency_us\": {\"mean\": %.1f, \"p50\": %" PRIu64 ", \"p90\": %" PRIu64
      ", \"p99\": %" PRIu64 ", \"p999\": %" PRIu64 ", \"max\": %.1f}, ",
      latency.mean_us(), latency.QuantileUs(0.5), latency.QuantileUs(0.9),
      latency.QuantileUs(0.99), latency.QuantileUs(0.999), latency.max_us());
  static constexpr const char* kRcodes[16] = {
      "NOERROR",  "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP",  "REFUSED",
      "YXDOMAIN", "YXRRSET", "NXRRSET",  "NOTAUTH",  "NOTZONE", "RCODE11",
      "RCODE12",  "RCODE13", "RCODE14",  "RCODE15"};
  std::fprintf(out, "\"rcodes\": {");
  const char* separator = "";
  for (int code = 0; code < 16; ++code) {
    if (r.rcodes[code] == 0) continue;
    std::fprintf(out, "%s\"%s\": %" PRIu64, separator, kRcodes[code],
                 r.rcodes[code]);
    separator = ", ";
  }
  std::fprintf(out, "}}");
}

}  // namespace ax::bench
