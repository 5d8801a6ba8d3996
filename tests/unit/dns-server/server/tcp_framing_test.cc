// RFC 7766 framing without sockets: messages split anywhere, several per
// read (pipelining), zero-length frames, the 65535-byte maximum, and output
// that keeps only what is unsent.
#include "server/tcp_framing.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace ax::dns {
namespace {

std::vector<uint8_t> Framed(const std::vector<std::vector<uint8_t>>& messages) {
  FrameWriter out;
  for (const auto& m : messages) out.Append(m);
  return {out.Unsent().begin(), out.Unsent().end()};
}

TEST(TcpFramingTest, PrefixIsBigEndianLength) {
  const std::vector<uint8_t> out = Framed({std::vector<uint8_t>(258, 7)});
  ASSERT_EQ(out.size(), 260u);
  EXPECT_EQ(out[0], 1);
  EXPECT_EQ(out[1], 2);
}

TEST(TcpFramingTest, SentBytesLeaveTheWriter) {
  FrameWriter out;
  out.Append(std::vector<uint8_t>(98, 1));  // 100 bytes framed
  out.Append(std::vector<uint8_t>(98, 2));
  out.Sent(60);
  EXPECT_EQ(out.unsent(), 140u);
  EXPECT_EQ(out.held(), 200u);  // less than half sent: kept in place
  out.Sent(50);
  EXPECT_EQ(out.unsent(), 90u);
  EXPECT_EQ(out.held(), 90u);  // more than half sent: dropped
  EXPECT_EQ(out.Unsent()[0], 2);
  EXPECT_EQ(out.Unsent()[1], 2);  // mid-frame, bytes in order
  out.Sent(90);
  EXPECT_EQ(out.unsent(), 0u);
  EXPECT_EQ(out.held(), 0u);
}

// A client that reads a little at a time never makes the writer hold more
// than twice what is unsent (plus the answer just appended).
TEST(TcpFramingTest, ASlowReaderKeepsTheWriterBounded) {
  FrameWriter out;
  size_t most = 0;
  for (int i = 0; i < 10'000; ++i) {
    out.Append(std::vector<uint8_t>(500, static_cast<uint8_t>(i)));
    while (out.unsent() > 4096) out.Sent(300);
    most = std::max(most, out.held());
  }
  EXPECT_LE(most, 2 * 4096u + 502);
}

TEST(TcpFramingTest, ADrainedWriterReleasesALargeBuffer) {
  FrameWriter out;
  out.Append(std::vector<uint8_t>(65535, 3));
  EXPECT_GE(out.capacity(), 65537u);
  out.Sent(out.unsent());
  EXPECT_EQ(out.capacity(), 0u);
  out.Append(std::vector<uint8_t>(100, 4));
  out.Sent(out.unsent());
  EXPECT_GT(out.capacity(), 0u);  // a small one is kept for the next answers
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
