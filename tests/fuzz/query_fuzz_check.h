// One fuzz input through the whole query path, and the invariants every
// response keeps whatever the input: shared by the libFuzzer target
// (query_fuzz.cc) and the corpus replay test, so the corpus is checked the same
// way under any compiler.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace ax::dns::fuzz {

// Answers `input` as a query from a small world (responder_world.h) and checks
// the response: none at all, or one that ldns parses, with QR=1, the query's
// ID, within the transport's size limit and never SERVFAIL (a state is loaded).
// The transport and source address derive from the input's length, so a given
// input always takes the same path. Returns "" when every invariant holds, else
// what broke.
std::string CheckQuery(std::span<const uint8_t> input);

}  // namespace ax::dns::fuzz
