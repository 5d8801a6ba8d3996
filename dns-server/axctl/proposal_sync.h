// How `axctl geo suggest --cluster --apply` brings a namespace's GeoOverrides
// in line with the current proposals without touching anybody's decision:
// it writes only objects it labelled as its own, and of those only the ones
// nobody approved. Pure: proposals and the listed objects in, writes out.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/model.h"

namespace ax {

// The label on every proposal the suggester writes.
inline constexpr char kProposedByLabel[] = "gslb.ax.io/proposed-by";
inline constexpr char kProposedBy[] = "axctl-geo-suggest";

// One proposal to write: created when `resource_version` is empty, else
// applied on the condition that the object is still as listed (a reviewer's
// approval in between makes the write conflict instead of undoing it).
struct ProposalWrite {
  GeoOverride proposal;
  std::string resource_version;
};

struct ProposalSync {
  std::vector<ProposalWrite> apply;  // create, or refresh an own open one
  std::vector<std::string> remove;   // own, unapproved, no longer proposed
  std::vector<std::string> left;     // "NAME: why" for proposals not written
};

// `existing`: the namespace's GeoOverrides as the API lists them. An
// object without spec.approved counts as approved (the kind's default). An
// own approved proposal past its expiresAt (as of `now_s`) is proposed
// afresh, unapproved: expiry is when the evidence is reviewed again.
ProposalSync SyncProposals(const std::vector<GeoOverride>& proposals,
                           const std::vector<nlohmann::json>& existing,
                           int64_t now_s);

}  // namespace ax
