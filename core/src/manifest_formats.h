// Internal to core/src: the value formats manifests spell as text (DNS and
// Kubernetes names, ISO codes, URLs, durations, RFC 3339 times), each a plain
// string -> value reader. No JSON, paths or error collection here (that is
// manifest_fields.h); no checks that need more than the one value (that is
// validate.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ax::manifest {

// Lower-case letters, digits and '-' per label (plus '_' where DNS allows it,
// for names like _grpc_config); labels 1..63 characters not starting or ending
// with '-'; 253 in total. Returns why `name` is not one, "" when it is.
std::string CheckDnsName(std::string_view name, bool allow_underscore);

// Readers: each sets `out` from `text` and returns "", or returns the error
// message for the value ("must be ..., got ...") and leaves `out` unspecified.

// fqdn, zone, fallback cname: case-insensitive, the trailing root dot is
// optional; `out` is lower case without it.
std::string ReadHostname(const std::string& text, std::string& out);
// SRV service names (RFC 6335 §5.1: 1..15 of a-z, 0-9, '-', a letter among
// them, no '-' at either end or twice in a row; matched case-insensitively,
// `out` is lower case) and SRV protocols ("tcp" or "udp"), both without the
// leading '_' (RFC 2782).
std::string ReadServiceName(const std::string& text, std::string& out);
std::string ReadSrvProtocol(const std::string& text, std::string& out);
// Kubernetes object names (RFC 1123 subdomains): already lower case, no '_'.
std::string ReadObjectName(const std::string& text, std::string& out);
// ISO 3166-1 alpha-2 ("us" reads as "US") and ISO 3166-2 ("cn-gd" as "CN-GD").
std::string ReadCountryCode(const std::string& text, std::string& out);
std::string ReadSubdivisionCode(const std::string& text, std::string& out);
// "CN-GD/Shenzhen" or "US/Ashburn": the qualifier as above (upper-cased),
// then a city name of 1..128 bytes without '/' or control characters.
std::string ReadCityRef(const std::string& text, std::string& out);
// An absolute URL path ("/healthz") and an http(s) URL.
std::string ReadUrlPath(const std::string& text, std::string& out);
std::string ReadHttpUrl(const std::string& text, std::string& out);
// healthCheck.tokenSecretRef: one file name of the token directory
// (token_ref.h).
std::string ReadTokenRef(const std::string& text, std::string& out);
// RFC 3339 ("2026-12-01T00:00:00Z") -> unix seconds.
std::string ReadTime(const std::string& text, int64_t& unix_seconds);
// The same keeping milliseconds ("2026-12-01T00:00:00.250Z"): report times,
// where freshness needs them.
std::string ReadTimeMs(const std::string& text, int64_t& unix_ms);

// "500ms", "2s", "1m30s", "1h" -> milliseconds; nullopt when malformed or
// beyond 2^62 ms. Bare numbers are a JSON-level case (manifest_fields.cc).
std::optional<uint64_t> ParseDurationMs(std::string_view text);

// RFC 3339 timestamps ("2026-12-01T00:00:00Z", "2026-12-01T08:00:00+08:00") ->
// unix seconds; fractions of a second are dropped.
std::optional<int64_t> ParseRfc3339(std::string_view s);

}  // namespace ax::manifest
