// axctl: argument parsing and the readable rendering of an explanation, from a
// real explanation of the quickstart (manifests -> snapshot -> Explain).
#include <gtest/gtest.h>

#include "ax/classify.h"
#include "ax/explain.h"
#include "axctl/args.h"
#include "axctl/explain_text.h"
#include "axctl/rule_command.h"
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

TEST(ArgsTest, EqualsValuesAndKubectlShortForms) {
  const char* argv[] = {"kubectl-ax", "drain", "gz-01",    "-n",     "gslb",
                        "-o",         "yaml",  "--for=2h", "--wait", "-h"};
  const Args args =
      ParseArgs(10, const_cast<char**>(argv), 2, {"--wait", "--help"});
  EXPECT_EQ(args.positional, std::vector<std::string>{"gz-01"});
  EXPECT_EQ(args.Get("--namespace"), "gslb");
  EXPECT_EQ(args.Get("--output"), "yaml");
  EXPECT_EQ(args.Get("--for"), "2h");
  EXPECT_TRUE(args.Has("--wait"));
  EXPECT_TRUE(args.Has("--help"));
}

// An incident's Rule from axctl's flags: named from what it does, expiring at
// now + --for rounded up to the second, weight only for Weight.
TEST(RuleFromFlagsTest, PinsExcludesAndWeightsThatExpire) {
  const int64_t now_ms = 1796313600'400;  // 2026-12-03T16:00:00.4Z
  auto rule = [now_ms](std::vector<const char*> argv, RuleAction action) {
    argv.insert(argv.begin(), {"axctl", "verb"});
    return RuleFromFlags(ParseArgs(static_cast<int>(argv.size()),
                                   const_cast<char**>(argv.data()), 2, {}),
                         action, now_ms);
  };
  const auto pin =
      rule({"bj-01", "--domain", "www", "--region", "cn-south-telecom", "--isp",
            "Telecom", "--for", "30m", "--reason", "INC-1"},
           RuleAction::kPin);
  ASSERT_TRUE(pin);
  EXPECT_EQ((*pin)["metadata"]["name"],
            "pin-bj-01-www-cn-south-telecom-telecom");
  EXPECT_EQ((*pin)["kind"], "Rule");
  EXPECT_EQ(
      (*pin)["spec"].dump(),
      R"({"domain":"www","match":{"region":"cn-south-telecom","isp":"Telecom"},)"
      R"("action":"Pin","node":"bj-01","expiresAt":"2026-12-03T16:30:01Z",)"
      R"("reason":"INC-1"})");

  const auto weight =
      rule({"gz-02", "10", "--domain", "api", "--for", "2h", "--name", "mine"},
           RuleAction::kWeight);
  ASSERT_TRUE(weight);
  EXPECT_EQ((*weight)["metadata"]["name"], "mine");
  EXPECT_EQ((*weight)["spec"]["weight"], 10);
  EXPECT_FALSE((*weight)["spec"].contains("match"));

  EXPECT_FALSE(
      rule({"gz-02", "--domain", "api"}, RuleAction::kExclude));  // no --for
  EXPECT_FALSE(rule({"gz-02", "0", "--domain", "api", "--for", "1h"},
                    RuleAction::kWeight));
  EXPECT_FALSE(
      rule({"gz-02", "--for", "1h"}, RuleAction::kExclude));  // no domain
}

// The quickstart's explanation of `name` for a Guangzhou telecom client.
nlohmann::json ExplainQuickstart(const std::string& name, bool srv = false) {
  auto snapshot = SnapshotFromManifests(
      {std::string(AX_SOURCE_DIR) + "/examples/quickstart"});
  if (!snapshot) return {{"error", "quickstart manifests"}};
  ExplainRequest req;
  req.name = name;
  req.srv = srv;
  req.client = *ParseIp("113.108.1.1");
  req.geo.country = "CN";
  req.geo.subdivision = "CN-GD";
  req.geo.asn = 4134;
  return Explain(*snapshot, Classifier(*snapshot), req);
}

TEST(ExplainTextTest, QuickstartExplanationReadsTopToBottom) {
  nlohmann::json e = ExplainQuickstart("www.example.test");
  ASSERT_FALSE(e.contains("error")) << e.dump();
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

// The quickstart's api publishes _https._tcp: --srv explains its records.
TEST(ExplainTextTest, SrvRecordsFollowThePick) {
  const nlohmann::json e =
      ExplainQuickstart("_https._tcp.api.example.test", /*srv=*/true);
  ASSERT_FALSE(e.contains("error")) << e.dump();
  ASSERT_FALSE(e["srv"].empty()) << e.dump();
  const std::string text = ExplanationToText(e);
  // WeightedRandom spreads: priority 0 for all, port 443, targets under api.
  const std::string first = "srv         0 ";
  ASSERT_NE(text.find(first), std::string::npos) << text;
  EXPECT_NE(text.find(" 443 " + e["srv"][0]["target"].get<std::string>()),
            std::string::npos)
      << text;
  EXPECT_LT(text.find("pick"), text.find("srv "));
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
