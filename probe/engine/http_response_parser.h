// An incremental HTTP/1.x response parser for probe responses: status line,
// headers, and a body delimited by Content-Length, chunked encoding or the
// connection closing. Keeps at most `max_body_bytes` of body and stops there
// (a health verdict never needs more); what a hostile endpoint could stretch
// without end is bounded too: trailers (kMaxHeaderBytes in all), interim 1xx
// responses (kMaxInterimResponses) and the whole response on the wire. Pure:
// bytes in, state out; no sockets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ax::probe {

class HttpResponseParser {
 public:
  enum class State { kIncomplete, kComplete, kError };

  static constexpr size_t kMaxHeaderBytes = 16 * 1024;
  static constexpr int kMaxInterimResponses = 4;

  explicit HttpResponseParser(size_t max_body_bytes)
      : max_body_(max_body_bytes),
        max_wire_bytes_(8 * (max_body_bytes + kMaxHeaderBytes)) {}

  // Consumes the next bytes of the stream. Once kComplete or kError, further
  // input is ignored.
  State Feed(std::string_view bytes);
  // The peer closed the connection: completes a close-delimited body, else an
  // error if the response was not complete.
  State FinishAtEof();

  State state() const { return state_; }
  int status_code() const { return status_; }
  const std::string& body() const { return body_; }
  // True when the body was longer than max_body_bytes and was cut there.
  bool body_truncated() const { return truncated_; }
  const std::string& error() const { return error_; }
  // A header's value by case-insensitive name (the first if repeated).
  std::optional<std::string_view> Header(std::string_view name) const;

 private:
  enum class Stage {
    kHead,
    kLengthBody,
    kChunkSize,
    kChunkData,
    kChunkDataEnd,
    kTrailers,
    kCloseBody,
    kDone
  };

  void Run();
  bool ParseHead(std::string_view head);
  // Takes up to `want` bytes from buf_ at pos_ into the body.
  size_t TakeBody(size_t want);
  void Complete();
  void Fail(std::string why);
  // The next CRLF-terminated line at pos_, or nullopt if not all here yet.
  std::optional<std::string_view> NextLine();

  size_t max_body_;
  // All bytes of one response, framing included: 1-byte chunks take ~6 wire
  // bytes each, and chunk extensions could take any number.
  size_t max_wire_bytes_;
  size_t wire_bytes_ = 0;
  State state_ = State::kIncomplete;
  Stage stage_ = Stage::kHead;
  std::string buf_;  // received, not yet consumed from pos_
  size_t pos_ = 0;
  int status_ = 0;
  std::vector<std::pair<std::string, std::string>> headers_;  // lower-case
  uint64_t remaining_ = 0;  // body or chunk bytes still expected
  size_t trailer_bytes_ = 0;
  int interim_responses_ = 0;
  std::string body_;
  bool truncated_ = false;
  std::string error_;
};

}  // namespace ax::probe
