// Wire-format names: decompression limits (loops, forward pointers, length,
// label types), skipping, case folding and text encoding.
#include "wire/name.h"

#include <gtest/gtest.h>

#include <vector>

namespace ax::dns {
namespace {

using Bytes = std::vector<uint8_t>;

struct ReadRow {
  std::string rule;
  Bytes message;
  size_t offset;
  bool ok;
  std::string text = "";
  size_t next = 0;  // offset after the name
};

Bytes Labels(const std::string& text) {
  const std::string wire = *EncodeName(text);
  return Bytes(wire.begin(), wire.end());
}

Bytes Concat(std::initializer_list<Bytes> parts) {
  Bytes out;
  for (const Bytes& p : parts) out.insert(out.end(), p.begin(), p.end());
  return out;
}

TEST(NameTest, ReadTable) {
  const Bytes www = Labels("www.example.test");
  // A name of 127 one-octet labels is 255 octets; one more label is too long.
  Bytes max_name, long_name;
  for (int i = 0; i < 127; ++i) max_name.insert(max_name.end(), {1, 'a'});
  max_name.push_back(0);
  long_name = Concat({Bytes{1, 'b'}, max_name});
  Bytes label63 = {63};
  label63.insert(label63.end(), 63, 'x');
  label63.push_back(0);
  const std::vector<ReadRow> rows = {
      {"plain", www, 0, true, "www.example.test.", www.size()},
      {"root", Bytes{0}, 0, true, ".", 1},
      {"pointer to an earlier suffix",
       Concat({www, Bytes{3, 'f', 'o', 'o', 0xC0, 4}}), www.size(), true,
       "foo.example.test.", www.size() + 6},
      {"pointer to a pointer, each going back",
       Concat({www, Bytes{1, 'a', 0xC0, 0}, Bytes{1, 'b', 0xC0, 18}}), 22, true,
       "b.a.www.example.test.", 26},
      {"pointer to itself", Bytes{0xC0, 0}, 0, false},
      {"forward pointer", Bytes{0xC0, 2, 0}, 0, false},
      {"loop through two pointers", Bytes{1, 'a', 0xC0, 4, 1, 'b', 0xC0, 0}, 4,
       false},
      {"pointer cut short", Bytes{1, 'a', 0xC0}, 0, false},
      {"label runs off the end", Bytes{5, 'a', 'b'}, 0, false},
      {"no root label", Bytes{1, 'a'}, 0, false},
      {"extended label type 01", Bytes{0x41, 0}, 0, false},
      {"reserved label type 10", Bytes{0x81, 0}, 0, false},
      {"63-octet label", label63, 0, true, std::string(63, 'x') + ".",
       label63.size()},
      {"255 octets", max_name, 0, true, "", max_name.size()},
      {"256 octets", long_name, 0, false},
      {"256 octets via a pointer", Concat({max_name, Bytes{1, 'b', 0xC0, 0}}),
       max_name.size(), false},
  };
  for (const ReadRow& row : rows) {
    SCOPED_TRACE(row.rule);
    size_t offset = row.offset;
    WireName name;
    EXPECT_EQ(ReadName(row.message, &offset, &name), row.ok);
    if (!row.ok) continue;
    EXPECT_EQ(offset, row.next);
    if (!row.text.empty()) {
      EXPECT_EQ(NameToText(name.wire()), row.text);
    }
    size_t skipped = row.offset;
    EXPECT_TRUE(SkipName(row.message, &skipped));
    EXPECT_EQ(skipped, row.next);
  }
}

TEST(NameTest, SkipRejectsBadLabels) {
  for (const Bytes& bad : {Bytes{}, Bytes{3, 'a'}, Bytes{0x40}, Bytes{0xC0}}) {
    size_t offset = 0;
    EXPECT_FALSE(SkipName(bad, &offset));
  }
}

TEST(NameTest, LowerCaseKeepsLengthsAndNonLetters) {
  const Bytes mixed = Labels("WwW.Ex-AMPLE.[Z]");
  size_t offset = 0;
  WireName name;
  ASSERT_TRUE(ReadName(mixed, &offset, &name));
  EXPECT_EQ(name.labels, 3);
  EXPECT_EQ(NameToText(ToLower(name).wire()), "www.ex-ample.[z].");
  EXPECT_EQ(NameToText(name.wire()), "WwW.Ex-AMPLE.[Z].");
}

TEST(NameTest, EncodeTable) {
  EXPECT_EQ(EncodeName("a.bc"), std::string("\1a\2bc\0", 6));
  EXPECT_EQ(EncodeName("a.bc."), std::string("\1a\2bc\0", 6));
  EXPECT_EQ(EncodeName(""), std::string("\0", 1));
  EXPECT_EQ(EncodeName("."), std::string("\0", 1));
  EXPECT_EQ(EncodeName("a..b"), std::nullopt);
  EXPECT_EQ(EncodeName(".a"), std::nullopt);
  EXPECT_EQ(EncodeName("a.."), std::nullopt);
  EXPECT_EQ(EncodeName(std::string(64, 'x')), std::nullopt);
  EXPECT_TRUE(EncodeName(std::string(63, 'x')).has_value());
  std::string long_name;
  for (int i = 0; i < 127; ++i) long_name += "a.";
  EXPECT_TRUE(EncodeName(long_name).has_value());  // 255 octets
  EXPECT_EQ(EncodeName("b." + long_name), std::nullopt);
}

}  // namespace
}  // namespace ax::dns
