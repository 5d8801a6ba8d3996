// libFuzzer entry for the query path (built with -DAX_FUZZ=ON under clang): any
// broken invariant of CheckQuery aborts, which libFuzzer reports as a crash.
#include <cstdio>
#include <cstdlib>

#include "query_fuzz_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string problem = ax::dns::fuzz::CheckQuery({data, size});
  if (!problem.empty()) {
    std::fprintf(stderr, "query fuzz invariant broken: %s\n", problem.c_str());
    std::abort();
  }
  return 0;
}
