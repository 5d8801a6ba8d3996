// Pooled HTTP(S) connections, auth headers, timeouts and cancellation
// (transport.h).
#include "transport.h"

#include <httplib.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <algorithm>
#include <charconv>

#include "ax/runtime/openssl_errors.h"
#include "ax/runtime/sigpipe.h"

namespace ax::kube {

// Registers a request's connection with its cancel token while it runs, so
// CancelToken::Cancel() can shut it down (a friend of CancelToken).
class ConnectionLease {
 public:
  ConnectionLease(CancelToken* token, httplib::ClientImpl* connection)
      : token_(token),
        connection_(connection),
        entered_(token == nullptr || token->Enter(connection)) {}
  ~ConnectionLease() {
    if (token_ != nullptr && entered_) token_->Leave(connection_);
  }
  ConnectionLease(const ConnectionLease&) = delete;
  ConnectionLease& operator=(const ConnectionLease&) = delete;

  bool entered() const { return entered_; }

 private:
  CancelToken* const token_;
  httplib::ClientImpl* const connection_;
  const bool entered_;
};

namespace {

// A stream silent for minutes (a watch without events) must still notice a
// peer that vanished without a FIN: probe after 30 s idle, give up after
// three unanswered probes 10 s apart.
void EnableTcpKeepalive(socket_t sock) {
  const int on = 1, idle = 30, interval = 10, count = 3;
  setsockopt(sock, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on));
  setsockopt(sock, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
  setsockopt(sock, IPPROTO_TCP, TCP_KEEPINTVL, &interval, sizeof(interval));
  setsockopt(sock, IPPROTO_TCP, TCP_KEEPCNT, &count, sizeof(count));
}

Error CanceledError(const HttpRequest& request) {
  return Error{0, std::string(kReasonCanceled),
               request.method + " " + request.target + ": canceled"};
}

// Non-2xx bodies of streamed requests are kept for the Error up to here.
constexpr size_t kMaxErrorBody = size_t{64} << 10;

}  // namespace

Result<ServerUrl> ParseServerUrl(std::string_view server) {
  const auto fail = [&](const char* why) {
    return Error{0, std::string(kReasonInvalidConfig),
                 "server \"" + std::string(server) + "\": " + why};
  };
  ServerUrl url;
  std::string_view rest = server;
  if (rest.starts_with("https://")) {
    rest.remove_prefix(8);
  } else if (rest.starts_with("http://")) {
    url.tls = false;
    url.port = 80;
    rest.remove_prefix(7);
  } else {
    return fail("not an https:// (or http://) URL");
  }
  const size_t slash = rest.find('/');
  std::string_view authority = rest.substr(0, slash);
  if (slash != std::string_view::npos) {
    std::string_view prefix = rest.substr(slash);
    while (prefix.ends_with('/')) prefix.remove_suffix(1);
    url.path_prefix = prefix;
  }
  std::string_view port;
  if (authority.starts_with('[')) {  // [IPv6]:port
    const size_t close = authority.find(']');
    if (close == std::string_view::npos) return fail("unclosed '['");
    url.host = authority.substr(1, close - 1);
    std::string_view after = authority.substr(close + 1);
    if (!after.empty() && !after.starts_with(':'))
      return fail("junk after ']'");
    if (!after.empty()) port = after.substr(1);
  } else {
    const size_t colon = authority.rfind(':');
    url.host = authority.substr(0, colon);
    if (colon != std::string_view::npos) port = authority.substr(colon + 1);
  }
  if (url.host.empty()) return fail("no host");
  if (!port.empty()) {
    const auto [end, ec] =
        std::from_chars(port.data(), port.data() + port.size(), url.port);
    if (ec != std::errc() || end != port.data() + port.size() ||
        url.port <= 0 || url.port > 65535) {
      return fail("bad port");
    }
  }
  return url;
}

Result<std::unique_ptr<Transport>> Transport::Create(
    const Config& config, const ClientOptions& options) {
  auto url = ParseServerUrl(config.server);
  if (!url) return url.error();
  auto identity = TlsIdentity::FromConfig(config);
  if (!identity) return identity.error();
  return std::unique_ptr<Transport>(
      new Transport(std::move(*url), std::move(*identity), config, options));
}

Transport::Transport(ServerUrl url, TlsIdentity identity, const Config& config,
                     ClientOptions options)
    : url_(std::move(url)),
      identity_(std::move(identity)),
      options_(std::move(options)),
      token_(config.token, config.token_file, options_.token_reload,
             options_.token_clock) {}

Transport::~Transport() = default;

Result<std::unique_ptr<httplib::ClientImpl>> Transport::Take() {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      auto connection = std::move(idle_.back());
      idle_.pop_back();
      return connection;
    }
  }
  std::unique_ptr<httplib::ClientImpl> connection;
  if (url_.tls) {
    auto tls = std::make_unique<httplib::SSLClient>(url_.host, url_.port);
    if (!tls->is_valid() || !identity_.Apply(tls->ssl_context(), url_.host)) {
      return Error{0, std::string(kReasonTransport),
                   "cannot set up TLS: " + runtime::TakeOpenSslErrors()};
    }
    // OpenSSL itself verifies the chain and the name (TlsIdentity::Apply).
    tls->enable_server_certificate_verification(false);
    connection = std::move(tls);
  } else {
    connection = std::make_unique<httplib::ClientImpl>(url_.host, url_.port);
  }
  connection->set_keep_alive(true);
  // httplib writes headers and body with separate sends: without this,
  // Nagle and delayed ACKs hold every write back ~40 ms.
  connection->set_tcp_nodelay(true);
  connection->set_url_encode(false);  // targets arrive encoded (resource.h)
  connection->set_socket_options(EnableTcpKeepalive);
  return connection;
}

