// axctl geodb: the verbs dispatched; lookup per source, then merged, as text
// or JSON.
#include "axctl/geodb_command.h"

#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "axctl/geo_flags.h"
#include "axctl/geodb_build.h"
#include "axctl/geodb_diff.h"

namespace ax {
namespace {

using Json = nlohmann::ordered_json;

Json FactsJson(const dns::GeoFacts& f) {
  Json out = Json::object();
  auto text = [&](const char* key, std::string_view value) {
    if (!value.empty()) out[key] = std::string(value);
  };
  text("country", f.country);
  text("subdivision", f.subdivision);
  text("city", f.city);
  if (f.asn != 0) out["asn"] = f.asn;
  text("isp", f.isp);
  return out;
}

// "CN CN-GD Guangzhou AS4134 电信", or "-" when nothing is known.
std::string FactsText(const Json& facts) {
  std::string out;
  for (const auto& [key, value] : facts.items()) {
    if (!out.empty()) out += ' ';
    out += key == "asn" ? "AS" + std::to_string(value.get<uint32_t>())
                        : value.get<std::string>();
  }
  return out.empty() ? "-" : out;
}

Json LookupJson(const dns::GeoResolver& resolver, const IpAddress& ip) {
  Json sources = Json::array();
  const dns::RankedSources& ranked = resolver.sources();
  for (size_t s = 0; s < ranked.sources.size(); ++s) {
    const dns::GeoSource& source = *ranked.sources[s];
    Json row = {{"kind", dns::GeoSourceKindName(source.kind())},
                {"file", source.path()}};
    if (!source.Serves(ip.family)) {
      row["error"] = "does not serve this address family";
    } else {
      dns::GeoFacts facts;
      bool found = false;
      int prefix_length = -1;
      if (!source.Lookup(ip, facts, found, prefix_length)) {
        row["error"] = "the file is corrupt here";
      } else {
        row["prefixLength"] = prefix_length;
        row["found"] = found;
        row["says"] = FactsJson(facts);
      }
    }
    sources.push_back(std::move(row));
  }
  GeoInfo geo;
  resolver.Lookup(ip, geo, dns::GeoResolver::Detail::kClassify);
  const dns::GeoFacts merged{.country = geo.country,
                             .subdivision = geo.subdivision,
                             .city = geo.city,
                             .asn = geo.asn,
                             .isp = geo.isp};
  return {{"address", FormatIp(ip)},
          {"sources", std::move(sources)},
          {"merged",
           {{"says", FactsJson(merged)},
            {"prefixLength", geo.geo_prefix_length},
            {"precedence",
             dns::FormatGeoPrecedence(resolver.databases().precedence)}}}};
}

void PrintText(const Json& lookup) {
  std::cout << lookup["address"].get<std::string>() << "\n";
  for (const Json& row : lookup["sources"]) {
    std::cout << "  " << row["kind"].get<std::string>() << "  "
              << std::filesystem::path(row["file"].get<std::string>())
                     .filename()
                     .string()
              << "  ";
    if (row.contains("error")) {
      std::cout << "error: " << row["error"].get<std::string>() << "\n";
      continue;
    }
    std::cout << "/" << row["prefixLength"].get<int>() << "  "
              << (row["found"].get<bool>() ? FactsText(row["says"])
                                           : "no record")
              << "\n";
  }
  const Json& merged = lookup["merged"];
  std::cout << "  merged  /" << merged["prefixLength"].get<int>() << "  "
            << FactsText(merged["says"]) << "  ("
            << merged["precedence"].get<std::string>() << ")\n";
}

int LookupCommand(const Args& args) {
  if (args.positional.size() < 2 || !HasGeoFiles(args)) {
    std::cerr << "usage:\n" << kGeodbUsage;
    return 2;
  }
  std::vector<IpAddress> ips;
  for (size_t i = 1; i < args.positional.size(); ++i) {
    const auto ip = ParseIp(args.positional[i]);
    if (!ip) {
      std::cerr << "geodb lookup: '" << args.positional[i]
                << "' is not an IP address\n";
      return 2;
    }
    ips.push_back(*ip);
  }
  std::string error;
  const auto resolver =
      GeoResolverFromFlags(args, dns::GeoResolver::Mode::kDirect, &error);
  if (!resolver) {
    std::cerr << error << "\n";
    return 1;
  }
  Json all = Json::array();
  for (const IpAddress& ip : ips) {
    Json lookup = LookupJson(*resolver, ip);
    if (args.Has("--json")) {
      all.push_back(std::move(lookup));
    } else {
      PrintText(lookup);
    }
  }
  if (args.Has("--json")) std::cout << all.dump(2) << "\n";
  return 0;
}

}  // namespace

int GeodbCommand(const Args& args) {
  const std::string verb = args.positional.empty() ? "" : args.positional[0];
  if (args.Has("--help")) {
    std::cout << "usage:\n" << kGeodbUsage;
    return 0;
  }
  if (verb == "lookup") return LookupCommand(args);
  if (verb == "build") return GeodbBuildCommand(args);
  if (verb == "diff") return GeodbDiffCommand(args);
  std::cerr << "usage:\n" << kGeodbUsage;
  return 2;
}

}  // namespace ax
