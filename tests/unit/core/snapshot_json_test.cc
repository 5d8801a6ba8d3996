// The snapshot document: byte-exact round trips, determinism, what the content
// hash covers, strict rejection with JSON paths, size at scale, and random
// corruption.
#include "ax/snapshot_json.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <nlohmann/json.hpp>
#include <random>
#include <tuple>

#include "ax/hash.h"
#include "ax/snapshot_limits.h"

namespace ax {
namespace {

using Json = nlohmann::json;

IpAddress Ip(const char* text) { return *ParseIp(text); }
IpPrefix Cidr(const char* text) { return *ParsePrefix(text); }

Candidate Cand(uint32_t node, double weight, ScoreParts score = {}) {
  Candidate c;
  c.node = node;
  c.weight = weight;
  c.score = score;
  return c;
}

SnapshotNode MakeNode(const char* name, std::vector<IpAddress> addresses,
                      Health health) {
  SnapshotNode n;
  n.name = name;
  n.addresses = std::move(addresses);
  n.area = "cn-east";
  n.isp = "telecom";
  n.health = health;
  return n;
}

// Small but touches every field and every route source. Values are already at
// the document's precision, so the parsed struct equals this one exactly.
Snapshot Sample() {
  Snapshot s;
  s.version = 7;
  s.generated_at_ms = 1700000000000;

  s.nodes.push_back(
      MakeNode("sh-1", {Ip("192.0.2.1"), Ip("2001:db8::1")}, Health::kUp));
  s.nodes[0].has_location = true;
  s.nodes[0].location = {31.2304, 121.4737};
  s.nodes[0].latency_ms = 12.5;
  s.nodes[0].utilisation = 0.25;
  s.nodes.push_back(MakeNode("sh-2", {Ip("192.0.2.2")}, Health::kUnknown));
  s.nodes[1].admin_state = AdminState::kDrain;
  s.nodes[1].redirect_url = "https://sh-2.example.com/";
  s.nodes.push_back(MakeNode("bj-1", {Ip("198.51.100.7")}, Health::kDown));
  s.nodes[2].area = "cn-north";
  s.nodes[2].weight = 50;
  s.nodes[2].latency_ms = 30;
  s.nodes[2].utilisation = 1.5;
  s.nodes.push_back(MakeNode("bj-2", {Ip("198.51.100.8")}, Health::kUp));

  SnapshotRegion east;
  east.name = "cn-east-telecom";
  east.area = "cn-east";
  east.isp = "telecom";
  east.match.countries = {"CN"};
  east.match.subdivisions = {"CN-SH"};
  east.match.cities = {"CN-JS/Suzhou", "CN-JS/\u82cf\u5dde"};
  east.match.asns = {4134};
  east.match.isps = {"telecom"};
  east.match.cidrs = {Cidr("203.0.113.0/24"), Cidr("2001:db8:100::/48")};
  east.fallback_regions = {"cn-north"};
  SnapshotRegion north;
  north.name = "cn-north";
  north.area = "cn-north";
  north.isp = "any";
  north.match.catch_all = true;
  s.regions = {east, north};

  Route region;
  region.candidates = {Cand(0, 100, {1, 1, 0.9512, 1}),
                       Cand(3, 50.5, {1, 0.5625, 0.8, 0.5})};
  region.rules = {"pin-sh"};
  region.canary = 0;
  region.hysteresis_held = true;
  region.failover_until_ms = 1700000060000;
  Route fallback_region;
  fallback_region.source = RouteSource::kFallbackRegion;
  fallback_region.via = "cn-north";
  fallback_region.candidates = {Cand(3, 100)};
  Route all_healthy;
  all_healthy.source = RouteSource::kAllHealthy;
  all_healthy.candidates = {Cand(0, 100), Cand(3, 100)};
  Route domain_fallback;
  domain_fallback.source = RouteSource::kDomainFallback;
  Route fail_open;
  fail_open.source = RouteSource::kFailOpen;
  fail_open.candidates = {Cand(1, 100, {0.5, 1, 1, 1})};
  s.routes = {region, fallback_region, all_healthy, domain_fallback, fail_open};

  SnapshotDomain web;
  web.name = "web";
  web.fqdn = "www.example.com";
  web.zone = "example.com";
  web.strategy = Strategy::kWeightedRandom;
  web.ttl = {300, 30, 120};
  web.fallback.cname = "origin.example.com";
  web.grpc_service_config = R"({"loadBalancingConfig":[]})";
  web.srv = {{"http", "tcp", 8080}, {"sip", "udp", 5060}};
  web.routes = {0, 1, 3};
  SnapshotDomain api;
  api.name = "api";
  api.fqdn = "api.example.com";
  api.zone = "example.com";
  api.max_answers = 1;
  api.hysteresis_percent = 25;
  api.fallback.addresses = {Ip("192.0.2.200")};
  api.routes = {0, 2, 4};
  s.domains = {web, api};

  SnapshotCanary canary;
  canary.name = "web-canary";
  canary.domain = "web";
  canary.node = 3;
  canary.percent = 5.5;
  s.canaries = {canary};
  s.isp_sets = {{"telecom", {4134, 4812}, {"China Telecom", "\u7535\u4fe1"}}};
  return s;
}

// Field-by-field equality of the serialised fields (the structs have no
// operator==; name_hash is derived and left out).
auto Key(const SnapshotNode& n) {
  return std::tie(n.name, n.addresses, n.area, n.isp, n.has_location,
                  n.location.lat, n.location.lon, n.weight, n.admin_state,
                  n.health, n.latency_ms, n.utilisation, n.redirect_url);
}
auto Key(const SnapshotRegion& r) {
  const RegionMatch& m = r.match;
  return std::tie(r.name, r.area, r.isp, r.fallback_regions, m.countries,
                  m.subdivisions, m.cities, m.asns, m.isps, m.cidrs,
                  m.catch_all);
}
auto Key(const SnapshotDomain& d) {
  return std::tie(d.name, d.fqdn, d.zone, d.strategy, d.max_answers,
                  d.ttl.steady, d.ttl.failover, d.ttl.canary,
                  d.hysteresis_percent, d.fallback.cname, d.fallback.addresses,
                  d.grpc_service_config, d.srv, d.routes);
}
auto Key(const SnapshotCanary& c) {
  return std::tie(c.name, c.domain, c.node, c.percent);
}
template <typename T>
bool SameList(const std::vector<T>& a, const std::vector<T>& b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](const T& x, const T& y) { return Key(x) == Key(y); });
}
bool SameSnapshot(const Snapshot& a, const Snapshot& b) {
  return std::tie(a.format_version, a.version, a.generated_at_ms,
                  a.content_hash, a.routes) ==
             std::tie(b.format_version, b.version, b.generated_at_ms,
                      b.content_hash, b.routes) &&
         SameList(a.nodes, b.nodes) && SameList(a.regions, b.regions) &&
         SameList(a.domains, b.domains) && SameList(a.canaries, b.canaries) &&
         a.isp_sets == b.isp_sets;
}

