// What ax-probe applies through the API: the report in the writer's
// namespace, with an ownerReference to its pod only when both the pod's name
// and UID are known (the call itself is the kube integration suite's).
#include "sidecar/api_report.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace ax::probe {
namespace {

ProbeReport Report() {
  ProbeReport r;
  r.name = ProbeReportName("Pod_A");
  r.vantage = "Pod_A";
  r.observed_at_ms = 1'796'000'000'000;
  return r;
}

TEST(ApiReportTest, IntentCarriesNamespaceAndOwner) {
  const nlohmann::json intent =
      ProbeReportApplyIntent(Report(), "ax-system", "ax-dns-0", "uid-1");
  EXPECT_EQ(intent["apiVersion"], "gslb.ax.io/v1alpha1");
  EXPECT_EQ(intent["kind"], "ProbeReport");
  EXPECT_EQ(intent["metadata"]["name"], "pod-a");
  EXPECT_EQ(intent["metadata"]["namespace"], "ax-system");
  EXPECT_EQ(intent["metadata"]["ownerReferences"],
            nlohmann::json::parse(R"([{"apiVersion":"v1","kind":"Pod",
                                       "name":"ax-dns-0","uid":"uid-1"}])"));
  EXPECT_EQ(intent["spec"]["vantage"], "Pod_A");
}

TEST(ApiReportTest, NoOwnerWithoutBothPodFields) {
  for (const auto& [name, uid] :
       {std::pair{"ax-dns-0", ""}, std::pair{"", "uid-1"}, std::pair{"", ""}}) {
    const nlohmann::json intent =
        ProbeReportApplyIntent(Report(), "ns", name, uid);
    EXPECT_FALSE(intent["metadata"].contains("ownerReferences"))
        << name << "/" << uid;
  }
}

}  // namespace
}  // namespace ax::probe
