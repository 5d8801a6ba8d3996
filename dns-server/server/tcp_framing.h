// RFC 1035 §4.2.2 / RFC 7766 framing: every DNS message on TCP is preceded by
// its length as two bytes, big-endian. FrameReader buffers one connection's
// input and yields whole messages; AppendFrame writes one with its prefix.
// No sockets here, so framing is tested byte by byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ax::dns {

class FrameReader {
 public:
  void Append(std::span<const uint8_t> bytes);

  // The next complete message without its prefix, or nullopt when the rest is
  // incomplete. A zero-length frame comes back as an empty span (a protocol
  // error the caller decides about). Spans stay valid until Compact/Append.
  std::optional<std::span<const uint8_t>> Next();

  // Drops the bytes Next() has consumed.
  void Compact();

  // Bytes of an incomplete message are waiting.
  bool partial() const { return buf_.size() > start_; }

 private:
  std::vector<uint8_t> buf_;
  size_t start_ = 0;  // first unconsumed byte
};

// Appends `message` to `out` with its 2-byte length prefix. `message` must be
// at most 65535 bytes.
void AppendFrame(std::vector<uint8_t>& out, std::span<const uint8_t> message);

}  // namespace ax::dns
