// CheckProbeResponse: the parser fed whole and in chunks agrees with itself.
#include "engine/http_response_parser.h"
#include "fuzz_targets.h"

namespace ax::fuzz {
namespace {

constexpr size_t kMaxBody = 4096;

struct Verdict {
  probe::HttpResponseParser::State state;
  int status;
  std::string body;
  bool truncated;
  bool operator==(const Verdict&) const = default;
};

Verdict Of(const probe::HttpResponseParser& p) {
  return {p.state(), p.status_code(), p.body(), p.body_truncated()};
}

}  // namespace

std::string CheckProbeResponse(Input input) {
  const std::string_view text = Text(input);
  probe::HttpResponseParser whole(kMaxBody);
  whole.Feed(text);
  whole.FinishAtEof();
  probe::HttpResponseParser pieces(kMaxBody);
  Chunks chunks(input);
  for (size_t at = 0; at < text.size();) {
    const size_t n = std::min(chunks.Next(64), text.size() - at);
    pieces.Feed(text.substr(at, n));
    at += n;
  }
  pieces.FinishAtEof();
  if (!(Of(whole) == Of(pieces))) return "chunked feeding changed the verdict";
  if (whole.body().size() > kMaxBody) return "body past its bound";
  using State = probe::HttpResponseParser::State;
  if (whole.state() == State::kIncomplete) return "incomplete after EOF";
  if (whole.state() == State::kError && whole.error().empty()) {
    return "an error without a reason";
  }
  return "";
}

}  // namespace ax::fuzz