std::string Dump(const std::vector<SnapshotError>& errors) {
  std::string out;
  for (const SnapshotError& e : errors) out += e.ToString() + "\n";
  return out;
}

TEST(SnapshotJsonTest, SampleIsValid) {
  EXPECT_EQ(Dump(ValidateSnapshot(Sample())), "");
}

TEST(SnapshotJsonTest, RoundTripIsByteIdenticalAndEqual) {
  Snapshot s = Sample();
  s.content_hash = ComputeContentHash(s);
  const std::string text = SerializeSnapshot(s);
  const ParseSnapshotResult parsed = ParseSnapshot(text);
  ASSERT_TRUE(parsed.snapshot) << Dump(parsed.errors);
  EXPECT_TRUE(SameSnapshot(*parsed.snapshot, s));
  EXPECT_EQ(SerializeSnapshot(*parsed.snapshot), text);
  // The parser fills the derived fields, as the builder does.
  EXPECT_EQ(parsed.snapshot->nodes[2].name_hash, Fnv1a64("bj-1"));
  EXPECT_EQ(parsed.snapshot->canaries[0].name_hash, Fnv1a64("web-canary"));
}

TEST(SnapshotJsonTest, LayoutIsCompactWithFixedKeyOrder) {
  const std::string text = SerializeSnapshot(Sample());
  EXPECT_EQ(text.find('\n'), std::string::npos);
  EXPECT_EQ(
      text.rfind(R"({"canaries":[{"domain":"web","name":"web-canary",)", 0), 0u)
      << text;
  // Candidates are positional: [node, weight, health, load, latency, priority,
  // rampStartMs].
  EXPECT_NE(
      text.find(
          R"("candidates":[[0,100,1,1,0.9512,1,0],[3,50.5,1,0.5625,0.8,0.5,0]])"),
      std::string::npos)
      << text;
  EXPECT_NE(text.find(R"("loc":[31.2304,121.4737])"), std::string::npos);
  EXPECT_NE(text.find(R"("canary":null)"), std::string::npos);
  // SRV services are positional: [service, protocol, port].
  EXPECT_NE(text.find(R"("srv":[["http","tcp",8080],["sip","udp",5060]])"),
            std::string::npos);
}

