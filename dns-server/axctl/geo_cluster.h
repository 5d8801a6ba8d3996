// `axctl geo suggest --cluster`: what it reads from and writes to the
// Kubernetes API. Reads one namespace's gslb.ax.io objects (gathered into a
// World as the operator gathers them), its MeasurementReports and its
// GeoOverrides; writes the proposals SyncProposals (proposal_sync.h) asks
// for and deletes reports past their age. Errors go to stderr.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/kube/client.h"
#include "ax/measurement_report.h"
#include "ax/model.h"
#include "axctl/proposal_sync.h"

namespace ax {

struct ClusterGeoInputs {
  World world;  // the objects that parsed and validated
  std::vector<MeasurementReport> reports;     // those ending within the age
  std::vector<std::string> old_reports;       // the names of the others
  std::vector<nlohmann::json> geo_overrides;  // as listed
};

// False when a list fails; invalid objects and reports are said and left
// out. Reports whose window ended before `now_s - max_report_age_s` are old.
bool ReadClusterGeo(kube::Client& client, const std::string& ns, int64_t now_s,
                    int64_t max_report_age_s, ClusterGeoInputs& out);

// Applies `sync` (server-side apply as kProposedBy, then deletes) and
// deletes `old_reports`; false when a write fails (the rest are still
// tried).
bool WriteClusterGeo(kube::Client& client, const std::string& ns,
                     const ProposalSync& sync,
                     const std::vector<std::string>& old_reports);

}  // namespace ax
