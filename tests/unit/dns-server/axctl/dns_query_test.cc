// axctl query's messages: the query checked octet by octet (and accepted by
// ax-dns's own strict parser), answers written by hand (compression, every
// rendered type, echoed ECS), answers that are not ours, malformed ones (cut
// short, pointer loops, lengths past the end, random damage) and --expect.
#include "axctl/dns_query.h"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "wire/message_reader.h"

namespace ax {
namespace {

using Bytes = std::vector<uint8_t>;

// Appends big-endian fields and names to a message written by hand.
struct Builder {
  Bytes b;
  Builder& U8(uint8_t v) {
    b.push_back(v);
    return *this;
  }
  Builder& U16(uint16_t v) { return U8(v >> 8).U8(v & 0xFF); }
  Builder& U32(uint32_t v) { return U16(v >> 16).U16(v & 0xFFFF); }
  Builder& Raw(const Bytes& bytes) {
    b.insert(b.end(), bytes.begin(), bytes.end());
    return *this;
  }
  Builder& Label(const std::string& label) {
    U8(static_cast<uint8_t>(label.size()));
    b.insert(b.end(), label.begin(), label.end());
    return *this;
  }
  Builder& Pointer(uint16_t offset) { return U16(0xC000 | offset); }
  Builder& Header(uint16_t id, uint16_t flags, uint16_t qd, uint16_t an,
                  uint16_t ns, uint16_t ar) {
    return U16(id).U16(flags).U16(qd).U16(an).U16(ns).U16(ar);
  }
  // TYPE, CLASS IN, TTL, RDLENGTH.
  Builder& Fixed(uint16_t type, uint32_t ttl, uint16_t rdlength) {
    return U16(type).U16(1).U32(ttl).U16(rdlength);
  }
};

QuerySpec Spec(std::string name, uint16_t qtype = 1) {
  QuerySpec spec;
  spec.name = std::move(name);
  spec.qtype = qtype;
  spec.id = 0xBEEF;
  return spec;
}

Bytes Query(const QuerySpec& spec) {
  const std::optional<Bytes> query = BuildQuery(spec);
  EXPECT_TRUE(query);
  return query.value_or(Bytes{});
}

// \3www\7example\4test\0 at offset 12 of every message here.
const Bytes kWww = {3,   'w', 'w', 'w', 7,   'e', 'x', 'a', 'm',
                    'p', 'l', 'e', 4,   't', 'e', 's', 't', 0};

TEST(DnsQueryTest, QueryIsHeaderQuestionAndOptWithTruncatedEcs) {
  QuerySpec spec = Spec("www.example.test");
  spec.subnet = ParseSubnet("198.51.100.77/20");
  const Bytes query = Query(spec);
  const Bytes expected =
      Builder()
          // ID, flags 0 (QUERY, RD clear), one question, one additional RR.
          .Header(0xBEEF, 0, 1, 0, 0, 1)
          .Raw(kWww)
          .U16(1)              // QTYPE A
          .U16(1)              // QCLASS IN
          .U8(0)               // OPT owner: the root
          .U16(41)             // TYPE OPT
          .U16(1232)           // CLASS: our UDP payload size
          .U32(0)              // extended RCODE, version 0, no DO
          .U16(11)             // RDLENGTH
          .U16(8)              // OPTION-CODE: Client Subnet
          .U16(7)              // OPTION-LENGTH
          .U16(1)              // FAMILY IPv4
          .U8(20)              // SOURCE PREFIX-LENGTH
          .U8(0)               // SCOPE PREFIX-LENGTH, 0 in queries
          .Raw({198, 51, 96})  // ceil(20 / 8) octets, bits past /20 zero
          .b;
  EXPECT_EQ(query, expected);

  // ax-dns's strict parser (RFC 7871 §6 checks included) takes it.
  dns::ParsedQuery parsed;
  ASSERT_EQ(dns::ParseQuery(query, &parsed), dns::ParseStatus::kOk);
  EXPECT_TRUE(parsed.edns.present);
  EXPECT_EQ(parsed.edns.udp_size, 1232);
  ASSERT_TRUE(parsed.edns.has_client_subnet);
  EXPECT_EQ(parsed.edns.client_subnet.source_prefix, 20);
}

TEST(DnsQueryTest, Ipv6SubnetKeepsOnlyItsBitsAndNoSubnetMeansEmptyOpt) {
  QuerySpec spec = Spec("Www.Example.Test", 28);
  spec.subnet = ParseSubnet("2001:db8:abcd:12ff::1/57");
  const Bytes v6 = Query(spec);
  // Question (case kept), then the OPT's ECS option: FAMILY 2, SOURCE 57,
  // SCOPE 0 and 8 octets, the last cut to its top bit.
  ASSERT_EQ(v6.size(), 12u + 18 + 4 + 11 + 4 + 4 + 8);
  EXPECT_EQ(v6[13], 'W');
  EXPECT_EQ(v6[31], 28);  // QTYPE AAAA
  EXPECT_EQ(
      Bytes(v6.end() - 12, v6.end()),
      (Bytes{0, 2, 57, 0, 0x20, 0x01, 0x0d, 0xb8, 0xab, 0xcd, 0x12, 0x80}));
  dns::ParsedQuery parsed;
  EXPECT_EQ(dns::ParseQuery(v6, &parsed), dns::ParseStatus::kOk);

  const Bytes plain = Query(Spec("www.example.test."));
  ASSERT_EQ(plain.size(), 12u + 18 + 4 + 11);
  EXPECT_EQ(Bytes(plain.end() - 2, plain.end()), (Bytes{0, 0}));  // RDLENGTH
}

TEST(DnsQueryTest, NamesTypesAndSubnetsFromTheCommandLine) {
  EXPECT_FALSE(BuildQuery(Spec("www..example.test")));
  EXPECT_FALSE(BuildQuery(Spec(std::string(64, 'a') + ".test")));
  EXPECT_TRUE(BuildQuery(Spec(".")));  // the root

  EXPECT_EQ(ParseQueryType("AAAA"), 28);
  EXPECT_EQ(ParseQueryType("SOA"), 6);
  EXPECT_FALSE(ParseQueryType("MX"));

  EXPECT_EQ(ParseSubnet("192.0.2.7/24"), ParsePrefix("192.0.2.0/24"));
  EXPECT_EQ(ParseSubnet("2001:db8::1"), ParsePrefix("2001:db8::1/128"));
  EXPECT_EQ(ParseSubnet("192.0.2.7/0"), ParsePrefix("0.0.0.0/0"));
  for (const char* bad : {"192.0.2.7/33", "192.0.2.7/", "192.0.2.7/2x", "/24",
                          "example.test/24", "192.0.2.7/-1"}) {
    EXPECT_FALSE(ParseSubnet(bad)) << bad;
  }
}

// The answer to Spec("www.example.test") (ID 0xBEEF, A): owners compressed
// against the question, A, AAAA, a CNAME whose target shares a suffix, two
// TXT strings, and an OPT echoing ECS with SCOPE 24.
Bytes GoodAnswer() {
  return Builder()
      .Header(0xBEEF, 0x8400, 1, 4, 0, 1)  // QR AA
      .Raw(kWww)
      .U16(1)
      .U16(1)
      .Pointer(12)
      .Fixed(1, 30, 4)
      .Raw({192, 0, 2, 10})
      .Pointer(12)
      .Fixed(28, 30, 16)
      .Raw({0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10})
      .Pointer(12)
      .Fixed(5, 300, 8)
      .Label("alias")
      .Pointer(16)  // example.test
      .Pointer(12)
      .Fixed(16, 60, 16)
      .Label("hello world")
      .Label("a\"b")
      .U8(0)
      .Fixed(41, 0, 11)  // the OPT (CLASS 1 here: unread)
      .U16(8)
      .U16(7)
      .U16(1)
      .U8(24)
      .U8(24)
      .Raw({198, 51, 100})
      .b;
}

TEST(DnsQueryTest, AnswerWithCompressionEveryTypeAndEchoedScope) {
  const Bytes query = Query(Spec("www.example.test"));
  DnsReply answer;
  std::string error;
  ASSERT_EQ(ParseAnswer(GoodAnswer(), query, &answer, &error),
            AnswerStatus::kOk)
      << error;
  EXPECT_EQ(AnswerToText(answer),
            "status: NOERROR, flags: qr aa, answers: 4, ecs scope: /24\n"
            "www.example.test. 30 IN A 192.0.2.10\n"
            "www.example.test. 30 IN AAAA 2001:db8::10\n"
            "www.example.test. 300 IN CNAME alias.example.test.\n"
            "www.example.test. 60 IN TXT \"hello world\" \"a\\\"b\"\n");
  EXPECT_EQ(
      AnswerToJson(answer),
      R"({"rcode":"NOERROR","flags":["qr","aa"],"answers":[)"
      R"({"name":"www.example.test.","type":"A","ttl":30,"data":"192.0.2.10"},)"
      R"({"name":"www.example.test.","type":"AAAA","ttl":30,"data":"2001:db8::10"},)"
      R"({"name":"www.example.test.","type":"CNAME","ttl":300,"data":"alias.example.test."},)"
      R"({"name":"www.example.test.","type":"TXT","ttl":60,"data":"\"hello world\" \"a\\\"b\""}],)"
      R"("ecs_scope":24})");
  EXPECT_EQ(answer.records[0].address, ParseIp("192.0.2.10"));
  EXPECT_EQ(answer.records[1].address, ParseIp("2001:db8::10"));
  EXPECT_FALSE(answer.records[2].address);
}

