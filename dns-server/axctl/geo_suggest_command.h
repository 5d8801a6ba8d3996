// `axctl geo suggest`: corrections from measurement. Reads client timings
// (JSON lines, node access logs or MeasurementReports; offline from files,
// or with --cluster the MeasurementReports of a namespace), classifies each
// client prefix as the manifests (or the cluster's objects) and the geo
// databases do, and prints GeoOverride proposals (approved: false) for
// review, with a per-prefix report on stderr; --cluster --apply writes them
// (proposal_sync.h). The deciding is core's (geo_suggest.h). `axctl geo
// report` is geo_report_command.h's.
#pragma once

#include <nlohmann/json.hpp>

#include "ax/model.h"
#include "axctl/args.h"

namespace ax {

inline constexpr char kGeoUsage[] =
    "  axctl geo suggest PATH... (--measurements FILE | --access-log "
    "NODE=FILE | --reports PATH)...\n"
    "  axctl geo suggest --cluster [--kubeconfig F] [--namespace NS] "
    "[--apply]\n"
    "        [--max-report-age-days D]\n"
    "        both: [geo database flags as for geodb] [--min-samples N] "
    "[--min-margin-ms MS]\n"
    "        [--min-margin-ratio R] [--windows N] [--min-windows-won N]\n"
    "        [--expires-after-days D] [--now RFC3339] [--skip-bad-lines] "
    "[--json]\n";

// Returns the process exit code: 0 done (proposals or none), 1 failed, 2 bad
// usage.
int GeoCommand(const Args& args);

// The manifest (apiVersion, kind, metadata, spec) of `o`, as
// ParseManifestObject reads it back.
nlohmann::ordered_json GeoOverrideManifest(const GeoOverride& o);

}  // namespace ax
