// Base64 (RFC 4648 §4, standard alphabet, '=' padding): how the Kubernetes
// API spells []byte fields (a ConfigMap's binaryData, a kubeconfig's *-data).
// One decoder, two entry points: strict for data that must be reported when
// corrupt, lenient for hand-edited files. Nothing else here.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ax::runtime {

std::string Base64Encode(std::string_view bytes);

// The decoded bytes, or nullopt with `*error` saying where the text goes
// wrong ("invalid character '*' at offset 17", "length 5 is not a multiple of
// 4"). No whitespace or line breaks are accepted.
std::optional<std::string> Base64Decode(std::string_view text,
                                        std::string* error);

// Kubeconfig style: whitespace and line breaks are skipped and the padding
// may be left out (RFC 4648 §3.2); anything else is decoded strictly.
// nullopt on a character outside the alphabet or a dangling single symbol.
std::optional<std::string> Base64DecodeLenient(std::string_view text);

}  // namespace ax::runtime
