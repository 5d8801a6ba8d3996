// axctl's --for (for_flag.h).
#include "axctl/for_flag.h"

#include <chrono>
#include <iostream>

#include "ax/rfc3339.h"
#include "ax/runtime/config_values.h"

namespace ax {

std::optional<std::string> EndOfFor(const Args& args, std::string_view verb,
                                    int64_t now_ms) {
  std::chrono::milliseconds lasting{};
  std::string error;
  if (!runtime::ParseDuration(args.Get("--for"), &lasting, &error) ||
      lasting.count() < 1000) {
    std::cerr << verb << ": --for: " << (error.empty() ? "at least 1s" : error)
              << "\n";
    return std::nullopt;
  }
  return FormatRfc3339Seconds((now_ms + lasting.count() + 999) / 1000 * 1000);
}

}  // namespace ax
