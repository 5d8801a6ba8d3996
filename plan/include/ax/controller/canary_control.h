// What people ask of a running Canary, read from its annotations: pause and
// resume (kCanaryPaused), abort (kCanaryAbort) and promote (kCanaryPromote).
// Annotations, not spec fields, because a spec change is a new generation and
// a new generation restarts the rollout. Abort and promote may name the
// generation they were written for (as axctl does), so they stay idempotent
// while present and go stale when the spec changes; without one (a manifest
// kept in git, standalone) they apply to every generation. The state machine
// that obeys them is canary_progress.h's; `axctl canary` writes them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace ax::controller {

// "true" holds the step in force (analysis still runs); absent or "false"
// lets the rollout go on, with what was left of the step's pause.
inline constexpr char kCanaryPausedAnnotation[] = "gslb.ax.io/canary-paused";
// "GENERATION" or "true": the share back to 0 (phase Failed, reason Aborted)
// for that spec generation, or for any.
inline constexpr char kCanaryAbortAnnotation[] = "gslb.ax.io/canary-abort";
// "GENERATION/STEP" or "STEP": move on to step STEP (1-based) now, without
// waiting for the pauses before it; the last step is a full promotion.
inline constexpr char kCanaryPromoteAnnotation[] = "gslb.ax.io/canary-promote";

struct CanaryControl {
  bool paused = false;
  bool abort = false;  // for the generation in force
  std::optional<uint32_t>
      promote_to;  // step index, for the generation in force
  // An annotation that could not be read (it is ignored): said in status.
  std::string error;
};

// The annotations of the Canary `object` whose spec is `generation` and has
// `steps` steps.
CanaryControl ReadCanaryControl(const nlohmann::json& object,
                                int64_t generation, size_t steps);

}  // namespace ax::controller
