// ApiReportWriter (api_report.h): the apply intent and the call.
#include "sidecar/api_report.h"

#include <chrono>

#include "ax/api_kinds.h"
#include "ax/kube/resource.h"
#include "ax/kube_runtime/kube_connect.h"

namespace ax::probe {
namespace {

// An apply that has not finished by then is failed; the report after it
// carries newer results anyway.
constexpr std::chrono::seconds kWriteTimeout{10};

kube::Resource ProbeReports() {
  return {kApiGroup, kApiGroupVersion,
          std::string(ApiPlural(kProbeReportKind))};
}

}  // namespace

nlohmann::json ProbeReportApplyIntent(ProbeReport report,
                                      const std::string& namespace_name,
                                      const std::string& pod_name,
                                      const std::string& pod_uid) {
  report.namespace_name = namespace_name;
  nlohmann::json intent = ProbeReportToJson(report);
  if (!pod_name.empty() && !pod_uid.empty()) {
    intent["metadata"]["ownerReferences"] =
        nlohmann::json::array({{{"apiVersion", "v1"},
                                {"kind", "Pod"},
                                {"name", pod_name},
                                {"uid", pod_uid}}});
  }
  return intent;
}

std::unique_ptr<ApiReportWriter> ApiReportWriter::Create(
    const ApiReportOptions& options, std::string* error) {
  kube::ClientOptions client_options;
  client_options.user_agent = "ax-probe";
  client_options.request_timeout = kWriteTimeout;
  kube::KubeConnection connection =
      kube::ConnectKube(options.kubeconfig, client_options, error);
  if (!connection.client) return nullptr;
  std::string ns = options.namespace_name.empty() ? connection.default_namespace
                                                  : options.namespace_name;
  return std::unique_ptr<ApiReportWriter>(new ApiReportWriter(
      std::move(connection.client), std::move(ns), options));
}

ApiReportWriter::ApiReportWriter(std::unique_ptr<kube::Client> client,
                                 std::string ns, ApiReportOptions options)
    : client_(std::move(client)),
      namespace_(std::move(ns)),
      options_(std::move(options)) {}

bool ApiReportWriter::Write(const ProbeReport& report, std::string* error) {
  kube::ApplyOptions apply;
  apply.field_manager = kProbeFieldManager;
  apply.force = true;
  const kube::Result<nlohmann::json> applied = client_->Apply(
      ProbeReports().In(namespace_).Named(report.name),
      ProbeReportApplyIntent(report, namespace_, options_.pod_name,
                             options_.pod_uid),
      apply);
  if (applied) return true;
  *error = "ProbeReport " + namespace_ + "/" + report.name + ": " +
           applied.error().ToString();
  return false;
}

}  // namespace ax::probe
