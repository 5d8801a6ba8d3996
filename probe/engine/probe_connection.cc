// The non-blocking probe state machine (probe_connection.h).
#include "engine/probe_connection.h"

#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>

#include <utility>

#include "ax/runtime/openssl_errors.h"
#include "engine/http_request.h"
#include "engine/verdict.h"

namespace ax::probe {

namespace {

constexpr size_t kReadChunk = size_t{16} * 1024;
// At most this much is read per wakeup, so that one endpoint streaming fast
// cannot keep the probe thread from the others (level-triggered epoll brings
// it back at once).
constexpr size_t kReadBudget = 4 * kReadChunk;

ProbeError ConnectErrorKind(int err) {
  switch (err) {
    case ECONNREFUSED:
      return ProbeError::kRefused;
    case ETIMEDOUT:
      return ProbeError::kTimeout;
    default:
      return ProbeError::kConnect;
  }
}

}  // namespace

ProbeConnection::ProbeConnection(ProbeTarget target,
                                 const ConnectionOptions& options,
                                 SslSessionPtr resume)
    : target_(std::move(target)),
      options_(options),
      resume_(std::move(resume)),
      parser_(options.max_body_bytes) {}

const char* ProbeConnection::phase_name() const {
  switch (stage_) {
    case Stage::kIdle:
    case Stage::kConnecting:
      return "connect";
    case Stage::kHandshake:
      return "tls";
    case Stage::kWriting:
      return "request";
    case Stage::kReading:
      return outcome_.phases.first_byte_ms ? "response" : "first byte";
    case Stage::kDone:
      return "done";
  }
  return "?";
}

double ProbeConnection::Elapsed(int64_t now_us) const {
  return static_cast<double>(now_us - start_us_) / 1000.0;
}

void ProbeConnection::Start(int64_t now_us) {
  start_us_ = now_us;
  const HealthCheck& check = target_.check;
  const uint16_t port = EffectivePort(check);
  if (port == 0) return Finish(ProbeError::kConfig, "no port to probe", now_us);
  if (check.protocol == ProbeProtocol::kHttps && options_.tls == nullptr) {
    return Finish(ProbeError::kConfig, "HTTPS check without a TLS context",
                  now_us);
  }
  if (check.protocol != ProbeProtocol::kTcp) {
    std::string error;
    auto request = BuildRequest(target_, options_.token_header, &error);
    if (!request) return Finish(ProbeError::kConfig, error, now_us);
    request_ = std::move(*request);
  }

  const int family =
      target_.address.family == IpFamily::kV4 ? AF_INET : AF_INET6;
  fd_.Reset(::socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd_.valid()) {
    return Finish(ProbeError::kConnect, "socket: " + runtime::ErrnoText(errno),
                  now_us);
  }
  socklen_t len = 0;
  const sockaddr_storage sa =
      runtime::Endpoint{target_.address, port}.ToSockaddr(&len);
  stage_ = Stage::kConnecting;
  if (::connect(fd_.get(), reinterpret_cast<const sockaddr*>(&sa), len) == 0) {
    return OnConnected(now_us);
  }
  if (errno != EINPROGRESS) {
    const int err = errno;
    return Finish(ConnectErrorKind(err), "connect: " + runtime::ErrnoText(err),
                  now_us);
  }
  events_ = EPOLLOUT;
}

void ProbeConnection::OnReady(int64_t now_us) {
  switch (stage_) {
    case Stage::kConnecting: {
      int err = 0;
      socklen_t len = sizeof(err);
      if (::getsockopt(fd_.get(), SOL_SOCKET, SO_ERROR, &err, &len) != 0) {
        err = errno;
      }
      if (err != 0) {
        return Finish(ConnectErrorKind(err),
                      "connect: " + runtime::ErrnoText(err), now_us);
      }
      return OnConnected(now_us);
    }
    case Stage::kHandshake:
      return DoHandshake(now_us);
    case Stage::kWriting:
      return DoWrite(now_us);
    case Stage::kReading:
      return DoRead(now_us);
    case Stage::kIdle:
    case Stage::kDone:
      return;
  }
}

void ProbeConnection::Abort(ProbeError error, std::string detail,
                            int64_t now_us) {
  if (done()) return;
  Finish(error, std::move(detail), now_us);
}

void ProbeConnection::OnConnected(int64_t now_us) {
  outcome_.phases.connect_ms = Elapsed(now_us);
  switch (target_.check.protocol) {
    case ProbeProtocol::kTcp:
      // The port accepts connections; that is all a TCP check can say.
      return Finish(ProbeError::kNone, "", now_us);
    case ProbeProtocol::kHttp:
      stage_ = Stage::kWriting;
      return DoWrite(now_us);
    case ProbeProtocol::kHttps:
      break;
  }

  ERR_clear_error();
  ssl_.reset(SSL_new(options_.tls));
  if (!ssl_ || SSL_set_fd(ssl_.get(), fd_.get()) != 1) {
    return Finish(ProbeError::kTls,
                  runtime::TakeOpenSslErrors("SSL_new failed"), now_us);
  }
  const std::string& host = target_.check.host;
  const bool host_is_ip = ParseIp(host).has_value();
  if (!host.empty() && !host_is_ip) {
    // SNI carries names only (RFC 6066), never address literals.
    SSL_set_tlsext_host_name(ssl_.get(), host.c_str());
  }
  if (resume_) {
    // Takes its own reference. On failure the handshake is simply full.
    SSL_set_session(ssl_.get(), resume_.get());
    resume_.reset();
  }
  if (SSL_CTX_get_verify_mode(options_.tls) != SSL_VERIFY_NONE) {
    // Check the certificate names what we asked for: the Host name, or the
    // address we connected to when no host is configured.
    const bool ok =
        !host.empty() && !host_is_ip
            ? SSL_set1_host(ssl_.get(), host.c_str()) == 1
            : X509_VERIFY_PARAM_set1_ip_asc(
                  SSL_get0_param(ssl_.get()),
                  (host.empty() ? FormatIp(target_.address) : host).c_str()) ==
                  1;
    if (!ok) {
      return Finish(ProbeError::kTls,
                    runtime::TakeOpenSslErrors("cannot set the name to verify"),
                    now_us);
    }
  }
  stage_ = Stage::kHandshake;
  DoHandshake(now_us);
}

void ProbeConnection::DoHandshake(int64_t now_us) {
  ERR_clear_error();
  errno = 0;  // SSL_ERROR_SYSCALL is only meaningful with a fresh errno
  const int rc = SSL_connect(ssl_.get());
  if (rc == 1) {
    outcome_.phases.tls_ms = Elapsed(now_us);
    outcome_.tls_resumed = SSL_session_reused(ssl_.get()) == 1;
    stage_ = Stage::kWriting;
    return DoWrite(now_us);
  }
  const int err = SSL_get_error(ssl_.get(), rc);
  if (err == SSL_ERROR_WANT_READ) {
    events_ = EPOLLIN;
    return;
  }
  if (err == SSL_ERROR_WANT_WRITE) {
    events_ = EPOLLOUT;
    return;
  }
  std::string detail;
  const long verify = SSL_get_verify_result(ssl_.get());
  if (verify != X509_V_OK) {
    detail =
        std::string("certificate: ") + X509_verify_cert_error_string(verify);
    ERR_clear_error();
  } else if (err == SSL_ERROR_SYSCALL && errno != 0) {
    detail = "handshake: " + runtime::ErrnoText(errno);
    ERR_clear_error();
  } else {
    detail = "handshake: " +
             runtime::TakeOpenSslErrors("peer closed the connection");
  }
  Finish(ProbeError::kTls, std::move(detail), now_us);
}

void ProbeConnection::DoWrite(int64_t now_us) {
  while (written_ < request_.size()) {
    const char* data = request_.data() + written_;
    const size_t left = request_.size() - written_;
    if (ssl_) {
      ERR_clear_error();
      errno = 0;
      const int n = SSL_write(ssl_.get(), data, static_cast<int>(left));
      if (n <= 0) {
        const int err = SSL_get_error(ssl_.get(), n);
        if (err == SSL_ERROR_WANT_WRITE || err == SSL_ERROR_WANT_READ) {
          events_ = err == SSL_ERROR_WANT_WRITE ? EPOLLOUT : EPOLLIN;
          return;
        }
        return FailSslIo(err, "write", now_us);
      }
      written_ += static_cast<size_t>(n);
    } else {
      // MSG_NOSIGNAL: a peer that already closed must not kill the process.
      const ssize_t n = ::send(fd_.get(), data, left, MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) {
          events_ = EPOLLOUT;
          return;
        }
        if (errno == EINTR) continue;
        return Finish(ProbeError::kConnect,
                      "write: " + runtime::ErrnoText(errno), now_us);
      }
      written_ += static_cast<size_t>(n);
    }
  }
  stage_ = Stage::kReading;
  events_ = EPOLLIN;
}

