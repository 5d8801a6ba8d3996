// The incremental probe-response parser (http_response_parser.h).
#include "engine/http_response_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace ax::probe {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool ContainsToken(std::string_view list, std::string_view token) {
  return Lower(list).find(token) != std::string::npos;
}

}  // namespace

HttpResponseParser::State HttpResponseParser::Feed(std::string_view bytes) {
  if (state_ != State::kIncomplete) return state_;
  buf_.append(bytes);
  wire_bytes_ += bytes.size();
  Run();
  if (state_ == State::kIncomplete && wire_bytes_ > max_wire_bytes_) {
    Fail("response too large on the wire");
  }
  // Drop what has been consumed so the buffer holds at most one partial item.
  if (pos_ > 0) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return state_;
}

HttpResponseParser::State HttpResponseParser::FinishAtEof() {
  if (state_ != State::kIncomplete) return state_;
  if (stage_ == Stage::kCloseBody) {
    Complete();
  } else if (stage_ == Stage::kHead && buf_.empty()) {
    Fail("connection closed without a response");
  } else {
    Fail("connection closed before the response was complete");
  }
  return state_;
}

std::optional<std::string_view> HttpResponseParser::Header(
    std::string_view name) const {
  const std::string key = Lower(name);
  for (const auto& [k, v] : headers_) {
    if (k == key) return std::string_view(v);
  }
  return std::nullopt;
}

void HttpResponseParser::Run() {
  while (state_ == State::kIncomplete) {
    switch (stage_) {
      case Stage::kHead: {
        const size_t end = buf_.find("\r\n\r\n", pos_);
        // The bound holds however the head arrives: whole in one read, or
        // over many (found by the fuzz target, corpus/probe_response).
        if ((end == std::string::npos ? buf_.size() : end) - pos_ >
            kMaxHeaderBytes) {
          return Fail("headers too large");
        }
        if (end == std::string::npos) return;
        const std::string_view head(buf_.data() + pos_, end - pos_);
        pos_ = end + 4;
        if (!ParseHead(head)) return;
        break;
      }
      case Stage::kLengthBody: {
        if (remaining_ == 0) return Complete();
        const size_t taken = TakeBody(remaining_);
        if (taken == 0) return;
        remaining_ -= taken;
        break;
      }
      case Stage::kCloseBody:
        if (TakeBody(SIZE_MAX) == 0) return;
        break;
      case Stage::kChunkSize: {
        const auto line = NextLine();
        if (!line) return;
        std::string_view size_text = line->substr(0, line->find(';'));
        size_text = Trim(size_text);
        uint64_t size = 0;
        const auto [ptr, ec] = std::from_chars(
            size_text.data(), size_text.data() + size_text.size(), size, 16);
        if (ec != std::errc() || ptr != size_text.data() + size_text.size() ||
            size_text.empty()) {
          return Fail("bad chunk size");
        }
        remaining_ = size;
        stage_ = size == 0 ? Stage::kTrailers : Stage::kChunkData;
        break;
      }
      case Stage::kChunkData: {
        if (remaining_ == 0) {
          stage_ = Stage::kChunkDataEnd;
          break;
        }
        const size_t taken = TakeBody(remaining_);
        if (taken == 0) return;
        remaining_ -= taken;
        break;
      }
      case Stage::kChunkDataEnd: {
        const auto line = NextLine();
        if (!line) return;
        if (!line->empty()) return Fail("chunk not followed by CRLF");
        stage_ = Stage::kChunkSize;
        break;
      }
      case Stage::kTrailers: {
        const auto line = NextLine();
        if (!line) return;
        if (line->empty()) return Complete();
        // Trailer fields are not needed for a verdict; an endless stream of
        // them must not keep the probe reading.
        trailer_bytes_ += line->size() + 2;
        if (trailer_bytes_ > kMaxHeaderBytes) return Fail("trailers too large");
        break;
      }
      case Stage::kDone:
        return;
    }
  }
}

bool HttpResponseParser::ParseHead(std::string_view head) {
  size_t line_end = head.find("\r\n");
  std::string_view status_line = head.substr(0, line_end);
  // "HTTP/1.1 200 OK": the reason phrase is optional.
  if (status_line.size() < 12 || status_line.substr(0, 7) != "HTTP/1." ||
      status_line[8] != ' ') {
    Fail("not an HTTP/1.x status line");
    return false;
  }
  const std::string_view code = status_line.substr(9, 3);
  int status = 0;
  const auto [ptr, ec] =
      std::from_chars(code.data(), code.data() + code.size(), status);
  if (ec != std::errc() || ptr != code.data() + 3 || status < 100 ||
      status > 999 || (status_line.size() > 12 && status_line[12] != ' ')) {
    Fail("bad status code");
    return false;
  }
  status_ = status;
  headers_.clear();
  while (line_end != std::string_view::npos) {
    const size_t start = line_end + 2;
    line_end = head.find("\r\n", start);
    const std::string_view line = head.substr(
        start,
        line_end == std::string_view::npos ? head.npos : line_end - start);
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || colon == 0) {
      Fail("malformed header line");
      return false;
    }
    headers_.emplace_back(Lower(line.substr(0, colon)),
                          std::string(Trim(line.substr(colon + 1))));
  }

  // An interim 1xx (other than 101) precedes the real response: skip it, a
  // few times (RFC 9110 section 15.2 allows several, not an endless row).
  if (status_ >= 100 && status_ < 200 && status_ != 101) {
    if (++interim_responses_ > kMaxInterimResponses) {
      Fail("too many interim 1xx responses");
      return false;
    }
    status_ = 0;
    return true;
  }
  if (status_ < 200 || status_ == 204 || status_ == 304) {
    Complete();
    return false;
  }
  if (const auto te = Header("transfer-encoding");
      te && ContainsToken(*te, "chunked")) {
    stage_ = Stage::kChunkSize;
    return true;
  }
  if (const auto cl = Header("content-length")) {
    uint64_t length = 0;
    const std::string_view text = Trim(*cl);
    const auto [p, e] =
        std::from_chars(text.data(), text.data() + text.size(), length);
    if (e != std::errc() || p != text.data() + text.size() || text.empty()) {
      Fail("bad Content-Length");
      return false;
    }
    remaining_ = length;
    stage_ = Stage::kLengthBody;
    return true;
  }
  stage_ = Stage::kCloseBody;
  return true;
}

size_t HttpResponseParser::TakeBody(size_t want) {
  const size_t available = std::min<uint64_t>(want, buf_.size() - pos_);
  if (available == 0) return 0;
  const size_t room = max_body_ - body_.size();
  if (available > room) {
    // Enough for a verdict: keep what fits and stop reading.
    body_.append(buf_, pos_, room);
    pos_ += available;
    truncated_ = true;
    Complete();
    return available;
  }
  body_.append(buf_, pos_, available);
  pos_ += available;
  return available;
}

std::optional<std::string_view> HttpResponseParser::NextLine() {
  const size_t end = buf_.find("\r\n", pos_);
  if (end == std::string::npos) {
    if (buf_.size() - pos_ > kMaxHeaderBytes) Fail("line too long");
    return std::nullopt;
  }
  const std::string_view line(buf_.data() + pos_, end - pos_);
  pos_ = end + 2;
  return line;
}

void HttpResponseParser::Complete() {
  stage_ = Stage::kDone;
  state_ = State::kComplete;
}

void HttpResponseParser::Fail(std::string why) {
  stage_ = Stage::kDone;
  state_ = State::kError;
  error_ = std::move(why);
}

}  // namespace ax::probe
