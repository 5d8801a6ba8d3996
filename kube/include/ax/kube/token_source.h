// The bearer token a request carries: a fixed token, or a token file re-read
// every `reload_every` because the kubelet rotates projected service-account
// tokens (about hourly, and they are valid a little longer). Thread-safe;
// reads one small file at most once per period.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <string>

namespace ax::kube {

class TokenSource {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `file` empty: always `token`. Otherwise the file's trimmed content as
  // last read successfully, falling back to `token` while it never was.
  TokenSource(std::string token, std::string file,
              std::chrono::seconds reload_every = std::chrono::seconds(60),
              Clock clock = std::chrono::steady_clock::now);

  // "" when there is no token at all (client certificates or anonymous).
  std::string Get();

 private:
  const std::string token_;
  const std::string file_;
  const std::chrono::seconds reload_every_;
  const Clock clock_;

  std::mutex mu_;
  std::string from_file_;  // last good read, "" before the first
  std::chrono::steady_clock::time_point next_read_{};
  bool read_once_ = false;
};

}  // namespace ax::kube
