// RFC 3339 formatting in UTC (kube_time.h).
#include "ax/kube/kube_time.h"

#include <cstdio>
#include <ctime>

namespace ax::kube {
namespace {

// "YYYY-MM-DDTHH:MM:SS" of the whole seconds of `time`, plus the
// microseconds within that second.
std::string Seconds(std::chrono::system_clock::time_point time, long* micros) {
  using std::chrono::duration_cast;
  const auto since_epoch =
      duration_cast<std::chrono::microseconds>(time.time_since_epoch());
  auto secs = duration_cast<std::chrono::seconds>(since_epoch);
  if (secs > since_epoch) secs -= std::chrono::seconds(1);  // before 1970
  *micros = static_cast<long>((since_epoch - secs).count());
  const std::time_t t = secs.count();
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];  // ample for any int fields
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d",
                tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                tm.tm_min, tm.tm_sec);
  return buf;
}

}  // namespace

std::string FormatTime(std::chrono::system_clock::time_point time) {
  long micros = 0;
  return Seconds(time, &micros) + "Z";
}

std::string FormatMicroTime(std::chrono::system_clock::time_point time) {
  long micros = 0;
  std::string out = Seconds(time, &micros);
  char buf[16];
  std::snprintf(buf, sizeof(buf), ".%06ldZ", micros);
  return out + buf;
}

}  // namespace ax::kube
