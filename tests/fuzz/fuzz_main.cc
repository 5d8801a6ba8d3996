// libFuzzer entry of one target (built with -DAX_FUZZ=ON under clang, once per
// target with AX_FUZZ_TARGET set to its index in kTargets): a broken invariant
// aborts, which libFuzzer reports as a crash.
#include <cstdio>
#include <cstdlib>

#include "fuzz_targets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  constexpr const ax::fuzz::Target& kTarget =
      ax::fuzz::kTargets[AX_FUZZ_TARGET];
  const std::string problem = kTarget.check({data, size});
  if (!problem.empty()) {
    std::fprintf(stderr, "%s fuzz invariant broken: %s\n", kTarget.name,
                 problem.c_str());
    std::abort();
  }
  return 0;
}