TEST(DnsQueryTest, SoaNsUnknownTypesEscapesAndExtendedRcode) {
  const Bytes query = Query(Spec("www.example.test", 6));
  const Bytes message =
      Builder()
          .Header(0xBEEF, 0x8500, 1, 3, 0, 1)  // QR AA RD
          .Raw(kWww)
          .U16(6)
          .U16(1)
          .Pointer(16)  // example.test: SOA
          .Fixed(6, 3600, 2 + 5 + 2 + 20)
          .Pointer(12)    // MNAME www.example.test
          .Label("host")  // RNAME host.example.test
          .Pointer(16)
          .U32(2024010101)
          .U32(7200)
          .U32(900)
          .U32(1209600)
          .U32(60)
          .Label("a.b")  // a label holding a dot and a control octet
          .Label(std::string("c\x01", 2))
          .U8(0)
          .Fixed(2, 10, 2)
          .Pointer(16)
          .Pointer(12)
          .Fixed(99, 5, 3)
          .Raw({0xDE, 0xAD, 0x01})
          .U8(0)
          .Fixed(41, 1u << 24, 0)  // extended RCODE 1: BADVERS (16)
          .b;
  DnsReply answer;
  std::string error;
  ASSERT_EQ(ParseAnswer(message, query, &answer, &error), AnswerStatus::kOk)
      << error;
  EXPECT_EQ(answer.rcode, 16);
  EXPECT_EQ(AnswerToText(answer),
            "status: BADVERS, flags: qr aa rd, answers: 3\n"
            "example.test. 3600 IN SOA www.example.test. host.example.test. "
            "2024010101 7200 900 1209600 60\n"
            "a\\.b.c\\001. 10 IN NS example.test.\n"
            "www.example.test. 5 IN TYPE99 \\# 3 dead01\n");
  EXPECT_EQ(AnswerToJson(answer).find("ecs_scope"), std::string::npos);
  EXPECT_EQ(RcodeName(3), "NXDOMAIN");
  EXPECT_EQ(RcodeName(23), "RCODE23");
}

