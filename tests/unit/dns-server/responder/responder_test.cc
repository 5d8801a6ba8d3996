// Responder protocol rules as bytes in -> bytes out, one table row per rule:
// header flags, RCODE, sections and record contents, read back with ldns.
#include "responder/responder.h"

#include <gtest/gtest.h>

#include "dns_test_util.h"
#include "responder/rrl.h"
#include "responder/serving_state.h"

namespace ax::dns {
namespace {

using testing::Build;
using testing::Bytes;
using ::testing::ElementsAreArray;
using ::testing::IsEmpty;
using testing::Query;
using testing::Reply;

constexpr int64_t kNow = 1'000'000;

std::shared_ptr<const ServingState> MakeState() {
  std::string error;
  auto state = ServingState::Make(
      std::make_shared<Snapshot>(testing::ResponderWorld().Build(kNow)), {},
      &error);
  EXPECT_NE(state, nullptr) << error;
  return state;
}

struct Row {
  std::string rule;
  Query query;
  int rcode = kRcodeNoError;
  bool aa = true;
  std::vector<std::string> answer;
  std::vector<std::string> authority;
  std::string source = "198.51.100.7";
  std::vector<std::string> additional;
};

const char kSoaNegative[] =
    "example.test.\t60\tIN\tSOA\tns1.example.test. hostmaster.example.test. 1 "
    "3600 "
    "600 604800 60";

Query Q(const std::string& name, uint16_t qtype = kTypeA) {
  Query q;
  q.name = name;
  q.qtype = qtype;
  return q;
}

class ResponderTest : public ::testing::Test {
 protected:
  Bytes Ask(const Bytes& query, const std::string& source = "198.51.100.7",
            Transport transport = Transport::kUdp, ResponseInfo* info = nullptr,
            const ServingState* state_override = nullptr,
            bool use_state = true) {
    Bytes out(65535);
    QueryMeta meta{*ParseIp(source), transport, kNow};
    const ServingState* s =
        use_state ? (state_override ? state_override : state_.get()) : nullptr;
    out.resize(responder_.Respond(s, nullptr, meta, query, out, info));
    return out;
  }

  // Asks `row.query` of `state` (default: state_) and compares every section.
  void Check(const Row& row, const ServingState* state = nullptr) {
    const Bytes query = Build(row.query);
    const Bytes out = Ask(query, row.source, Transport::kUdp, nullptr, state);
    Reply r(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.rcode(), row.rcode);
    EXPECT_EQ(r.aa(), row.aa);
    EXPECT_FALSE(r.tc());
    EXPECT_TRUE(ldns_pkt_qr(r.pkt()));
    EXPECT_EQ(ldns_pkt_id(r.pkt()), row.query.id);
    EXPECT_EQ(ldns_pkt_qdcount(r.pkt()), 1);
    EXPECT_FALSE(r.edns());  // none asked, none given
    EXPECT_THAT(r.Answer(), ElementsAreArray(row.answer));
    EXPECT_THAT(r.Authority(), ElementsAreArray(row.authority));
    EXPECT_THAT(r.Additional(), ElementsAreArray(row.additional));
    // The question goes back verbatim.
    EXPECT_EQ(Bytes(out.begin() + 12, out.begin() + query.size()),
              Bytes(query.begin() + 12, query.end()));
  }

