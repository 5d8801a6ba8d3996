// Base64 encode/decode (base64.h): table-driven, one pass, strict about
// padding and the alphabet; the lenient entry point canonicalises, then
// decodes strictly.
#include "ax/runtime/base64.h"

#include <array>
#include <cstdint>

namespace ax::runtime {
namespace {

constexpr char kAlphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
constexpr int8_t kInvalid = -1;

constexpr std::array<int8_t, 256> MakeDecodeTable() {
  std::array<int8_t, 256> table{};
  table.fill(kInvalid);
  for (int i = 0; i < 64; ++i) {
    table[static_cast<unsigned char>(kAlphabet[i])] = static_cast<int8_t>(i);
  }
  return table;
}
constexpr std::array<int8_t, 256> kDecode = MakeDecodeTable();

std::string Describe(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  constexpr char kHex[] = "0123456789abcdef";
  return std::string("byte 0x") + kHex[u >> 4] + kHex[u & 15];
}

}  // namespace

std::string Base64Encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const uint32_t v = static_cast<uint8_t>(bytes[i]) << 16 |
                       static_cast<uint8_t>(bytes[i + 1]) << 8 |
                       static_cast<uint8_t>(bytes[i + 2]);
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const size_t rest = bytes.size() - i;
  if (rest > 0) {
    uint32_t v = static_cast<uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<uint8_t>(bytes[i + 1]) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::optional<std::string> Base64Decode(std::string_view text,
                                        std::string* error) {
  if (text.size() % 4 != 0) {
    *error =
        "length " + std::to_string(text.size()) + " is not a multiple of 4";
    return std::nullopt;
  }
  size_t padding = 0;
  if (!text.empty() && text.back() == '=')
    padding = text.end()[-2] == '=' ? 2 : 1;
  const size_t data_end = text.size() - padding;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t bits = 0;
  int count = 0;
  for (size_t i = 0; i < data_end; ++i) {
    const int8_t v = kDecode[static_cast<unsigned char>(text[i])];
    if (v == kInvalid) {
      *error = "invalid character " + Describe(text[i]) + " at offset " +
               std::to_string(i);
      return std::nullopt;
    }
    bits = bits << 6 | static_cast<uint32_t>(v);
    if (++count == 4) {
      out += static_cast<char>(bits >> 16);
      out += static_cast<char>(bits >> 8);
      out += static_cast<char>(bits);
      bits = 0;
      count = 0;
    }
  }
  // The last quantum: 2 characters carry 1 byte, 3 carry 2; the bits past
  // them must be zero or the text is not the canonical encoding of anything.
  if (count == 2) {
    if (bits & 0xf) {
      *error =
          "non-zero padding bits at offset " + std::to_string(data_end - 1);
      return std::nullopt;
    }
    out += static_cast<char>(bits >> 4);
  } else if (count == 3) {
    if (bits & 0x3) {
      *error =
          "non-zero padding bits at offset " + std::to_string(data_end - 1);
      return std::nullopt;
    }
    out += static_cast<char>(bits >> 10);
    out += static_cast<char>(bits >> 2);
  }
  return out;
}

std::optional<std::string> Base64DecodeLenient(std::string_view text) {
  std::string canonical;
  canonical.reserve(text.size() + 3);
  for (const char c : text) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') canonical += c;
  }
  while (!canonical.empty() && canonical.back() == '=') canonical.pop_back();
  if (canonical.size() % 4 == 1) return std::nullopt;
  canonical.append((4 - canonical.size() % 4) % 4, '=');
  std::string error;
  return Base64Decode(canonical, &error);
}

}  // namespace ax::runtime
