// --report-api: the vantage's ProbeReport written through the Kubernetes API
// by server-side apply (fieldManager ax-probe, forced: the object is this
// vantage's alone), which creates it the first time. Given the pod's name
// and UID (downward API: POD_NAME, POD_UID) the report carries an
// ownerReference to the pod, so garbage collection removes it with the pod.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "ax/kube/client.h"
#include "ax/probe_report.h"

namespace ax::probe {

inline constexpr char kProbeFieldManager[] = "ax-probe";

struct ApiReportOptions {
  std::string kubeconfig;      // "": kube::LoadConfig's lookup
  std::string namespace_name;  // "": the config's (the pod's) namespace
  std::string pod_name;        // both or neither: the report's owner
  std::string pod_uid;
};

// What one apply sends: the report in `namespace_name`, owned by the pod
// when `pod_name` and `pod_uid` are both set. Pure.
nlohmann::json ProbeReportApplyIntent(ProbeReport report,
                                      const std::string& namespace_name,
                                      const std::string& pod_name,
                                      const std::string& pod_uid);

class ApiReportWriter {
 public:
  // Reads the kube config and makes the client; null with `error` when the
  // config is unusable. Contacts no apiserver.
  static std::unique_ptr<ApiReportWriter> Create(
      const ApiReportOptions& options, std::string* error);

  // One apply, bounded by a timeout. False with `error` (the API's status
  // and message); not retried here: the next change or heartbeat retries.
  bool Write(const ProbeReport& report, std::string* error);

  const std::string& namespace_name() const { return namespace_; }

 private:
  ApiReportWriter(std::unique_ptr<kube::Client> client, std::string ns,
                  ApiReportOptions options);

  const std::unique_ptr<kube::Client> client_;
  const std::string namespace_;
  const ApiReportOptions options_;
};

}  // namespace ax::probe
