// RFC 3339 formatting and millisecond parsing (rfc3339.h). The calendar
// arithmetic is H. Hinnant's days <-> civil date algorithm, so nothing here
// depends on gmtime or the process's time zone. Parsing the date itself is
// manifest::ParseRfc3339's (shared with manifest expiry times).
#include "ax/rfc3339.h"

#include <cctype>
#include <cinttypes>
#include <cstdio>

#include "manifest_formats.h"

namespace ax {
namespace {

constexpr int64_t kDayMs = 86'400'000;

// Days since 1970-01-01 -> civil date.
void CivilFromDays(int64_t z, int64_t* y, unsigned* m, unsigned* d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = static_cast<int64_t>(yoe) + era * 400 + (*m <= 2 ? 1 : 0);
}

std::string Format(int64_t unix_ms, bool with_ms) {
  int64_t days = unix_ms / kDayMs;
  int64_t rest = unix_ms % kDayMs;
  if (rest < 0) {
    rest += kDayMs;
    --days;
  }
  int64_t year = 0;
  unsigned month = 0, day = 0;
  CivilFromDays(days, &year, &month, &day);
  char buf[48];
  const int hour = static_cast<int>(rest / 3'600'000);
  const int minute = static_cast<int>(rest / 60'000 % 60);
  const int second = static_cast<int>(rest / 1000 % 60);
  if (with_ms) {
    std::snprintf(buf, sizeof(buf),
                  "%04" PRId64 "-%02u-%02uT%02d:%02d:%02d.%03dZ", year, month,
                  day, hour, minute, second, static_cast<int>(rest % 1000));
  } else {
    std::snprintf(buf, sizeof(buf), "%04" PRId64 "-%02u-%02uT%02d:%02d:%02dZ",
                  year, month, day, hour, minute, second);
  }
  return buf;
}

}  // namespace

std::string FormatRfc3339Ms(int64_t unix_ms) { return Format(unix_ms, true); }

std::string FormatRfc3339Seconds(int64_t unix_ms) {
  return Format(unix_ms, false);
}

std::optional<int64_t> ParseRfc3339Ms(std::string_view text) {
  const std::optional<int64_t> seconds = manifest::ParseRfc3339(text);
  if (!seconds) return std::nullopt;
  int64_t fraction = 0;
  if (text.size() > 19 && text[19] == '.') {
    int digits = 0;
    for (size_t i = 20; i < text.size() && digits < 3 &&
                        std::isdigit(static_cast<unsigned char>(text[i]));
         ++i, ++digits) {
      fraction = fraction * 10 + (text[i] - '0');
    }
    for (; digits < 3; ++digits) fraction *= 10;
  }
  return *seconds * 1000 + fraction;
}

}  // namespace ax