TEST(SnapshotJsonTest, Deterministic) {
  const Snapshot s = Sample();
  const Snapshot separately_built = Sample();
  const std::string text = SerializeSnapshot(s);
  EXPECT_EQ(SerializeSnapshot(s), text);
  EXPECT_EQ(SerializeSnapshot(separately_built), text);
  EXPECT_EQ(ComputeContentHash(s), ComputeContentHash(separately_built));

  // Noise below each field's precision does not change a byte.
  Snapshot noisy = s;
  noisy.nodes[0].latency_ms += 0.01;
  noisy.nodes[0].location.lat += 1e-9;
  noisy.routes[0].candidates[0].score.latency += 1e-7;
  noisy.routes[0].candidates[1].weight -= 1e-6;
  noisy.canaries[0].percent += 1e-8;
  EXPECT_EQ(SerializeSnapshot(noisy), text);

  // Values with no short decimal form still reproduce after one round.
  Snapshot odd = s;
  odd.routes[0].candidates[0].score.latency = 1.0 / 3;
  odd.routes[0].candidates[0].weight = 200.0 / 3;
  odd.nodes[2].latency_ms = 100.0 / 7;
  const std::string first = SerializeSnapshot(odd);
  const ParseSnapshotResult parsed = ParseSnapshot(first);
  ASSERT_TRUE(parsed.snapshot) << Dump(parsed.errors);
  EXPECT_EQ(SerializeSnapshot(*parsed.snapshot), first);
  EXPECT_EQ(parsed.snapshot->routes[0].candidates[0].score.latency, 0.3333);
  EXPECT_EQ(parsed.snapshot->nodes[2].latency_ms, 14.3);
}

TEST(SnapshotJsonTest, HashIgnoresStampsOnly) {
  const Snapshot s = Sample();
  const std::string hash = ComputeContentHash(s);
  EXPECT_EQ(hash.rfind("fnv1a64:", 0), 0u);
  EXPECT_EQ(hash.size(), 8u + 16u);
  Snapshot restamped = s;
  restamped.version = 8;
  restamped.generated_at_ms += 5000;
  restamped.content_hash = "whatever";
  EXPECT_EQ(ComputeContentHash(restamped), hash);
  EXPECT_NE(SerializeSnapshot(restamped), SerializeSnapshot(s));
}

struct Edit {
  const char* name;
  std::function<void(Snapshot&)> apply;
};

void PrintTo(const Edit& e, std::ostream* os) { *os << e.name; }

class HashSensitivityTest : public ::testing::TestWithParam<Edit> {};

TEST_P(HashSensitivityTest, SemanticChangeChangesHash) {
  Snapshot edited = Sample();
  GetParam().apply(edited);
  EXPECT_NE(ComputeContentHash(edited), ComputeContentHash(Sample()));
}

INSTANTIATE_TEST_SUITE_P(
    Fields, HashSensitivityTest,
    ::testing::Values(
        Edit{"NodeName", [](Snapshot& s) { s.nodes[0].name = "sh-9"; }},
        Edit{"NodeAddress",
             [](Snapshot& s) { s.nodes[0].addresses[1] = Ip("2001:db8::2"); }},
        Edit{"NodeArea", [](Snapshot& s) { s.nodes[1].area = "x"; }},
        Edit{"NodeIsp", [](Snapshot& s) { s.nodes[1].isp = "x"; }},
        Edit{"NodeLocation",
             [](Snapshot& s) { s.nodes[0].location.lon = 121.5; }},
        Edit{"NodeHasLocation",
             [](Snapshot& s) { s.nodes[1].has_location = true; }},
        Edit{"NodeWeight", [](Snapshot& s) { s.nodes[0].weight = 99; }},
        Edit{"NodeAdmin",
             [](Snapshot& s) { s.nodes[0].admin_state = AdminState::kDrain; }},
        Edit{"NodeHealth",
             [](Snapshot& s) { s.nodes[0].health = Health::kDown; }},
        Edit{"NodeLatency", [](Snapshot& s) { s.nodes[0].latency_ms = 12.6; }},
        Edit{"NodeUtil", [](Snapshot& s) { s.nodes[0].utilisation = 0.2501; }},
        Edit{"NodeRedirect", [](Snapshot& s) { s.nodes[1].redirect_url = ""; }},
        Edit{"RegionMatchCidr",
             [](Snapshot& s) {
               s.regions[0].match.cidrs[0] = Cidr("203.0.112.0/24");
             }},
        Edit{"RegionMatchAsn",
             [](Snapshot& s) { s.regions[0].match.asns[0] = 4135; }},
        Edit{"RegionMatchIsps",
             [](Snapshot& s) { s.regions[0].match.isps.clear(); }},
        Edit{"IspSetAsns", [](Snapshot& s) { s.isp_sets[0].asns[1] = 4813; }},
        Edit{"IspSetNames",
             [](Snapshot& s) { s.isp_sets[0].names.pop_back(); }},
        Edit{"RegionCatchAll",
             [](Snapshot& s) { s.regions[1].match.catch_all = false; }},
        Edit{"RegionFallbacks",
             [](Snapshot& s) { s.regions[0].fallback_regions.clear(); }},
        Edit{"DomainStrategy",
             [](Snapshot& s) { s.domains[0].strategy = Strategy::kLatency; }},
        Edit{"DomainTtl", [](Snapshot& s) { s.domains[0].ttl.failover = 31; }},
        Edit{"DomainMaxAnswers",
             [](Snapshot& s) { s.domains[0].max_answers = 3; }},
        Edit{"DomainFallback",
             [](Snapshot& s) { s.domains[0].fallback.cname = "o2.example"; }},
        Edit{"DomainGrpc",
             [](Snapshot& s) { s.domains[0].grpc_service_config = "{}"; }},
        Edit{"DomainSrvPort",
             [](Snapshot& s) { s.domains[0].srv[0].port = 8443; }},
        Edit{"DomainRoutes", [](Snapshot& s) { s.domains[1].routes[1] = 0; }},
        Edit{"RouteSource",
             [](Snapshot& s) { s.routes[2].source = RouteSource::kFailOpen; }},
        Edit{"RouteOrder",
             [](Snapshot& s) {
               std::swap(s.routes[0].candidates[0], s.routes[0].candidates[1]);
             }},
        Edit{"CandidateWeight",
             [](Snapshot& s) { s.routes[0].candidates[0].weight = 100.0001; }},
        Edit{"CandidateScore",
             [](Snapshot& s) {
               s.routes[0].candidates[0].score.priority = 0.9999;
             }},
        Edit{"RouteRules", [](Snapshot& s) { s.routes[0].rules.clear(); }},
        Edit{"RouteCanary", [](Snapshot& s) { s.routes[0].canary = kNoIndex; }},
        Edit{"RouteHeld",
             [](Snapshot& s) { s.routes[0].hysteresis_held = false; }},
        Edit{"RouteFailoverUntil",
             [](Snapshot& s) { s.routes[0].failover_until_ms += 1; }},
        Edit{"CanaryPercent", [](Snapshot& s) { s.canaries[0].percent = 6; }},
        Edit{"CanaryNode", [](Snapshot& s) { s.canaries[0].node = 0; }},
        Edit{"FormatVersion",
             [](Snapshot&
                    s) { s.format_version = kSnapshotFormatVersion + 1; }}),
    [](const auto& c) { return std::string(c.param.name); });

