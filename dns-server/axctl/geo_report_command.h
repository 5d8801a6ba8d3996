// `axctl geo report`: the log shipper's side of corrections from
// measurement. Reads client timings (JSON lines or node access logs) and
// prints them as MeasurementReports (measurement_report.h: per time window,
// client prefix and node, a latency histogram) for `kubectl apply
// --server-side -f -` (client-side apply keeps a copy in an annotation,
// which large reports overflow), where `axctl geo suggest --cluster` reads
// them. Windows (--window, 1 hour by default) are what the suggestions judge
// consistency over time by.
#pragma once

#include "axctl/args.h"

namespace ax {

inline constexpr char kGeoReportUsage[] =
    "  axctl geo report --name NAME (--measurements FILE | --access-log "
    "NODE=FILE)...\n"
    "        [--window 1h] [--source TEXT] [--namespace NS] [--skip-bad-lines] "
    "[--json]\n";

// Returns the process exit code: 0 printed (nothing for no samples), 1
// failed, 2 bad usage.
int GeoReportCommand(const Args& args);

}  // namespace ax
