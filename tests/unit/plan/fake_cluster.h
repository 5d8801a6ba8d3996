// Test support: FakeCluster applies a Plan the way the Kubernetes API would
// (status through the merge patch, resourceVersions and generations moving,
// history ConfigMaps created and deleted), checking the plan's promises on the
// way, so a test can run plan after plan.
#pragma once

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "ax/controller/plan.h"
#include "ax/route_table_configmap.h"
#include "operator_objects.h"

namespace ax::testing {

class FakeCluster {
 public:
  explicit FakeCluster(controller::ObservedState observed)
      : state(std::move(observed)) {}

  controller::Plan Plan(int64_t now_ms) {
    state.now_ms = now_ms;
    return controller::ComputePlan(state);
  }

  // Writes what `plan` asks for (ApplyPlan), checking on the way that a
  // replace carries the resourceVersion read, no history name is created
  // twice and every merge patch reproduces its desired status.
  void Apply(const controller::Plan& plan) {
    if (plan.route_table) {
      const json& meta = (*plan.route_table)["metadata"];
      if (state.route_table) {
        EXPECT_EQ(
            meta.value("resourceVersion", ""),
            (*state.route_table)["metadata"].value("resourceVersion", ""));
      } else {
        EXPECT_FALSE(meta.contains("resourceVersion"));
      }
    }
    for (const json& cm : plan.history_creates) {
      for (const json& existing : state.history) {
        EXPECT_NE(existing["metadata"]["name"], cm["metadata"]["name"]);
      }
    }
    ApplyPlan(plan, state, revision_);
    for (const controller::StatusUpdate& u : plan.status_updates) {
      json* object = Find(u.object.kind, u.object.name);
      ASSERT_NE(object, nullptr) << u.object.KindName();
      EXPECT_EQ((*object)["status"], u.status) << u.object.KindName();
    }
  }

  // Plans and applies; returns the plan.
  controller::Plan Step(int64_t now_ms) {
    controller::Plan plan = Plan(now_ms);
    Apply(plan);
    return plan;
  }

  json* Find(const std::string& kind, const std::string& name) {
    return FindObject(state, kind, name);
  }

  // Edits an object's spec the way `kubectl apply` would: generation + 1.
  void EditSpec(const std::string& kind, const std::string& name,
                const json& patch) {
    json* object = Find(kind, name);
    ASSERT_NE(object, nullptr);
    (*object)["spec"].merge_patch(patch);
    (*object)["metadata"]["generation"] =
        (*object)["metadata"]["generation"].get<int64_t>() + 1;
    (*object)["metadata"]["resourceVersion"] = std::to_string(++revision_);
  }

  // New report contents from the sidecars; the API keeps each status.
  void ReplaceReports(std::vector<json> reports) {
    for (json& report : reports) {
      if (const json* old = Find("ProbeReport", report["metadata"]["name"]);
          old && old->contains("status")) {
        report["status"] = (*old)["status"];
      }
    }
    state.probe_reports = std::move(reports);
  }

  json& Status(const std::string& kind, const std::string& name) {
    return (*Find(kind, name))["status"];
  }

  controller::ObservedState state;

 private:
  int64_t revision_ = 100;
};

// 2026-11-30T00:53:20Z, on a whole second.
inline constexpr int64_t kT0 = 1'796'000'000'000;

// Reports from two vantages, both seeing every node of SmallCluster Up.
inline std::vector<json> UpReports(int64_t observed_at_ms) {
  std::vector<json> out;
  for (const char* vantage : {"vantage-a", "vantage-b"}) {
    std::vector<ProbeNodeReport> results;
    for (const char* node : {"bj-01", "gz-01", "gz-02"}) {
      results.push_back(NodeResult(node, Health::kUp, 5, kT0 - 600'000));
    }
    out.push_back(ReportObject(vantage, observed_at_ms, std::move(results)));
  }
  return out;
}

// Three nodes in two regions (south falls back to north), one Domain, two
// vantages seeing everything Up a second before kT0.
inline FakeCluster SmallCluster() {
  controller::ObservedState o;
  o.nodes = {NodeObject("gz-01", "192.0.2.1"), NodeObject("gz-02", "192.0.2.2"),
             NodeObject("bj-01", "198.51.100.1")};
  o.regions = {RegionObject("south", {"gz-01", "gz-02"}, {"north"}),
               RegionObject("north", {"bj-01"})};
  o.regions[0]["spec"]["match"] = {{"countries", {"CN"}}};
  o.regions[1]["spec"]["match"] = {{"default", true}};
  o.domains = {DomainObject("www")};
  o.probe_reports = UpReports(kT0 - 1000);
  return FakeCluster(std::move(o));
}

// The first canary's share in the table the cluster publishes (0: none).
inline double ServedCanaryPercent(const FakeCluster& c) {
  const Snapshot s = *ParseRouteTableConfigMap(*c.state.route_table).snapshot;
  return s.canaries.empty() ? 0 : s.canaries[0].percent;
}

// The condition of `type` in `status`, or null.
inline json ConditionOf(const json& status, const std::string& type) {
  for (const json& c : status.value("conditions", json::array())) {
    if (c["type"] == type) return c;
  }
  return nullptr;
}

// Events of a plan as "Kind/name Type Reason".
inline std::vector<std::string> EventLines(const controller::Plan& plan) {
  std::vector<std::string> out;
  for (const controller::Event& e : plan.events) {
    out.push_back(e.object.KindName() + " " +
                  controller::EventTypeName(e.type) + " " + e.reason);
  }
  return out;
}

inline std::vector<std::string> UpdatedObjects(const controller::Plan& plan) {
  std::vector<std::string> out;
  for (const controller::StatusUpdate& u : plan.status_updates) {
    out.push_back(u.object.KindName());
  }
  return out;
}

}  // namespace ax::testing
