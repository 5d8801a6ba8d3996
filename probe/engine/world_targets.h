// Which nodes of a declared World get probed, and how: every Node with a
// healthCheck that is not Disabled, at healthCheck.address or else its first
// address, with the token from <token_dir>/<tokenSecretRef>. Shared by
// standalone ax-dns and the ax-probe sidecar so both probe the same targets.
// Reads token files, only inside the token directory and only for Nodes their
// binding file (token_ref.h) allows; problems are returned, and logged only
// by LogTokenProblems.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "ax/model.h"
#include "engine/target.h"

namespace ax::probe {

// A token the node asks for but that is not sent: the node is probed
// without it (and will likely fail its check, which is the honest outcome).
struct TokenProblem {
  std::string node;
  std::string file;    // the path tried; "" when none was
  std::string reason;  // "unreadable", "not bound to this Node ...", ...
};

struct WorldTargets {
  std::vector<ProbeTarget> targets;  // in World order
  std::vector<TokenProblem> token_problems;
};

// Tokens are the first line of the file. Nodes without any address to probe
// are left out.
WorldTargets ProbeTargetsForWorld(const World& world,
                                  const std::filesystem::path& token_dir);

// One error line per problem.
void LogTokenProblems(const std::vector<TokenProblem>& problems);

}  // namespace ax::probe