TEST(DnsQueryTest, AnswersToSomethingElseAreNotOurs) {
  const Bytes query = Query(Spec("www.example.test"));
  DnsReply answer;
  std::string error;
  const auto status = [&](Bytes message) {
    return ParseAnswer(message, query, &answer, &error);
  };
  Bytes other_id = GoodAnswer();
  other_id[1] ^= 1;
  EXPECT_EQ(status(other_id), AnswerStatus::kNotOurs);
  Bytes not_response = GoodAnswer();
  not_response[2] &= 0x7F;
  EXPECT_EQ(status(not_response), AnswerStatus::kNotOurs);
  Bytes other_name = GoodAnswer();
  other_name[13] = 'x';
  EXPECT_EQ(status(other_name), AnswerStatus::kNotOurs);
  Bytes other_type = GoodAnswer();
  other_type[31] = 28;
  EXPECT_EQ(status(other_type), AnswerStatus::kNotOurs);
  EXPECT_EQ(status({0xBE, 0xEF, 0x84}), AnswerStatus::kNotOurs);
  // Case may differ (RFC 4343; 0x20 randomisation).
  Bytes upper = GoodAnswer();
  upper[13] = 'W';
  EXPECT_EQ(status(upper), AnswerStatus::kOk);
  // An error may come without the question, NOERROR may not.
  const Bytes refused = Builder().Header(0xBEEF, 0x8005, 0, 0, 0, 0).b;
  EXPECT_EQ(status(refused), AnswerStatus::kOk);
  EXPECT_EQ(RcodeName(answer.rcode), "REFUSED");
  EXPECT_EQ(status(Builder().Header(0xBEEF, 0x8000, 0, 0, 0, 0).b),
            AnswerStatus::kNotOurs);
}

