// LineSplitter: a watch stream cut at every possible point, and in every
// chunk size, gives the same lines; long lines and early stops.
#include "ax/kube/line_splitter.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ax::kube {
namespace {

// Three events as the apiserver writes them, one with a "\r\n" ending, a
// blank line and a multi-byte UTF-8 character that a cut may split.
const std::string kStream =
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}\n"
    "{\"type\":\"MODIFIED\",\"object\":{\"data\":\"caf\xc3\xa9\"}}\r\n"
    "\n"
    "{\"type\":\"DELETED\",\"object\":{}}\n";
const std::vector<std::string> kLines = {
    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\"}}}",
    "{\"type\":\"MODIFIED\",\"object\":{\"data\":\"caf\xc3\xa9\"}}",
    "{\"type\":\"DELETED\",\"object\":{}}"};

std::vector<std::string> FeedChunks(
    const std::vector<std::string_view>& chunks) {
  LineSplitter splitter;
  std::vector<std::string> lines;
  for (const std::string_view chunk : chunks) {
    EXPECT_TRUE(splitter.Feed(chunk, [&](std::string_view line) {
      lines.emplace_back(line);
      return true;
    }));
  }
  EXPECT_EQ(splitter.pending(), 0u);
  return lines;
}

TEST(LineSplitterTest, WholeStreamInOneChunk) {
  EXPECT_EQ(FeedChunks({kStream}), kLines);
}

TEST(LineSplitterTest, EverySingleSplitPoint) {
  const std::string_view all = kStream;
  for (size_t cut = 0; cut <= all.size(); ++cut) {
    EXPECT_EQ(FeedChunks({all.substr(0, cut), all.substr(cut)}), kLines)
        << "cut at " << cut;
  }
}

TEST(LineSplitterTest, EveryPairOfSplitPoints) {
  const std::string_view all = kStream;
  for (size_t a = 0; a <= all.size(); ++a) {
    for (size_t b = a; b <= all.size(); ++b) {
      ASSERT_EQ(
          FeedChunks({all.substr(0, a), all.substr(a, b - a), all.substr(b)}),
          kLines)
          << "cuts at " << a << " and " << b;
    }
  }
}

TEST(LineSplitterTest, EveryChunkSize) {
  const std::string_view all = kStream;
  for (size_t size = 1; size <= all.size(); ++size) {
    std::vector<std::string_view> chunks;
    for (size_t at = 0; at < all.size(); at += size) {
      chunks.push_back(all.substr(at, size));
    }
    EXPECT_EQ(FeedChunks(chunks), kLines) << "chunks of " << size;
  }
}

TEST(LineSplitterTest, HoldsAnUnfinishedLine) {
  LineSplitter splitter;
  std::vector<std::string> lines;
  const auto keep = [&](std::string_view line) {
    lines.emplace_back(line);
    return true;
  };
  EXPECT_TRUE(splitter.Feed("{\"type\":", keep));
  EXPECT_TRUE(lines.empty());
  EXPECT_EQ(splitter.pending(), 8u);
  EXPECT_TRUE(splitter.Feed("\"ADDED\"}\n{", keep));
  EXPECT_EQ(lines, std::vector<std::string>{"{\"type\":\"ADDED\"}"});
  EXPECT_EQ(splitter.pending(), 1u);
}

TEST(LineSplitterTest, StopsWhenTheConsumerSaysSo) {
  LineSplitter splitter;
  int seen = 0;
  EXPECT_FALSE(
      splitter.Feed("a\nb\nc\n", [&](std::string_view) { return ++seen < 2; }));
  EXPECT_EQ(seen, 2);
  EXPECT_FALSE(splitter.overflowed());
}

TEST(LineSplitterTest, RefusesALineOverTheLimit) {
  LineSplitter splitter(10);
  const auto none = [](std::string_view) { return true; };
  EXPECT_TRUE(splitter.Feed("0123456789\n", none));  // exactly the limit
  EXPECT_TRUE(splitter.Feed("01234", none));
  EXPECT_FALSE(splitter.Feed("567890", none));  // 11 bytes, no newline yet
  EXPECT_TRUE(splitter.overflowed());
}

}  // namespace
}  // namespace ax::kube
