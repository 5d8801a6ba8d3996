// EDNS(0) and Client Subnet through the responder: OPT echo, BADVERS, FORMERR
// for bad options, truncation to the negotiated size, and the ECS SCOPE of each
// kind of answer (CIDR, geo from a real tiny MMDB, catch-all only, one route,
// canary, hash).
#include <gtest/gtest.h>

#include <functional>
#include <set>

#include "dns_test_util.h"
#include "geo/geo_resolver.h"
#include "responder/responder.h"
#include "responder/serving_state.h"

namespace ax::dns {
namespace {

using testing::Build;
using testing::Bytes;
using testing::Ecs;
using testing::EcsRaw;
using ::testing::ElementsAre;
using testing::Query;
using testing::Reply;
using ::testing::SizeIs;

constexpr int64_t kNow = 1'000'000;

std::shared_ptr<const ServingState> StateFor(
    const ax::testing::TestWorld& world) {
  std::string error;
  auto state = ServingState::Make(std::make_shared<Snapshot>(world.Build(kNow)),
                                  {}, &error);
  EXPECT_NE(state, nullptr) << error;
  return state;
}

Query Q(const std::string& name, Bytes options = {}, uint16_t qtype = kTypeA) {
  Query q;
  q.name = name;
  q.qtype = qtype;
  q.Edns(std::move(options));
  return q;
}

class EdnsTest : public ::testing::Test {
 protected:
  Bytes Ask(const Query& q, const std::string& source = "198.51.100.7",
            Transport transport = Transport::kUdp, GeoRefs geo = {},
            const ServingState* state = nullptr) {
    Bytes out(65535);
    const QueryMeta meta{*ParseIp(source), transport, kNow};
    out.resize(responder_.Respond(state ? state : state_.get(), geo, meta,
                                  Build(q), out, &info_));
    return out;
  }

  std::shared_ptr<const ServingState> state_ =
      StateFor(testing::ResponderWorld());
  Responder responder_{ResponderOptions{}, 7, nullptr};
  ResponseInfo info_;
};

TEST_F(EdnsTest, OptEchoedWithOurSizeAndDo) {
  for (bool dnssec_ok : {false, true}) {
    Query q = Q("www.example.test");
    q.udp_size = 4096;
    q.dnssec_ok = dnssec_ok;
    Reply r(Ask(q));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.rcode(), kRcodeNoError);
    EXPECT_TRUE(r.edns());
    EXPECT_EQ(ldns_pkt_edns_udp_size(r.pkt()), 1232);
    EXPECT_EQ(ldns_pkt_edns_version(r.pkt()), 0);
    EXPECT_EQ(ldns_pkt_edns_do(r.pkt()), dnssec_ok);  // RFC 3225 §3
    EXPECT_FALSE(
        r.Ecs().has_value());  // no ECS asked, none given (RFC 7871 §7.2.1)
    EXPECT_THAT(r.Answer(), SizeIs(1));
  }
}

TEST_F(EdnsTest, BadVersion) {
  Query q = Q("www.example.test");
  q.version = 1;
  Reply r(Ask(q));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.rcode(), kRcodeBadVers);  // RFC 6891 §6.1.3
  EXPECT_EQ(ldns_pkt_get_rcode(r.pkt()), 0);
  EXPECT_EQ(ldns_pkt_edns_version(r.pkt()), 0);
  EXPECT_TRUE(r.Answer().empty());
  EXPECT_FALSE(r.aa());
}

TEST_F(EdnsTest, FormErrTable) {
  struct Row {
    std::string rule;
    Query query;
  };
  Query two_opts = Q("www.example.test");
  two_opts.opt_records = 2;
  Bytes overrun = testing::Option(10, Bytes(4, 0));
  overrun[3] = 9;  // OPTION-LENGTH past the RDATA
  const std::vector<Row> rows = {
      {"two OPT records (RFC 6891 §6.1.1)", two_opts},
      {"option overrunning the OPT RDATA", Q("www.example.test", overrun)},
      {"ECS unknown FAMILY", Q("www.example.test", EcsRaw(3, 8, 0, {10}))},
      {"ECS SOURCE longer than IPv4",
       Q("www.example.test", EcsRaw(1, 33, 0, Bytes(5)))},
      {"ECS SOURCE longer than IPv6",
       Q("www.example.test", EcsRaw(2, 129, 0, Bytes(17)))},
      {"ECS ADDRESS longer than SOURCE needs",
       Q("www.example.test", EcsRaw(1, 16, 0, {10, 1, 0}))},
      {"ECS ADDRESS shorter than SOURCE needs",
       Q("www.example.test", EcsRaw(1, 24, 0, {10, 1}))},
      {"ECS bits set past SOURCE",
       Q("www.example.test", EcsRaw(1, 23, 0, {10, 1, 1}))},
      {"ECS SCOPE non-zero in a query (RFC 7871 §6)",
       Q("www.example.test", EcsRaw(1, 24, 24, {10, 1, 0}))},
      {"ECS FAMILY 0 with an address",
       Q("www.example.test", EcsRaw(0, 8, 0, {10}))},
      {"ECS option too short",
       Q("www.example.test", testing::Option(8, {0, 1, 0}))},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.rule);
    Reply r(Ask(row.query));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.rcode(), kRcodeFormErr);
    EXPECT_TRUE(r.Answer().empty());
    EXPECT_TRUE(r.edns());  // RFC 6891 §7: FORMERR for a bad OPT carries an OPT
    EXPECT_FALSE(r.Ecs().has_value());
  }
}

