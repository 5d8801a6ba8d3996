// RFC 7766 framing without sockets: messages split anywhere, several per
// read (pipelining), zero-length frames, and the 65535-byte maximum.
#include "server/tcp_framing.h"

#include <gtest/gtest.h>

namespace ax::dns {
namespace {

std::vector<uint8_t> Framed(const std::vector<std::vector<uint8_t>>& messages) {
  std::vector<uint8_t> out;
  for (const auto& m : messages) AppendFrame(out, m);
  return out;
}

TEST(TcpFramingTest, PrefixIsBigEndianLength) {
  std::vector<uint8_t> out;
  AppendFrame(out, std::vector<uint8_t>(258, 7));
  ASSERT_EQ(out.size(), 260u);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 2);
}

TEST(TcpFramingTest, PipelinedMessagesInOneRead) {
  FrameReader reader;
  reader.Append(Framed({{1, 2, 3}, {4}, {5, 6}}));
  std::vector<std::vector<uint8_t>> got;
  while (auto m = reader.Next()) got.emplace_back(m->begin(), m->end());
  EXPECT_EQ(got, (std::vector<std::vector<uint8_t>>{{1, 2, 3}, {4}, {5, 6}}));
  reader.Compact();
  EXPECT_FALSE(reader.partial());
}

TEST(TcpFramingTest, MessagesSplitAtEveryByte) {
  const std::vector<uint8_t> bytes = Framed({{1, 2, 3}, {4, 5}});
  FrameReader reader;
  std::vector<std::vector<uint8_t>> got;
  for (uint8_t b : bytes) {
    reader.Append({&b, 1});
    while (auto m = reader.Next()) got.emplace_back(m->begin(), m->end());
    reader.Compact();
  }
  EXPECT_EQ(got, (std::vector<std::vector<uint8_t>>{{1, 2, 3}, {4, 5}}));
  EXPECT_FALSE(reader.partial());
}

TEST(TcpFramingTest, PartialMessageWaits) {
  FrameReader reader;
  const std::vector<uint8_t> head = {0, 5, 1, 2};
  reader.Append(head);
  EXPECT_FALSE(reader.Next().has_value());
  EXPECT_TRUE(reader.partial());
}

TEST(TcpFramingTest, ZeroLengthFrameIsReportedEmpty) {
  FrameReader reader;
  const std::vector<uint8_t> bytes = {0, 0};
  reader.Append(bytes);
  const auto m = reader.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_TRUE(m->empty());
}

TEST(TcpFramingTest, LargestMessage) {
  FrameReader reader;
  reader.Append(Framed({std::vector<uint8_t>(65535, 9)}));
  const auto m = reader.Next();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->size(), 65535u);
}

}  // namespace
}  // namespace ax::dns