// ---- Rejection: each malformed document names the path of what is wrong. ----

std::string Doc() { return SerializeSnapshot(Sample()); }

// A document serialised from an edited struct: its hash is consistent, so only
// the broken invariant is reported.
std::function<std::string()> FromStruct(std::function<void(Snapshot&)> edit) {
  return [edit = std::move(edit)] {
    Snapshot s = Sample();
    edit(s);
    return SerializeSnapshot(s);
  };
}
// A hand-edited document (as if tampered with).
std::function<std::string()> FromJson(std::function<void(Json&)> edit) {
  return [edit = std::move(edit)] {
    Json j = Json::parse(Doc());
    edit(j);
    return j.dump();
  };
}

struct RejectCase {
  const char* name;
  std::function<std::string()> doc;
  const char* path;
  const char* message;  // a part of the message
};

void PrintTo(const RejectCase& c, std::ostream* os) { *os << c.name; }

class RejectTest : public ::testing::TestWithParam<RejectCase> {};

TEST_P(RejectTest, NamesPathAndProblem) {
  const ParseSnapshotResult r = ParseSnapshot(GetParam().doc());
  EXPECT_FALSE(r.snapshot);
  const bool found =
      std::any_of(r.errors.begin(), r.errors.end(), [](const SnapshotError& e) {
        return e.path == GetParam().path &&
               e.message.find(GetParam().message) != std::string::npos;
      });
  EXPECT_TRUE(found) << "want " << GetParam().path << ": " << GetParam().message
                     << "\ngot:\n"
                     << Dump(r.errors);
}

