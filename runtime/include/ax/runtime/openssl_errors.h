// OpenSSL's thread-local error queue as text, for the two TLS clients (the
// Kubernetes client and the probe engine). Taking the errors also clears the
// queue, so a later call never reports an earlier failure.
#pragma once

#include <string>
#include <string_view>

namespace ax::runtime {

// Every queued error, "; "-separated, oldest first; `fallback` when the
// queue is empty.
std::string TakeOpenSslErrors(std::string_view fallback = "");

}  // namespace ax::runtime