  std::shared_ptr<const ServingState> state_ = MakeState();
  Responder responder_{ResponderOptions{.identity = "ax-dns-0"}, 42, nullptr};
};

TEST_F(ResponderTest, ProtocolTable) {
  Query case_mixed = Q("WwW.ExAmPle.TeSt");
  Query chaos = Q("id.server", kTypeTxt);
  chaos.qclass = kClassCh;
  Query chaos_bind = Q("HOSTNAME.bind", kTypeTxt);
  chaos_bind.qclass = kClassCh;
  Query chaos_version = Q("version.bind", kTypeTxt);
  chaos_version.qclass = kClassCh;
  Query hesiod = Q("www.example.test");
  hesiod.qclass = 4;
  const std::vector<Row> rows = {
      {"A for the catch-all region",
       Q("www.example.test"),
       kRcodeNoError,
       true,
       {"www.example.test.\t300\tIN\tA\t10.3.0.1"}},
      {"A for a CIDR region, both nodes",
       Q("www.example.test"),
       kRcodeNoError,
       true,
       {"www.example.test.\t300\tIN\tA\t10.1.0.1",
        "www.example.test.\t300\tIN\tA\t10.1.0.2"},
       {},
       "203.0.113.9"},
      {"IPv4-mapped IPv6 source counts as IPv4",
       Q("www.example.test"),
       kRcodeNoError,
       true,
       {"www.example.test.\t300\tIN\tA\t10.1.0.1",
        "www.example.test.\t300\tIN\tA\t10.1.0.2"},
       {},
       "::ffff:203.0.113.9"},
      {"AAAA filters by family",
       Q("www.example.test", kTypeAaaa),
       kRcodeNoError,
       true,
       {"www.example.test.\t300\tIN\tAAAA\t2001:db8::31"}},
      {"AAAA where no candidate has IPv6 is NODATA",
       Q("www.example.test", kTypeAaaa),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative},
       "203.0.113.9"},
      {"case of the question preserved in owners",
       case_mixed,
       kRcodeNoError,
       true,
       {"WwW.ExAmPle.TeSt.\t300\tIN\tA\t10.3.0.1"}},
      {"NXDOMAIN with the SOA, negative TTL",
       Q("nope.example.test"),
       kRcodeNxDomain,
       true,
       {},
       {kSoaNegative}},
      {"NXDOMAIN below a GSLB name",
       Q("a.www.example.test"),
       kRcodeNxDomain,
       true,
       {},
       {kSoaNegative}},
      {"NODATA for a type the name lacks",
       Q("www.example.test", kTypeTxt),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"empty non-terminal is NODATA, not NXDOMAIN",
       Q("deep.example.test"),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"name below an empty non-terminal",
       Q("x.deep.example.test"),
       kRcodeNoError,
       true,
       {"x.deep.example.test.\t300\tIN\tA\t10.3.0.1"}},
      {"SOA at the apex",
       Q("example.test", kTypeSoa),
       kRcodeNoError,
       true,
       {"example.test.\t3600\tIN\tSOA\tns1.example.test. "
        "hostmaster.example.test. 1 "
        "3600 600 604800 60"}},
      {"NS at the apex",
       Q("example.test", kTypeNs),
       kRcodeNoError,
       true,
       {"example.test.\t3600\tIN\tNS\tns1.example.test."}},
      {"A at the apex is NODATA",
       Q("example.test"),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"SOA below the apex is NODATA",
       Q("www.example.test", kTypeSoa),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"outside our zones is REFUSED", Q("www.example.org"), kRcodeRefused,
       false},
      {"parent of a zone is REFUSED", Q("test"), kRcodeRefused, false},
      {"zone transfer REFUSED", Q("example.test", kTypeAxfr), kRcodeRefused,
       false},
      {"class other than IN/CH REFUSED", hesiod, kRcodeRefused, false},
      {"fallback CNAME, not chased",
       Q("origin.example.test"),
       kRcodeNoError,
       true,
       {"origin.example.test.\t60\tIN\tCNAME\torigin.example.net."}},
      {"fallback CNAME answers any type",
       Q("origin.example.test", kTypeTxt),
       kRcodeNoError,
       true,
       {"origin.example.test.\t60\tIN\tCNAME\torigin.example.net."}},
      {"fallback addresses, A",
       Q("fixed.example.test"),
       kRcodeNoError,
       true,
       {"fixed.example.test.\t60\tIN\tA\t192.0.2.200"}},
      {"fallback addresses, AAAA",
       Q("fixed.example.test", kTypeAaaa),
       kRcodeNoError,
       true,
       {"fixed.example.test.\t60\tIN\tAAAA\t2001:db8::200"}},
      {"one route everywhere",
       Q("flat.example.test"),
       kRcodeNoError,
       true,
       {"flat.example.test.\t300\tIN\tA\t10.9.0.1"}},
      {"ANY at a GSLB name: one address RRset (RFC 8482)",
       Q("www.example.test", kTypeAny),
       kRcodeNoError,
       true,
       {"www.example.test.\t300\tIN\tA\t10.3.0.1"}},
      {"ANY at the apex: the SOA alone",
       Q("example.test", kTypeAny),
       kRcodeNoError,
       true,
       {"example.test.\t3600\tIN\tSOA\tns1.example.test. "
        "hostmaster.example.test. 1 "
        "3600 600 604800 60"}},
      {"ANY at a fallback name: the CNAME",
       Q("origin.example.test", kTypeAny),
       kRcodeNoError,
       true,
       {"origin.example.test.\t60\tIN\tCNAME\torigin.example.net."}},
      {"TXT at _grpc_config of a domain without config: NXDOMAIN",
       Q("_grpc_config.www.example.test", kTypeTxt),
       kRcodeNxDomain,
       true,
       {},
       {kSoaNegative}},
      {"A at _grpc_config: NODATA",
       Q("_grpc_config.api.example.test"),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"SRV: the region's pick best first, addresses in additional",
       Q("_http._tcp.www.example.test", kTypeSrv),
       kRcodeNoError,
       true,
       {"_http._tcp.www.example.test.\t300\tIN\tSRV\t0 65535 8080 "
        "e1.www.example.test.",
        "_http._tcp.www.example.test.\t300\tIN\tSRV\t1 65535 8080 "
        "e2.www.example.test."},
       {},
       "203.0.113.9",
       {"e1.www.example.test.\t300\tIN\tA\t10.1.0.1",
        "e2.www.example.test.\t300\tIN\tA\t10.1.0.2"}},
      {"SRV of a dual-stack node: A and AAAA in additional; ANY is SRV",
       Q("_http._tcp.www.example.test", kTypeAny),
       kRcodeNoError,
       true,
       {"_http._tcp.www.example.test.\t300\tIN\tSRV\t0 65535 8080 "
        "d1.www.example.test."},
       {},
       "198.51.100.7",
       {"d1.www.example.test.\t300\tIN\tA\t10.3.0.1",
        "d1.www.example.test.\t300\tIN\tAAAA\t2001:db8::31"}},
      {"A at an SRV name: NODATA",
       Q("_http._tcp.www.example.test"),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"SRV of a service not published: NXDOMAIN",
       Q("_http._udp.www.example.test", kTypeSrv),
       kRcodeNxDomain,
       true,
       {},
       {kSoaNegative}},
      {"SRV at the protocol's empty non-terminal: NODATA",
       Q("_tcp.www.example.test", kTypeSrv),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"A at an SRV target: the node's addresses",
       Q("e2.www.example.test"),
       kRcodeNoError,
       true,
       {"e2.www.example.test.\t300\tIN\tA\t10.1.0.2"}},
      {"AAAA at an IPv4-only SRV target: NODATA",
       Q("e2.www.example.test", kTypeAaaa),
       kRcodeNoError,
       true,
       {},
       {kSoaNegative}},
      {"SRV of a domain on its fallback addresses: the fqdn as target",
       Q("_http._tcp.fixed.example.test", kTypeSrv),
       kRcodeNoError,
       true,
       {"_http._tcp.fixed.example.test.\t60\tIN\tSRV\t0 0 8080 "
        "fixed.example.test."}},
      {"SRV of a domain on its fallback CNAME: the CNAME's target",
       Q("_http._tcp.origin.example.test", kTypeSrv),
       kRcodeNoError,
       true,
       {"_http._tcp.origin.example.test.\t60\tIN\tSRV\t0 0 8080 "
        "origin.example.net."}},
      {"CHAOS id.server",
       chaos,
       kRcodeNoError,
       true,
       {"id.server.\t0\tCH\tTXT\t\"ax-dns-0\""}},
      {"CHAOS hostname.bind, any case",
       chaos_bind,
       kRcodeNoError,
       true,
       {"HOSTNAME.bind.\t0\tCH\tTXT\t\"ax-dns-0\""}},
      {"CHAOS version.bind REFUSED", chaos_version, kRcodeRefused, false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.rule);
    Check(row);
  }
}

// example.test served by two in-zone name servers (ns1 dual-stack, ns2 IPv4
// only) and one outside it.
std::shared_ptr<const ServingState> MakeNameServerState() {
  const ZoneConfig zone{
      .name = "example.test",
      .ns = {
          {.name = "ns1.example.test",
           .addresses = {*ParseIp("192.0.2.53"), *ParseIp("2001:db8::53")}},
          {.name = "ns2.example.test", .addresses = {*ParseIp("192.0.2.54")}},
          {.name = "ns.example.net"}}};
  std::string error;
  auto state = ServingState::Make(
      std::make_shared<Snapshot>(testing::ResponderWorld().Build(kNow)), {zone},
      &error);
  EXPECT_NE(state, nullptr) << error;
  return state;
}

TEST_F(ResponderTest, NameServerTable) {
  const char kSoa[] =
      "example.test.\t60\tIN\tSOA\tns1.example.test. hostmaster.example.test. "
      "1 3600 600 604800 60";
  const std::vector<Row> rows = {
      {"NS at the apex: glue for the in-zone name servers (RFC 9471)",
       Q("example.test", kTypeNs),
       kRcodeNoError,
       true,
       {"example.test.\t3600\tIN\tNS\tns1.example.test.",
        "example.test.\t3600\tIN\tNS\tns2.example.test.",
        "example.test.\t3600\tIN\tNS\tns.example.net."},
       {},
       "198.51.100.7",
       {"ns1.example.test.\t3600\tIN\tA\t192.0.2.53",
        "ns1.example.test.\t3600\tIN\tAAAA\t2001:db8::53",
        "ns2.example.test.\t3600\tIN\tA\t192.0.2.54"}},
      {"A of a name server, with the zone TTL",
       Q("ns1.example.test"),
       kRcodeNoError,
       true,
       {"ns1.example.test.\t3600\tIN\tA\t192.0.2.53"}},
      {"AAAA of a name server, case kept",
       Q("NS1.Example.TEST", kTypeAaaa),
       kRcodeNoError,
       true,
       {"NS1.Example.TEST.\t3600\tIN\tAAAA\t2001:db8::53"}},
      {"AAAA of an IPv4-only name server is NODATA",
       Q("ns2.example.test", kTypeAaaa),
       kRcodeNoError,
       true,
       {},
       {kSoa}},
      {"ANY at a name server: the A RRset (RFC 8482)",
       Q("ns1.example.test", kTypeAny),
       kRcodeNoError,
       true,
       {"ns1.example.test.\t3600\tIN\tA\t192.0.2.53"}},
      {"other types at a name server are NODATA",
       Q("ns1.example.test", kTypeTxt),
       kRcodeNoError,
       true,
       {},
       {kSoa}},
      {"below a name server is NXDOMAIN",
       Q("a.ns1.example.test"),
       kRcodeNxDomain,
       true,
       {},
       {kSoa}},
      {"the out-of-zone name server is not ours", Q("ns.example.net"),
       kRcodeRefused, false},
  };
  const auto state = MakeNameServerState();
  for (const Row& row : rows) {
    SCOPED_TRACE(row.rule);
    Check(row, state.get());
  }
}

TEST_F(ResponderTest, GlueThatDoesNotFitIsLeftOutWithoutTc) {
  ZoneConfig zone{.name = "example.test"};
  for (int i = 10; i < 23; ++i) {
    const std::string n = std::to_string(i);
    zone.ns.push_back(
        {.name = "ns" + n + ".example.test",
         .addresses = {*ParseIp("192.0.2." + n), *ParseIp("2001:db8::" + n)}});
  }
  std::string error;
  const auto state = ServingState::Make(
      std::make_shared<Snapshot>(testing::ResponderWorld().Build(kNow)), {zone},
      &error);
  ASSERT_NE(state, nullptr) << error;
  const Bytes query = Build(Q("example.test", kTypeNs));
  // Over UDP without EDNS (512 octets) some glue is left out, whole names at
  // a time, and the NS RRset is complete; over TCP everything fits.
  for (const Transport transport : {Transport::kUdp, Transport::kTcp}) {
    SCOPED_TRACE(transport == Transport::kUdp ? "udp" : "tcp");
    const Bytes out =
        Ask(query, "198.51.100.7", transport, nullptr, state.get());
    Reply r(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.rcode(), kRcodeNoError);
    EXPECT_FALSE(r.tc());
    EXPECT_EQ(r.Answer().size(), 13u);
    const std::vector<std::string> glue = r.Additional();
    if (transport == Transport::kTcp) {
      EXPECT_EQ(glue.size(), 26u);
      continue;
    }
    EXPECT_LE(out.size(), 512u);
    ASSERT_GT(glue.size(), 0u);
    ASSERT_LT(glue.size(), 26u);
    ASSERT_EQ(glue.size() % 2, 0u);
    for (size_t i = 0; i < glue.size(); i += 2) {
      const std::string owner = "ns" + std::to_string(10 + i / 2) + ".";
      EXPECT_EQ(glue[i].rfind(owner, 0), 0u) << glue[i];
      EXPECT_EQ(glue[i + 1].rfind(owner, 0), 0u) << glue[i + 1];
    }
  }
}

TEST_F(ResponderTest, HeaderFlagsEchoed) {
  for (uint16_t flags :
       {uint16_t{0}, kFlagRd, kFlagCd, uint16_t(kFlagRd | kFlagCd)}) {
    Query q = Q("www.example.test");
    q.flags = flags;
    q.id = 0x1234 + flags;
    const Bytes out = Ask(Build(q));
    Reply r(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(ldns_pkt_id(r.pkt()), q.id);
    EXPECT_EQ(ldns_pkt_rd(r.pkt()), (flags & kFlagRd) != 0);
    EXPECT_EQ(ldns_pkt_cd(r.pkt()), (flags & kFlagCd) != 0);
    EXPECT_FALSE(ldns_pkt_ra(r.pkt()));  // authoritative only
    EXPECT_FALSE(ldns_pkt_ad(r.pkt()));
  }
}

struct ErrorRow {
  std::string rule;
  Bytes query;
  int rcode;
  int qdcount;
};

TEST_F(ResponderTest, ErrorsTable) {
  Query notify = Q("example.test", kTypeSoa);
  notify.flags = 4 << 11;  // opcode NOTIFY
  Query no_question = Q("www.example.test");
  no_question.qdcount = 0;
  Query two_questions = Q("www.example.test");
  two_questions.qdcount = 2;
  Bytes truncated_question = Build(Q("www.example.test"));
  truncated_question.resize(truncated_question.size() - 3);
  Bytes bad_label = Build(Q("www.example.test"));
  bad_label[12] = 0x40;  // extended label type (RFC 6891 §5: retired)
  Bytes forward_pointer = Build(Q("www.example.test"));
  forward_pointer[12] = 0xC0;
  forward_pointer[13] = 12;  // points at itself
  const std::vector<ErrorRow> rows = {
      {"opcode other than QUERY: NOTIMP", Build(notify), kRcodeNotImp, 1},
      {"QDCOUNT 0: FORMERR", Build(no_question), kRcodeFormErr, 0},
      {"QDCOUNT 2: FORMERR", Build(two_questions), kRcodeFormErr, 0},
      {"question cut short: FORMERR", truncated_question, kRcodeFormErr, 0},
      {"bad label type: FORMERR", bad_label, kRcodeFormErr, 0},
      {"compression loop: FORMERR", forward_pointer, kRcodeFormErr, 0},
  };
  for (const ErrorRow& row : rows) {
    SCOPED_TRACE(row.rule);
    const Bytes out = Ask(row.query);
    Reply r(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.rcode(), row.rcode);
    EXPECT_FALSE(r.aa());
    EXPECT_EQ(ldns_pkt_id(r.pkt()), 0xBEEF);
    EXPECT_EQ(ldns_pkt_qdcount(r.pkt()), row.qdcount);
    EXPECT_EQ(ldns_pkt_ancount(r.pkt()), 0);
    EXPECT_EQ(out[2] >> 3 & 0xF, row.query[2] >> 3 & 0xF);
  }
}

// RD and CD are QUERY's bits (RFC 6895 §2): echoed for QUERY, not for an
// opcode answered NOTIMP.
TEST_F(ResponderTest, NotImpEchoesOnlyTheOpcode) {
  for (const uint16_t opcode : {1, 2, 4, 5, 15}) {
    SCOPED_TRACE(opcode);
    Query q = Q("www.example.test");
    q.flags = static_cast<uint16_t>(opcode << 11) | 0x0100 | 0x0010;  // RD, CD
    const Bytes out = Ask(Build(q));
    Reply r(out);
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r.rcode(), kRcodeNotImp);
    // From the wire: ldns keeps the opcode in an enum without a value for
    // every code (15 has none), and loading it is undefined behaviour.
    EXPECT_EQ(out[2] >> 3 & 0xF, opcode);
    EXPECT_FALSE(ldns_pkt_rd(r.pkt()));
    EXPECT_FALSE(ldns_pkt_cd(r.pkt()));
    EXPECT_FALSE(ldns_pkt_aa(r.pkt()));
    EXPECT_FALSE(ldns_pkt_tc(r.pkt()));
  }
  Query query = Q("www.example.test");
  query.flags = 0x0100 | 0x0010;
  Reply r(Ask(Build(query)));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(ldns_pkt_rd(r.pkt()));
  EXPECT_TRUE(ldns_pkt_cd(r.pkt()));
}

TEST_F(ResponderTest, DroppedWithoutResponse) {
  Bytes response = Build(Q("www.example.test"));
  response[2] |= 0x80;  // QR=1: a response, never answered
  ResponseInfo info;
  EXPECT_THAT(Ask(response, "198.51.100.7", Transport::kUdp, &info), IsEmpty());
  EXPECT_TRUE(info.dropped);
  EXPECT_THAT(Ask(Bytes{0x12, 0x34, 0x01}),
              IsEmpty());  // shorter than a header
  EXPECT_THAT(Ask(Bytes{}), IsEmpty());
}

TEST_F(ResponderTest, NoStateIsServfail) {
  Reply r(Ask(Build(Q("www.example.test")), "198.51.100.7", Transport::kUdp,
              nullptr, nullptr, false));
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.rcode(), kRcodeServFail);
  EXPECT_FALSE(r.aa());
}