INSTANTIATE_TEST_SUITE_P(
    Documents, RejectTest,
    ::testing::Values(
        RejectCase{"Truncated", [] { return Doc().substr(0, 300); }, "",
                   "malformed JSON at byte offset 300"},
        RejectCase{"Empty", [] { return std::string(); }, "",
                   "malformed JSON at byte"},
        RejectCase{"NotAnObject", [] { return std::string("[1]"); }, "",
                   "expected a JSON object"},
        RejectCase{"NumberOverflow",
                   [] {
                     std::string d = Doc();
                     d.replace(d.find("5.5"), 3, "1e999");
                     return d;
                   },
                   "", "malformed JSON"},
        RejectCase{"FormatVersion", FromJson([](Json& j) {
                     j["formatVersion"] = kSnapshotFormatVersion - 1;
                   }),
                   "formatVersion", "unsupported format version"},
        RejectCase{"CandidateNodeOutOfRange", FromJson([](Json& j) {
                     j["routes"][0]["candidates"][1][0] = 99;
                   }),
                   "routes[0].candidates[1][0]", "out of range (4 nodes)"},
        RejectCase{"BadIp", FromJson([](Json& j) {
                     j["nodes"][1]["addrs"][0] = "192.0.2.300";
                   }),
                   "nodes[1].addrs[0]", "invalid IP address"},
        RejectCase{"BadCidr", FromJson([](Json& j) {
                     j["regions"][0]["match"]["cidrs"][0] = "203.0.113.1/24";
                   }),
                   "regions[0].match.cidrs[0]", "invalid CIDR"},
        RejectCase{"BadEnum", FromJson([](Json& j) {
                     j["domains"][0]["strategy"] = "Random";
                   }),
                   "domains[0].strategy", "unknown name \"Random\""},
        RejectCase{"BadRouteSource",
                   FromJson([](Json& j) { j["routes"][3]["source"] = "Dns"; }),
                   "routes[3].source", "unknown name"},
        RejectCase{"TamperedHash", FromJson([](Json& j) {
                     j["contentHash"] = "fnv1a64:0000000000000000";
                   }),
                   "contentHash", "altered or truncated"},
        RejectCase{"TamperedContent",
                   FromJson([](Json& j) { j["nodes"][0]["weight"] = 101; }),
                   "contentHash", "altered or truncated"},
        RejectCase{"MissingKey",
                   FromJson([](Json& j) { j["nodes"][2].erase("isp"); }),
                   "nodes[2].isp", "required key missing"},
        RejectCase{"MissingHash",
                   FromJson([](Json& j) { j.erase("contentHash"); }),
                   "contentHash", "required key missing"},
        RejectCase{"UnknownKey",
                   FromJson([](Json& j) { j["routes"][1]["extra"] = 1; }),
                   "routes[1].extra", "unknown key"},
        RejectCase{"WrongType", FromJson([](Json& j) {
                     j["domains"][1]["maxAnswers"] = "2";
                   }),
                   "domains[1].maxAnswers", "expected an integer"},
        RejectCase{"WrongShape", FromJson([](Json& j) {
                     j["domains"][0]["ttl"] = Json::array();
                   }),
                   "domains[0].ttl", "expected an object"},
        RejectCase{"Uint32Overflow", FromJson([](Json& j) {
                     j["domains"][0]["maxAnswers"] = 4294967296ULL;
                   }),
                   "domains[0].maxAnswers", "out of range"},
        RejectCase{"NegativeNodeWeight",
                   FromJson([](Json& j) { j["nodes"][2]["weight"] = -5; }),
                   "nodes[2].weight", "must not be negative"},
        RejectCase{"ShortCandidate", FromJson([](Json& j) {
                     j["routes"][0]["candidates"][0].erase(6);
                   }),
                   "routes[0].candidates[0][6]", "missing element"},
        RejectCase{"LongCandidate", FromJson([](Json& j) {
                     j["routes"][0]["candidates"][0].push_back(1);
                   }),
                   "routes[0].candidates[0]", "has 8 elements, expected 7"},
        RejectCase{"NegativeCandidateWeight", FromStruct([](Snapshot& s) {
                     s.routes[0].candidates[1].weight = -1;
                   }),
                   "routes[0].candidates[1][1]", "weight must be"},
        RejectCase{"ScoreZero", FromStruct([](Snapshot& s) {
                     s.routes[0].candidates[0].score.load = 0.00004;
                   }),
                   "routes[0].candidates[0][3]", "within (0, 1]"},
        RejectCase{"ScoreAboveOne", FromStruct([](Snapshot& s) {
                     s.routes[2].candidates[1].score.priority = 1.5;
                   }),
                   "routes[2].candidates[1][5]", "within (0, 1]"},
        RejectCase{"NegativeRampStart", FromStruct([](Snapshot& s) {
                     s.routes[0].candidates[1].ramp_start_ms = -5;
                   }),
                   "routes[0].candidates[1][6]", "must not be negative"},
        RejectCase{"NegativeUpSince", FromStruct([](Snapshot& s) {
                     s.nodes[0].up_since_ms = -1;
                   }),
                   "nodes[0].upSinceMs", "must not be negative"},
        RejectCase{"SpillShareWithoutRoute", FromStruct([](Snapshot& s) {
                     s.routes[0].spill_share = 0.2;
                   }),
                   "routes[0].spillShare", "must be 0 without a spillRoute"},
        RejectCase{"SpillRouteOutOfRange", FromStruct([](Snapshot& s) {
                     s.routes[0].spill_share = 0.2;
                     s.routes[0].spill_route = 99;
                   }),
                   "routes[0].spillRoute", "out of range"},
        RejectCase{"SpillFromAFallbackRoute", FromStruct([](Snapshot& s) {
                     s.routes[1].spill_share = 0.2;
                     s.routes[1].spill_route = 1;
                   }),
                   "routes[1].spillRoute", "only Region routes spill over"},
        RejectCase{"SpillShareOfOne", FromStruct([](Snapshot& s) {
                     s.routes[0].spill_share = 1;
                     s.routes[0].spill_route = 1;
                   }),
                   "routes[0].spillShare", "must be within (0, 1)"},
        RejectCase{"DuplicateCandidate", FromStruct([](Snapshot& s) {
                     s.routes[2].candidates[1].node = 0;
                   }),
                   "routes[2].candidates[1][0]", "listed twice"},
        RejectCase{"DisabledCandidate", FromStruct([](Snapshot& s) {
                     s.nodes[3].admin_state = AdminState::kDisabled;
                   }),
                   "routes[1].candidates[0][0]", "Disabled"},
        RejectCase{"PercentAbove100",
                   FromStruct([](Snapshot& s) { s.canaries[0].percent = 150; }),
                   "canaries[0].percent", "within 0..100"},
        RejectCase{"PercentNegative",
                   FromStruct([](Snapshot& s) { s.canaries[0].percent = -1; }),
                   "canaries[0].percent", "within 0..100"},
        RejectCase{"RoutesLength", FromStruct([](Snapshot& s) {
                     s.domains[1].routes.pop_back();
                   }),
                   "domains[1].routes", "has 2 entries, expected 3"},
        RejectCase{"RouteIndexOutOfRange",
                   FromStruct([](Snapshot& s) { s.domains[0].routes[2] = 5; }),
                   "domains[0].routes[2]", "out of range (5 routes)"},
        RejectCase{"DuplicateFqdn", FromStruct([](Snapshot& s) {
                     s.domains[1].fqdn = "www.example.com";
                   }),
                   "domains[1].fqdn", "duplicate \"www.example.com\""},
        RejectCase{"DuplicateNodeName",
                   FromStruct([](Snapshot& s) { s.nodes[3].name = "sh-1"; }),
                   "nodes[3].name", "first at nodes[0]"},
        RejectCase{"DuplicateDomainName",
                   FromStruct([](Snapshot& s) { s.domains[1].name = "web"; }),
                   "domains[1].name", "duplicate"},
        RejectCase{"MaxAnswersZero", FromStruct([](Snapshot& s) {
                     s.domains[0].max_answers = 0;
                   }),
                   "domains[0].maxAnswers", "must be >= 1"},
        RejectCase{"SrvPortZero", FromStruct([](Snapshot& s) {
                     s.domains[0].srv[1].port = 0;
                   }),
                   "domains[0].srv[1]", "a port 1..65535"},
        RejectCase{"RegionRouteWithoutCandidates", FromStruct([](Snapshot& s) {
                     s.routes[0].candidates.clear();
                   }),
                   "routes[0].candidates", "a Region route needs"},
        RejectCase{"RouteCanaryOutOfRange",
                   FromStruct([](Snapshot& s) { s.routes[0].canary = 1; }),
                   "routes[0].canary", "out of range (1 canaries)"},
        RejectCase{"CanaryNodeOutOfRange",
                   FromStruct([](Snapshot& s) { s.canaries[0].node = 4; }),
                   "canaries[0].node", "out of range"},
        RejectCase{"CanaryUnknownDomain",
                   FromStruct([](Snapshot& s) { s.canaries[0].domain = "x"; }),
                   "canaries[0].domain", "no domain named"},
        RejectCase{"ViaUnknownRegion",
                   FromStruct([](Snapshot& s) { s.routes[1].via = "mars"; }),
                   "routes[1].via", "no region named \"mars\""},
        RejectCase{"FallbackUnknownRegion", FromStruct([](Snapshot& s) {
                     s.regions[0].fallback_regions = {"mars"};
                   }),
                   "regions[0].fallbacks[0]", "no region named"},
        RejectCase{"DomainFallbackRouteWithoutFallback",
                   FromStruct([](Snapshot& s) { s.domains[0].fallback = {}; }),
                   "domains[0].routes[2]", "no fallback"},
        RejectCase{"RegionUnknownIspSet", FromStruct([](Snapshot& s) {
                     s.regions[0].match.isps = {"mobile"};
                   }),
                   "regions[0].match.isps[0]", "no ISP set named \"mobile\""},
        RejectCase{"IspSetAsnsUnsorted", FromStruct([](Snapshot& s) {
                     s.isp_sets[0].asns = {4812, 4134};
                   }),
                   "ispSets[0].asns[1]", "ascending, unique"},
        RejectCase{"IspSetNamesRepeated", FromStruct([](Snapshot& s) {
                     s.isp_sets[0].names = {"x", "x"};
                   }),
                   "ispSets[0].names[1]", "ascending, unique"},
        RejectCase{"IspSetAsnZero", FromStruct([](Snapshot& s) {
                     s.isp_sets[0].asns = {0, 4134};
                   }),
                   "ispSets[0].asns[0]", "AS 0"},
        RejectCase{"IspSetsOutOfOrder", FromStruct([](Snapshot& s) {
                     s.isp_sets.insert(s.isp_sets.begin(),
                                       SnapshotIspSet{"unicom", {4837}, {}});
                   }),
                   "ispSets[1].name", "name order"},
        RejectCase{"NodeWithoutAddress", FromStruct([](Snapshot& s) {
                     s.nodes[1].addresses.clear();
                   }),
                   "nodes[1].addrs", "at least one address"},
        RejectCase{"BadLatency",
                   FromStruct([](Snapshot& s) { s.nodes[1].latency_ms = -2; }),
                   "nodes[1].latencyMs", "must be >= 0"},
        // The limits of snapshot_limits.h, each refused before the document
        // is built into a Snapshot.
        RejectCase{"OverDocumentBytes",
                   [] {
                     return Doc() +
                            std::string(kSnapshotMaxDocumentBytes, ' ');
                   },
                   "", "over the limit of 16777216"},
        RejectCase{"OverDepth",
                   [] {
                     return "{\"x\":" + std::string(kSnapshotMaxDepth, '[') +
                            std::string(kSnapshotMaxDepth, ']') + "}";
                   },
                   "", "nesting deeper than 32 arrays or objects"},
        RejectCase{"OverValues",
                   [] {
                     std::string d = "{\"x\":[0";
                     for (size_t i = 0; i < kSnapshotMaxJsonValues; ++i) {
                       d += ",0";
                     }
                     return d + "]}";
                   },
                   "", "more than 2097152 values"},
        RejectCase{"OverNodes", FromJson([](Json& j) {
                     const Json node = j["nodes"][0];
                     j["nodes"] = Json::array();
                     for (size_t i = 0; i <= kSnapshotMaxNodes; ++i) {
                       j["nodes"].push_back(node);
                     }
                   }),
                   "nodes", "10001 entries, over the limit of 10000"},
        RejectCase{"OverDomainCells", FromJson([](Json& j) {
                     // Each list within its limit, the product over.
                     const Json node = j["nodes"][0];
                     const Json domain = j["domains"][0];
                     j["nodes"] = Json::array();
                     for (size_t i = 0; i < kSnapshotMaxNodes; ++i) {
                       j["nodes"].push_back(node);
                     }
                     j["domains"] = Json::array();
                     for (int i = 0; i < 105; ++i) j["domains"].push_back(domain);
                   }),
                   "", "105 domains x (2 regions + 1 + 10000 nodes) = 1050315 cells"}),
    [](const auto& c) { return std::string(c.param.name); });

