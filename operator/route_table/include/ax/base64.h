// Base64 (RFC 4648 §4, standard alphabet, '=' padding): how the Kubernetes
// API spells []byte fields such as a ConfigMap's binaryData. Strict on input,
// since a corrupt value must be reported, not half-decoded. Nothing else here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ax {

std::string Base64Encode(std::string_view bytes);

// The decoded bytes, or nullopt with `*error` saying where the text goes
// wrong ("invalid character '*' at offset 17", "length 5 is not a multiple of
// 4"). No whitespace or line breaks are accepted.
std::optional<std::string> Base64Decode(std::string_view text,
                                        std::string* error);

}  // namespace ax
