// axctl: argument parsing and the readable rendering of an explanation, from a
// real explanation of the quickstart (manifests -> snapshot -> Explain).
#include <gtest/gtest.h>

#include "ax/classify.h"
#include "ax/explain.h"
#include "axctl/args.h"
#include "axctl/explain_text.h"
#include "axctl/world_source.h"

namespace ax {
namespace {

TEST(ArgsTest, RepeatableFlagsSwitchesAndPositionals) {
  const char* argv[] = {"axctl",    "explain",  "www.example.test", "--geo-db",
                        "a.mmdb",   "--geo-db", "b.mmdb",           "--json",
                        "--client", "1.2.3.4"};
  const Args args = ParseArgs(10, const_cast<char**>(argv), 2, {"--json"});
  EXPECT_EQ(args.positional, std::vector<std::string>{"www.example.test"});
  EXPECT_EQ(args.All("--geo-db"),
            (std::vector<std::string>{"a.mmdb", "b.mmdb"}));
  EXPECT_TRUE(args.Has("--json"));
  EXPECT_EQ(args.Get("--client"), "1.2.3.4");
  EXPECT_EQ(args.Get("--missing"), "");
}

TEST(ExplainTextTest, QuickstartExplanationReadsTopToBottom) {
  auto snapshot = SnapshotFromManifests(
      {std::string(AX_SOURCE_DIR) + "/examples/quickstart"});
  ASSERT_TRUE(snapshot);
  ExplainRequest req;
  req.name = "www.example.test";
  req.client = *ParseIp("113.108.1.1");
  req.geo.country = "CN";
  req.geo.subdivision = "CN-GD";
  req.geo.asn = 4134;
  nlohmann::json e = Explain(*snapshot, Classifier(*snapshot), req);
  const std::string text = ExplanationToText(e);
  for (const char* part :
       {"query       www.example.test from 113.108.1.1",
        "classified  subdivision CN-GD + ISP set telecom (ASN 4134) -> region "
        "cn-south-telecom",
        "rule        www-exclude-gz-02", "gz-01", "pick        [\"gz-01\"]",
        "ttl         300 (steady)"}) {
    EXPECT_NE(text.find(part), std::string::npos) << part << "\n" << text;
  }
  // Steps appear in decision order.
  EXPECT_LT(text.find("classified"), text.find("route"));
  EXPECT_LT(text.find("route"), text.find("candidates"));
  EXPECT_LT(text.find("candidates"), text.find("pick"));
  // Every node counts Up here; a probed-down node gets its own line.
  EXPECT_EQ(text.find("down "), std::string::npos) << text;
  e["nodesDown"] = nlohmann::json::array({"gz-01"});
  EXPECT_NE(ExplanationToText(e).find("down        [\"gz-01\"]"),
            std::string::npos);
}

TEST(ExplainTextTest, TheVantageGroupThatMeasuredAndWhereItDiffers) {
  const nlohmann::json e = {
      {"query", nlohmann::json::object()},
      {"snapshot", nlohmann::json::object()},
      {"geo", nlohmann::json::object()},
      {"classification", nlohmann::json::object()},
      {"domain", nlohmann::json::object()},
      {"route", {{"rules", nlohmann::json::array()}}},
      {"vantageGroup",
       {{"name", "cn-south-unicom"},
        {"vantages", 2},
        {"usingGlobal", false},
        {"differsFromGlobal",
         {"gz-01: Down from cn-south-unicom vantages (0 up, 2 down), Up "
          "globally"}}}},
      {"candidates", nlohmann::json::array()},
      {"pick", nlohmann::json::array()},
      {"addresses", nlohmann::json::array()}};
  const std::string text = ExplanationToText(e);
  EXPECT_NE(text.find("measured    by vantage group cn-south-unicom, 2 fresh "
                      "vantages\n            gz-01: Down from cn-south-unicom "
                      "vantages (0 up, 2 down), Up globally\n"),
            std::string::npos)
      << text;
  nlohmann::json none = e;
  none["vantageGroup"]["vantages"] = 0;
  none["vantageGroup"]["usingGlobal"] = true;
  EXPECT_NE(ExplanationToText(none).find(
                "0 fresh vantages: none fresh, the global verdicts apply"),
            std::string::npos);
}

TEST(ExplainTextTest, ErrorIsOneLine) {
  EXPECT_EQ(ExplanationToText({{"error", "'x' is not a served domain"}}),
            "error: 'x' is not a served domain\n");
}

TEST(WorldSourceTest, BadSnapshotFileIsRefused) {
  EXPECT_FALSE(SnapshotFromFile("/nonexistent/snapshot.json"));
}

}  // namespace
}  // namespace ax
