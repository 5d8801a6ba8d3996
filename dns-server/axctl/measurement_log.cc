// The two measurement formats, line by line.
#include "axctl/measurement_log.h"

#include <array>
#include <charconv>
#include <cmath>
#include <ctime>
#include <nlohmann/json.hpp>
#include <optional>

#include "ax/rfc3339.h"

namespace ax {
namespace {

// Calls fn(line_number, line) for each non-blank line.
template <typename Fn>
void ForEachLine(std::string_view text, Fn fn) {
  size_t number = 0;
  while (!text.empty()) {
    const size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text.remove_prefix(end == std::string_view::npos ? text.size() : end + 1);
    ++number;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.find_first_not_of(" \t") != std::string_view::npos) {
      fn(number, line);
    }
  }
}

// A timing in ms: finite, not negative.
std::optional<double> Timing(double ms) {
  if (!std::isfinite(ms) || ms < 0) return std::nullopt;
  return ms;
}

// The field of `object` naming the timing, or "" when none does.
const char* TimingKey(const nlohmann::json& object) {
  for (const char* key : {"ttfbMs", "rttMs", "ms"}) {
    if (object.contains(key)) return key;
  }
  return "";
}

// "01/Dec/2026:13:55:36 +0800" -> unix seconds.
std::optional<int64_t> ParseNginxTime(std::string_view t) {
  static constexpr std::array<std::string_view, 12> kMonths = {
      "Jan", "Feb", "Mar", "Apr", "May", "Jun",
      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  if (t.size() != 26 || t[2] != '/' || t[6] != '/' || t[11] != ':' ||
      t[20] != ' ' || (t[21] != '+' && t[21] != '-')) {
    return std::nullopt;
  }
  auto number = [&](size_t at, size_t n) -> std::optional<int> {
    int v = 0;
    const auto [end, ec] = std::from_chars(t.data() + at, t.data() + at + n, v);
    if (ec != std::errc() || end != t.data() + at + n) return std::nullopt;
    return v;
  };
  const auto month = std::find(kMonths.begin(), kMonths.end(), t.substr(3, 3));
  const auto day = number(0, 2), year = number(7, 4), hour = number(12, 2),
             minute = number(15, 2), second = number(18, 2),
             zone_h = number(22, 2), zone_m = number(24, 2);
  if (month == kMonths.end() || !day || !year || !hour || !minute || !second ||
      !zone_h || !zone_m) {
    return std::nullopt;
  }
  char rfc[64];
  std::snprintf(rfc, sizeof rfc, "%04d-%02d-%02dT%02d:%02d:%02d%c%02d:%02d",
                *year, static_cast<int>(month - kMonths.begin()) + 1, *day,
                *hour, *minute, *second, t[21], *zone_h, *zone_m);
  const std::optional<int64_t> ms = ParseRfc3339Ms(rfc);
  if (!ms) return std::nullopt;
  return *ms / 1000;
}

}  // namespace

std::string LogError::ToString() const {
  return file + ":" + std::to_string(line) + ": " + message;
}

void ParseJsonLines(std::string_view text, const std::string& file,
                    std::vector<Measurement>& out,
                    std::vector<LogError>& errors) {
  ForEachLine(text, [&](size_t number, std::string_view line) {
    auto fail = [&](std::string message) {
      errors.push_back({file, number, std::move(message)});
    };
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object()) {
      fail("not a JSON object");
      return;
    }
    Measurement m;
    const auto client = j.find("client");
    const std::optional<IpAddress> ip =
        client != j.end() && client->is_string()
            ? ParseIp(client->get<std::string>())
            : std::nullopt;
    if (!ip) {
      fail("client: must be an IP address");
      return;
    }
    m.client = *ip;
    const auto node = j.find("node");
    if (node == j.end() || !node->is_string() ||
        node->get<std::string>().empty()) {
      fail("node: must be a node name");
      return;
    }
    m.node = node->get<std::string>();
    const char* key = TimingKey(j);
    const std::optional<double> ms = *key != '\0' && j[key].is_number()
                                         ? Timing(j[key].get<double>())
                                         : std::nullopt;
    if (!ms) {
      fail(std::string(*key != '\0' ? key : "ttfbMs") +
           ": must be a number of ms >= 0 (ttfbMs, rttMs or ms)");
      return;
    }
    m.ms = *ms;
    const auto time = j.find("time");
    std::optional<int64_t> seconds;
    if (time != j.end() && time->is_number_integer()) {
      seconds = time->get<int64_t>();
    } else if (time != j.end() && time->is_string()) {
      if (const auto at = ParseRfc3339Ms(time->get<std::string>())) {
        seconds = *at / 1000;
      }
    }
    if (!seconds) {
      fail("time: must be RFC 3339 or unix seconds");
      return;
    }
    m.time = *seconds;
    out.push_back(std::move(m));
  });
}

void ParseAccessLog(std::string_view text, const std::string& file,
                    const std::string& node, std::vector<Measurement>& out,
                    std::vector<LogError>& errors) {
  ForEachLine(text, [&](size_t number, std::string_view line) {
    auto fail = [&](std::string message) {
      errors.push_back({file, number, std::move(message)});
    };
    const size_t space = line.find(' ');
    const std::optional<IpAddress> ip =
        ParseIp(std::string(line.substr(0, space)));
    if (!ip) {
      fail("$remote_addr: the first field must be the client's address");
      return;
    }
    const size_t open = line.find('[');
    const size_t close = line.find(']', open);
    const std::optional<int64_t> time =
        open == std::string_view::npos || close == std::string_view::npos
            ? std::nullopt
            : ParseNginxTime(line.substr(open + 1, close - open - 1));
    if (!time) {
      fail("$time_local: expected [01/Dec/2026:13:55:36 +0800]");
      return;
    }
    const size_t last = line.find_last_of(' ');
    double seconds = -1;
    const std::string_view field = line.substr(last + 1);
    const auto [end, ec] =
        std::from_chars(field.data(), field.data() + field.size(), seconds);
    const std::optional<double> ms =
        ec == std::errc() && end == field.data() + field.size()
            ? Timing(seconds * 1000)
            : std::nullopt;
    if (last == std::string_view::npos || !ms) {
      fail("$request_time: the last field must be seconds, e.g. 0.023");
      return;
    }
    out.push_back({*ip, node, *ms, *time});
  });
}

}  // namespace ax
