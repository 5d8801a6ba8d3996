// Text rendering of explanations: one section per step of the decision chain.
#include "axctl/explain_text.h"

#include <cstdio>
#include <sstream>

namespace ax {
namespace {

std::string Fixed(double v, int digits) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string Str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return "-";
  return it->is_string() ? it->get<std::string>() : it->dump();
}

}  // namespace

std::string ExplanationToText(const nlohmann::json& e) {
  std::ostringstream out;
  if (e.contains("error")) {
    out << "error: " << e["error"].get<std::string>() << "\n";
    return out.str();
  }
  const auto& q = e["query"];
  out << "query       " << Str(q, "name") << " from " << Str(q, "client")
      << " (cohort " << Str(q, "cohortSubnet") << ")\n";
  out << "snapshot    version " << Str(e["snapshot"], "version") << " "
      << Str(e["snapshot"], "contentHash") << "\n";
  const auto& g = e["geo"];
  out << "geo         country " << Str(g, "country") << ", subdivision "
      << Str(g, "subdivision") << ", ASN " << Str(g, "asn") << "\n";
  const auto& c = e["classification"];
  out << "classified  " << Str(c, "detail") << " [step " << Str(c, "step")
      << ", area " << Str(c, "area") << ", isp " << Str(c, "isp")
      << ", ECS scope /" << Str(c, "ecsScope") << "]\n";
  if (c.contains("override")) {
    // What the correction rests on, and what the database alone would say.
    const auto& o = c["override"];
    out << "override    database region "
        << (o["databaseRegion"].is_null() ? "none" : Str(o, "databaseRegion"));
    if (o.contains("expiresAt")) out << ", expires " << Str(o, "expiresAt");
    if (!Str(o, "reason").empty()) out << "; " << Str(o, "reason");
    out << "\n";
    if (o.contains("evidence")) {
      const auto& v = o["evidence"];
      out << "evidence    " << Str(v, "samples") << " samples "
          << Str(v, "from") << " .. " << Str(v, "to") << ": "
          << Str(v, "bestNode") << " " << Str(v, "bestMs") << " ms vs "
          << Str(v, "databaseNode") << " " << Str(v, "databaseMs") << " ms of "
          << Str(v, "databaseRegion") << "\n";
    }
  }
  const auto& d = e["domain"];
  out << "domain      " << Str(d, "fqdn") << " strategy " << Str(d, "strategy")
      << ", up to " << Str(d, "maxAnswers") << " answers\n";
  const auto& r = e["route"];
  out << "route       " << Str(r, "source");
  if (r.contains("via")) out << " via region " << Str(r, "via");
  if (r.value("hysteresisHeld", false)) out << ", primary held by hysteresis";
  out << "\n";
  for (const auto& rule : r["rules"])
    out << "rule        " << rule.get<std::string>() << "\n";
  if (r.contains("canary")) {
    const auto& k = r["canary"];
    out << "canary      " << Str(k, "name") << " node " << Str(k, "node")
        << " at " << Str(k, "percent") << "%: cohort bucket "
        << Str(k, "cohortBucket") << " -> "
        << (k.value("inCohort", false) ? "IN" : "out") << "\n";
  }
  if (e.contains("vantageGroup")) {
    const auto& v = e["vantageGroup"];
    out << "measured    by vantage group " << Str(v, "name") << ", "
        << Str(v, "vantages") << " fresh vantages"
        << (v.value("usingGlobal", false)
                ? ": none fresh, the global verdicts apply"
                : "")
        << "\n";
    for (const auto& line : v["differsFromGlobal"]) {
      out << "            " << line.get<std::string>() << "\n";
    }
  }
  out << "candidates  node              score   health load   latency prio   "
         "weight\n";
  for (const auto& cand : e["candidates"]) {
    const auto& p = cand["parts"];
    char line[160];
    std::snprintf(line, sizeof line,
                  "            %-17s %-7s %-6s %-6s %-7s %-6s %s\n",
                  Str(cand, "node").c_str(),
                  Fixed(cand["score"].get<double>(), 3).c_str(),
                  Fixed(p["health"].get<double>(), 2).c_str(),
                  Fixed(p["load"].get<double>(), 2).c_str(),
                  Fixed(p["latency"].get<double>(), 2).c_str(),
                  Fixed(p["priority"].get<double>(), 2).c_str(),
                  Fixed(cand["weight"].get<double>(), 1).c_str());
    out << line;
  }
  if (e.contains("cname")) out << "cname       " << Str(e, "cname") << "\n";
  out << "pick        " << e["pick"].dump() << " -> " << e["addresses"].dump()
      << "\n";
  if (e.contains("srv")) {
    for (const nlohmann::json& srv : e["srv"]) {
      out << "srv         " << Str(srv, "priority") << " " << Str(srv, "weight")
          << " " << Str(srv, "port") << " " << Str(srv, "target") << "\n";
    }
  }
  out << "ttl         " << Str(e, "ttl") << " (" << Str(e, "ttlReason")
      << ")\n";
  if (e.contains("nodesDown") && !e["nodesDown"].empty())
    out << "down        " << e["nodesDown"].dump() << "\n";
  return out.str();
}

}  // namespace ax