void ProbeConnection::DoRead(int64_t now_us) {
  char buf[kReadChunk];
  // Level-triggered: read until the socket is empty or the budget is spent;
  // bytes OpenSSL has decrypted already are always taken (epoll cannot see
  // them, so they would wait for the next packet).
  size_t read_now = 0;
  while (!done()) {
    if (read_now >= kReadBudget && !(ssl_ && SSL_pending(ssl_.get()) > 0)) {
      events_ = EPOLLIN;
      return;
    }
    size_t got = 0;
    bool eof = false;
    if (ssl_) {
      ERR_clear_error();
      errno = 0;
      const int n = SSL_read(ssl_.get(), buf, sizeof(buf));
      if (n > 0) {
        got = static_cast<size_t>(n);
      } else {
        const int err = SSL_get_error(ssl_.get(), n);
        if (err == SSL_ERROR_WANT_READ || err == SSL_ERROR_WANT_WRITE) {
          events_ = err == SSL_ERROR_WANT_WRITE ? EPOLLOUT : EPOLLIN;
          return;
        }
        if (err == SSL_ERROR_ZERO_RETURN ||
            (err == SSL_ERROR_SYSCALL && errno == 0)) {
          eof = true;
        } else {
          return FailSslIo(err, "read", now_us);
        }
      }
    } else {
      const ssize_t n = ::recv(fd_.get(), buf, sizeof(buf), 0);
      if (n > 0) {
        got = static_cast<size_t>(n);
      } else if (n == 0) {
        eof = true;
      } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
        events_ = EPOLLIN;
        return;
      } else if (errno == EINTR) {
        continue;
      } else {
        return Finish(ProbeError::kConnect,
                      "read: " + runtime::ErrnoText(errno), now_us);
      }
    }

    read_now += got;
    if (got > 0 && !outcome_.phases.first_byte_ms) {
      outcome_.phases.first_byte_ms = Elapsed(now_us);
    }
    const HttpResponseParser::State state =
        eof ? parser_.FinishAtEof() : parser_.Feed(std::string_view(buf, got));
    if (state == HttpResponseParser::State::kComplete) {
      return OnResponseComplete(now_us);
    }
    if (state == HttpResponseParser::State::kError) {
      outcome_.http_status = parser_.status_code();
      return Finish(ProbeError::kProtocol, parser_.error(), now_us);
    }
  }
}