TEST(SnapshotJsonTest, ValidateReportsWithoutJson) {
  Snapshot s = Sample();
  s.routes[0].candidates[0].score.health = std::nan("");
  const auto errors = ValidateSnapshot(s);
  ASSERT_EQ(errors.size(), 1u) << Dump(errors);
  EXPECT_EQ(errors[0].ToString(),
            "routes[0].candidates[0][2]: score factor must be within (0, 1] at "
            "4 decimals");
}

TEST(SnapshotJsonTest, ValidateRefusesOverALimitWithoutWalkingTheRest) {
  Snapshot s = Sample();
  s.nodes.resize(kSnapshotMaxNodes + 1, s.nodes[0]);  // also all duplicates
  const auto errors = ValidateSnapshot(s);
  ASSERT_EQ(errors.size(), 1u) << Dump(errors);
  EXPECT_EQ(errors[0].ToString(),
            "nodes: 10001 entries, over the limit of 10000");
}

TEST(SnapshotJsonTest, ErrorsAreCapped) {
  Snapshot s = Sample();
  for (int i = 0; i < 200; ++i)
    s.nodes.push_back(s.nodes[0]);  // 200 duplicates
  const ParseSnapshotResult r = ParseSnapshot(SerializeSnapshot(s));
  EXPECT_FALSE(r.snapshot);
  ASSERT_EQ(r.errors.size(), 50u);
  EXPECT_EQ(r.errors.back().message, "151 more errors not shown");
}

