// Every fuzz target of Ax: one input through one parser, and the invariants it
// keeps whatever the input. A check returns "" when every invariant holds, else
// what broke. Shared by the libFuzzer binaries (fuzz_main.cc, one per target)
// and the corpus replay test, so each corpus (corpus/<name>/) is checked the
// same way under any compiler. The checks derive every choice (chunk sizes,
// transport, clock) from the input, so an input always takes the same path.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace ax::fuzz {

using Input = std::span<const uint8_t>;

// The query path with RRL and geo on (the geo test MMDBs): no response, or one
// ldns parses with QR, the query's ID, within the transport's limit.
std::string CheckQuery(Input input);
// RFC 7766 framing: FrameReader fed in chunks yields exactly the frames a
// reference reading finds; FrameWriter sends them back byte for byte, never
// holding more than twice what is unsent plus one frame.
std::string CheckTcpFraming(Input input);
// Snapshot documents and route-table ConfigMaps: never throws; an accepted
// document serialises to one that parses back to the same bytes.
std::string CheckSnapshot(Input input);
// A watch stream: lines split in chunks are the lines of the whole, each
// parsed as an event without throwing.
std::string CheckWatchStream(Input input);
// A probe's HTTP response: the same verdict fed whole or in chunks, the body
// never beyond its bound.
std::string CheckProbeResponse(Input input);
// The manifest loader (YAML, aliases, nesting): never throws or crashes; each
// error names what it is about.
std::string CheckManifest(Input input);
// The explain query and the redirector: statuses from the documented set,
// bodies that serialise, redirects to a node's URL.
std::string CheckHttpRequests(Input input);

struct Target {
  const char* name;  // corpus/<name>/, ax_<name>_fuzz
  std::string (*check)(Input);
};

inline constexpr Target kTargets[] = {
    {"query", CheckQuery},
    {"tcp_framing", CheckTcpFraming},
    {"snapshot", CheckSnapshot},
    {"watch_stream", CheckWatchStream},
    {"probe_response", CheckProbeResponse},
    {"manifest", CheckManifest},
    {"http_requests", CheckHttpRequests},
};

// Deterministic chunk sizes from the input, for feeding parsers piecewise.
class Chunks {
 public:
  explicit Chunks(Input input) : state_(0x9E3779B97F4A7C15ULL ^ input.size()) {
    for (size_t i = 0; i < input.size() && i < 16; ++i) {
      state_ = state_ * 31 + input[i];
    }
  }
  // 1..max bytes.
  size_t Next(size_t max) {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return 1 + state_ % max;
  }

 private:
  uint64_t state_;
};

inline std::string_view Text(Input input) {
  return {reinterpret_cast<const char*>(input.data()), input.size()};
}

}  // namespace ax::fuzz
