// World -> probe targets (world_targets.h).
#include "engine/world_targets.h"

#include <algorithm>
#include <optional>
#include <system_error>

#include "ax/runtime/bearer_token.h"
#include "ax/runtime/log.h"
#include "ax/token_ref.h"

namespace ax::probe {
namespace {

namespace fs = std::filesystem;

// `file` once symlinks are resolved (a Secret volume's keys are links into
// its ..data folder), when that is still inside `dir`.
std::optional<fs::path> InsideDir(const fs::path& dir, const fs::path& file) {
  std::error_code ec;
  const fs::path real_dir = fs::canonical(dir, ec);
  if (ec) return std::nullopt;
  const fs::path real = fs::canonical(file, ec);
  if (ec) return std::nullopt;
  const auto [end, _] =
      std::mismatch(real_dir.begin(), real_dir.end(), real.begin(), real.end());
  if (end != real_dir.end()) return std::nullopt;
  return real;
}

// The token `node` may send from `token_dir`, or why it is not sent.
std::optional<std::string> ReadToken(const fs::path& token_dir,
                                     const std::string& ref,
                                     const std::string& node,
                                     TokenProblem& problem) {
  problem = {node, "", ""};
  if (token_dir.empty()) {
    problem.reason = "no token directory is set (--probe-token-dir)";
    return std::nullopt;
  }
  // The parser refused such names already; a World built another way must
  // not reach outside the directory either.
  if (std::string bad = CheckTokenRef(ref); !bad.empty()) {
    problem.reason = "tokenSecretRef " + bad;
    return std::nullopt;
  }
  const fs::path file = token_dir / ref;
  problem.file = file.string();
  const std::optional<fs::path> real = InsideDir(token_dir, file);
  if (!real) {
    problem.reason = "missing, or a link out of the token directory";
    return std::nullopt;
  }
  const fs::path binding = token_dir / (ref + std::string(kTokenBindingSuffix));
  if (std::error_code ec; fs::exists(binding, ec)) {
    const std::optional<std::string> text =
        runtime::ReadSecretFile(binding.string());
    if (!text || !TokenBindingAllows(*text, node)) {
      problem.reason =
          "not bound to this Node (" + binding.string() + " does not list it)";
      return std::nullopt;
    }
  }
  std::optional<std::string> token = runtime::ReadTokenLine(real->string());
  if (!token || token->empty()) {
    problem.reason = token ? "empty first line" : "unreadable";
    return std::nullopt;
  }
  return token;
}

}  // namespace

WorldTargets ProbeTargetsForWorld(const World& world,
                                  const fs::path& token_dir) {
  WorldTargets out;
  for (const Node& n : world.nodes) {
    // A node disabled for a window is still probed: it has a verdict when the
    // window ends.
    if (!n.health_check ||
        (n.admin_state == AdminState::kDisabled && !n.admin_state_expires_at)) {
      continue;
    }
    const HealthCheck& check = *n.health_check;
    if (!check.address && n.addresses.empty()) continue;
    std::string token;
    if (const std::string& ref = check.token_secret_ref; !ref.empty()) {
      TokenProblem problem;
      if (std::optional<std::string> read =
              ReadToken(token_dir, ref, n.meta.name, problem)) {
        token = std::move(*read);
      } else {
        out.token_problems.push_back(std::move(problem));
      }
    }
    out.targets.push_back(
        {.node = n.meta.name,
         .address = check.address.value_or(n.addresses.front()),
         .check = check,
         .token = std::move(token)});
  }
  return out;
}

void LogTokenProblems(const std::vector<TokenProblem>& problems) {
  for (const TokenProblem& p : problems) {
    runtime::Log(runtime::LogLevel::kError,
                 "probe token not sent; probing without it",
                 {{"node", p.node}, {"file", p.file}, {"reason", p.reason}});
  }
}

}  // namespace ax::probe
