// Wire-format names: bounded, loop-safe decompression and text conversion.
#include "wire/name.h"

#include <algorithm>

namespace ax::dns {
namespace {

constexpr uint8_t kLabelTypeMask = 0xC0;
constexpr uint8_t kPointer = 0xC0;

}  // namespace

bool ReadName(std::span<const uint8_t> message, size_t* offset,
              WireName* name) {
  size_t pos = *offset;
  size_t resume = 0;        // where the caller continues, once known
  size_t jump_limit = pos;  // every pointer must target strictly before this
  size_t out = 0;
  uint8_t labels = 0;
  while (true) {
    if (pos >= message.size()) return false;
    const uint8_t len = message[pos];
    if ((len & kLabelTypeMask) == kPointer) {
      if (pos + 1 >= message.size()) return false;
      const size_t target =
          static_cast<size_t>(len & 0x3F) << 8 | message[pos + 1];
      if (target >= jump_limit) return false;
      if (resume == 0) resume = pos + 2;
      jump_limit = target;
      pos = target;
      continue;
    }
    if ((len & kLabelTypeMask) != 0) return false;
    if (out + 1 + len > kMaxNameLength) return false;
    if (pos + 1 + len > message.size()) return false;
    name->bytes[out] = len;
    for (size_t i = 0; i < len; ++i)
      name->bytes[out + 1 + i] = message[pos + 1 + i];
    out += 1 + len;
    pos += 1 + len;
    if (len == 0) break;
    ++labels;
  }
  name->size = static_cast<uint8_t>(out);
  name->labels = labels;
  *offset = resume != 0 ? resume : pos;
  return true;
}

bool SkipName(std::span<const uint8_t> message, size_t* offset) {
  size_t pos = *offset;
  while (pos < message.size()) {
    const uint8_t len = message[pos];
    if ((len & kLabelTypeMask) == kPointer) {
      if (pos + 2 > message.size()) return false;
      *offset = pos + 2;
      return true;
    }
    if ((len & kLabelTypeMask) != 0) return false;
    pos += 1 + len;
    if (len == 0) {
      if (pos > message.size()) return false;
      *offset = pos;
      return true;
    }
  }
  return false;
}

void ToLower(const WireName& name, WireName* out) {
  // Only the octets in use: copying the whole array (twice, through a
  // returned temporary) was most of ParseQuery's time in the peer profile.
  for (size_t i = 0; i < name.size; ++i)
    out->bytes[i] = LowerOctet(name.bytes[i]);
  out->size = name.size;
  out->labels = name.labels;
}

WireName ToLower(const WireName& name) {
  WireName out;
  ToLower(name, &out);
  return out;
}

std::optional<std::string> EncodeName(std::string_view text) {
  if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  std::string out;
  while (!text.empty()) {
    const size_t dot = text.find('.');
    const std::string_view label = text.substr(0, dot);
    if (label.empty() || label.size() > kMaxLabelLength) return std::nullopt;
    out.push_back(static_cast<char>(label.size()));
    out.append(label);
    text = dot == std::string_view::npos ? std::string_view()
                                         : text.substr(dot + 1);
    if (dot != std::string_view::npos && text.empty()) return std::nullopt;
  }
  out.push_back('\0');
  if (out.size() > kMaxNameLength) return std::nullopt;
  return out;
}

std::string NameToText(std::span<const uint8_t> wire) {
  std::string out;
  for (size_t i = 0; i < wire.size() && wire[i] != 0; i += 1 + wire[i]) {
    out.append(reinterpret_cast<const char*>(&wire[i + 1]),
               std::min<size_t>(wire[i], wire.size() - i - 1));
    out.push_back('.');
  }
  return out.empty() ? "." : out;
}

}  // namespace ax::dns
