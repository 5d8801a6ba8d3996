// Minimal DNS wire helpers for the benchmark tools: build a query (optionally
// with an EDNS Client Subnet option) and read the few header fields the tools
// need. Independent of dns-server/ on purpose: the tools must not share code
// with the server they measure.
#ifndef AX_TESTS_BENCH_TOOLS_DNS_QUERY_H_
#define AX_TESTS_BENCH_TOOLS_DNS_QUERY_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ax::bench {

constexpr size_t kDnsHeaderSize = 12;
constexpr uint16_t kTypeA = 1;
constexpr uint16_t kTypeOpt = 41;
constexpr uint16_t kOptionEcs = 8;

// A client subnet for the ECS option: IPv4 or IPv6 address bytes, prefix bits.
struct ClientSubnet {
  bool ipv6 = false;
  uint8_t address[16] = {};
  int prefix = 0;
};

// Parses "A.B.C.D/N", "X::Y/N" or a bare address (/32 or /128).
std::optional<ClientSubnet> ParseClientSubnet(std::string_view text);
std::string FormatClientSubnet(const ClientSubnet& subnet);

// Parses a record type mnemonic (A, AAAA, TXT, NS, SOA, MX, ANY, ...) or
// TYPEnnn.
std::optional<uint16_t> ParseQtype(std::string_view text);

// Builds a query (ID 0, RD clear) for name/qtype. With `ecs`, adds an OPT RR
// (UDP size 1232) carrying the subnet with scope 0; with `edns` alone, a plain
// OPT. Returns nullopt for a malformed name (empty label, label > 63, > 255).
std::optional<std::vector<uint8_t>> BuildQuery(
    std::string_view name, uint16_t qtype, bool edns,
    const std::optional<ClientSubnet>& ecs);

// Byte length of header + question of a well-formed message, 0 if malformed.
size_t QuestionEnd(const uint8_t* message, size_t size);

inline uint16_t ReadU16(const uint8_t* p) {
  return static_cast<uint16_t>((p[0] << 8) | p[1]);
}
inline void WriteU16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v >> 8);
  p[1] = static_cast<uint8_t>(v);
}

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_DNS_QUERY_H_
