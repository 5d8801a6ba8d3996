// EDNS(0) (RFC 6891): the OPT pseudo-RR of a query, parsed, and the one we
// answer with; and the Client Subnet option (RFC 7871 §6). Parsing validates
// what the RFCs require of a query; what to do with a bad one (FORMERR,
// BADVERS) is the responder's.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

#include "wire/message_writer.h"

namespace ax::dns {

inline constexpr uint16_t kOptionClientSubnet = 8;  // RFC 7871 §6
inline constexpr uint16_t kEcsFamilyV4 = 1;  // IANA address family numbers
inline constexpr uint16_t kEcsFamilyV6 = 2;

struct ClientSubnet {
  uint16_t family = 0;  // 0 only with source_prefix 0 (RFC 7871 §7.1.2)
  uint8_t source_prefix = 0;
  uint8_t scope_prefix = 0;
  std::array<uint8_t, 16> address{};  // ceil(source_prefix / 8) octets used
  // ADDRESS octets for a SOURCE PREFIX-LENGTH (RFC 7871 §6).
  static constexpr size_t AddressLength(uint8_t source_prefix) {
    return (source_prefix + 7u) / 8;
  }
  size_t address_length() const { return AddressLength(source_prefix); }
};

enum class EcsStatus : uint8_t {
  kOk,
  kMalformed,  // FORMERR per RFC 7871 §6 and §7.2.1
};

// Validates one ECS option's data (after OPTION-CODE and OPTION-LENGTH): a
// known FAMILY (1, 2, or 0 with SOURCE 0 and no address), SOURCE within the
// family's length, SCOPE 0 as queries must send it (§6), exactly ceil(SOURCE/8)
// address octets and no bit set past SOURCE. `*out` is written only when the
// option is valid.
EcsStatus ParseClientSubnet(std::span<const uint8_t> data, ClientSubnet* out);

// What a query's OPT record said (RFC 6891 §6.1.2-3).
struct EdnsQuery {
  bool present = false;
  uint16_t udp_size = 0;  // the requester's payload size (CLASS)
  uint8_t version = 0;
  bool dnssec_ok = false;  // DO bit (RFC 3225), echoed
  bool has_client_subnet = false;
  ClientSubnet client_subnet;  // the first ECS option, when has_client_subnet
};

enum class OptStatus : uint8_t {
  kOk,
  kMalformed,  // options overrunning the RDATA, or a bad ECS option
};

// Parses one OPT RR from its CLASS and TTL fields and its RDATA (the owner and
// the count of OPT RRs are the message reader's to check). Options are only
// read for version 0: for an unknown version the responder answers BADVERS
// without looking at them (RFC 6891 §6.1.3). Unknown options are ignored
// (§6.1.2).
OptStatus ParseOpt(uint16_t klass, uint32_t ttl, std::span<const uint8_t> rdata,
                   EdnsQuery* out);

// Our OPT record.
struct EdnsReply {
  uint16_t udp_size = 1232;
  uint8_t extended_rcode = 0;  // RCODE >> 4
  bool dnssec_ok = false;
  const ClientSubnet* client_subnet =
      nullptr;  // echoed with this SCOPE when set
};

// Octets AddOpt will write, so callers can reserve room for it (RFC 6891 §7).
size_t OptSize(const EdnsReply& reply);
// Appends the OPT RR to the additional section.
void AddOpt(MessageWriter& writer, const EdnsReply& reply);

}  // namespace ax::dns
