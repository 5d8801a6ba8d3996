// axctl's command-line arguments: positional words and --flags (repeatable, or
// switches without a value). Parsing only; each command says what it accepts.
#pragma once

#include <charconv>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ax {

struct Args {
  std::vector<std::string> positional;
  std::map<std::string, std::vector<std::string>> flags;  // "--flag" -> values

  bool Has(const std::string& flag) const { return flags.count(flag) > 0; }
  // The last value given for `flag`, or "" when absent.
  std::string Get(const std::string& flag) const;
  std::vector<std::string> All(const std::string& flag) const;
};

// argv[first..]: `switches` take no value; every other --flag takes the next
// word, or what follows "=" (--output=json). kubectl's short forms -o, -n and
// -h are --output, --namespace and --help.
Args ParseArgs(int argc, char** argv, int first,
               const std::vector<std::string>& switches);

// All of `text` as a number of type T (std::from_chars: no sign on unsigned
// types, no spaces), or nullopt.
template <typename T>
std::optional<T> ParseNumber(std::string_view text) {
  T value{};
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// The number `flag` gives, into `out` (left as is when absent); false after
// saying on stderr, prefixed with `verb`, that it is not one from `low` to
// `high`.
template <typename T>
bool NumberFlag(const Args& args, const char* flag, T low, T high, T& out,
                std::string_view verb) {
  if (!args.Has(flag)) return true;
  const std::string text = args.Get(flag);
  const std::optional<T> value = ParseNumber<T>(text);
  if (!value || *value < low || *value > high) {
    std::cerr << verb << ": " << flag << " \"" << text << "\": want a number "
              << low << " to " << high << "\n";
    return false;
  }
  out = *value;
  return true;
}

}  // namespace ax
