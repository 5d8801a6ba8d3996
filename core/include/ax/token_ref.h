// healthCheck.tokenSecretRef: the name of one file in the probe's token
// directory (a Secret key), and the companion file "<name>.nodes" that binds
// a token to the Nodes allowed to send it. Pure string checks shared by the
// manifest parser and the probe; reading the files is the probe's.
#pragma once

#include <string>
#include <string_view>

namespace ax {

// The companion of token file NAME: NAME.nodes, one Node name per line
// ("edge-*" for every name with that prefix; blank lines and "# ..." ignored).
inline constexpr std::string_view kTokenBindingSuffix = ".nodes";

// Why `ref` cannot name a token file, "" when it can: a Kubernetes Secret
// key (letters, digits, '-', '_', '.'; at most 253), not "." or "..", not
// starting with ".." (the Secret volume's own entries) and not a binding
// file. No '/' at all, so the name can never leave the token directory.
std::string CheckTokenRef(std::string_view ref);

// Whether a binding file with `text` lets `node` use its token.
bool TokenBindingAllows(std::string_view text, std::string_view node);

}  // namespace ax
