// The Kubernetes side of `axctl geo suggest --cluster` (geo_cluster.h).
#include "axctl/geo_cluster.h"

#include <iostream>

#include "ax/api_kinds.h"
#include "ax/gather.h"
#include "ax/manifest_objects.h"
#include "axctl/cluster.h"
#include "axctl/geo_suggest_command.h"

namespace ax {
namespace {

using nlohmann::json;

}  // namespace

bool ReadClusterGeo(kube::Client& client, const std::string& ns, int64_t now_s,
                    int64_t max_report_age_s, ClusterGeoInputs& out) {
  ApiObjects objects;
  if (!ListManifestObjects(client, ns, "geo suggest", objects)) return false;
  out.geo_overrides = objects.geo_overrides;
  GatheredWorld gathered = GatherWorld(objects);
  for (const auto& [object, errors] : gathered.invalid) {
    for (const ManifestError& e : errors) {
      std::cerr << "left out: " << e.ToString() << "\n";
    }
  }
  out.world = std::move(gathered.world);

  const auto reports =
      ListAx(client, kMeasurementReportKind, ns, "geo suggest");
  if (!reports) return false;
  for (const json& object : *reports) {
    ParseMeasurementReportResult r = ParseMeasurementReport(object, ns);
    for (const ManifestError& e : r.errors) {
      std::cerr << "left out: " << e.ToString() << "\n";
    }
    if (!r.report) continue;
    if (r.report->to_ms / 1000 < now_s - max_report_age_s) {
      out.old_reports.push_back(r.report->name);
    } else {
      out.reports.push_back(std::move(*r.report));
    }
  }
  return true;
}

bool WriteClusterGeo(kube::Client& client, const std::string& ns,
                     const ProposalSync& sync,
                     const std::vector<std::string>& old_reports) {
  bool ok = true;
  const auto said = [&](const std::string& what, const auto& result) {
    if (result) {
      std::cerr << what << "\n";
    } else {
      std::cerr << what << " failed: " << result.error().ToString() << "\n";
      ok = false;
    }
  };
  kube::ApplyOptions apply;
  apply.field_manager = kProposedBy;
  // Ours while unapproved (SyncProposals checked): take every field back,
  // approved: false included.
  apply.force = true;
  for (const ProposalWrite& w : sync.apply) {
    const GeoOverride& o = w.proposal;
    nlohmann::ordered_json intent = GeoOverrideManifest(o);
    intent["metadata"]["namespace"] = ns;
    intent["metadata"]["labels"] = {{kProposedByLabel, kProposedBy}};
    // Precondition: still the object listed (an apply without one creates).
    if (!w.resource_version.empty()) {
      intent["metadata"]["resourceVersion"] = w.resource_version;
    }
    said("applied GeoOverride/" + o.meta.name,
         client.Apply(AxCollection("GeoOverride", ns).Named(o.meta.name),
                      json::parse(intent.dump()), apply));
  }
  for (const std::string& name : sync.remove) {
    said("deleted GeoOverride/" + name + " (no longer proposed)",
         client.Delete(AxCollection("GeoOverride", ns).Named(name)));
  }
  for (const std::string& name : old_reports) {
    said("deleted MeasurementReport/" + name + " (older than the age kept)",
         client.Delete(AxCollection(kMeasurementReportKind, ns).Named(name)));
  }
  return ok;
}

}  // namespace ax
