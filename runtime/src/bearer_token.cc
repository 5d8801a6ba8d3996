// Bearer token checks (bearer_token.h).
#include "ax/runtime/bearer_token.h"

#include <algorithm>
#include <fstream>

namespace ax::runtime {
namespace {

// Equal without an early exit, so the time taken does not tell how much of a
// guess was right; only the length shows.
bool SameSecret(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  }
  return diff == 0;
}

constexpr size_t kMaxSecretFileBytes = 1 << 20;

}  // namespace

std::optional<std::string> ReadSecretFile(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text(kMaxSecretFileBytes, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) return std::nullopt;
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

std::optional<std::string> ReadTokenLine(const std::string& file) {
  std::optional<std::string> text = ReadSecretFile(file);
  if (text) text->resize(std::min(text->size(), text->find_first_of("\r\n")));
  return text;
}

BearerCheck CheckBearer(const std::string& token_file,
                        std::string_view authorization) {
  const std::optional<std::string> expected = ReadTokenLine(token_file);
  if (!expected || expected->empty()) return BearerCheck::kUnavailable;
  // The scheme is case-insensitive (RFC 7235 section 2.1).
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return BearerCheck::kMissing;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != kScheme[i]) {
      return BearerCheck::kMissing;
    }
  }
  return SameSecret(authorization.substr(kScheme.size()), *expected)
             ? BearerCheck::kAllowed
             : BearerCheck::kWrong;
}

const char* BearerCheckText(BearerCheck check) {
  switch (check) {
    case BearerCheck::kAllowed:
      return "allowed";
    case BearerCheck::kMissing:
      return "missing bearer token (Authorization: Bearer <token>)";
    case BearerCheck::kWrong:
      return "wrong bearer token";
    case BearerCheck::kUnavailable:
      return "the admin token file is unreadable or empty: nobody is let in";
  }
  return "";
}

}  // namespace ax::runtime
