// Turns a byte stream arriving in arbitrary chunks (a watch response: one JSON
// event per line, cut wherever TCP and TLS records happen to end) into whole
// lines. Holds only the unfinished tail between chunks; knows nothing about
// what a line means.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace ax::kube {

class LineSplitter {
 public:
  // A line longer than this is an error (a Kubernetes object is at most a
  // few MiB; anything far bigger is a broken stream, not an event).
  static constexpr size_t kDefaultMaxLine = 16 * 1024 * 1024;

  explicit LineSplitter(size_t max_line = kDefaultMaxLine)
      : max_line_(max_line) {}

  // Hands every line completed by `chunk` to `on_line`, in order, without
  // its "\n" (or "\r\n"); empty lines are skipped. false when on_line
  // returned false (the rest of the chunk is dropped) or a line grew past
  // the limit (overflowed() tells which).
  bool Feed(std::string_view chunk,
            const std::function<bool(std::string_view line)>& on_line);

  bool overflowed() const { return overflowed_; }
  // Bytes of an unfinished line held back.
  size_t pending() const { return partial_.size(); }

 private:
  bool Emit(std::string_view line,
            const std::function<bool(std::string_view)>& on_line);

  const size_t max_line_;
  std::string partial_;
  bool overflowed_ = false;
};

}  // namespace ax::kube
