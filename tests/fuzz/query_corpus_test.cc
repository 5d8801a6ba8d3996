// Replays the fuzz corpus (tests/fuzz/corpus/query) through the fuzz target's
// own check, as an ordinary test under any compiler: every seed and every
// crasher found so far keeps passing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "query_fuzz_check.h"

namespace ax::dns::fuzz {
namespace {

TEST(QueryCorpusTest, EveryInputKeepsTheInvariants) {
  size_t files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(AX_QUERY_CORPUS)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> input((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    EXPECT_EQ(CheckQuery(input), "") << entry.path().filename();
    ++files;
  }
  EXPECT_GE(files, 30u);
}

}  // namespace
}  // namespace ax::dns::fuzz
