// Token file names and bindings (token_ref.h).
#include "ax/token_ref.h"

namespace ax {
namespace {

bool SecretKeyChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.';
}

std::string_view Trim(std::string_view s) {
  const size_t first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

}  // namespace

std::string CheckTokenRef(std::string_view ref) {
  const std::string quoted = "\"" + std::string(ref) + "\"";
  if (ref.empty() || ref.size() > 253) {
    return "must be 1 to 253 characters, got " + std::to_string(ref.size());
  }
  for (char c : ref) {
    if (!SecretKeyChar(c)) {
      return "must be one file name of the probe's token directory (letters, "
             "digits, '-', '_', '.'), got " +
             quoted;
    }
  }
  if (ref == "." || ref.starts_with("..")) {
    return "must not be \".\" or start with \"..\", got " + quoted;
  }
  if (ref.ends_with(kTokenBindingSuffix)) {
    return "must not end in \"" + std::string(kTokenBindingSuffix) +
           "\" (a token's binding file, not a token), got " + quoted;
  }
  return "";
}

bool TokenBindingAllows(std::string_view text, std::string_view node) {
  while (!text.empty()) {
    const size_t end = text.find('\n');
    const std::string_view line = Trim(text.substr(0, end));
    text = end == std::string_view::npos ? "" : text.substr(end + 1);
    if (line.empty() || line.front() == '#') continue;
    if (line.back() == '*' ? node.starts_with(line.substr(0, line.size() - 1))
                           : node == line) {
      return true;
    }
  }
  return false;
}

}  // namespace ax
