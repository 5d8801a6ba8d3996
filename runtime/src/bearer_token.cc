// Bearer token checks (bearer_token.h).
#include "ax/runtime/bearer_token.h"

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

}  // namespace

BearerCheck CheckBearer(const std::string& token_file,
                        std::string_view authorization) {
  std::ifstream in(token_file);
  std::string expected;
  if (!in || !std::getline(in, expected)) return BearerCheck::kUnavailable;
  if (!expected.empty() && expected.back() == '\r') expected.pop_back();
  if (expected.empty()) return BearerCheck::kUnavailable;
  // The scheme is case-insensitive (RFC 7235 section 2.1).
  constexpr std::string_view kScheme = "bearer ";
  if (authorization.size() <= kScheme.size()) return BearerCheck::kMissing;
  for (size_t i = 0; i < kScheme.size(); ++i) {
    const char c = authorization[i];
    if ((c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c) != kScheme[i]) {
      return BearerCheck::kMissing;
    }
  }
  return SameSecret(authorization.substr(kScheme.size()), expected)
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