TEST_F(ResponderTest, GrpcServiceConfigTxt) {
  const Bytes out = Ask(Build(Q("_grpc_config.api.example.test", kTypeTxt)));
  Reply r(out);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.rcode(), kRcodeNoError);
  EXPECT_TRUE(r.aa());
  ldns_rr_list* answer = ldns_pkt_answer(r.pkt());
  ASSERT_EQ(ldns_rr_list_rr_count(answer), 1u);
  ldns_rr* txt = ldns_rr_list_rr(answer, 0);
  EXPECT_EQ(ldns_rr_get_type(txt), LDNS_RR_TYPE_TXT);
  EXPECT_EQ(ldns_rr_ttl(txt), 300u);
  // Character-strings of at most 255 octets that join into gRPC's format (gRFC
  // A2).
  std::string joined;
  ASSERT_GT(ldns_rr_rd_count(txt), 1u);
  for (size_t i = 0; i < ldns_rr_rd_count(txt); ++i) {
    ldns_rdf* rdf = ldns_rr_rdf(txt, i);
    const uint8_t* data = ldns_rdf_data(rdf);
    EXPECT_LE(data[0], 255);
    if (i + 1 < ldns_rr_rd_count(txt)) {
      EXPECT_EQ(data[0], 255);
    }
    joined.append(reinterpret_cast<const char*>(data + 1), data[0]);
  }
  const SnapshotDomain& api =
      ax::testing::DomainNamed(state_->snapshot(), "api");
  EXPECT_EQ(joined, "grpc_config=[{\"serviceConfig\":" +
                        api.grpc_service_config + "}]");
}

