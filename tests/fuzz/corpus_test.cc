// Replays every target's corpus (tests/fuzz/corpus/<name>/) through its check,
// as an ordinary test under any compiler: every seed and every crasher found
// so far keeps passing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "fuzz_targets.h"

namespace ax::fuzz {
namespace {

class CorpusTest : public ::testing::TestWithParam<Target> {};

TEST_P(CorpusTest, EveryInputKeepsTheInvariants) {
  const std::filesystem::path dir =
      std::filesystem::path(AX_FUZZ_CORPUS) / GetParam().name;
  size_t files = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<uint8_t> input((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
    EXPECT_EQ(GetParam().check(input), "") << entry.path().filename();
    ++files;
  }
  EXPECT_GE(files, 10u) << dir;
}

INSTANTIATE_TEST_SUITE_P(Targets, CorpusTest, ::testing::ValuesIn(kTargets),
                         [](const auto& param_info) {
                           return std::string(param_info.param.name);
                         });

}  // namespace
}  // namespace ax::fuzz