TEST(DnsQueryTest, MalformedAnswersAreErrorsNeverCrashes) {
  const Bytes query = Query(Spec("www.example.test"));
  const Bytes good = GoodAnswer();
  DnsReply answer;
  std::string error;
  // Cut anywhere: never accepted.
  for (size_t size = 0; size < good.size(); ++size) {
    EXPECT_NE(ParseAnswer(Bytes(good.begin(), good.begin() + size), query,
                          &answer, &error),
              AnswerStatus::kOk)
        << size;
  }
  const Bytes head =
      Builder().Header(0xBEEF, 0x8400, 1, 1, 0, 0).Raw(kWww).U16(1).U16(1).b;
  const auto malformed = [&](const Bytes& rr) {
    Bytes message = head;
    message.insert(message.end(), rr.begin(), rr.end());
    error.clear();
    return ParseAnswer(message, query, &answer, &error) ==
               AnswerStatus::kMalformed &&
           !error.empty();
  };
  // An owner pointing at itself, and one pointing forward.
  EXPECT_TRUE(malformed(Builder().Pointer(34).Fixed(1, 1, 4).U32(0).b));
  EXPECT_TRUE(malformed(Builder().Pointer(40).Fixed(1, 1, 4).U32(0).b));
  // RDLENGTH past the end; an A of 5 octets.
  EXPECT_TRUE(malformed(Builder().Pointer(12).Fixed(1, 1, 9).U32(0).b));
  EXPECT_TRUE(malformed(Builder().Pointer(12).Fixed(1, 1, 5).U32(0).U8(0).b));
  // A CNAME whose name runs past its RDLENGTH, or stops short of it.
  EXPECT_TRUE(
      malformed(Builder().Pointer(12).Fixed(5, 1, 2).Label("a").U8(0).b));
  EXPECT_TRUE(
      malformed(Builder().Pointer(12).Fixed(5, 1, 3).Pointer(12).U8(0).b));
  // A TXT string longer than its RDATA.
  EXPECT_TRUE(malformed(Builder().Pointer(12).Fixed(16, 1, 3).U8(5).U16(0).b));
  // An SOA without its five numbers.
  EXPECT_TRUE(malformed(
      Builder().Pointer(12).Fixed(6, 1, 8).Pointer(12).Pointer(12).U32(1).b));
  // An OPT in the additional section with an ECS option too short for SCOPE.
  Bytes opt = Builder()
                  .Header(0xBEEF, 0x8400, 1, 0, 0, 1)
                  .Raw(kWww)
                  .U16(1)
                  .U16(1)
                  .U8(0)
                  .Fixed(41, 0, 6)
                  .U16(8)
                  .U16(2)
                  .U16(1)
                  .b;
  EXPECT_EQ(ParseAnswer(opt, query, &answer, &error), AnswerStatus::kMalformed);
  EXPECT_NE(error.find("OPT"), std::string::npos) << error;

  // Random damage: any status, never a crash, flags set unless not ours.
  std::mt19937 rng(7);
  for (int i = 0; i < 5000; ++i) {
    Bytes damaged = good;
    for (int flips = 1 + rng() % 4; flips > 0; --flips) {
      damaged[kWww.size() + 16 + rng() % (good.size() - kWww.size() - 16)] =
          static_cast<uint8_t>(rng());
    }
    damaged.resize(damaged.size() - rng() % 8);
    answer = DnsReply{};
    if (ParseAnswer(damaged, query, &answer, &error) !=
        AnswerStatus::kNotOurs) {
      EXPECT_EQ(answer.flags, 0x8400);
    }
  }
}

TEST(DnsQueryTest, ExpectWantsOneOfTheAnsweredAddresses) {
  DnsReply answer;
  answer.records.push_back({"www.example.test.", 1, 1, 30, "198.51.100.20",
                            ParseIp("198.51.100.20")});
  answer.records.push_back(
      {"www.example.test.", 16, 1, 30, "\"192.0.2.10\"", std::nullopt});
  const IpAddress a = *ParseIp("192.0.2.10");
  const IpAddress b = *ParseIp("198.51.100.20");
  EXPECT_FALSE(ExpectMismatch(answer, {}));
  EXPECT_FALSE(ExpectMismatch(answer, {a, b}));
  EXPECT_EQ(ExpectMismatch(answer, {a}),
            "answer 198.51.100.20 has none of 192.0.2.10");
  answer.records.erase(answer.records.begin());
  EXPECT_EQ(ExpectMismatch(answer, {a, b}),
            "answer has no address, expected one of 192.0.2.10, "
            "198.51.100.20");
}

}  // namespace
}  // namespace ax
