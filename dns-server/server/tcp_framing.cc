// FrameReader keeps one contiguous buffer; Compact moves the unconsumed tail
// to the front, so capacity is reused across messages.
#include "server/tcp_framing.h"

#include <cstring>

namespace ax::dns {

void FrameReader::Append(std::span<const uint8_t> bytes) {
  buf_.insert(buf_.end(), bytes.begin(), bytes.end());
}

std::optional<std::span<const uint8_t>> FrameReader::Next() {
  const size_t left = buf_.size() - start_;
  if (left < 2) return std::nullopt;
  const size_t len = (size_t{buf_[start_]} << 8) | buf_[start_ + 1];
  if (left < 2 + len) return std::nullopt;
  const std::span<const uint8_t> message(&buf_[start_ + 2], len);
  start_ += 2 + len;
  return message;
}

void FrameReader::Compact() {
  if (start_ == 0) return;
  const size_t left = buf_.size() - start_;
  if (left > 0) std::memmove(buf_.data(), &buf_[start_], left);
  buf_.resize(left);
  start_ = 0;
}

void AppendFrame(std::vector<uint8_t>& out, std::span<const uint8_t> message) {
  out.push_back(static_cast<uint8_t>(message.size() >> 8));
  out.push_back(static_cast<uint8_t>(message.size() & 0xFF));
  out.insert(out.end(), message.begin(), message.end());
}

}  // namespace ax::dns
