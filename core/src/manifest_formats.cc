// Manifest value formats (manifest_formats.h): text in, model value or an error
// message out. Pure string work; the JSON side (types, paths, reporting) lives
// in manifest_fields.cc, so a new format changes this file only.
#include "manifest_formats.h"

#include <cctype>
#include <chrono>
#include <utility>

#include "ax/rfc3339.h"
#include "ax/token_ref.h"

namespace ax::manifest {
namespace {

// ISO codes are matched upper case; "us" and "US" mean the same country.
std::string UpperCase(const std::string& text) {
  std::string upper = text;
  for (char& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return upper;
}

// DNS names and service names are matched lower case (RFC 4343, RFC 6335).
std::string LowerCase(const std::string& text) {
  std::string lower = text;
  for (char& c : lower)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower;
}

}  // namespace

std::string CheckDnsName(std::string_view name, bool allow_underscore) {
  if (name.empty()) return "must not be empty";
  if (name.size() > 253) return "is longer than 253 characters";
  size_t start = 0;
  while (start <= name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string_view::npos) end = name.size();
    std::string_view label = name.substr(start, end - start);
    if (label.empty() || label.size() > 63) {
      return "label \"" + std::string(label) + "\" must be 1..63 characters";
    }
    if (label.front() == '-' || label.back() == '-') {
      return "label \"" + std::string(label) +
             "\" must not start or end with '-'";
    }
    for (char c : label) {
      bool ok = std::islower(static_cast<unsigned char>(c)) ||
                std::isdigit(static_cast<unsigned char>(c)) || c == '-' ||
                (allow_underscore && c == '_');
      if (!ok) {
        return std::string("must use only a-z, 0-9, '-'") +
               (allow_underscore ? ", '_'" : "") + " and '.', got \"" +
               std::string(name) + "\"";
      }
    }
    start = end + 1;
  }
  return "";
}

std::string ReadHostname(const std::string& text, std::string& out) {
  out = LowerCase(text);
  if (out.ends_with('.')) out.pop_back();
  return CheckDnsName(out, /*allow_underscore=*/true);
}

std::string ReadServiceName(const std::string& text, std::string& out) {
  out = LowerCase(text);
  bool letter = false, ok = !out.empty() && out.size() <= 15 &&
                            out.front() != '-' && out.back() != '-' &&
                            out.find("--") == std::string::npos;
  for (char c : out) {
    letter = letter || std::islower(static_cast<unsigned char>(c));
    ok = ok && (std::islower(static_cast<unsigned char>(c)) ||
                std::isdigit(static_cast<unsigned char>(c)) || c == '-');
  }
  return ok && letter ? ""
                      : "must be a service name like http (RFC 6335: 1..15 "
                        "of a-z, 0-9 and '-', a letter among them, no leading "
                        "'_'), got \"" +
                            text + "\"";
}

std::string ReadSrvProtocol(const std::string& text, std::string& out) {
  out = text;
  return out == "tcp" || out == "udp"
             ? ""
             : "must be tcp or udp (no leading '_'), got \"" + text + "\"";
}

std::string ReadObjectName(const std::string& text, std::string& out) {
  out = text;
  return CheckDnsName(text, /*allow_underscore=*/false);
}

std::string ReadCountryCode(const std::string& text, std::string& out) {
  out = UpperCase(text);
  bool ok = out.size() == 2 &&
            std::isalpha(static_cast<unsigned char>(out[0])) &&
            std::isalpha(static_cast<unsigned char>(out[1]));
  return ok ? ""
            : "must be an ISO 3166-1 alpha-2 code like US, got \"" + text +
                  "\"";
}

std::string ReadSubdivisionCode(const std::string& text, std::string& out) {
  out = UpperCase(text);
  size_t dash = out.find('-');
  bool ok = dash == 2 && out.size() >= 4 && out.size() <= 6;
  for (size_t i = 0; ok && i < out.size(); ++i) {
    ok = i == dash || std::isalnum(static_cast<unsigned char>(out[i]));
  }
  return ok ? ""
            : "must be an ISO 3166-2 code like CN-GD, got \"" + text + "\"";
}

std::string ReadCityRef(const std::string& text, std::string& out) {
  const size_t slash = text.find('/');
  const std::string expected =
      "must be SUBDIVISION/CITY or COUNTRY/CITY like CN-GD/Shenzhen, got \"" +
      text + "\"";
  if (slash == std::string::npos) return expected;
  std::string qualifier;
  const std::string place = text.substr(0, slash);
  if (!ReadSubdivisionCode(place, qualifier).empty() &&
      !ReadCountryCode(place, qualifier).empty()) {
    return expected;
  }
  const std::string city = text.substr(slash + 1);
  bool ok = !city.empty() && city.size() <= 128;
  for (size_t i = 0; ok && i < city.size(); ++i) {
    const auto c = static_cast<unsigned char>(city[i]);
    ok = c != '/' && c >= 0x20 && c != 0x7f;
  }
  if (!ok) return expected;
  out = qualifier + "/" + city;
  return "";
}

std::string ReadUrlPath(const std::string& text, std::string& out) {
  out = text;
  return text.starts_with('/') ? ""
                               : "must start with '/', got \"" + text + "\"";
}

std::string ReadHttpUrl(const std::string& text, std::string& out) {
  out = text;
  bool ok = text.starts_with("http://") || text.starts_with("https://");
  return ok ? "" : "must be an http:// or https:// URL, got \"" + text + "\"";
}

std::string ReadTokenRef(const std::string& text, std::string& out) {
  out = text;
  return CheckTokenRef(text);
}

std::string ReadTime(const std::string& text, int64_t& unix_seconds) {
  auto parsed = ParseRfc3339(text);
  if (parsed) unix_seconds = *parsed;
  return parsed ? std::string()
                : "must be an RFC 3339 time like 2026-12-01T00:00:00Z, got \"" +
                      text + "\"";
}

std::string ReadTimeMs(const std::string& text, int64_t& unix_ms) {
  const std::optional<int64_t> parsed = ParseRfc3339Ms(text);
  if (parsed) unix_ms = *parsed;
  return parsed ? std::string()
                : "must be an RFC 3339 time like 2026-12-01T00:00:00.000Z, "
                  "got \"" +
                      text + "\"";
}

std::optional<uint64_t> ParseDurationMs(std::string_view text) {
  static constexpr std::pair<std::string_view, uint64_t> kUnits[] = {
      {"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  uint64_t total = 0;
  if (text.empty()) return std::nullopt;
  while (!text.empty()) {
    uint64_t number = 0;
    size_t digits = 0;
    while (digits < text.size() &&
           std::isdigit(static_cast<unsigned char>(text[digits]))) {
      number = number * 10 + static_cast<uint64_t>(text[digits++] - '0');
      if (number > (uint64_t{1} << 40)) return std::nullopt;
    }
    if (digits == 0) return std::nullopt;
    text.remove_prefix(digits);
    uint64_t scale = 0;
    // "ms" is listed before "m" so that "500ms" is not read as 500 minutes.
    for (const auto& [unit, ms] : kUnits) {
      if (text.starts_with(unit)) {
        scale = ms;
        text.remove_prefix(unit.size());
        break;
      }
    }
    if (scale == 0) return std::nullopt;
    total += number * scale;
    if (total > (uint64_t{1} << 62)) return std::nullopt;  // no wrap-around
  }
  return total;
}

std::optional<int64_t> ParseRfc3339(std::string_view s) {
  auto number = [&s](size_t pos, size_t len) -> int {
    int n = 0;
    for (size_t i = pos; i < pos + len; ++i) {
      if (i >= s.size() || !std::isdigit(static_cast<unsigned char>(s[i])))
        return -1;
      n = n * 10 + (s[i] - '0');
    }
    return n;
  };
  auto at = [&s](size_t pos, std::string_view chars) {
    return pos < s.size() && chars.find(s[pos]) != std::string_view::npos;
  };
  if (!at(4, "-") || !at(7, "-") || !at(10, "Tt") || !at(13, ":") ||
      !at(16, ":"))
    return {};
  int year = number(0, 4), month = number(5, 2), day = number(8, 2);
  int hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
  size_t pos = 19;
  if (at(pos, ".")) {
    do ++pos;  // fractions of a second do not matter for an expiry
    while (at(pos, "0123456789"));
  }
  int offset = 0;
  if (at(pos, "Zz")) {
    ++pos;
  } else if (at(pos, "+-") && at(pos + 3, ":")) {
    int oh = number(pos + 1, 2), om = number(pos + 4, 2);
    if (oh < 0 || om < 0 || oh > 23 || om > 59) return {};
    offset = (s[pos] == '-' ? -1 : 1) * (oh * 3600 + om * 60);
    pos += 6;
  } else {
    return {};
  }
  if (pos != s.size() || year < 0 || month < 1 || month > 12 || day < 1 ||
      hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 ||
      second > 60) {
    return {};
  }
  const std::chrono::year_month_day date{
      std::chrono::year(year), std::chrono::month(static_cast<unsigned>(month)),
      std::chrono::day(static_cast<unsigned>(day))};
  if (!date.ok()) return {};  // 2026-02-30
  int64_t days = std::chrono::sys_days(date).time_since_epoch().count();
  return days * 86400 + int64_t{hour} * 3600 + int64_t{minute} * 60 + second -
         offset;
}

}  // namespace ax::manifest
