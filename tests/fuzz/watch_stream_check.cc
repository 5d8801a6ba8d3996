// CheckWatchStream: LineSplitter in chunks against a reference split, and
// ParseWatchEvent on every line.
#include <string>
#include <vector>

#include "ax/kube/line_splitter.h"
#include "ax/kube/watch.h"
#include "fuzz_targets.h"

namespace ax::fuzz {
namespace {

constexpr size_t kMaxLine = 4096;

// Lines of `text` as the splitter defines them; false when one is too long.
bool ReferenceLines(std::string_view text, std::vector<std::string>* lines) {
  size_t start = 0;
  while (true) {
    const size_t end = text.find('\n', start);
    if (end == std::string_view::npos) {
      return text.size() - start <= kMaxLine;  // the tail, still pending
    }
    std::string_view line = text.substr(start, end - start);
    if (line.size() > kMaxLine) return false;  // a '\r' counts
    if (line.ends_with('\r')) line.remove_suffix(1);
    if (!line.empty()) lines->emplace_back(line);
    start = end + 1;
  }
}

}  // namespace

std::string CheckWatchStream(Input input) {
  const std::string_view text = Text(input);
  std::vector<std::string> want;
  const bool fits = ReferenceLines(text, &want);
  kube::LineSplitter splitter(kMaxLine);
  std::vector<std::string> got;
  Chunks chunks(input);
  bool ok = true;
  for (size_t at = 0; at < text.size() && ok;) {
    const size_t n = std::min(chunks.Next(600), text.size() - at);
    ok = splitter.Feed(text.substr(at, n), [&](std::string_view line) {
      got.emplace_back(line);
      // Whatever a line holds, parsing it is an event or an error.
      (void)kube::ParseWatchEvent(line);
      return true;
    });
    at += n;
  }
  if (splitter.pending() > kMaxLine + 1) return "splitter holds past its bound";
  if (fits != ok) return ok ? "a line over the bound passed" : "refused a fit";
  if (ok && got != want) return "lines differ from the reference's";
  if (!ok && !splitter.overflowed()) return "stopped without overflowing";
  return "";
}

}  // namespace ax::fuzz