void Transport::GiveBack(std::unique_ptr<httplib::ClientImpl> connection) {
  std::lock_guard lock(mu_);
  if (idle_.size() < options_.max_idle_connections) {
    idle_.push_back(std::move(connection));
  }
}

Result<HttpResponse> Transport::Send(const HttpRequest& request) {
  runtime::SigpipeGuard no_sigpipe;
  // What the queue holds after this request explains its TLS failure only
  // if older errors of this thread are gone.
  runtime::TakeOpenSslErrors();
  auto taken = Take();
  if (!taken) return taken.error();
  std::unique_ptr<httplib::ClientImpl> connection = std::move(*taken);
  CancelToken* const cancel = request.call.cancel;

  httplib::Request req;
  req.method = request.method;
  req.path = url_.path_prefix + request.target;
  req.headers = {{"Accept", "application/json"},
                 {"User-Agent", options_.user_agent}};
  if (const std::string token = token_.Get(); !token.empty()) {
    req.headers.emplace("Authorization", "Bearer " + token);
  }
  if (!request.content_type.empty()) {
    req.headers.emplace("Content-Type", request.content_type);
    req.body = request.body;
  }
  HttpResponse response;
  bool streaming = false;  // a 2xx body goes to on_body
  bool stopped = false;    // on_body asked to stop
  if (request.on_body) {
    req.response_handler = [&](const httplib::Response& head) {
      streaming = head.status >= 200 && head.status < 300;
      return true;
    };
    req.content_receiver = [&](const char* data, size_t size, uint64_t,
                               uint64_t) {
      if (cancel != nullptr && cancel->canceled()) return false;
      if (!streaming) {
        if (response.body.size() < kMaxErrorBody)
          response.body.append(data, size);
        return true;
      }
      stopped = !request.on_body(std::string_view(data, size));
      return !stopped;
    };
  }

  httplib::Response res;
  httplib::Error error = httplib::Error::Success;
  bool sent = false;
  {
    ConnectionLease lease(cancel, connection.get());
    if (!lease.entered()) {
      GiveBack(std::move(connection));
      return CanceledError(request);
    }
    const auto timeout = request.call.timeout.count() > 0
                             ? request.call.timeout
                             : options_.request_timeout;
    // A short call timeout (a lease renewal's remaining deadline) also caps
    // connecting: an unreachable server must not hold the call longer.
    connection->set_connection_timeout(
        std::min(options_.connect_timeout, timeout));
    connection->set_read_timeout(timeout);
    connection->set_write_timeout(timeout);
    sent = connection->send(req, res, error);
  }
  GiveBack(std::move(connection));  // httplib reconnects if it was closed

  if (stopped) {
    response.status = res.status;
    return response;
  }
  if (!sent) {
    if (cancel != nullptr && cancel->canceled()) return CanceledError(request);
    std::string message = request.method + " " + request.target + ": " +
                          httplib::to_string(error);
    if (const std::string tls = runtime::TakeOpenSslErrors(); !tls.empty()) {
      message += " (" + tls + ")";
    }
    return Error{0, std::string(kReasonTransport), std::move(message)};
  }
  response.status = res.status;
  if (!request.on_body) response.body = std::move(res.body);
  return response;
}

}  // namespace ax::kube