TEST_F(EdnsTest, TruncationTable) {
  struct Row {
    std::string rule;
    Query query;
    Transport transport;
    bool tc;
    size_t answers;
  };
  Query plain;
  plain.name = "big.example.test";
  Query small = Q("big.example.test");
  small.udp_size = 512;
  Query tiny = Q("big.example.test");
  tiny.udp_size = 100;  // below 512 counts as 512
  Query large = Q("big.example.test");
  large.udp_size = 4096;
  const std::vector<Row> rows = {
      {"no EDNS: 512 octets", plain, Transport::kUdp, true, 0},
      {"EDNS 512", small, Transport::kUdp, true, 0},
      {"EDNS under 512", tiny, Transport::kUdp, true, 0},
      {"EDNS 4096, capped at our 1232, fits", large, Transport::kUdp, false,
       40},
      {"TCP: the full answer", plain, Transport::kTcp, false, 40},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.rule);
    const Bytes out = Ask(row.query, "198.51.100.7", row.transport);
    Reply r(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.rcode(), kRcodeNoError);
    EXPECT_EQ(r.tc(), row.tc);
    EXPECT_EQ(info_.truncated, row.tc);
    EXPECT_EQ(ldns_pkt_qdcount(r.pkt()), 1);
    EXPECT_EQ(r.Answer().size(), row.answers);
    EXPECT_TRUE(r.Authority().empty());
    EXPECT_EQ(r.edns(), row.query.opt_records == 1);
    if (row.transport == Transport::kUdp) {
      EXPECT_LE(out.size(), row.query.opt_records ? 1232u : 512u);
    }
  }
}

TEST_F(EdnsTest, TruncatedAnswerKeepsEcs) {
  Query q = Q("big.example.test", Ecs("198.51.100.0", 24));
  q.udp_size = 512;
  Reply r(Ask(q));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r.tc());
  ASSERT_TRUE(r.Ecs().has_value());
  EXPECT_EQ(r.Ecs()->source, 24);
}

// RFC 7871 says nothing about a query with several ECS options (§7.1.2 is
// about stub resolvers; §7.2.1's FORMERR is for a wrongly formatted option):
// the first one counts and is echoed, as in BIND.
TEST_F(EdnsTest, FirstOfTwoEcsOptionsCounts) {
  Bytes options = Ecs("203.0.113.0", 24);
  const Bytes second = Ecs("198.51.100.0", 24);
  options.insert(options.end(), second.begin(), second.end());
  Reply r(Ask(Q("www.example.test", options)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.rcode(), kRcodeNoError);
  EXPECT_THAT(r.Answer(),
              ElementsAre("www.example.test.\t300\tIN\tA\t10.1.0.1",
                          "www.example.test.\t300\tIN\tA\t10.1.0.2"));
  const std::optional<testing::EcsEcho> echo = r.Ecs();
  ASSERT_TRUE(echo.has_value());
  EXPECT_EQ(echo->source, 24);
  EXPECT_EQ(echo->scope, 24);
  EXPECT_EQ(echo->address, (Bytes{203, 0, 113}));
  EXPECT_TRUE(info_.ecs);
}

// ...but every one of them must be well formed (§7.2.1): a malformed second
// option (a bit set past its SOURCE PREFIX-LENGTH) is FORMERR.
TEST_F(EdnsTest, MalformedSecondEcsOptionIsFormErr) {
  Bytes options = Ecs("203.0.113.0", 24);
  const Bytes bad = EcsRaw(1, 23, 0, Bytes{198, 51, 101});
  options.insert(options.end(), bad.begin(), bad.end());
  Reply r(Ask(Q("www.example.test", options)));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.rcode(), kRcodeFormErr);
}

// One row per kind of answer: which address is classified and the SCOPE it
// gets.
struct ScopeRow {
  std::string rule;
  std::string name;
  Bytes ecs;
  std::vector<std::string> answer;  // addresses, in order
  int scope;
  std::string source = "198.51.100.7";
  uint16_t qtype = kTypeA;
};

