// Reads a DNS query (RFC 1035 §4.1): the header, the one question (name
// decompressed and bounded, case kept plus a lower-case copy for lookups) and
// the OPT record (RFC 6891) found by walking every remaining RR without
// copying. Decides only "well-formed or FORMERR"; what to answer is the
// responder's.
#pragma once

#include <cstdint>
#include <span>

#include "wire/edns.h"
#include "wire/name.h"
#include "wire/protocol.h"

namespace ax::dns {

struct Question {
  WireName name;   // as asked, case preserved (answers point back to it)
  WireName lower;  // ASCII lower case, for lookups
  uint16_t qtype = 0;
  uint16_t qclass = 0;
};

// False when `message` is shorter than a header.
bool ParseHeader(std::span<const uint8_t> message, Header* header);

struct ParsedQuery {
  Header header;
  bool has_question = false;
  Question question;
  EdnsQuery edns;  // edns.present once an OPT RR was seen, even a bad one
};

enum class ParseStatus : uint8_t { kOk, kFormErr };

// Parses everything after the header: QDCOUNT must be 1 (RFC 1035 §4.1.2, as
// every server implements it), the question well-formed, every counted RR
// inside the message, at most one OPT (RFC 6891 §6.1.1), in the additional
// section, owned by the root, with well-formed options. Octets after the last
// counted RR are ignored. On kFormErr, `out` keeps what was read before the
// problem (the question, the OPT). `out` may be reused from query to query.
ParseStatus ParseQuery(std::span<const uint8_t> message, ParsedQuery* out);

}  // namespace ax::dns