// RFC 2782: the target is never compressed, so the full name sits in RDATA
// even though the owner names around it could point into it.
TEST_F(ResponderTest, SrvTargetIsNotCompressed) {
  const Bytes out =
      Ask(Build(Q("_http._tcp.www.example.test", kTypeSrv)), "203.0.113.9");
  Reply r(out);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(ldns_rr_list_rr_count(ldns_pkt_answer(r.pkt())), 2u);
  const std::string wire(reinterpret_cast<const char*>(out.data()), out.size());
  for (const char* target : {"\2e1\3www\7example\4test", "\2e2\3www"}) {
    // SRV RDATA: priority, weight, port (8080 = 0x1F90), then the name.
    EXPECT_NE(wire.find(std::string("\x1f\x90") + target), std::string::npos)
        << target;
  }
}

// A proxy stands for many clients: a spreading strategy lists every node its
// spread reaches, one priority, where an A answer is one client's pick.
TEST_F(ResponderTest, SrvOfASpreadingStrategyListsEveryNode) {
  Reply r(
      Ask(Build(Q("_http._tcp.hash.example.test", kTypeSrv)), "203.0.113.9"));
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(r.Answer(),
              ::testing::UnorderedElementsAre(
                  "_http._tcp.hash.example.test.\t300\tIN\tSRV\t0 65535 "
                  "8080 e1.hash.example.test.",
                  "_http._tcp.hash.example.test.\t300\tIN\tSRV\t0 65535 "
                  "8080 e2.hash.example.test."));
  Reply a(Ask(Build(Q("hash.example.test")), "203.0.113.9"));
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a.Answer().size(), 1u);  // maxAnswers 1: one client's pick
}

