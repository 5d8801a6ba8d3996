// RFC 3339 times as Kubernetes objects spell them, to and from unix
// milliseconds: always UTC ("Z"), no time zone database, no clock. Reading
// manifest times into the model lives in model_parse.cc; this is for the
// status, report and annotation times the control plane writes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ax {

// "2026-11-30T04:53:35.123Z".
std::string FormatRfc3339Ms(int64_t unix_ms);
// "2026-11-30T04:53:35Z", the precision of metav1.Time (lastTransitionTime):
// the milliseconds are dropped (rounded down).
std::string FormatRfc3339Seconds(int64_t unix_ms);

// Any RFC 3339 time ("...Z" or "...+08:00", with or without a fraction) ->
// unix milliseconds; digits past the millisecond are dropped. nullopt when
// malformed.
std::optional<int64_t> ParseRfc3339Ms(std::string_view text);

}  // namespace ax
