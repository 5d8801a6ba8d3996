// axctl explain: three sources of truth (a live server, a snapshot file,
// manifests) and two sources of geo (databases, flags), one rendering.
#include "axctl/explain_command.h"

#include <httplib.h>

#include <algorithm>
#include <charconv>
#include <iostream>
#include <optional>

#include "ax/decide.h"
#include "ax/explain.h"
#include "ax/runtime/clock.h"
#include "axctl/explain_text.h"
#include "axctl/geo_flags.h"
#include "axctl/world_source.h"

namespace ax {
namespace {

int Print(const nlohmann::json& e, bool json) {
  std::cout << (json ? e.dump(2) + "\n" : ExplanationToText(e));
  return e.contains("error") ? 1 : 0;
}

// GET <server>/v1/explain: the server classifies with its own geo databases.
int ExplainRemote(const Args& args) {
  httplib::Client http(args.Get("--server"));
  http.set_connection_timeout(5);
  http.set_read_timeout(10);
  httplib::Params params{{"name", args.positional[0]},
                         {"client", args.Get("--client")}};
  if (args.Has("--ecs")) params.emplace("ecs", args.Get("--ecs"));
  if (args.Has("--aaaa")) params.emplace("qtype", "AAAA");
  if (args.Has("--srv")) params.emplace("qtype", "SRV");
  const auto res = http.Get("/v1/explain", params, httplib::Headers{});
  if (!res) {
    std::cerr << args.Get("--server") << ": " << httplib::to_string(res.error())
              << "\n";
    return 1;
  }
  const auto body = nlohmann::json::parse(res->body, nullptr, false);
  if (body.is_discarded() || !body.is_object()) {
    std::cerr << args.Get("--server") << ": HTTP " << res->status
              << ", not an explanation: " << res->body.substr(0, 200) << "\n";
    return 1;
  }
  return Print(body, args.Has("--json"));
}

// The address classification sees: the ECS prefix (masked at the same caps as
// the server, /24 and /56) when given, else the client.
std::optional<IpAddress> ClassifiedAddress(const Args& args) {
  if (!args.Has("--ecs")) return ParseIp(args.Get("--client"));
  const std::string ecs = args.Get("--ecs");
  const size_t slash = ecs.find('/');
  auto ip = ParseIp(ecs.substr(0, slash));
  int length = -1;
  if (!ip || slash == std::string::npos) return std::nullopt;
  std::from_chars(ecs.data() + slash + 1, ecs.data() + ecs.size(), length);
  if (length < 0 || length > ip->BitLength()) return std::nullopt;
  return Mask(*ip, std::min(length, CohortPrefixLength(ip->family)));
}

int ExplainLocal(const Args& args, const IpAddress& client) {
  const std::optional<Snapshot> snapshot =
      args.Has("--snapshot") ? SnapshotFromFile(args.Get("--snapshot"))
                             : SnapshotFromManifests(args.All("--manifests"));
  if (!snapshot) return 1;
  ExplainRequest req;
  req.name = args.positional[0];
  req.client = client;
  req.family = args.Has("--aaaa") ? IpFamily::kV6 : IpFamily::kV4;
  req.srv = args.Has("--srv");
  req.now_ms = runtime::WallMs();
  // Keeps the geo databases (and the views GeoInfo holds into them) alive.
  std::shared_ptr<const dns::GeoResolver> resolver;
  if (!OptionalGeoResolver(args, resolver)) return 1;
  if (resolver) {
    resolver->Lookup(client, req.geo, dns::GeoResolver::Detail::kLocation);
  }
  // Flags fill (or override) what the databases said.
  const std::string country = args.Get("--country");
  const std::string subdivision = args.Get("--subdivision");
  if (args.Has("--country")) req.geo.country = country;
  if (args.Has("--subdivision")) req.geo.subdivision = subdivision;
  if (args.Has("--asn")) {
    req.geo.asn = static_cast<uint32_t>(
        std::strtoul(args.Get("--asn").c_str(), nullptr, 10));
  }
  if (args.Has("--lat") && args.Has("--lon")) {
    req.geo.has_location = true;
    req.geo.location = {std::atof(args.Get("--lat").c_str()),
                        std::atof(args.Get("--lon").c_str())};
  }
  return Print(Explain(*snapshot, Classifier(*snapshot), req),
               args.Has("--json"));
}

}  // namespace

int ExplainCommand(const Args& args) {
  const int sources =
      args.Has("--server") + args.Has("--snapshot") + args.Has("--manifests");
  if (args.positional.size() != 1 || !args.Has("--client") || sources != 1) {
    std::cerr << "usage:\n" << kExplainUsage;
    return 2;
  }
  if (args.Has("--aaaa") && args.Has("--srv")) {
    std::cerr << "--aaaa and --srv: give one question type\n";
    return 2;
  }
  if (!ParseIp(args.Get("--client"))) {
    std::cerr << "--client: '" << args.Get("--client")
              << "' is not an IP address\n";
    return 2;
  }
  const std::optional<IpAddress> classified = ClassifiedAddress(args);
  if (!classified) {
    std::cerr << "--ecs: '" << args.Get("--ecs") << "' is not ADDRESS/LENGTH\n";
    return 2;
  }
  return args.Has("--server") ? ExplainRemote(args)
                              : ExplainLocal(args, *classified);
}

}  // namespace ax
