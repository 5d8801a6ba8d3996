// axctl query's DNS side, without sockets: the query it sends (RFC 1035 §4.1,
// RD clear since it asks an authoritative server, EDNS(0) per RFC 6891 with
// an optional Client Subnet per RFC 7871 §6), the answer read back with every
// read bounds-checked, its text and JSON renderings and the --expect check.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "ax/ip.h"

namespace ax {

struct QuerySpec {
  std::string name;  // presentation text: "www.example.test"
  uint16_t qtype = 0;
  std::optional<IpPrefix> subnet;  // sent as ECS when set
  uint16_t id = 0;
};

// The query's octets; nullopt when `spec.name` is not an encodable name.
std::optional<std::vector<uint8_t>> BuildQuery(const QuerySpec& spec);

// "A", "AAAA", "TXT", "CNAME", "SOA", "NS" (upper case) to the QTYPE.
std::optional<uint16_t> ParseQueryType(std::string_view text);

// "192.0.2.7/24" or "2001:db8::/48", host bits allowed and cleared, or a bare
// address (a full-length prefix).
std::optional<IpPrefix> ParseSubnet(std::string_view text);

struct AnswerRecord {
  std::string name;  // presentation format, escaped, with the final dot
  uint16_t type = 0;
  uint16_t klass = 0;
  uint32_t ttl = 0;
  std::string data;                  // the RDATA in presentation format
  std::optional<IpAddress> address;  // A and AAAA
};

// A reply as axctl query reads it (not the data plane's pick, decide.h's
// Answer).
struct DnsReply {
  uint16_t flags = 0;  // the header's second word
  uint16_t rcode = 0;  // with the OPT record's upper bits (RFC 6891 §6.1.3)
  std::vector<AnswerRecord> records;  // the answer section
  std::optional<uint8_t> ecs_scope;   // SCOPE PREFIX-LENGTH, when ECS echoed
};

enum class AnswerStatus : uint8_t {
  kOk,
  kNotOurs,    // not a response with the query's ID and question: ignore it
  kMalformed,  // ours, but a field runs past the end or does not add up
};

// Reads `message` as the answer to `query` (BuildQuery's octets). Whenever the
// status is not kNotOurs, `out->flags` is set (a truncated UDP answer is asked
// again over TCP whatever the rest holds); on kMalformed `error` says where.
AnswerStatus ParseAnswer(std::span<const uint8_t> message,
                         std::span<const uint8_t> query, DnsReply* out,
                         std::string* error);

std::string RcodeName(uint16_t rcode);  // "NOERROR", ..., "RCODE23"

// "status: NOERROR, flags: qr aa, answers: 1, ecs scope: /24" and one line
// per answer RR ("www.example.test. 30 IN A 192.0.2.10"), newline-terminated.
std::string AnswerToText(const DnsReply& answer);
// {"rcode":..., "flags":[...], "answers":[{name, type, ttl, data}], and
// "ecs_scope" when echoed}, on one line.
std::string AnswerToJson(const DnsReply& answer);

// Why the answer fails --expect (none of its A/AAAA addresses is one of
// `expect`), or nullopt when it passes or nothing is expected.
std::optional<std::string> ExpectMismatch(const DnsReply& answer,
                                          const std::vector<IpAddress>& expect);

}  // namespace ax
