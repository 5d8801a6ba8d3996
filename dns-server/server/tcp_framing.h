// RFC 1035 §4.2.2 / RFC 7766 framing: every DNS message on TCP is preceded by
// its length as two bytes, big-endian. FrameReader buffers one connection's
// input and yields whole messages; FrameWriter holds its unsent output. No
// sockets here, so framing is tested byte by byte.
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
  // Bytes not yet consumed (complete messages and a partial one).
  size_t buffered() const { return buf_.size() - start_; }

 private:
  std::vector<uint8_t> buf_;
  size_t start_ = 0;  // first unconsumed byte
};

// A connection's unsent output: whole frames go in at the back, what the
// socket took leaves at the front, so the buffer holds what is still unsent
// (at most as much again before the sent part is dropped), and a large buffer
// is released once it drains.
class FrameWriter {
 public:
  // Appends `message` (at most 65535 bytes) with its length prefix.
  void Append(std::span<const uint8_t> message);

  std::span<const uint8_t> Unsent() const {
    return {buf_.data() + start_, buf_.size() - start_};
  }
  size_t unsent() const { return buf_.size() - start_; }
  // The first `n` bytes of Unsent() went out.
  void Sent(size_t n);

  // What the buffer holds, sent or not (tests).
  size_t held() const { return buf_.size(); }
  size_t capacity() const { return buf_.capacity(); }

 private:
  std::vector<uint8_t> buf_;
  size_t start_ = 0;  // first unsent byte
};

}  // namespace ax::dns