// 1,000 nodes x 200 regions x 50 domains: the ConfigMap limit is 1 MiB.
TEST(SnapshotJsonTest, LargeSnapshotFitsInConfigMap) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> unit(0.05, 1.0);
  Snapshot s;
  for (int i = 0; i < 1000; ++i) {
    SnapshotNode n = MakeNode("", {}, Health::kUp);
    n.name = "node-" + std::to_string(i);
    n.addresses = {
        Ip(("10.1." + std::to_string(i / 256) + "." + std::to_string(i % 256))
               .c_str()),
        Ip(("2001:db8::" + std::to_string(i)).c_str())};
    n.area = "area-" + std::to_string(i / 50);
    n.has_location = true;
    n.location = {20 + unit(rng) * 20, 100 + unit(rng) * 20};
    n.latency_ms = 5 + unit(rng) * 100;
    n.utilisation = unit(rng);
    s.nodes.push_back(n);
  }
  for (int i = 0; i < 200; ++i) {
    SnapshotRegion r;
    r.name = "region-" + std::to_string(i);
    r.area = "area-" + std::to_string(i / 10);
    r.isp = i % 2 ? "telecom" : "unicom";
    r.match.countries = {"CN"};
    r.match.subdivisions = {"CN-" + std::to_string(i % 34)};
    r.match.asns = {4134u + i};
    for (int c = 0; c < 3; ++c) {
      r.match.cidrs.push_back(Cidr(
          ("100." + std::to_string(i) + "." + std::to_string(c * 64) + ".0/18")
              .c_str()));
    }
    if (i > 0) r.fallback_regions = {"region-" + std::to_string(i - 1)};
    s.regions.push_back(r);
  }
  for (uint32_t i = 0; i < 400; ++i) {
    Route route;
    for (uint32_t j = 0; j < 5 + i % 4; ++j) {
      route.candidates.push_back(Cand((i * 5 + j) % 1000, 100 * unit(rng),
                                      {1, unit(rng), unit(rng), unit(rng)}));
    }
    s.routes.push_back(route);
  }
  for (uint32_t d = 0; d < 50; ++d) {
    SnapshotDomain domain;
    domain.name = "domain-" + std::to_string(d);
    domain.fqdn = domain.name + ".example.com";
    domain.zone = "example.com";
    for (uint32_t r = 0; r <= 200; ++r)
      domain.routes.push_back((d * 7 + r) % 400);
    s.domains.push_back(domain);
  }
  ASSERT_EQ(Dump(ValidateSnapshot(s)), "");

  const std::string text = SerializeSnapshot(s);
  std::cout << "[ size     ] 1000 nodes, 200 regions, 50 domains, 400 routes: "
            << text.size() << " bytes (" << text.size() * 100 / (1 << 20)
            << "% of 1 MiB)\n";
  EXPECT_LT(text.size(), 1u << 20);
  const ParseSnapshotResult parsed = ParseSnapshot(text);
  ASSERT_TRUE(parsed.snapshot) << Dump(parsed.errors);
  EXPECT_EQ(SerializeSnapshot(*parsed.snapshot), text);
}

