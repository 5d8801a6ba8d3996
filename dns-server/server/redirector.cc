// Host parsing, the client address (peer or X-Forwarded-For), the pick and
// the Location header.
#include "server/redirector.h"

#include <httplib.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <optional>

#include "ax/decide.h"
#include "ax/json_text.h"
#include "ax/runtime/clock.h"
#include "ax/runtime/random_seed.h"
#include "responder/client_subnet.h"

namespace ax::dns {
namespace {

// "WWW.Example.test.:8080" -> "www.example.test"; "[::1]:80" -> "::1".
std::string HostName(std::string_view host) {
  if (!host.empty() && host.front() == '[') {
    host = host.substr(1, host.find(']') - 1);
  } else if (const size_t colon = host.find(':');
             colon != std::string_view::npos) {
    host = host.substr(0, colon);
  }
  std::string out(host);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return std::tolower(c); });
  if (!out.empty() && out.back() == '.') out.pop_back();
  return out;
}

// The path and query of a target, also from absolute form
// ("http://host/p?q" -> "/p?q"), which clients send to proxies.
std::string_view PathAndQuery(std::string_view target) {
  const size_t scheme = target.find("://");
  if (scheme != std::string_view::npos && target.front() != '/') {
    const size_t path = target.find_first_of("/?", scheme + 3);
    return path == std::string_view::npos ? std::string_view()
                                          : target.substr(path);
  }
  return target;
}

// RFC 9112 section 3.2: origin-form ("/p?q"), or absolute-form
// ("http://host/p"), which a server must accept as well. Anything else
// ("@evil.example", "*") would be glued to a node's URL as its authority or
// port.
bool RedirectableTarget(std::string_view target) {
  return target.starts_with('/') || target.starts_with("http://") ||
         target.starts_with("https://");
}

std::string Names(const Snapshot& s, const Answer& answer) {
  std::string out;
  for (uint32_t i = 0; i < answer.count; ++i) {
    out += (i ? ", " : "") + s.nodes[answer.nodes[i]].name;
  }
  return out;
}

// The first address of X-Forwarded-For ("client, proxy1, proxy2") that
// parses.
std::optional<IpAddress> ForwardedFor(std::string_view header) {
  while (!header.empty()) {
    const size_t comma = std::min(header.find(','), header.size());
    std::string_view item = header.substr(0, comma);
    while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
    while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
    if (const auto ip = ParseIp(item)) return Unmapped(*ip);
    header.remove_prefix(std::min(comma + 1, header.size()));
  }
  return std::nullopt;
}

}  // namespace

std::string JoinUrl(std::string_view base, std::string_view target) {
  std::string_view rest = PathAndQuery(target);
  if (rest.empty() || rest.front() == '?') {
    // No path: the root, keeping a query.
    return std::string(base) + (base.ends_with('/') ? "" : "/") +
           std::string(rest);
  }
  if (base.ends_with('/')) base.remove_suffix(1);
  return std::string(base) + std::string(rest);
}

RedirectReply DecideRedirect(const RedirectRequest& request,
                             const ServingState* state, const GeoResolver* geo,
                             int64_t now_ms, Rng& rng) {
  if (!RedirectableTarget(request.target)) {
    return {400, "",
            "the request target must be a path (/...) or an http(s) URL, got "
            "\"" +
                request.target + "\""};
  }
  if (!state) return {503, "", "no snapshot loaded yet"};
  const std::string host = HostName(request.host);
  const Snapshot& s = state->snapshot();
  const auto domain =
      std::find_if(s.domains.begin(), s.domains.end(),
                   [&](const SnapshotDomain& d) { return d.fqdn == host; });
  if (host.empty() || domain == s.domains.end()) {
    return {404, "", "'" + host + "' is not a served domain"};
  }
  GeoInfo info;
  if (geo) geo->Lookup(request.client, info, GeoResolver::Detail::kLocation);
  const Classification cls = state->classifier().Classify(request.client, info);
  const ClientContext client{ClientCohort(request.client), info.has_location,
                             info.location};
  const Answer answer =
      Decide(s, *domain, cls.region, client, std::nullopt, now_ms, rng);
  if (answer.source == RouteSource::kDomainFallback) {
    if (domain->fallback.cname.empty()) {
      return {503, "",
              "no node can serve " + host +
                  " and its fallback has addresses only (no URL to send to)"};
    }
    return {302,
            JoinUrl(request.scheme + "://" + domain->fallback.cname,
                    request.target),
            ""};
  }
  for (uint32_t i = 0; i < answer.count; ++i) {
    const std::string& url = s.nodes[answer.nodes[i]].redirect_url;
    if (!url.empty()) return {302, JoinUrl(url, request.target), ""};
  }
  if (answer.count == 0) return {503, "", "no node can serve " + host};
  return {
      503, "",
      "none of the chosen nodes (" + Names(s, answer) + ") has a redirectURL"};
}

Redirector::Redirector(RedirectOptions options, const SnapshotStore* store,
                       const GeoStore* geo, Metrics* metrics)
    : options_(std::move(options)),
      store_(store),
      geo_(geo),
      metrics_(metrics),
      seed_(runtime::RandomSeed()) {}

bool Redirector::Start(std::string* error) {
  // httplib routes HEAD to the GET handlers and sends no body.
  listener_.server().Get(".*", [this](const httplib::Request& req,
                                      httplib::Response& res) {
    RedirectRequest request{.host = req.get_header_value("Host"),
                            .target = req.target};
    const std::optional<IpAddress> peer = ParseIp(req.remote_addr);
    request.client = peer ? Unmapped(*peer) : IpAddress{};
    if (options_.trust_xff) {
      if (const auto forwarded =
              ForwardedFor(req.get_header_value("X-Forwarded-For"))) {
        request.client = *forwarded;
      }
      const std::string proto = req.get_header_value("X-Forwarded-Proto");
      if (proto == "https" || proto == "http") request.scheme = proto;
    }
    const auto state = store_->Current();
    const auto resolver = geo_ ? geo_->Current() : nullptr;
    Rng rng(seed_ + 0x9E3779B97F4A7C15ULL * requests_.fetch_add(1));
    const RedirectReply reply = DecideRedirect(
        request, state.get(), resolver.get(), runtime::WallMs(), rng);
    res.status = reply.status;
    res.set_header("Cache-Control", "no-store");
    if (reply.status == 302) {
      res.set_header("Location", reply.location);
      res.set_content("redirecting to " + reply.location + "\n", "text/plain");
    } else {
      const nlohmann::json body = {{"error", reply.reason},
                                   {"host", HostName(request.host)}};
      res.set_content(JsonText(body) + "\n", "application/json");
    }
    metrics_->Redirect(reply.status).Increment();
  });
  return listener_.Start(options_.listen, "redirect", error);
}

}  // namespace ax::dns
