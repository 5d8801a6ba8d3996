// Probe request bytes (http_request.h).
#include "engine/http_request.h"

namespace ax::probe {

namespace {

bool HasLineBreak(std::string_view s) {
  return s.find_first_of(std::string_view("\r\n\0", 3)) != s.npos;
}

}  // namespace

std::string HostHeader(const ProbeTarget& target) {
  const HealthCheck& check = target.check;
  std::string host = check.host;
  if (host.empty()) {
    host = FormatIp(target.address);
    if (target.address.family == IpFamily::kV6) host = "[" + host + "]";
  }
  const uint16_t port = EffectivePort(check);
  const uint16_t default_port =
      check.protocol == ProbeProtocol::kHttps ? 443 : 80;
  if (port != default_port) host += ":" + std::to_string(port);
  return host;
}

std::optional<std::string> BuildRequest(const ProbeTarget& target,
                                        std::string_view token_header,
                                        std::string* error) {
  std::string path = target.check.path.empty() ? "/" : target.check.path;
  if (path.front() != '/') path.insert(path.begin(), '/');
  const std::string host = HostHeader(target);
  if (HasLineBreak(path) || HasLineBreak(host) || HasLineBreak(target.token) ||
      HasLineBreak(token_header) || path.find(' ') != path.npos) {
    // Say which field, never its value: the token must not reach logs.
    *error = "path, host or token holds a space, CR, LF or NUL";
    return std::nullopt;
  }
  std::string request;
  request.reserve(160 + path.size() + host.size() + target.token.size());
  request += "GET " + path + " HTTP/1.1\r\n";
  request += "Host: " + host + "\r\n";
  request += "User-Agent: ax-probe\r\n";
  request += "Accept: */*\r\n";
  // One connection per probe: the probe measures a fresh connect every time
  // and never leaves idle sockets on the node.
  request += "Connection: close\r\n";
  if (!target.token.empty() && !token_header.empty()) {
    request.append(token_header).append(": ").append(target.token) += "\r\n";
  }
  request += "\r\n";
  return request;
}

}  // namespace ax::probe
