// Strict value parsers: trailing garbage, overflow and empty text are errors
// with the offending text quoted.
#include "ax/runtime/config_values.h"

#include <cctype>
#include <charconv>

namespace ax::runtime {
std::string Quote(std::string_view text) {
  return "\"" + std::string(text) + "\"";
}

namespace {

// Leading decimal digits of `text` as a number; `rest` gets the suffix.
bool SplitNumber(std::string_view text, int64_t* value,
                 std::string_view* rest) {
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), *value);
  if (ec != std::errc() || end == text.data() || *value < 0) return false;
  *rest = text.substr(static_cast<size_t>(end - text.data()));
  return true;
}

}  // namespace

bool ParseDuration(std::string_view text, std::chrono::milliseconds* out,
                   std::string* error) {
  int64_t n = 0;
  std::string_view unit;
  int64_t scale = 0;
  if (SplitNumber(text, &n, &unit)) {
    if (unit == "ms") scale = 1;
    if (unit.empty() || unit == "s") scale = 1000;
    if (unit == "m") scale = 60'000;
    if (unit == "h") scale = 3'600'000;
  }
  if (scale == 0 || n > INT64_MAX / scale) {
    *error = "bad duration " + Quote(text) + " (want e.g. 250ms, 10s, 2m)";
    return false;
  }
  *out = std::chrono::milliseconds(n * scale);
  return true;
}

bool ParseByteSize(std::string_view text, int64_t* out, std::string* error) {
  int64_t n = 0;
  std::string_view unit;
  int64_t scale = 0;
  if (SplitNumber(text, &n, &unit)) {
    if (unit.empty() || unit == "B") scale = 1;
    if (unit == "k" || unit == "K" || unit == "KB" || unit == "KiB") {
      scale = 1 << 10;
    }
    if (unit == "m" || unit == "M" || unit == "MB" || unit == "MiB") {
      scale = 1 << 20;
    }
  }
  if (scale == 0 || n > INT32_MAX / scale) {
    *error = "bad size " + Quote(text) + " (want e.g. 4194304, 512KiB, 4MiB)";
    return false;
  }
  *out = n * scale;
  return true;
}

bool ParseBool(std::string_view text, bool* out, std::string* error) {
  for (std::string_view yes : {"true", "yes", "on", "1"}) {
    if (text == yes) {
      *out = true;
      return true;
    }
  }
  for (std::string_view no : {"false", "no", "off", "0"}) {
    if (text == no) {
      *out = false;
      return true;
    }
  }
  *error = "bad boolean " + Quote(text) + " (want true or false)";
  return false;
}

bool ParseInt(std::string_view text, int64_t min, int64_t max, int64_t* out,
              std::string* error) {
  int64_t n = 0;
  const auto [end, ec] =
      std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() ||
      n < min || n > max) {
    *error = "bad number " + Quote(text) + " (want " + std::to_string(min) +
             ".." + std::to_string(max) + ")";
    return false;
  }
  *out = n;
  return true;
}

}  // namespace ax::runtime
