// `axctl pin|exclude|weight NODE --domain D ...`: an incident's traffic
// override as a Rule that expires (--for is required: a forgotten pin is the
// override that hurts later). Written to the cluster (server-side apply as
// axctl, so running it again moves the same Rule's expiry), or with
// --manifests DIR as a manifest file there for ax-dns --standalone, which
// reloads the folder. Cluster access is cluster.h's.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/model.h"
#include "axctl/args.h"

namespace ax {

extern const char kRuleUsage[];

// The Rule the flags describe (its name from --name, or made from the action,
// node, domain, region and ISP), expiring at `now_ms` + --for; nullopt after
// saying on stderr what is wrong.
std::optional<nlohmann::ordered_json> RuleFromFlags(const Args& args,
                                                    RuleAction action,
                                                    int64_t now_ms);

int RuleCommand(const Args& args, RuleAction action);

}  // namespace ax