void CheckScopes(
    const std::vector<ScopeRow>& rows,
    const std::function<Bytes(const Query&, const std::string&)>& ask) {
  for (const ScopeRow& row : rows) {
    SCOPED_TRACE(row.rule);
    const Query q = Q(row.name, row.ecs, row.qtype);
    Reply r(ask(q, row.source));
    ASSERT_TRUE(r.ok());
    std::vector<std::string> addresses;
    for (const std::string& rr : r.Answer()) {
      addresses.push_back(rr.substr(rr.rfind('\t') + 1));
    }
    EXPECT_EQ(addresses, row.answer);
    const std::optional<testing::EcsEcho> echo = r.Ecs();
    ASSERT_TRUE(echo.has_value());
    EXPECT_EQ(echo->scope, row.scope);
    // FAMILY, SOURCE and ADDRESS as sent (RFC 7871 §7.2.1).
    EXPECT_EQ(echo->family, row.ecs[4] << 8 | row.ecs[5]);
    EXPECT_EQ(echo->source, row.ecs[6]);
    EXPECT_EQ(echo->address, Bytes(row.ecs.begin() + 8, row.ecs.end()));
  }
}

TEST_F(EdnsTest, ScopeWithoutGeo) {
  const std::vector<ScopeRow> rows = {
      {"ECS address beats the source: CIDR region, scope of the CIDR",
       "www.example.test",
       Ecs("203.0.113.0", 24),
       {"10.1.0.1", "10.1.0.2"},
       24},
      {"ECS /32 is used as /24 and the scope capped at /24",
       "www.example.test",
       Ecs("203.0.113.77", 32),
       {"10.1.0.1", "10.1.0.2"},
       24},
      {"ECS /16 around a /24 CIDR: classified as the /16, scope capped there",
       "www.example.test",
       Ecs("203.0.0.0", 16),
       {"10.3.0.1"},
       16},
      {"no CIDR, geo regions but no geo data: capped at the prefix used",
       "www.example.test",
       Ecs("198.51.100.0", 24),
       {"10.3.0.1"},
       24},
      {"SOURCE 0: classified by the source address, SCOPE 0 (RFC 7871 §7.1.2)",
       "www.example.test",
       EcsRaw(0, 0, 0, {}),
       {"10.1.0.1", "10.1.0.2"},
       0,
       "203.0.113.5"},
      {"SOURCE 0 with FAMILY 1",
       "www.example.test",
       EcsRaw(1, 0, 0, {}),
       {"10.3.0.1"},
       0},
      {"one route for every region: SCOPE 0",
       "flat.example.test",
       Ecs("203.0.113.0", 24),
       {"10.9.0.1"},
       0},
      {"ConsistentHash hashes the /24: at least /24",
       "hash.example.test",
       Ecs("10.20.0.0", 16),
       {"10.3.0.1"},
       24},
      {"SOA does not depend on the client",
       "example.test",
       Ecs("203.0.113.0", 24),
       {"ns1.example.test. hostmaster.example.test. 1 3600 600 604800 60"},
       0,
       "198.51.100.7",
       kTypeSoa},
      {"NXDOMAIN does not depend on the client",
       "nope.example.test",
       Ecs("203.0.113.0", 24),
       {},
       0},
      {"TXT does not depend on the client",
       "_grpc_config.api.example.test",
       Ecs("203.0.113.0", 24),
       {"<txt>"},
       0,
       "198.51.100.7",
       kTypeTxt},
      {"REFUSED still echoes the option",
       "www.example.org",
       Ecs("203.0.113.0", 24),
       {},
       0},
      {"IPv6 ECS, capped at /56",
       "www.example.test",
       Ecs("2001:db8:1:2::", 64),
       {"10.3.0.1"},
       56},
  };
  auto ask = [&](const Query& q, const std::string& source) {
    return Ask(q, source);
  };
  // The TXT row's answer is checked elsewhere; compare only the scope there.
  std::vector<ScopeRow> checked = rows;
  for (ScopeRow& row : checked) {
    if (row.qtype == kTypeTxt) {
      const Bytes out = ask(Q(row.name, row.ecs, row.qtype), row.source);
      Reply r(out);
      ASSERT_TRUE(r.ok());
      ASSERT_THAT(r.Answer(), SizeIs(1));
      row.answer = {r.Answer()[0].substr(r.Answer()[0].rfind('\t') + 1)};
    }
  }
  CheckScopes(checked, ask);
  Ask(Q("www.example.test", Ecs("203.0.113.0", 24)));
  EXPECT_TRUE(info_.ecs);
  EXPECT_EQ(info_.ecs_scope, 24);
}

