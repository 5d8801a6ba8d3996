// The check in front of a mutating HTTP endpoint: "Authorization: Bearer
// <token>" (RFC 6750 section 2.1) against the first line of a token file (a
// mounted Secret), read at every check so that a rotated Secret applies
// without a restart, and compared in constant time. It fails closed: an
// unreadable or empty file lets nobody in. Also how any mounted Secret file
// is read (the probe's tokens and their bindings too). No HTTP server here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ax::runtime {

enum class BearerCheck {
  kAllowed,
  kMissing,      // no Authorization: Bearer header
  kWrong,        // a token, not this one
  kUnavailable,  // the token file is unreadable or empty
};

// A mounted Secret's key: the file's first MiB (tokens and the lists beside
// them are small; a huge file is read only this far); nullopt when
// unreadable.
std::optional<std::string> ReadSecretFile(const std::string& file);
// A token file's first line, up to the first CR or LF (with or without a
// final newline); nullopt when unreadable.
std::optional<std::string> ReadTokenLine(const std::string& file);

BearerCheck CheckBearer(const std::string& token_file,
                        std::string_view authorization);

// "missing bearer token", ...: for the 401/503 reply and the log.
const char* BearerCheckText(BearerCheck check);

}  // namespace ax::runtime
