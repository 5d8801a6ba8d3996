// JSON-lines logger: builds the object with nlohmann::json and writes it in
// one write(2) call so concurrent lines stay whole.
#include "ax/runtime/log.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <string>

#include "ax/json_text.h"

namespace ax::runtime {
namespace {

std::atomic<LogLevel> g_level{LogLevel::kInfo};

const char* LevelName(LogLevel level) {
  switch (level) {
    case LogLevel::kDebug:
      return "debug";
    case LogLevel::kInfo:
      return "info";
    case LogLevel::kWarn:
      return "warn";
    case LogLevel::kError:
      return "error";
  }
  return "info";
}

}  // namespace

void SetLogLevel(LogLevel level) { g_level.store(level); }

bool ParseLogLevel(std::string_view name, LogLevel* level) {
  for (LogLevel l :
       {LogLevel::kDebug, LogLevel::kInfo, LogLevel::kWarn, LogLevel::kError}) {
    if (name == LevelName(l)) {
      *level = l;
      return true;
    }
  }
  return false;
}

void Log(LogLevel level, std::string_view msg, LogFields fields) {
  if (level < g_level.load(std::memory_order_relaxed)) return;
  nlohmann::ordered_json line = nlohmann::ordered_json::object();
  line["ts"] = std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
                   .count();
  line["level"] = LevelName(level);
  line["msg"] = msg;
  for (const auto& [key, value] : fields) line[key] = value;
  // Invalid UTF-8 in a field (a file name, say) is replaced, never thrown.
  std::string text = JsonText(line);
  text.push_back('\n');
  const char* p = text.data();
  size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, p, left);
    if (n <= 0) return;  // stderr gone: nothing better to do
    p += n;
    left -= static_cast<size_t>(n);
  }
}

}  // namespace ax::runtime
