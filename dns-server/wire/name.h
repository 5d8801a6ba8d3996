// Domain names in wire format (RFC 1035 §3.1): reading them out of a message
// with compression pointers followed safely (§4.1.4), skipping them, ASCII case
// folding and encoding presentation text. Fixed-size and allocation-free except
// EncodeName, which is for building tables ahead of queries.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "wire/protocol.h"

namespace ax::dns {

// An uncompressed wire-format name, root label included: "www.example.test" is
// \3www\7example\4test\0 (18 octets).
struct WireName {
  // Only [0, size) is meaningful. Not zeroed: two names per query made the
  // clearing show up in profiles of the query path.
  std::array<uint8_t, kMaxNameLength> bytes;
  uint8_t size = 0;    // octets used, including the root label
  uint8_t labels = 0;  // not counting the root

  std::span<const uint8_t> wire() const { return {bytes.data(), size}; }
  // The same octets as a string_view, e.g. as a hash map key.
  std::string_view key() const {
    return {reinterpret_cast<const char*>(bytes.data()), size};
  }
};

// Reads the name at `*offset` in `message` into `name` and advances `*offset`
// past it (past the first pointer, if any). Rejects, without reading outside
// `message`: running off the end, label types other than 00 (RFC 6891 §5
// retired the extended types), names over 255 octets, and pointers that do not
// point strictly before the previous jump's target (so every loop is caught).
// Returns false on any of these.
bool ReadName(std::span<const uint8_t> message, size_t* offset, WireName* name);

// Advances `*offset` past the name there without following pointers; false when
// the name runs off the end of `message` or uses a reserved label type.
bool SkipName(std::span<const uint8_t> message, size_t* offset);

// ASCII-lower-cased copy (RFC 4343: DNS names compare case-insensitively).
// Length octets are below 64, so lowering every octet leaves them as they are.
void ToLower(const WireName& name, WireName* out);
WireName ToLower(const WireName& name);
inline uint8_t LowerOctet(uint8_t c) {
  return c >= 'A' && c <= 'Z' ? static_cast<uint8_t>(c + ('a' - 'A')) : c;
}

// "www.example.test" (trailing dot optional; "" and "." are the root) to wire
// format, keeping case. Nullopt for empty labels, labels over 63 octets, names
// over 255 octets. No escapes: names here come from validated configuration.
std::optional<std::string> EncodeName(std::string_view text);

// Wire format to "www.example.test." (for logs and tests; no escaping).
std::string NameToText(std::span<const uint8_t> wire);

}  // namespace ax::dns
