// JsonWriter (json_writer.h): separators, string escaping and number
// notation as nlohmann::json's serializer has them.
#include "ax/json_writer.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "ax/json_text.h"

namespace ax {
namespace {

// Strict UTF-8 (RFC 3629 §3-4: no overlong forms, no surrogates, nothing past
// U+10FFFF), as nlohmann's decoder accepts it.
bool ValidUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    size_t more = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // bounds of the second octet
    if (c >= 0xC2 && c <= 0xDF) {
      more = 1;
    } else if (c >= 0xE0 && c <= 0xEF) {
      more = 2;
      if (c == 0xE0) lo = 0xA0;
      if (c == 0xED) hi = 0x9F;
    } else if (c >= 0xF0 && c <= 0xF4) {
      more = 3;
      if (c == 0xF0) lo = 0x90;
      if (c == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i + more >= s.size()) return false;
    for (size_t k = 1; k <= more; ++k) {
      const auto d = static_cast<unsigned char>(s[i + k]);
      if (k == 1 ? (d < lo || d > hi) : (d < 0x80 || d > 0xBF)) return false;
    }
    i += more + 1;
  }
  return true;
}

// The short escape of an octet that JSON strings may not hold as it is (RFC
// 8259 §7), as nlohmann spells it; empty where only \u00XX will do.
std::string_view ShortEscape(unsigned char c) {
  switch (c) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    default:
      return {};
  }
}

// Runs of octets that need no escape are appended whole: the decision log's
// writer formats every sampled answer, and octet-by-octet appends (a capacity
// check each) were its top symbol in perf.
void AppendEscaped(std::string& out, std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  out += '"';
  size_t pending = 0;  // the first octet not yet appended
  for (size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    out.append(s.substr(pending, i - pending));
    pending = i + 1;
    if (const std::string_view escape = ShortEscape(c); !escape.empty()) {
      out += escape;
    } else {
      const char code[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
      out.append(code, sizeof(code));
    }
  }
  out.append(s.substr(pending));
  out += '"';
}

template <typename T>
void AppendInteger(std::string& out, T value) {
  char buf[24];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value);
  out.append(buf, end);
}

// "e+05": the sign always, at least two digits.
void AppendExponent(std::string& out, int e) {
  out += 'e';
  out += e < 0 ? '-' : '+';
  e = std::abs(e);
  if (e < 10) out += '0';
  AppendInteger(out, e);
}

// The shortest digits that read back as `value` (> 0, finite), laid out as
// nlohmann does: plain decimals while the point falls within 15 digits of
// the first (with ".0" on integers), else d.ddde±XX.
void AppendPositiveDouble(std::string& out, double value) {
  char buf[32];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value,
                                       std::chars_format::scientific);
  const std::string_view text(buf, static_cast<size_t>(end - buf));
  const size_t e_at = text.find('e');
  std::string digits(text.substr(0, e_at));
  if (digits.size() > 1) digits.erase(1, 1);  // the point after the first
  int exponent = 0;
  std::from_chars(text.data() + e_at + 1 + (text[e_at + 1] == '+'),
                  text.data() + text.size(), exponent);
  constexpr int kMinExp = -4, kMaxExp = 15;
  const int k = static_cast<int>(digits.size());
  const int n = exponent + 1;  // where the point goes, from the first digit
  if (k <= n && n <= kMaxExp) {
    out += digits;
    out.append(static_cast<size_t>(n - k), '0');
    out += ".0";
  } else if (0 < n && n <= kMaxExp) {
    out.append(digits, 0, static_cast<size_t>(n));
    out += '.';
    out.append(digits, static_cast<size_t>(n));
  } else if (kMinExp < n && n <= 0) {
    out += "0.";
    out.append(static_cast<size_t>(-n), '0');
    out += digits;
  } else {
    out += digits[0];
    if (k > 1) {
      out += '.';
      out.append(digits, 1);
    }
    AppendExponent(out, n - 1);
  }
}

}  // namespace

void JsonWriter::Separate() {
  if (after_key_) {
    after_key_ = false;
  } else if (!first_) {
    out_ += ',';
  }
  first_ = false;
}

void JsonWriter::BeginObject() {
  Separate();
  out_ += '{';
  first_ = true;
}

void JsonWriter::EndObject() {
  out_ += '}';
  first_ = false;
}

void JsonWriter::BeginArray() {
  Separate();
  out_ += '[';
  first_ = true;
}

void JsonWriter::EndArray() {
  out_ += ']';
  first_ = false;
}

void JsonWriter::Key(std::string_view key) {
  String(key);
  out_ += ':';
  after_key_ = true;
}

void JsonWriter::String(std::string_view text) {
  Separate();
  if (ValidUtf8(text)) {
    AppendEscaped(out_, text);
  } else {
    // Rare (names come from validated objects): nlohmann's own replacement
    // of each invalid sequence, so the text stays the same.
    out_ += JsonText(nlohmann::json(std::string(text)));
  }
}

void JsonWriter::Int(int64_t value) {
  Separate();
  AppendInteger(out_, value);
}

void JsonWriter::Uint(uint64_t value) {
  Separate();
  AppendInteger(out_, value);
}

void JsonWriter::Double(double value) {
  Separate();
  if (!std::isfinite(value)) {
    out_ += "null";
    return;
  }
  if (std::signbit(value)) out_ += '-';
  if (value == 0) {
    out_ += "0.0";
    return;
  }
  AppendPositiveDouble(out_, std::fabs(value));
}

void JsonWriter::Bool(bool value) {
  Separate();
  out_ += value ? "true" : "false";
}

void JsonWriter::Null() {
  Separate();
  out_ += "null";
}

}  // namespace ax
