// FrameReader keeps one contiguous buffer; Compact moves the unconsumed tail
// to the front, so capacity is reused across messages. FrameWriter drops its
// sent prefix once it is at least half the buffer.
#include "server/tcp_framing.h"

#include <cstring>

namespace ax::dns {
namespace {

// What a drained FrameWriter keeps: a few answers' worth.
constexpr size_t kKeptCapacity = 16 << 10;

}  // namespace

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

void FrameWriter::Append(std::span<const uint8_t> message) {
  buf_.push_back(static_cast<uint8_t>(message.size() >> 8));
  buf_.push_back(static_cast<uint8_t>(message.size() & 0xFF));
  buf_.insert(buf_.end(), message.begin(), message.end());
}

void FrameWriter::Sent(size_t n) {
  start_ += n;
  if (start_ == buf_.size()) {
    // Drained: keep a small buffer for the next answers, free a large one.
    if (buf_.capacity() > kKeptCapacity) {
      std::vector<uint8_t>().swap(buf_);
    } else {
      buf_.clear();
    }
    start_ = 0;
  } else if (start_ * 2 >= buf_.size()) {
    // The sent part is at least half: moving the rest costs no more than
    // sending it did.
    buf_.erase(buf_.begin(), buf_.begin() + static_cast<ptrdiff_t>(start_));
    start_ = 0;
  }
}

}  // namespace ax::dns
