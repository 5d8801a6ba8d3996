// Periodic re-reading of the token file (token_source.h).
#include "ax/kube/token_source.h"

#include <fstream>
#include <sstream>

namespace ax::kube {

TokenSource::TokenSource(std::string token, std::string file,
                         std::chrono::seconds reload_every, Clock clock)
    : token_(std::move(token)),
      file_(std::move(file)),
      reload_every_(reload_every),
      clock_(std::move(clock)) {}

std::string TokenSource::Get() {
  if (file_.empty()) return token_;
  std::lock_guard lock(mu_);
  const auto now = clock_();
  if (!read_once_ || now >= next_read_) {
    read_once_ = true;
    next_read_ = now + reload_every_;
    // A failed or empty read keeps the last good token: the kubelet swaps
    // the file through a symlink, and a half-written state must not log us
    // out.
    std::ifstream in(file_, std::ios::binary);
    std::ostringstream text;
    if (in && (text << in.rdbuf())) {
      std::string value = text.str();
      const auto last = value.find_last_not_of(" \t\r\n");
      value.erase(last == std::string::npos ? 0 : last + 1);
      if (!value.empty()) from_file_ = std::move(value);
    }
  }
  return from_file_.empty() ? token_ : from_file_;
}

}  // namespace ax::kube
