// Query parsing (question, OPT placement and count, RR bounds), the ECS
// option's validation table, and the writer: compression, overflow and
// rollback, OPT output, each written message read back with ldns.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "wire/edns.h"
#include "wire/message_reader.h"
#include "wire/message_writer.h"

// Last: ldns's C headers define macros that break C++ standard headers after
// them.
#include <ldns/ldns.h>

namespace ax::dns {
namespace {

using Bytes = std::vector<uint8_t>;

void Put16(Bytes& b, uint16_t v) {
  b.push_back(static_cast<uint8_t>(v >> 8));
  b.push_back(static_cast<uint8_t>(v));
}

std::span<const uint8_t> Wire(const std::string& s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

// Header + question "Www.Example.test A IN", then `extra` records.
Bytes Query(uint16_t ancount, uint16_t arcount, const Bytes& extra) {
  Bytes b = {0xAB, 0xCD, 0x01, 0x00, 0, 1};
  Put16(b, ancount);
  Put16(b, 0);
  Put16(b, arcount);
  const std::string name = *EncodeName("Www.Example.test");
  b.insert(b.end(), name.begin(), name.end());
  Put16(b, kTypeA);
  Put16(b, kClassIn);
  b.insert(b.end(), extra.begin(), extra.end());
  return b;
}

Bytes Opt(uint16_t udp, uint8_t version, bool dnssec_ok, const Bytes& options,
          const Bytes& owner = {0}) {
  Bytes b = owner;
  Put16(b, kTypeOpt);
  Put16(b, udp);
  b.push_back(0);
  b.push_back(version);
  Put16(b, dnssec_ok ? 0x8000 : 0);
  Put16(b, static_cast<uint16_t>(options.size()));
  b.insert(b.end(), options.begin(), options.end());
  return b;
}

Bytes ARecord() {
  Bytes b = {0xC0, 12};
  Put16(b, kTypeA);
  Put16(b, kClassIn);
  b.insert(b.end(), {0, 0, 0, 60, 0, 4, 192, 0, 2, 1});
  return b;
}

TEST(MessageReaderTest, QuestionAndOpt) {
  const Bytes ecs = {0, 8, 0, 7, 0, 1, 24, 0, 198, 51, 100};
  const Bytes unknown = {0, 99, 0, 2, 0xAA, 0xBB};
  Bytes options = unknown;
  options.insert(options.end(), ecs.begin(), ecs.end());
  const Bytes msg = Query(1, 1, [&] {
    Bytes extra = ARecord();
    const Bytes opt = Opt(4096, 0, true, options);
    extra.insert(extra.end(), opt.begin(), opt.end());
    return extra;
  }());
  ParsedQuery q;
  ASSERT_EQ(ParseQuery(msg, &q), ParseStatus::kOk);
  EXPECT_EQ(q.header.id, 0xABCD);
  EXPECT_EQ(q.header.flags, 0x0100);
  EXPECT_EQ(NameToText(q.question.name.wire()), "Www.Example.test.");
  EXPECT_EQ(NameToText(q.question.lower.wire()), "www.example.test.");
  EXPECT_EQ(q.question.qtype, kTypeA);
  EXPECT_EQ(q.question.qclass, kClassIn);
  ASSERT_TRUE(q.edns.present);
  EXPECT_EQ(q.edns.udp_size, 4096);
  EXPECT_TRUE(q.edns.dnssec_ok);
  EXPECT_EQ(q.edns.version, 0);
  ASSERT_TRUE(q.edns.has_client_subnet);
  EXPECT_EQ(q.edns.client_subnet.family, 1);
  EXPECT_EQ(q.edns.client_subnet.source_prefix, 24);
  EXPECT_EQ(q.edns.client_subnet.address[2], 100);
}

TEST(MessageReaderTest, MalformedTable) {
  struct Row {
    std::string rule;
    Bytes message;
    bool edns_seen;
  };
  Bytes cut = Query(1, 0, ARecord());
  cut.pop_back();
  Bytes two = Opt(1232, 0, false, {});
  const Bytes second = Opt(1232, 0, false, {});
  two.insert(two.end(), second.begin(), second.end());
  const std::vector<Row> rows = {
      {"RDATA past the end", cut, false},
      {"more RRs counted than present", Query(0, 1, {}), false},
      {"OPT in the answer section", Query(1, 0, Opt(1232, 0, false, {})), true},
      {"two OPT RRs", Query(0, 2, two), true},
      {"OPT not owned by the root",
       Query(0, 1, Opt(1232, 0, false, {}, {1, 'a', 0})), true},
      {"option header cut short", Query(0, 1, Opt(1232, 0, false, {0, 8, 0})),
       true},
      {"option longer than the RDATA",
       Query(0, 1, Opt(1232, 0, false, {0, 9, 0, 5, 1})), true},
      {"bad ECS option",
       Query(0, 1, Opt(1232, 0, false, {0, 8, 0, 4, 0, 3, 0, 0})), true},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.rule);
    ParsedQuery q;
    EXPECT_EQ(ParseQuery(row.message, &q), ParseStatus::kFormErr);
    EXPECT_TRUE(q.has_question);
    EXPECT_EQ(q.edns.present, row.edns_seen);
  }
}

TEST(MessageReaderTest, UnknownVersionSkipsOptions) {
  // Options of a version we do not know are not ours to judge (RFC 6891
  // §6.1.3).
  ParsedQuery q;
  const Bytes msg = Query(0, 1, Opt(1232, 1, false, {0, 8, 0, 4, 0, 3, 0, 0}));
  ASSERT_EQ(ParseQuery(msg, &q), ParseStatus::kOk);
  EXPECT_EQ(q.edns.version, 1);
  EXPECT_FALSE(q.edns.has_client_subnet);
}

TEST(MessageReaderTest, TrailingOctetsIgnored) {
  Bytes msg = Query(0, 0, {});
  msg.insert(msg.end(), {1, 2, 3});
  ParsedQuery q;
  EXPECT_EQ(ParseQuery(msg, &q), ParseStatus::kOk);
}

// Workers reuse one ParsedQuery per slot: a query parsed into it after
// another keeps nothing of that one (its OPT, its ECS, its question).
TEST(MessageReaderTest, ReusedOutputKeepsNothingOfTheLastQuery) {
  const Bytes with_ecs =
      Query(0, 1, Opt(4096, 0, true, {0, 8, 0, 7, 0, 1, 24, 0, 198, 51, 100}));
  ParsedQuery q;
  ASSERT_EQ(ParseQuery(with_ecs, &q), ParseStatus::kOk);
  ASSERT_TRUE(q.edns.has_client_subnet);

  ASSERT_EQ(ParseQuery(Query(0, 0, {}), &q), ParseStatus::kOk);
  EXPECT_FALSE(q.edns.present);
  EXPECT_FALSE(q.edns.has_client_subnet);
  EXPECT_FALSE(q.edns.dnssec_ok);
  EXPECT_EQ(q.edns.udp_size, 0);

  ASSERT_EQ(ParseQuery(with_ecs, &q), ParseStatus::kOk);
  Bytes no_question = {0xAB, 0xCD, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(ParseQuery(no_question, &q), ParseStatus::kFormErr);
  EXPECT_FALSE(q.has_question);
  EXPECT_EQ(q.question.qtype, 0);
  EXPECT_EQ(q.question.qclass, 0);
  EXPECT_FALSE(q.edns.present);
}

TEST(ClientSubnetTest, ValidationTable) {
  struct Row {
    std::string rule;
    Bytes data;  // FAMILY, SOURCE, SCOPE, ADDRESS
    bool ok;
  };
  const std::vector<Row> rows = {
      {"IPv4 /24", {0, 1, 24, 0, 192, 0, 2}, true},
      {"IPv4 /32", {0, 1, 32, 0, 192, 0, 2, 1}, true},
      {"IPv4 /0", {0, 1, 0, 0}, true},
      {"IPv4 /23, last bit clear", {0, 1, 23, 0, 192, 0, 2}, true},
      {"IPv6 /56", {0, 2, 56, 0, 0x20, 1, 0xd, 0xb8, 0, 0, 1}, true},
      {"IPv6 /128",
       {0, 2, 128, 0, 0x20, 1, 0xd, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1},
       true},
      {"FAMILY 0, SOURCE 0 (RFC 7871 §7.1.2)", {0, 0, 0, 0}, true},
      {"FAMILY 0 with SOURCE", {0, 0, 8, 0, 1}, false},
      {"unknown FAMILY", {0, 3, 0, 0}, false},
      {"IPv4 /33", {0, 1, 33, 0, 1, 2, 3, 4, 5}, false},
      {"IPv6 /129",
       {0, 2, 129, 0,  1,  2,  3,  4,  5,  6, 7,
        8, 9, 10,  11, 12, 13, 14, 15, 16, 17},
       false},
      {"too many address octets", {0, 1, 24, 0, 192, 0, 2, 0}, false},
      {"too few address octets", {0, 1, 24, 0, 192, 0}, false},
      {"bit set past SOURCE", {0, 1, 23, 0, 192, 0, 3}, false},
      {"SCOPE set in a query", {0, 1, 24, 16, 192, 0, 2}, false},
      {"shorter than the fixed part", {0, 1, 24}, false},
  };
  for (const Row& row : rows) {
    SCOPED_TRACE(row.rule);
    ClientSubnet ecs;
    EXPECT_EQ(ParseClientSubnet(row.data, &ecs) == EcsStatus::kOk, row.ok);
  }
}

// The parsed option lands whole in the output; a rejected one leaves it as
// it was.
TEST(ClientSubnetTest, WritesOnlyAValidOption) {
  ClientSubnet ecs;
  ASSERT_EQ(ParseClientSubnet(Bytes{0, 1, 24, 0, 198, 51, 100}, &ecs),
            EcsStatus::kOk);
  EXPECT_EQ(ecs.family, kEcsFamilyV4);
  EXPECT_EQ(ecs.source_prefix, 24);
  EXPECT_EQ(ecs.address, (std::array<uint8_t, 16>{198, 51, 100}));
  // Octets past SOURCE are cleared, whatever the output held before.
  ASSERT_EQ(ParseClientSubnet(Bytes{0, 1, 8, 0, 10}, &ecs), EcsStatus::kOk);
  EXPECT_EQ(ecs.address, (std::array<uint8_t, 16>{10}));
  EXPECT_EQ(ParseClientSubnet(Bytes{0, 1, 24, 0, 192, 0, 3, 9}, &ecs),
            EcsStatus::kMalformed);
  EXPECT_EQ(ecs.source_prefix, 8);
  EXPECT_EQ(ecs.address, (std::array<uint8_t, 16>{10}));
}

// Parses with ldns; the tests below compare its view with what was written.
ldns_pkt* LdnsParse(std::span<const uint8_t> wire) {
  ldns_pkt* pkt = nullptr;
  EXPECT_EQ(ldns_wire2pkt(&pkt, wire.data(), wire.size()), LDNS_STATUS_OK);
  return pkt;
}

std::string RrText(ldns_pkt* pkt, ldns_pkt_section section, size_t i) {
  ldns_rr_list* list = ldns_pkt_get_section_clone(pkt, section);
  char* text = ldns_rr2str(ldns_rr_list_rr(list, i));
  std::string out(text);
  free(text);
  ldns_rr_list_deep_free(list);
  return out.substr(0, out.find('\n'));
}

WireName Name(const std::string& text) {
  const std::string wire = *EncodeName(text);
  WireName name;
  std::copy(wire.begin(), wire.end(), name.bytes.begin());
  name.size = static_cast<uint8_t>(wire.size());
  return name;
}

TEST(MessageWriterTest, CompressesAgainstTheQuestionCaseInsensitively) {
  Bytes buf(512);
  MessageWriter w(buf, 512);
  w.header().id = 7;
  w.header().flags = kFlagQr | kFlagAa;
  w.AddQuestion(Name("WWW.Example.TEST"), kTypeA, kClassIn);
  const std::string owner = *EncodeName("www.example.test");
  w.StartRecord(Section::kAnswer, Wire(owner), kTypeA, kClassIn, 300);
  w.AddBytes(Bytes{192, 0, 2, 1});
  w.EndRecord();
  const std::string apex = *EncodeName("example.test");
  const std::string mname = *EncodeName("ns1.example.test");
  const std::string rname = *EncodeName("hostmaster.example.net");
  w.StartRecord(Section::kAuthority, Wire(apex), kTypeSoa, kClassIn, 60);
  w.AddName(Wire(mname));
  w.AddName(Wire(rname));
  for (int i = 0; i < 5; ++i) w.AddU32(i);
  w.EndRecord();
  const size_t size = w.Finish();
  ASSERT_GT(size, 0u);
  buf.resize(size);
  // The owner is one pointer to the question (offset 12).
  const size_t answer_at = 12 + 18 + 4;
  EXPECT_EQ(buf[answer_at], 0xC0);
  EXPECT_EQ(buf[answer_at + 1], 12);
  ldns_pkt* pkt = LdnsParse(buf);
  ASSERT_NE(pkt, nullptr);
  EXPECT_EQ(ldns_pkt_id(pkt), 7);
  EXPECT_TRUE(ldns_pkt_aa(pkt));
  EXPECT_EQ(RrText(pkt, LDNS_SECTION_ANSWER, 0),
            "WWW.Example.TEST.\t300\tIN\tA\t192.0.2.1");
  EXPECT_EQ(RrText(pkt, LDNS_SECTION_AUTHORITY, 0),
            "Example.TEST.\t60\tIN\tSOA\tns1.Example.TEST. "
            "hostmaster.example.net. 0 1 2 3 4");
  ldns_pkt_free(pkt);
  // Compression saved octets: the SOA's owner and MNAME suffix are pointers.
  EXPECT_LT(size, 12u + 22 + 16 + 12 + 2 + 6 + 24 + 20);
}

TEST(MessageWriterTest, QuestionBytesAgainBecomeOnePointer) {
  Bytes buf(512);
  MessageWriter w(buf, 512);
  const MessageWriter::Mark empty = w.mark();
  const WireName question = Name("Api.Example.TEST");
  w.AddQuestion(question, kTypeA, kClassIn);
  w.StartRecord(Section::kAnswer, question.wire(), kTypeA, kClassIn, 60);
  w.EndRecord();
  const size_t answer_at = 12 + question.size + 4;
  EXPECT_EQ(buf[answer_at], 0xC0);
  EXPECT_EQ(buf[answer_at + 1], 12);

  // Rolled back past the question: a new, different question of the same
  // length must not be mistaken for the old one.
  w.Rollback(empty);
  const WireName other = Name("www.example.test");
  ASSERT_EQ(other.size, question.size);
  w.AddQuestion(other, kTypeA, kClassIn);
  w.StartRecord(Section::kAnswer, question.wire(), kTypeA, kClassIn, 60);
  w.EndRecord();
  // "api" differs: only the common suffix example.test (offset 16) is shared.
  EXPECT_EQ(buf[answer_at], 3);
  EXPECT_EQ(buf[answer_at + 4], 0xC0);
  EXPECT_EQ(buf[answer_at + 5], 16);
}

TEST(MessageWriterTest, AddRecordWritesWhatStartAddEndWrite) {
  const WireName question = Name("www.example.test");
  const std::string owner = *EncodeName("edge.example.test");
  const Bytes rdata{0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1};
  Bytes a(512), b(512);
  MessageWriter one(a, 512), parts(b, 512);
  for (MessageWriter* w : {&one, &parts}) {
    w->AddQuestion(question, kTypeAaaa, kClassIn);
  }
  one.AddRecord(Section::kAdditional, Wire(owner), kTypeAaaa, kClassIn, 3600,
                rdata);
  parts.StartRecord(Section::kAdditional, Wire(owner), kTypeAaaa, kClassIn,
                    3600);
  parts.AddBytes(rdata);
  parts.EndRecord();
  EXPECT_EQ(one.count(Section::kAdditional), 1);
  const size_t size = one.Finish();
  ASSERT_GT(size, 0u);
  ASSERT_EQ(parts.Finish(), size);
  EXPECT_TRUE(std::equal(a.begin(), a.begin() + size, b.begin()));

  // Too big for the limit: dropped whole, overflow set.
  Bytes small(40);
  MessageWriter w(small, 40);
  w.AddQuestion(question, kTypeAaaa, kClassIn);
  w.AddRecord(Section::kAnswer, question.wire(), kTypeAaaa, kClassIn, 1, rdata);
  EXPECT_TRUE(w.overflow());
  EXPECT_EQ(w.count(Section::kAnswer), 0);
}

TEST(MessageWriterTest, OverflowAndRollback) {
  Bytes buf(64);
  MessageWriter w(buf, 64);
  w.AddQuestion(Name("example.test"), kTypeTxt, kClassIn);
  const MessageWriter::Mark mark = w.mark();
  w.StartRecord(Section::kAnswer, Wire(*EncodeName("example.test")), kTypeTxt,
                kClassIn, 1);
  w.AddBytes(Bytes(100, 'x'));
  w.EndRecord();
  EXPECT_TRUE(w.overflow());
  EXPECT_EQ(w.Finish(), 0u);
  w.Rollback(mark);
  EXPECT_FALSE(w.overflow());
  EXPECT_EQ(w.count(Section::kAnswer), 0);
  EXPECT_EQ(w.Finish(), 12u + 14 + 4);
  for (size_t tiny : {0, 5, 11}) {
    MessageWriter small(buf, tiny);
    EXPECT_EQ(small.Finish(), 0u);
  }
}

// RollbackToQuestion returns to where AddQuestion left the message, as a
// Mark taken right after it would: records, counts and the compression
// targets they added are gone, the question's own targets stay.
TEST(MessageWriterTest, RollbackToQuestionKeepsTheQuestionOnly) {
  Bytes buf(512);
  MessageWriter w(buf, 512);
  w.AddQuestion(Name("Www.Example.test"), kTypeA, kClassIn);
  const size_t question_end = w.size();
  w.StartRecord(Section::kAnswer, Wire(*EncodeName("other.test")), kTypeCname,
                kClassIn, 60);
  w.AddName(Wire(*EncodeName("target.other.test")));
  w.EndRecord();
  w.AddRecord(Section::kAdditional, Wire(*EncodeName("other.test")), kTypeA,
              kClassIn, 60, std::array<uint8_t, 4>{192, 0, 2, 1});
  ASSERT_EQ(w.count(Section::kAnswer), 1);
  w.RollbackToQuestion();
  EXPECT_EQ(w.size(), question_end);
  EXPECT_EQ(w.count(Section::kAnswer), 0);
  EXPECT_EQ(w.count(Section::kAdditional), 0);
  // "other.test" was forgotten: "other" written again, then a pointer to the
  // question's "test"; "example.test" is still the question's, one pointer.
  w.AddRecord(Section::kAnswer, Wire(*EncodeName("other.test")), kTypeA,
              kClassIn, 60, std::array<uint8_t, 4>{192, 0, 2, 2});
  w.AddRecord(Section::kAnswer, Wire(*EncodeName("example.test")), kTypeA,
              kClassIn, 60, std::array<uint8_t, 4>{192, 0, 2, 3});
  const size_t fixed = 10 + 4;  // TYPE .. RDLENGTH, then an IPv4 address
  EXPECT_EQ(w.size(), question_end + (6 + 2 + fixed) + (2 + fixed));

  // Without a question: back to the header alone; an overflowed message
  // becomes sendable again.
  MessageWriter bare(buf, 64);
  bare.AddBytes(Bytes(100, 'x'));
  ASSERT_TRUE(bare.overflow());
  bare.RollbackToQuestion();
  EXPECT_FALSE(bare.overflow());
  EXPECT_EQ(bare.Finish(), 12u);
}

// A question that did not fit stays unsent after RollbackToQuestion.
TEST(MessageWriterTest, RollbackToAnOverflowedQuestionStaysOverflowed) {
  Bytes buf(512);
  MessageWriter w(buf, 16);
  w.AddQuestion(Name("example.test"), kTypeA, kClassIn);
  ASSERT_TRUE(w.overflow());
  w.RollbackToQuestion();
  EXPECT_TRUE(w.overflow());
  EXPECT_EQ(w.Finish(), 0u);
}

TEST(MessageWriterTest, OptWithEcsRoundTrips) {
  ClientSubnet ecs;
  ecs.family = kEcsFamilyV4;
  ecs.source_prefix = 22;
  ecs.scope_prefix = 16;
  ecs.address = {198, 51, 100};
  const EdnsReply reply{.udp_size = 1232,
                        .extended_rcode = 1,
                        .dnssec_ok = true,
                        .client_subnet = &ecs};
  Bytes buf(512);
  MessageWriter w(buf, 512);
  w.AddQuestion(Name("a.test"), kTypeA, kClassIn);
  const size_t before = w.size();
  AddOpt(w, reply);
  EXPECT_EQ(w.size() - before, OptSize(reply));
  buf.resize(w.Finish());
  ldns_pkt* pkt = LdnsParse(buf);
  ASSERT_NE(pkt, nullptr);
  EXPECT_TRUE(ldns_pkt_edns(pkt));
  EXPECT_EQ(ldns_pkt_edns_udp_size(pkt), 1232);
  EXPECT_EQ(ldns_pkt_edns_extended_rcode(pkt), 1);
  EXPECT_TRUE(ldns_pkt_edns_do(pkt));
  ldns_rdf* data = ldns_pkt_edns_data(pkt);
  ASSERT_NE(data, nullptr);
  const Bytes expected = {0, 8, 0, 7, 0, 1, 22, 16, 198, 51, 100};
  EXPECT_EQ(
      Bytes(ldns_rdf_data(data), ldns_rdf_data(data) + ldns_rdf_size(data)),
      expected);
  ldns_pkt_free(pkt);
}

}  // namespace
}  // namespace ax::dns
