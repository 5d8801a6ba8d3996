// The queries ax_loadgen sends: wire templates built once, cycled at run time.
#ifndef AX_TESTS_BENCH_TOOLS_QUERY_SET_H_
#define AX_TESTS_BENCH_TOOLS_QUERY_SET_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "loadgen_options.h"

namespace ax::bench {

struct QueryTemplate {
  std::vector<uint8_t> wire;  // ID 0; patched per send
  size_t question_end = 0;    // header + question: what an answer echoes
};

struct QuerySet {
  std::vector<QueryTemplate> queries;
  size_t subnets = 0;  // distinct client subnets in the set
};

// Builds the set from --queries or the built-in mix, shuffled with --seed.
// Returns false with `error` set on a bad file, name, type or subnet.
bool BuildQuerySet(const LoadgenOptions& options, QuerySet* set,
                   std::string* error);

}  // namespace ax::bench

#endif  // AX_TESTS_BENCH_TOOLS_QUERY_SET_H_
