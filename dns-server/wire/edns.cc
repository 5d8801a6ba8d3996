// OPT and Client Subnet: strict parsing of what queries carry, and our OPT
// reply.
#include "wire/edns.h"

namespace ax::dns {
namespace {

uint16_t ReadU16(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint16_t>(b[at] << 8 | b[at + 1]);
}

constexpr size_t kOptFixedSize = 11;  // root owner, TYPE, CLASS, TTL, RDLENGTH
constexpr size_t kOptionHeaderSize = 4;  // OPTION-CODE, OPTION-LENGTH
constexpr size_t kEcsFixedSize = 4;      // FAMILY, SOURCE, SCOPE
constexpr uint32_t kDoBit = 0x8000;  // in the TTL's low 16 bits (RFC 3225 §3)

}  // namespace

EcsStatus ParseClientSubnet(std::span<const uint8_t> data, ClientSubnet* out) {
  if (data.size() < kEcsFixedSize) return EcsStatus::kMalformed;
  const uint16_t family = ReadU16(data, 0);
  const uint8_t source_prefix = data[2];
  const uint8_t scope_prefix = data[3];
  const size_t max_prefix = family == kEcsFamilyV4   ? 32
                            : family == kEcsFamilyV6 ? 128
                                                     : 0;
  // FAMILY 0 means "no address" and comes only with SOURCE 0 (RFC 7871 §7.1.2);
  // any other unknown FAMILY is malformed (§7.2.1).
  if (max_prefix == 0 && family != 0) return EcsStatus::kMalformed;
  if (source_prefix > max_prefix) return EcsStatus::kMalformed;
  if (scope_prefix != 0) return EcsStatus::kMalformed;  // §6: 0 in queries
  const std::span<const uint8_t> address = data.subspan(kEcsFixedSize);
  if (address.size() != ClientSubnet::AddressLength(source_prefix)) {
    return EcsStatus::kMalformed;
  }
  // §6: ADDRESS is truncated to SOURCE bits, so no bit past them may be set.
  if (source_prefix % 8 != 0) {
    const uint8_t tail_mask = static_cast<uint8_t>(0xFF >> (source_prefix % 8));
    if (address.back() & tail_mask) return EcsStatus::kMalformed;
  }
  // Written in place, field by field: a whole ClientSubnet built here and
  // copied out was read back wider than written (a stalled store-to-load
  // forward per ECS query).
  out->family = family;
  out->source_prefix = source_prefix;
  out->scope_prefix = scope_prefix;
  out->address = {};
  for (size_t i = 0; i < address.size(); ++i) out->address[i] = address[i];
  return EcsStatus::kOk;
}

OptStatus ParseOpt(uint16_t klass, uint32_t ttl, std::span<const uint8_t> rdata,
                   EdnsQuery* out) {
  out->present = true;
  out->udp_size = klass;
  out->version = static_cast<uint8_t>(ttl >> 16);
  out->dnssec_ok = ttl & kDoBit;
  if (out->version != 0) return OptStatus::kOk;
  size_t at = 0;
  while (at < rdata.size()) {
    if (rdata.size() - at < kOptionHeaderSize) return OptStatus::kMalformed;
    const uint16_t code = ReadU16(rdata, at);
    const uint16_t length = ReadU16(rdata, at + 2);
    at += kOptionHeaderSize;
    if (rdata.size() - at < length) return OptStatus::kMalformed;
    // Every ECS option must be well formed (RFC 7871 §7.2.1: a wrongly
    // formatted option is rejected); the first one counts, as in BIND.
    if (code == kOptionClientSubnet) {
      ClientSubnet later;  // checked, not kept
      if (ParseClientSubnet(
              rdata.subspan(at, length),
              out->has_client_subnet ? &later : &out->client_subnet) !=
          EcsStatus::kOk) {
        return OptStatus::kMalformed;
      }
      out->has_client_subnet = true;
    }
    at += length;
  }
  return OptStatus::kOk;
}

size_t OptSize(const EdnsReply& reply) {
  size_t size = kOptFixedSize;
  if (reply.client_subnet) {
    size += kOptionHeaderSize + kEcsFixedSize +
            reply.client_subnet->address_length();
  }
  return size;
}

void AddOpt(MessageWriter& writer, const EdnsReply& reply) {
  static constexpr uint8_t kRoot[1] = {0};
  const uint32_t ttl = static_cast<uint32_t>(reply.extended_rcode) << 24 |
                       (reply.dnssec_ok ? kDoBit : 0);  // version 0
  writer.StartRecord(Section::kAdditional, kRoot, kTypeOpt, reply.udp_size,
                     ttl);
  if (const ClientSubnet* ecs = reply.client_subnet) {
    // RFC 7871 §7.2.1: FAMILY, SOURCE and ADDRESS as the query sent them.
    writer.AddU16(kOptionClientSubnet);
    writer.AddU16(static_cast<uint16_t>(kEcsFixedSize + ecs->address_length()));
    writer.AddU16(ecs->family);
    writer.AddU8(ecs->source_prefix);
    writer.AddU8(ecs->scope_prefix);
    writer.AddBytes({ecs->address.data(), ecs->address_length()});
  }
  writer.EndRecord();
}

}  // namespace ax::dns
