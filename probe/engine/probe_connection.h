// One probe on the wire, as a non-blocking state machine: connect, TLS
// handshake (HTTPS), write the GET, read and parse the response, judge it.
// It never blocks and never waits: the owner polls fd() for events() and
// calls OnReady; the owner also enforces the deadline (Abort). Timing is
// taken from the monotonic times the owner passes in. No scheduling here.
#pragma once

#include <openssl/ssl.h>
#include <sys/epoll.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "ax/runtime/net.h"
#include "engine/http_response_parser.h"
#include "engine/outcome.h"
#include "engine/target.h"
#include "engine/tls.h"

namespace ax::probe {

struct ConnectionOptions {
  // Needed for HTTPS targets (kConfig without it); not owned, must outlive
  // the connection. Verification follows the context's verify mode.
  SSL_CTX* tls = nullptr;
  std::string token_header = "X-Ax-Probe-Token";
  size_t max_body_bytes = 64 * 1024;
};

class ProbeConnection {
 public:
  // Copies the target: the engine may replace its targets mid-probe.
  // `resume`: an HTTPS target's session from an earlier connection to the
  // same peer, offered in the handshake (the server may still do a full one).
  ProbeConnection(ProbeTarget target, const ConnectionOptions& options,
                  SslSessionPtr resume = nullptr);
  ProbeConnection(const ProbeConnection&) = delete;
  ProbeConnection& operator=(const ProbeConnection&) = delete;

  // Opens the socket and begins connecting. Afterwards either done(), or
  // fd() is valid and events() says what to wait for.
  void Start(int64_t now_us);
  // fd() became ready (for anything: errors are read from the socket).
  void OnReady(int64_t now_us);
  // Ends the probe from outside, e.g. ProbeError::kTimeout at the deadline.
  void Abort(ProbeError error, std::string detail, int64_t now_us);

  bool done() const { return stage_ == Stage::kDone; }
  int fd() const { return fd_.get(); }
  uint32_t events() const { return events_; }
  const ProbeOutcome& outcome() const { return outcome_; }
  const ProbeTarget& target() const { return target_; }
  // After an HTTPS exchange: the session to offer on the next connection
  // (the newest one the server gave, TLS 1.3 tickets included as they
  // arrive after the handshake), or null when it gave none to resume.
  SslSessionPtr ResumableSession() const;
  // Where the probe is, for timeout details: "connect", "tls", "request",
  // "response".
  const char* phase_name() const;

 private:
  enum class Stage {
    kIdle,
    kConnecting,
    kHandshake,
    kWriting,
    kReading,
    kDone
  };

  void OnConnected(int64_t now_us);
  void DoHandshake(int64_t now_us);
  void DoWrite(int64_t now_us);
  void DoRead(int64_t now_us);
  void OnResponseComplete(int64_t now_us);
  void Finish(ProbeError error, std::string detail, int64_t now_us);
  double Elapsed(int64_t now_us) const;
  // Classifies an SSL_get_error result outside the handshake.
  void FailSslIo(int ssl_error, const char* during, int64_t now_us);

  ProbeTarget target_;
  ConnectionOptions options_;
  Stage stage_ = Stage::kIdle;
  int64_t start_us_ = 0;
  uint32_t events_ = 0;
  runtime::Fd fd_;
  SslSessionPtr resume_;
  SslPtr ssl_;  // declared after fd_: freed before the socket closes
  std::string request_;
  size_t written_ = 0;
  HttpResponseParser parser_;
  ProbeOutcome outcome_;
};

}  // namespace ax::probe
