// The --for DURATION of axctl's expiring changes (drain, pin, exclude,
// weight): when the change ends, as the RFC 3339 second the objects store.
// Parsing only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "axctl/args.h"

namespace ax {

// `now_ms` + --for, rounded up to the second, in RFC 3339; nullopt after
// saying on stderr (prefixed with `verb`) why --for is not a duration of at
// least a second. Call only when --for is given.
std::optional<std::string> EndOfFor(const Args& args, std::string_view verb,
                                    int64_t now_ms);

}  // namespace ax
