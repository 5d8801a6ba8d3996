// CheckTcpFraming: FrameReader/FrameWriter against a reference reading of the
// same bytes.
#include <vector>

#include "fuzz_targets.h"
#include "server/tcp_framing.h"

namespace ax::fuzz {
namespace {

using Frame = std::vector<uint8_t>;

// Whole frames at the start of `bytes`, and how many bytes they take.
std::vector<Frame> ReferenceFrames(Input bytes, size_t* used) {
  std::vector<Frame> frames;
  size_t at = 0;
  while (bytes.size() - at >= 2) {
    const size_t len = size_t{bytes[at]} << 8 | bytes[at + 1];
    if (bytes.size() - at - 2 < len) break;
    frames.emplace_back(bytes.begin() + at + 2, bytes.begin() + at + 2 + len);
    at += 2 + len;
  }
  *used = at;
  return frames;
}

}  // namespace

std::string CheckTcpFraming(Input input) {
  size_t used = 0;
  const std::vector<Frame> want = ReferenceFrames(input, &used);
  Chunks chunks(input);
  dns::FrameReader reader;
  std::vector<Frame> got;
  for (size_t at = 0; at < input.size();) {
    const size_t n = std::min(chunks.Next(700), input.size() - at);
    reader.Append(input.subspan(at, n));
    at += n;
    while (auto frame = reader.Next())
      got.emplace_back(frame->begin(), frame->end());
    reader.Compact();
  }
  if (got != want) return "FrameReader's frames differ from the reference's";
  if (reader.buffered() != input.size() - used) {
    return "FrameReader holds " + std::to_string(reader.buffered()) +
           " bytes, the rest is " + std::to_string(input.size() - used);
  }
  // Back out through a writer whose socket takes a few bytes at a time.
  dns::FrameWriter writer;
  std::vector<uint8_t> sent;
  const auto send_some = [&] {
    const size_t n = std::min(chunks.Next(300), writer.unsent());
    const auto unsent = writer.Unsent();
    sent.insert(sent.end(), unsent.begin(), unsent.begin() + n);
    writer.Sent(n);
  };
  for (const Frame& frame : want) {
    writer.Append(frame);
    if (writer.held() > 2 * writer.unsent() + 65537) {
      return "FrameWriter holds " + std::to_string(writer.held()) +
             " bytes for " + std::to_string(writer.unsent()) + " unsent";
    }
    send_some();
  }
  while (writer.unsent() > 0) send_some();
  if (!std::equal(sent.begin(), sent.end(), input.begin(),
                  input.begin() + used) ||
      sent.size() != used) {
    return "FrameWriter's bytes differ from the frames' wire form";
  }
  return "";
}

}  // namespace ax::fuzz
