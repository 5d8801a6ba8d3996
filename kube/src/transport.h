// HTTP under the client (transport.cc): the server URL, a pool of keep-alive
// httplib connections each with its own TLS context (TlsIdentity), bearer
// tokens, timeouts, TCP keepalive, SIGPIPE safety and cancellation. Knows
// HTTP, not Kubernetes: any status is a response, an Error means none came.
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "ax/kube/client.h"
#include "tls.h"

namespace httplib {
class ClientImpl;
}

namespace ax::kube {

struct HttpRequest {
  std::string method;
  std::string target;  // path and query
  std::string body;
  std::string content_type;
  CallOptions call;
  // Set: a 2xx body is handed over as it arrives instead of being kept;
  // returning false stops reading (not an error). Other statuses' bodies
  // are kept for the Error.
  std::function<bool(std::string_view)> on_body;
};

struct HttpResponse {
  int status = 0;
  std::string body;  // empty for a streamed 2xx body
};

// "https://host:port/prefix" split up; IPv6 hosts without brackets.
struct ServerUrl {
  bool tls = true;
  std::string host;
  int port = 443;
  std::string path_prefix;  // "" or "/prefix" (no trailing slash)
};
Result<ServerUrl> ParseServerUrl(std::string_view server);

class Transport {
 public:
  static Result<std::unique_ptr<Transport>> Create(
      const Config& config, const ClientOptions& options);
  ~Transport();

  Result<HttpResponse> Send(const HttpRequest& request);

 private:
  Transport(ServerUrl url, TlsIdentity identity, const Config& config,
            ClientOptions options);

  Result<std::unique_ptr<httplib::ClientImpl>> Take();
  void GiveBack(std::unique_ptr<httplib::ClientImpl> connection);

  const ServerUrl url_;
  const TlsIdentity identity_;
  const ClientOptions options_;
  TokenSource token_;

  std::mutex mu_;
  std::vector<std::unique_ptr<httplib::ClientImpl>> idle_;
};

}  // namespace ax::kube
