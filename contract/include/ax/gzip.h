// gzip (RFC 1952) of whole in-memory documents, through zlib: compressing the
// route-table snapshot when it would not fit a ConfigMap as text, and reading
// it back with a bound on the output, since a few bytes can inflate to
// gigabytes. Framing (base64, ConfigMap keys) lives in route_table_configmap.h.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ax {

// One gzip member, no file name, modification time 0: equal input, equal
// output for a given zlib.
std::string GzipCompress(std::string_view data);

// The data of exactly one gzip member (its CRC and length checked), or nullopt
// with `*error` saying why: not gzip, corrupt, truncated, trailing bytes, or
// inflating past `max_output` bytes.
std::optional<std::string> GzipDecompress(std::string_view gz,
                                          size_t max_output,
                                          std::string* error);

}  // namespace ax
