// Chunk -> line splitting (line_splitter.h). Lines that arrive whole inside
// one chunk are handed over without a copy.
#include "ax/kube/line_splitter.h"

namespace ax::kube {

bool LineSplitter::Emit(std::string_view line,
                        const std::function<bool(std::string_view)>& on_line) {
  if (line.ends_with('\r')) line.remove_suffix(1);
  return line.empty() || on_line(line);
}

bool LineSplitter::Feed(
    std::string_view chunk,
    const std::function<bool(std::string_view line)>& on_line) {
  while (!chunk.empty()) {
    const size_t newline = chunk.find('\n');
    const std::string_view head = chunk.substr(0, newline);
    if (partial_.size() + head.size() > max_line_) {
      overflowed_ = true;
      partial_.clear();
      return false;
    }
    if (newline == std::string_view::npos) {
      partial_.append(head);
      return true;
    }
    chunk.remove_prefix(newline + 1);
    bool go_on = false;
    if (partial_.empty()) {
      go_on = Emit(head, on_line);
    } else {
      partial_.append(head);
      go_on = Emit(partial_, on_line);
      partial_.clear();
    }
    if (!go_on) return false;
  }
  return true;
}

}  // namespace ax::kube
