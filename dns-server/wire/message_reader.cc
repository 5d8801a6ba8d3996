// Query parsing: header, question, and a bounded walk over the other sections.
#include "wire/message_reader.h"

namespace ax::dns {
namespace {

uint16_t U16(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint16_t>(b[at] << 8 | b[at + 1]);
}
uint32_t U32(std::span<const uint8_t> b, size_t at) {
  return static_cast<uint32_t>(U16(b, at)) << 16 | U16(b, at + 2);
}

constexpr size_t kRrFixedSize = 10;  // TYPE, CLASS, TTL, RDLENGTH

// One RR at `*offset`: its fields checked to lie inside `message`; an OPT is
// parsed into `edns`. False when the RR is malformed or not allowed where it
// is.
bool ReadRecord(std::span<const uint8_t> message, size_t* offset,
                bool additional, EdnsQuery* edns) {
  const size_t owner = *offset;
  if (!SkipName(message, offset)) return false;
  if (message.size() - *offset < kRrFixedSize) return false;
  const uint16_t type = U16(message, *offset);
  const uint16_t klass = U16(message, *offset + 2);
  const uint32_t ttl = U32(message, *offset + 4);
  const uint16_t rdlength = U16(message, *offset + 8);
  *offset += kRrFixedSize;
  if (message.size() - *offset < rdlength) return false;
  const std::span<const uint8_t> rdata = message.subspan(*offset, rdlength);
  *offset += rdlength;
  if (type != kTypeOpt) return true;
  // RFC 6891 §6.1.1: one OPT, in the additional section, owned by the root.
  const bool first = !edns->present;
  edns->present = true;
  if (!additional || !first || message[owner] != 0) return false;
  return ParseOpt(klass, ttl, rdata, edns) == OptStatus::kOk;
}

}  // namespace

bool ParseHeader(std::span<const uint8_t> message, Header* header) {
  if (message.size() < kHeaderSize) return false;
  header->id = U16(message, 0);
  header->flags = U16(message, 2);
  header->qdcount = U16(message, 4);
  header->ancount = U16(message, 6);
  header->nscount = U16(message, 8);
  header->arcount = U16(message, 10);
  return true;
}

ParseStatus ParseQuery(std::span<const uint8_t> message, ParsedQuery* out) {
  // `out` may hold an earlier query (a worker's reused slot): none of it may
  // show through. The names are not cleared: has_question says they are unset.
  out->has_question = false;
  out->question.qtype = 0;
  out->question.qclass = 0;
  out->edns = EdnsQuery{};
  if (!ParseHeader(message, &out->header)) return ParseStatus::kFormErr;
  if (out->header.qdcount != 1) return ParseStatus::kFormErr;
  size_t offset = kHeaderSize;
  Question& q = out->question;
  if (!ReadName(message, &offset, &q.name)) return ParseStatus::kFormErr;
  if (message.size() - offset < 4) return ParseStatus::kFormErr;
  q.qtype = U16(message, offset);
  q.qclass = U16(message, offset + 2);
  offset += 4;
  ToLower(q.name, &q.lower);
  out->has_question = true;
  const uint32_t before_additional =
      static_cast<uint32_t>(out->header.ancount) + out->header.nscount;
  const uint32_t total = before_additional + out->header.arcount;
  for (uint32_t i = 0; i < total; ++i) {
    if (!ReadRecord(message, &offset, i >= before_additional, &out->edns)) {
      return ParseStatus::kFormErr;
    }
  }
  return ParseStatus::kOk;
}

}  // namespace ax::dns
