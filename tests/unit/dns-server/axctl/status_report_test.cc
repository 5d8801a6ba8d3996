// axctl status's model and text from hand-made objects at a fixed now: the
// served table's age and rollback, replicas behind, nodes Down for a vantage
// group, Rules' and Canaries' time left (a paused one's as it was held).
#include "axctl/status_report.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ax/rfc3339.h"

namespace ax {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

constexpr int64_t kNow = 1'796'014'415'000;  // 2026-11-30T04:53:35Z

std::string At(int64_t ms) { return FormatRfc3339Seconds(ms); }

Snapshot Served() {
  Snapshot s;
  s.version = 43;
  s.content_hash = "9f2c";
  s.generated_at_ms = kNow - 150'000;
  s.nodes.resize(2);
  s.nodes[0].name = "gz-01";
  s.nodes[1].name = "bj-01";
  SnapshotVantageGroup g;
  g.name = "cn-south-unicom";
  g.vantages = 2;
  g.nodes = {{.node = 0, .health = Health::kDown},
             {.node = 1, .health = Health::kUp}};
  s.vantage_groups = {g};
  return s;
}

json Object(const char* name, json spec, json status) {
  return {{"metadata", {{"name", name}}},
          {"spec", std::move(spec)},
          {"status", std::move(status)}};
}

TEST(StatusReportTest, OneLookAtTheNamespace) {
  const Snapshot served = Served();
  const json cm = {
      {"metadata", {{"annotations", {{"gslb.ax.io/rollback-to", "41"}}}}}};
  StatusInputs in{.route_table = "ax-route-table",
                  .config_map = &cm,
                  .served = &served,
                  .served_error = "",
                  .reports = {},
                  .nodes = {},
                  .rules = {},
                  .canaries = {},
                  .now_ms = kNow};
  in.reports = {
      {{"spec",
        {{"vantage", "ax-dns-0"},
         {"observedAt", At(kNow - 4000)},
         {"served",
          {{"version", 43},
           {"contentHash", "9f2c"},
           {"loadedAt", At(kNow - 120'000)}}}}}},
      {{"spec",
        {{"vantage", "ax-dns-1"},
         {"observedAt", At(kNow - 3000)},
         {"served",
          {{"version", 40},
           {"contentHash", "77"},
           {"loadedAt", At(kNow - 3'600'000)}}}}}},
      {{"spec", {{"vantage", "edge-probe"}, {"observedAt", At(kNow - 1000)}}}}};
  in.nodes = {Object("gz-01",
                     {{"adminState", "Drain"},
                      {"adminStateExpiresAt", At(kNow + 5'400'000)},
                      {"adminStateReason", "INC-1"}},
                     {{"health", "Up"}, {"loadPercent", 61.5}}),
              Object("bj-01", json::object(), json::object())};
  in.rules = {Object("pin-b-www-telecom",
                     {{"action", "Pin"},
                      {"node", "bj-01"},
                      {"domain", "www"},
                      {"match", {{"isp", "telecom"}}},
                      {"expiresAt", At(kNow + 1'680'000)}},
                     {{"active", true}, {"expired", false}})};
  in.canaries = {
      Object(
          "new-b",
          {{"domain", "www"},
           {"node", "bj-01"},
           {"steps", {{{"percent", 10}, {"pause", "1h"}}, {{"percent", 100}}}}},
          {{"phase", "Paused"},
           {"step", 0},
           {"percent", 10},
           {"stepStartedAt", At(kNow - 1'200'000)},
           {"pausedAt", At(kNow - 600'000)}}),
      Object("api-c",
             {{"domain", "api"},
              {"node", "gz-01"},
              {"steps", {{{"percent", 5}, {"pause", 600}}, {{"percent", 50}}}}},
             {{"phase", "Progressing"},
              {"step", 0},
              {"percent", 5},
              {"stepStartedAt", At(kNow - 60'000)},
              {"conditions",
               {{{"type", "Ready"},
                 {"status", "True"},
                 {"reason", "Progressing"},
                 {"message",
                  "step 1/2: 5% of clients on Node gz-01 until "
                  "2026-12-04T10:00:00Z, and then waits until metric "
                  "http-5xx is read"}}}}})};

  const json model = StatusModel(in);
  EXPECT_EQ(model["routeTable"]["version"], 43);
  EXPECT_EQ(model["routeTable"]["ageSeconds"], 150);
  EXPECT_EQ(model["routeTable"]["rollbackTo"], "41");
  EXPECT_EQ(model["replicas"][1]["behind"], true);
  EXPECT_EQ(model["replicas"][0]["behind"], false);
  EXPECT_FALSE(model["replicas"][2].contains("servedVersion"));
  EXPECT_EQ(model["nodes"][0]["downForGroups"], json({"cn-south-unicom"}));
  EXPECT_EQ(model["nodes"][0]["adminStateSecondsLeft"], 5400);
  EXPECT_EQ(model["nodes"][1]["health"], "Unknown");
  EXPECT_EQ(model["rules"][0]["secondsLeft"], 1680);
  EXPECT_EQ(model["canaries"][0]["nextStepSeconds"], 3000);  // 1h - 10m run
  EXPECT_EQ(model["canaries"][1]["nextStepSeconds"], 540);

  EXPECT_EQ(
      StatusText(model),
      "route table ax-route-table: version 43, generated 2m ago; held at "
      "the content of version 41 (axctl rollback --resume publishes "
      "again)\n"
      "\n"
      "REPLICA     SERVES       LOADED   REPORTED\n"
      "ax-dns-0    43           2m ago   4s ago\n"
      "ax-dns-1    40 (behind)  60m ago  3s ago\n"
      "edge-probe  ?            -        1s ago\n"
      "\n"
      "NODE   HEALTH   DOWN FOR GROUPS  ADMIN           LOAD\n"
      "gz-01  Up       cn-south-unicom  Drain (in 90m)  61.5%\n"
      "bj-01  Unknown  -                Active          -\n"
      "\n"
      "RULE               ACTION  NODE   DOMAIN  MATCH        ACTIVE  "
      "EXPIRES\n"
      "pin-b-www-telecom  Pin     bj-01  www     isp=telecom  yes     "
      "in 28m\n"
      "\n"
      "CANARY  DOMAIN  NODE   PHASE        STEP  PERCENT  NEXT STEP\n"
      "new-b   www     bj-01  Paused       1/2   10       held, 50m left\n"
      "api-c   api     gz-01  Progressing  1/2   5        in 9m\n"
      "api-c: step 1/2: 5% of clients on Node gz-01 until "
      "2026-12-04T10:00:00Z, and then waits until metric http-5xx is read\n");
}

TEST(StatusReportTest, NoTableYet) {
  StatusInputs in{.route_table = "edge-routes", .now_ms = kNow};
  const json model = StatusModel(in);
  EXPECT_EQ(model["routeTable"]["error"], "not found");
  EXPECT_THAT(StatusText(model),
              HasSubstr("route table edge-routes: not found\n"));
}

TEST(StatusReportTest, ShortDurations) {
  EXPECT_EQ(ShortDuration(-5), "0s");
  EXPECT_EQ(ShortDuration(119'999), "119s");
  EXPECT_EQ(ShortDuration(120'000), "2m");
  EXPECT_EQ(ShortDuration(7'199'000), "119m");
  EXPECT_EQ(ShortDuration(7'200'000), "2h");
  EXPECT_EQ(ShortDuration(3 * 86'400'000LL), "3d");
}

}  // namespace
}  // namespace ax