// Random corruption of a valid document: never a crash or an exception, and
// always exactly one of a snapshot or errors.
TEST(SnapshotJsonTest, RandomMutationsNeverCrash) {
  const std::string doc = Doc();
  std::mt19937 rng(20240601);
  const std::string significant = "{}[]\",:0123456789-+.eE tfn\\";
  int accepted = 0;
  for (int i = 0; i < 2000; ++i) {
    std::string d = doc;
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !d.empty(); ++e) {
      const size_t at = rng() % d.size();
      switch (rng() % 5) {
        case 0:
          d[at] = static_cast<char>(rng() % 256);
          break;
        case 1:
          d[at] = significant[rng() % significant.size()];
          break;
        case 2:
          d.erase(at, 1 + rng() % 8);
          break;
        case 3:
          d.insert(d.begin() + at, significant[rng() % significant.size()]);
          break;
        default:
          d.resize(at);
          break;
      }
    }
    const ParseSnapshotResult r = ParseSnapshot(d);
    EXPECT_NE(r.snapshot.has_value(), !r.errors.empty()) << d;
    EXPECT_LE(r.errors.size(), 50u);
    accepted += r.snapshot.has_value();
  }
  std::cout << "[ fuzz     ] " << accepted
            << " of 2000 mutated documents still parsed (whitespace, "
               "insignificant edits)\n";
}

TEST(SnapshotTest, RouteSourceNamesRoundTrip) {
  for (const RouteSource s :
       {RouteSource::kRegion, RouteSource::kFallbackRegion,
        RouteSource::kAllHealthy, RouteSource::kDomainFallback,
        RouteSource::kFailOpen}) {
    EXPECT_EQ(ParseRouteSource(RouteSourceName(s)), s);
  }
  EXPECT_FALSE(ParseRouteSource("region"));
}

TEST(SnapshotTest, RouteEqualityCoversEveryField) {
  const Route base = Sample().routes[0];
  EXPECT_EQ(base, Sample().routes[0]);
  const std::vector<std::function<void(Route&)>> edits = {
      [](Route& r) { r.source = RouteSource::kAllHealthy; },
      [](Route& r) { r.via = "x"; },
      [](Route& r) { r.candidates.pop_back(); },
      [](Route& r) { r.candidates[1].node = 2; },
      [](Route& r) { r.candidates[1].weight = 1; },
      [](Route& r) { r.candidates[1].score.health = 0.5; },
      [](Route& r) { r.candidates[1].score.load = 0.5; },
      [](Route& r) { r.candidates[1].score.latency = 0.5; },
      [](Route& r) { r.candidates[1].score.priority = 0.25; },
      [](Route& r) { r.rules.emplace_back("x"); },
      [](Route& r) { r.canary = kNoIndex; },
      [](Route& r) { r.hysteresis_held = false; },
      [](Route& r) { r.failover_until_ms = 0; },
  };
  for (size_t i = 0; i < edits.size(); ++i) {
    Route edited = base;
    edits[i](edited);
    EXPECT_FALSE(edited == base) << "edit " << i;
  }
}

TEST(HashTest, KnownVectors) {
  EXPECT_EQ(Fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(Fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(Fnv1a64("foobar"), 0x85944171f73967e8ULL);
  EXPECT_EQ(Fnv1a64("bar", Fnv1a64("foo")), Fnv1a64("foobar"));
  // splitmix64 seeded with 0 yields Mix64(golden gamma) first.
  EXPECT_EQ(Mix64(0x9e3779b97f4a7c15ULL), 0xe220a8397b1dcdafULL);
}

}  // namespace
}  // namespace ax