TEST_F(ResponderTest, ResponseInfo) {
  ResponseInfo info;
  Ask(Build(Q("www.example.test")), "203.0.113.9", Transport::kUdp, &info);
  const Snapshot& s = state_->snapshot();
  EXPECT_EQ(info.qtype, kTypeA);
  EXPECT_EQ(info.rcode, kRcodeNoError);
  ASSERT_LT(info.domain, s.domains.size());
  EXPECT_EQ(s.domains[info.domain].name, "www");
  EXPECT_EQ(info.region, ax::testing::RegionIndex(s, "east"));
  EXPECT_EQ(info.route, s.domains[info.domain].routes[info.region]);
  EXPECT_EQ(info.answers, 2);
  EXPECT_FALSE(info.dropped || info.truncated || info.rrl_limited || info.ecs ||
               info.geo_failed);
  Ask(Build(Q("nope.example.test")), "203.0.113.9", Transport::kUdp, &info);
  EXPECT_EQ(info.rcode, kRcodeNxDomain);
  EXPECT_EQ(info.domain, kNoIndex);
  EXPECT_EQ(info.answers, 0);
}

TEST(ResponderZonesTest, ConfiguredZoneSoaAndNs) {
  ZoneConfig zone{
      .name = "example.test",
      .ns = {{.name = "a.ns.example.net"}, {.name = "b.ns.example.net"}},
      .rname = "dns.example.net",
      .minimum = 30,
      .ttl = 7200};
  std::string error;
  auto state = ServingState::Make(
      std::make_shared<Snapshot>(testing::ResponderWorld().Build(kNow)), {zone},
      &error);
  ASSERT_NE(state, nullptr) << error;
  Responder responder(ResponderOptions{}, 1, nullptr);
  Bytes out(512);
  const QueryMeta meta{*ParseIp("198.51.100.7"), Transport::kUdp, kNow};
  Bytes ns = Build(Q("EXAMPLE.test", kTypeNs));
  out.resize(responder.Respond(state.get(), nullptr, meta, ns, out));
  Reply r(out);
  ASSERT_TRUE(r.ok());
  EXPECT_THAT(
      r.Answer(),
      ElementsAreArray({"EXAMPLE.test.\t7200\tIN\tNS\ta.ns.example.net.",
                        "EXAMPLE.test.\t7200\tIN\tNS\tb.ns.example.net."}));
  out.assign(512, 0);
  Bytes nx = Build(Q("nope.example.test"));
  out.resize(responder.Respond(state.get(), nullptr, meta, nx, out));
  Reply neg(out);
  ASSERT_TRUE(neg.ok());
  // MNAME defaults to the first NS; negative TTL = min(SOA TTL, MINIMUM).
  EXPECT_THAT(neg.Authority(),
              ElementsAreArray({"example.test.\t30\tIN\tSOA\ta.ns.example.net. "
                                "dns.example.net. 1 3600 600 604800 30"}));
}

