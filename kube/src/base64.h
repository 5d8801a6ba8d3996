// Base64 decoding for kubeconfig *-data fields (base64.cc). Standard
// alphabet; whitespace and line breaks are skipped, padding is optional.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ax::kube {

// nullopt on a character outside the alphabet or a dangling single symbol.
std::optional<std::string> Base64Decode(std::string_view text);

}  // namespace ax::kube