SslSessionPtr ProbeConnection::ResumableSession() const {
  if (!ssl_) return nullptr;
  SslSessionPtr session(SSL_get1_session(ssl_.get()));
  if (!session || SSL_SESSION_is_resumable(session.get()) != 1) return nullptr;
  return session;
}

void ProbeConnection::FailSslIo(int ssl_error, const char* during,
                                int64_t now_us) {
  if (ssl_error == SSL_ERROR_SYSCALL && errno != 0) {
    // A reset or broken pipe under TLS is the same event as without TLS.
    const int err = errno;
    ERR_clear_error();
    return Finish(ProbeError::kConnect,
                  std::string(during) + ": " + runtime::ErrnoText(err), now_us);
  }
  Finish(ProbeError::kTls,
         std::string(during) + ": " + runtime::TakeOpenSslErrors("TLS error"),
         now_us);
}

void ProbeConnection::OnResponseComplete(int64_t now_us) {
  if (ssl_) {
    // The response is complete by its framing, so the connection ended
    // well without close_notify (none is sent either: Connection: close
    // ends it). Telling OpenSSL so keeps SSL_free from marking the session
    // unresumable, as it does after a connection cut short.
    SSL_set_shutdown(ssl_.get(), SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
  }
  outcome_.http_status = parser_.status_code();
  outcome_.self = ParseSelfReport(parser_.body());
  Verdict verdict = JudgeResponse(target_.check, parser_.status_code(),
                                  parser_.body(), parser_.body_truncated());
  Finish(verdict.error, std::move(verdict.detail), now_us);
}

void ProbeConnection::Finish(ProbeError error, std::string detail,
                             int64_t now_us) {
  outcome_.error = error;
  outcome_.detail = std::move(detail);
  outcome_.phases.total_ms = Elapsed(now_us);
  stage_ = Stage::kDone;
  events_ = 0;
  // The socket stays open until destruction so the owner can still remove
  // it from its epoll set; no TLS close_notify: Connection: close ended it.
}

}  // namespace ax::probe
