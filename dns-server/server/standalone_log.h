// What a standalone pass tells the log in place of the operator's API writes:
// manifest errors (one line each with file:line, object and field), status
// changes worth a line, and the plan's Events. What they are is the loader's
// and the plan's to decide; only the wording and what is worth a line live
// here.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ax/controller/actions.h"
#include "ax/model_parse.h"
#include "server/standalone_objects.h"
#include "server/standalone_pipeline.h"

namespace ax::dns {

// Every manifest error of a read: the file-level ones, then the plan's
// invalid objects with their source filled in from `sources`.
std::vector<ManifestError> ManifestErrors(
    const std::vector<ManifestError>& file_errors,
    const std::map<std::string, std::vector<ManifestError>>& invalid,
    const ObjectSources& sources);

// One "manifest error" line each.
void LogManifestErrors(const std::string& dir,
                       const std::vector<ManifestError>& errors);

// "N manifest error(s) in DIR, first: ...", for the store's last error.
std::string ManifestErrorSummary(const std::string& dir,
                                 const std::vector<ManifestError>& errors);

// Whether `after` differs from `before` in a condition's status, reason or
// message, or in the phase: what an operator watching `kubectl get -w` would
// notice. Measurements and times alone do not count. A first status is worth
// a line only when a condition in it is not True (at start, every object
// gets one; the healthy ones would bury the rest).
bool WorthALine(const nlohmann::json& before, const nlohmann::json& after);

// A "status changed" line per change WorthALine.
void LogStatusChanges(const std::vector<StatusChange>& changes);

// An "event" line each: Normal at info, Warning at warn.
void LogEvents(const std::vector<controller::Event>& events);

}  // namespace ax::dns
