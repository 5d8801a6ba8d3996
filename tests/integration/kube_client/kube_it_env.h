// What the Kubernetes client integration cases share: the environment that
// test_kube_client.py sets up (admin kubeconfig, a namespace, a service-
// account mount for the in-cluster path, the client CA), an admin client,
// polling, and the resources the cases use. The cases need a real
// kube-apiserver; run them through the pytest suite, not by hand.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "ax/kube/client.h"
#include "ax/kube/config.h"
#include "ax/kube/watch.h"
#include "wait_for.h"

namespace ax::kube::it {

// The variable's value; fails the test (and returns "") when unset.
inline std::string Env(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') {
    ADD_FAILURE() << name << " is unset: run this through test_kube_client.py";
    return {};
  }
  return value;
}

inline std::string Namespace() { return Env("AX_IT_NAMESPACE"); }

inline Config AdminConfig() {
  auto config = LoadKubeconfig(Env("KUBECONFIG"));
  EXPECT_TRUE(config.ok()) << config.error().ToString();
  return config.ok() ? *config : Config{};
}

inline std::unique_ptr<Client> AdminClient(const ClientOptions& options = {}) {
  auto client = Client::Create(AdminConfig(), options);
  EXPECT_TRUE(client.ok()) << client.error().ToString();
  return client.ok() ? std::move(*client) : nullptr;
}

inline const Resource& ProbeReports() {
  static const Resource kProbeReports{"gslb.ax.io", "v1alpha1", "probereports"};
  return kProbeReports;
}

inline nlohmann::json ConfigMap(
    const std::string& name, nlohmann::json data = nlohmann::json::object(),
    nlohmann::json labels = nlohmann::json::object()) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
          {"data", std::move(data)}};
}

// WaitFor with the cluster cases' longer default deadline.
inline bool Eventually(
    const std::function<bool()>& done,
    std::chrono::milliseconds timeout = std::chrono::seconds(20)) {
  return ax::testing::WaitFor(done, timeout);
}

// A minimal valid ProbeReport (the custom resource the cases use).
inline nlohmann::json ProbeReport(
    const std::string& name, nlohmann::json labels = nlohmann::json::object()) {
  return {{"apiVersion", "gslb.ax.io/v1alpha1"},
          {"kind", "ProbeReport"},
          {"metadata", {{"name", name}, {"labels", std::move(labels)}}},
          {"spec",
           {{"vantage", "it"},
            {"observedAt", "2024-01-01T00:00:00.000Z"},
            {"results", nlohmann::json::array()}}}};
}

// A watch of `collection` from resourceVersion 1. For a custom resource the
// apiserver's watch cache starts when the CRD is established, long after 1,
// so this is its 410 "too old resource version" (an in-stream ERROR event).
// Retries while the cache is still starting (429).
WatchOutcome WatchFromResourceVersionOne(Client& client,
                                         const Resource& collection);

}  // namespace ax::kube::it