// A UDP worker prepares a few queries of a batch, then completes them,
// reusing its PreparedQuery slots from batch to batch. Every query must get
// the bytes Respond gives it, and the same rate-limit verdict: a slot keeps
// nothing of its previous query (ECS, OPT, question), and the key computed
// in Prepare is the one Respond uses.
TEST(ResponderPreparedTest, PreparedInBatchesAnswersAsRespondDoes) {
  const auto state = MakeState();
  ASSERT_NE(state, nullptr);
  Query two_questions = Q("www.example.test");
  two_questions.qdcount = 2;
  Query response = Q("www.example.test");
  response.flags |= kFlagQr;
  Query chaos = Q("id.server", kTypeTxt);
  chaos.qclass = kClassCh;
  Query bad_version = Q("www.example.test");
  bad_version.Edns().version = 1;
  const std::vector<std::pair<Bytes, std::string>> mix = {
      {Build(Q("www.example.test").Edns(testing::Ecs("203.0.113.0", 24))),
       "198.51.100.7"},
      {Build(Q("www.example.test")), "198.51.100.7"},
      {Build(Q("hash.example.test").Edns(testing::Ecs("2001:db8:1::", 48))),
       "2001:db8::53"},
      {Build(Q("WWW.Example.TEST").Edns()), "::ffff:192.0.2.9"},
      {Build(two_questions), "198.51.100.7"},
      {Build(Q("canary.example.test").Edns(testing::Ecs("192.0.2.0", 24))),
       "198.51.100.8"},
      {Bytes{0xBE, 0xEF, 0x01}, "198.51.100.7"},
      {Build(response), "198.51.100.7"},
      {Build(Q("nope.example.test").Edns(testing::Ecs("198.18.0.0", 15))),
       "198.51.100.7"},
      {Build(chaos), "198.51.100.7"},
      {Build(bad_version), "198.51.100.7"},
      {Build(Q("api.example.test", kTypeAaaa)), "198.51.100.9"},
  };
  // Low limits, so that some of the repeats below are limited (and some
  // of those slip): the verdicts must agree query by query.
  const RrlOptions limits{.responses_per_second = 2,
                          .nxdomains_per_second = 2,
                          .errors_per_second = 2,
                          .burst = 2};
  RateLimiter direct_rrl(limits), prepared_rrl(limits);
  Responder direct({}, 7, &direct_rrl), prepared({}, 7, &prepared_rrl);
  std::vector<PreparedQuery> slots(3);
  int limited = 0;
  size_t asked = 0;
  for (int round = 0; round < 4; ++round) {
    for (size_t first = 0; first < mix.size(); first += slots.size()) {
      const size_t end = std::min(mix.size(), first + slots.size());
      auto meta_of = [&](size_t i) {
        return QueryMeta{*ParseIp(mix[i].second), Transport::kUdp, kNow,
                         1'000'000};
      };
      for (size_t i = first; i < end; ++i) {
        prepared.Prepare(nullptr, meta_of(i), mix[i].first, &slots[i - first]);
      }
      for (size_t i = first; i < end; ++i) {
        Bytes want(1232), got(1232);
        ResponseInfo want_info, got_info;
        want.resize(direct.Respond(state.get(), nullptr, meta_of(i),
                                   mix[i].first, want, &want_info));
        got.resize(prepared.Complete(state.get(), nullptr, meta_of(i),
                                     slots[i - first], got, &got_info));
        SCOPED_TRACE("round " + std::to_string(round) + ", query " +
                     std::to_string(i));
        EXPECT_EQ(got, want);
        EXPECT_EQ(got_info.rrl_limited, want_info.rrl_limited);
        EXPECT_EQ(got_info.rcode, want_info.rcode);
        EXPECT_EQ(got_info.ecs_scope, want_info.ecs_scope);
        EXPECT_EQ(got_info.client.address, want_info.client.address);
        limited += want_info.rrl_limited;
        ++asked;
      }
    }
  }
  EXPECT_GT(limited, 0);
  EXPECT_LT(limited, static_cast<int>(asked));
}

}  // namespace
}  // namespace ax::dns
