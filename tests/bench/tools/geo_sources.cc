// ax_geo_sources: what one set of geo files costs ax-dns, measured in a fresh
// process (tests/bench/geo/run.sh runs it once per set): the time to open,
// validate and compile them, the resident memory after (the tables; the
// files' pages are released after the walk), the compiled tables' size, and
// the cost of a classification lookup at seeded random IPv4 addresses,
// compiled and read from the files directly. One JSON object on stdout.
//
//   ax_geo_sources [--lookups N] GEO FLAGS (as axctl: --geo-db, --asn-db,
//                  --ipdb, --ip2region, --geo-schema, --geo-precedence...)
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "axctl/args.h"
#include "axctl/geo_flags.h"

namespace {

using Clock = std::chrono::steady_clock;

double Seconds(Clock::time_point since) {
  return std::chrono::duration<double>(Clock::now() - since).count();
}

// VmRSS of this process in MiB.
double RssMib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stod(line.substr(6)) / 1024;
  }
  return -1;
}

std::vector<ax::IpAddress> RandomV4(size_t n) {
  std::mt19937_64 rng(20261202);
  std::vector<ax::IpAddress> ips(n);
  for (ax::IpAddress& ip : ips) {
    ip.family = ax::IpFamily::kV4;
    const uint32_t v = static_cast<uint32_t>(rng());
    for (int i = 0; i < 4; ++i)
      ip.bytes[i] = static_cast<uint8_t>(v >> (24 - 8 * i));
  }
  return ips;
}

// Nanoseconds per Lookup(kClassify) over `ips`; `sink` keeps the work.
double LookupNs(const ax::dns::GeoResolver& resolver,
                const std::vector<ax::IpAddress>& ips, uint64_t& sink) {
  const auto start = Clock::now();
  for (const ax::IpAddress& ip : ips) {
    ax::GeoInfo geo;
    resolver.Lookup(ip, geo, ax::dns::GeoResolver::Detail::kClassify);
    sink += geo.asn + geo.country.size() + geo.isp.size() + geo.city.size();
  }
  return Seconds(start) * 1e9 / static_cast<double>(ips.size());
}

}  // namespace

int main(int argc, char** argv) {
  const ax::Args args = ax::ParseArgs(argc, argv, 1, {});
  if (!ax::HasGeoFiles(args) || !args.positional.empty()) {
    std::fprintf(
        stderr,
        "usage: ax_geo_sources [--lookups N] --geo-db FILE... | --ipdb "
        "FILE... | ... (axctl's geo flags)\n");
    return 2;
  }
  const size_t lookups =
      args.Has("--lookups") ? std::stoul(args.Get("--lookups")) : 1'000'000;
  const double rss_before = RssMib();
  std::string error;
  const auto start = Clock::now();
  const auto compiled = ax::GeoResolverFromFlags(
      args, ax::dns::GeoResolver::Mode::kCompiled, &error);
  const double load_s = Seconds(start);
  if (!compiled) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  const double rss_after = RssMib();
  const ax::dns::CompiledGeo::Stats stats = compiled->compiled()->stats();
  const auto direct = ax::GeoResolverFromFlags(
      args, ax::dns::GeoResolver::Mode::kDirect, &error);
  if (!direct) {
    std::fprintf(stderr, "%s\n", error.c_str());
    return 1;
  }
  uint64_t sink = 0;
  const std::vector<ax::IpAddress> ips = RandomV4(lookups);
  LookupNs(*compiled, ips, sink);  // warm the tables
  const double compiled_ns = LookupNs(*compiled, ips, sink);
  const std::vector<ax::IpAddress> few(
      ips.begin(), ips.begin() + std::min<size_t>(lookups, 100'000));
  LookupNs(*direct, few, sink);
  const double direct_ns = LookupNs(*direct, few, sink);
  const nlohmann::json out = {
      {"load_s", load_s},
      {"rss_mib", rss_after},
      {"rss_growth_mib", rss_after - rss_before},
      {"ranges_v4", stats.v4_ranges},
      {"ranges_v6", stats.v6_ranges},
      {"values", stats.values},
      {"table_mib", static_cast<double>(stats.bytes) / (1 << 20)},
      {"compiled_lookup_ns", compiled_ns},
      {"direct_lookup_ns", direct_ns},
      {"lookups", lookups},
      {"sink", sink}};
  std::printf("%s\n", out.dump().c_str());
  return 0;
}