TEST_F(EdnsTest, CanaryScopeIsAtLeastTheCohortPrefix) {
  // The canary splits cohorts by /24, so even a /16 source gets a /24 scope,
  // and over many /24s both sides of the split are seen.
  std::set<std::string> leads;
  for (int i = 0; i < 64; ++i) {
    const std::string subnet = "10." + std::to_string(i) + ".0.0";
    Reply r(Ask(Q("canary.example.test", Ecs(subnet, 16))));
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r.Ecs().has_value());
    EXPECT_EQ(r.Ecs()->scope, 24);
    ASSERT_FALSE(r.Answer().empty());
    leads.insert(r.Answer()[0].substr(r.Answer()[0].rfind('\t') + 1));
  }
  EXPECT_THAT(leads, ElementsAre("10.3.0.1", "10.9.0.1"));
}

TEST_F(EdnsTest, CatchAllOnlyWorldScopeZero) {
  ax::testing::TestWorld world;
  world.AddNode("a", "10.0.0.1");
  world.AddNode("b", "10.0.0.2");
  world.AddRegion("everyone", {"a", "b"}).match.catch_all = true;
  world.AddDomain("www", Strategy::kRegionPriority, 2);
  auto state = StateFor(world);
  Reply r(Ask(Q("www.example.test", Ecs("203.0.113.0", 24)), "198.51.100.7",
              Transport::kUdp, nullptr, state.get()));
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r.Answer(), SizeIs(2));
  ASSERT_TRUE(r.Ecs().has_value());
  EXPECT_EQ(r.Ecs()->scope, 0);
}

#ifdef AX_GEO_TEST_MMDB_DIR
// Classified by a geo lookup (no region map, or one built from another
// resolver) the scope is the database network's; with the state's region map
// it is the widest block mapping to the same region.
TEST_F(EdnsTest, ScopeWithGeoDatabase) {
  std::string error;
  auto city = MmdbFile::Open(
      std::string(AX_GEO_TEST_MMDB_DIR) + "/geoip2-city.mmdb", &error);
  ASSERT_NE(city, nullptr) << error;
  const auto geo =
      GeoResolver::Create(GeoDatabases{.geo = {city}}, GeoFieldPaths{},
                          GeoResolver::Mode::kCompiled, &error);
  const auto other =
      GeoResolver::Create(GeoDatabases{.geo = {city}}, GeoFieldPaths{},
                          GeoResolver::Mode::kCompiled, &error);
  ASSERT_TRUE(geo && other) << error;
  state_->AttachGeo(*other, nullptr);
  const auto stale_map = state_->geo_regions();
  state_->AttachGeo(*geo, nullptr);
  const auto map = state_->geo_regions();
  ASSERT_TRUE(map && stale_map);
  EXPECT_EQ(map->generation(), geo->generation());
  state_->AttachGeo(*geo, nullptr);  // already attached: kept
  EXPECT_EQ(state_->geo_regions(), map);

  for (const GeoRegionMap* regions : {static_cast<const GeoRegionMap*>(nullptr),
                                      stale_map.get(), map.get()}) {
    const bool by_map = regions == map.get();
    SCOPED_TRACE(by_map ? "region map" : "geo lookup");
    const std::vector<ScopeRow> rows = {
        {"CN /24 network: region cn, alone in its block",
         "www.example.test",
         Ecs("1.0.0.0", 24),
         {"10.2.0.1"},
         24},
        // Direct: the database's US /16. Map: 1.0.1.0 up is all catch-all,
        // the CIDR table splits at /1: 2.0.0.0/7.
        {"US network: catch-all",
         "www.example.test",
         Ecs("2.0.5.0", 24),
         {"10.3.0.1"},
         by_map ? 7 : 16},
        {"CIDR beats geo",
         "www.example.test",
         Ecs("203.0.113.0", 24),
         {"10.1.0.1", "10.1.0.2"},
         24},
        {"CN over IPv6 /48",
         "www.example.test",
         Ecs("2001:db8:1::", 48),
         {"10.2.0.1"},
         48},
        // A /120 splits this /64: read from the database either way. We
        // classify the source cut to /56, so the answer holds for that /56.
        {"CN /120 inside an IPv6 /64",
         "www.example.test",
         Ecs("2001:db8:3::", 120),
         {"10.2.0.1"},
         56},
    };
    CheckScopes(rows, [&](const Query& q, const std::string& source) {
      return Ask(q, source, Transport::kUdp, GeoRefs(geo.get(), regions));
    });
    Ask(Q("www.example.test", Ecs("1.0.0.0", 24)), "198.51.100.7",
        Transport::kUdp, GeoRefs(geo.get(), regions));
    EXPECT_EQ(info_.region, ax::testing::RegionIndex(state_->snapshot(), "cn"));
    EXPECT_FALSE(info_.geo_failed);
  }
}
#endif

}  // namespace
}  // namespace ax::dns
