// MeasurementReport <-> JSON (measurement_report.h), read with the manifest
// field reader so errors read like manifest errors:
// "MeasurementReport/gz-01-1: spec.prefixes[3].nodes[0].counts: ...".
#include "ax/measurement_report.h"

#include <algorithm>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <utility>

#include "ax/json_text.h"
#include "ax/rfc3339.h"
#include "manifest_fields.h"
#include "manifest_formats.h"
#include "object_envelope.h"

namespace ax {
namespace {

using manifest::Context, manifest::DecodeFormat, manifest::DecodeInt,
    manifest::Fields, manifest::ReadObjectName, manifest::ReadTimeMs;
using nlohmann::json;
using nlohmann::ordered_json;

// JSON integers are exact to 2^53; a count past that is not a count.
constexpr int64_t kMaxCount = int64_t{1} << 53;

bool DecodeNode(Context& ctx, const std::string& path, const json& v,
                MeasuredNode& out) {
  Fields f(ctx, &v, path);
  f.ReadRequired("node", out.node, &DecodeFormat<&ReadObjectName>);
  uint32_t first = 0;
  std::vector<uint64_t> counts;
  f.ReadRequired("first", first,
                 &DecodeInt<uint32_t, 0, LatencyHistogram::kBuckets - 1>);
  f.ReadRequired("counts", counts, &DecodeInt<uint64_t, 0, kMaxCount>);
  if (!f.Has("first") || !f.Has("counts")) return true;  // said already
  auto histogram = LatencyHistogram::FromCounts(first, std::move(counts));
  if (!histogram) {
    ctx.Error(f.PathOf("counts"),
              "first + the number of counts must be at most " +
                  std::to_string(LatencyHistogram::kBuckets));
  } else if (histogram->count() == 0) {
    ctx.Error(f.PathOf("counts"), "must hold at least one sample");
  } else {
    out.latency = std::move(*histogram);
  }
  return true;
}

bool DecodePrefix(Context& ctx, const std::string& path, const json& v,
                  MeasuredPrefix& out) {
  Fields f(ctx, &v, path);
  f.ReadRequired("prefix", out.prefix);
  f.ReadRequired("nodes", out.nodes, &DecodeNode);
  if (out.nodes.size() > kMeasurementReportMaxNodesPerPrefix) {
    ctx.Error(f.PathOf("nodes"),
              "holds " + std::to_string(out.nodes.size()) + " nodes, at most " +
                  std::to_string(kMeasurementReportMaxNodesPerPrefix) +
                  " per prefix (continue the prefix in another report)");
  }
  std::set<std::string> seen;
  for (size_t i = 0; i < out.nodes.size(); ++i) {
    if (!seen.insert(out.nodes[i].node).second) {
      ctx.Error(f.PathOf("nodes") + "[" + std::to_string(i) + "].node",
                "duplicate node \"" + out.nodes[i].node + "\"");
    }
  }
  return true;
}

void ParseMeasurementReportSpec(Context& ctx, Fields& top,
                                MeasurementReport& report) {
  Fields spec = top.Sub("spec");
  spec.Read("source", report.source);
  spec.ReadRequired("from", report.from_ms, &DecodeFormat<&ReadTimeMs>);
  spec.ReadRequired("to", report.to_ms, &DecodeFormat<&ReadTimeMs>);
  if (report.to_ms < report.from_ms) {
    ctx.Error(spec.PathOf("to"), "must not be before from");
  }
  spec.ReadRequired("prefixes", report.prefixes, &DecodePrefix);
  std::set<IpPrefix> seen;
  size_t rows = 0;
  for (size_t i = 0; i < report.prefixes.size(); ++i) {
    const MeasuredPrefix& p = report.prefixes[i];
    rows += p.nodes.size();
    if (!seen.insert(p.prefix).second) {
      ctx.Error(spec.PathOf("prefixes") + "[" + std::to_string(i) + "].prefix",
                "duplicate prefix " + FormatPrefix(p.prefix));
    }
  }
  if (rows > kMeasurementReportMaxRows) {
    ctx.Error(spec.PathOf("prefixes"),
              "holds " + std::to_string(rows) + " node histograms, at most " +
                  std::to_string(kMeasurementReportMaxRows) +
                  " fit one object (split the report)");
  }
}

ordered_json ReportJson(const MeasurementReport& report) {
  ordered_json prefixes = ordered_json::array();
  for (const MeasuredPrefix& p : report.prefixes) {
    ordered_json nodes = ordered_json::array();
    for (const MeasuredNode& n : p.nodes) {
      nodes.push_back({{"node", n.node},
                       {"first", n.latency.first()},
                       {"counts", n.latency.counts()}});
    }
    prefixes.push_back(
        {{"prefix", FormatPrefix(p.prefix)}, {"nodes", std::move(nodes)}});
  }
  ordered_json spec = ordered_json::object();
  if (!report.source.empty()) spec["source"] = report.source;
  spec["from"] = FormatRfc3339Ms(report.from_ms);
  spec["to"] = FormatRfc3339Ms(report.to_ms);
  spec["prefixes"] = std::move(prefixes);
  ordered_json out = manifest::ObjectEnvelopeJson(
      kMeasurementReportKind, report.name, report.namespace_name);
  out["spec"] = std::move(spec);
  return out;
}

// "20261201t0600": a window's start as an object name part.
std::string WindowName(int64_t unix_s) {
  std::string text = FormatRfc3339Seconds(unix_s * 1000);  // ...T06:00:00Z
  std::string out;
  for (char c : text.substr(0, 16)) {
    if (c >= '0' && c <= '9') out.push_back(c);
    if (c == 'T') out.push_back('t');
  }
  return out;
}

using Grouped = std::map<IpPrefix, std::map<std::string, LatencyHistogram>>;

// One window's samples as reports of at most kMeasurementReportMaxRows rows.
// The JSON bytes `n` adds to a report, near enough to budget by.
size_t RowBytes(const MeasuredNode& n) {
  size_t bytes = n.node.size() + 32;
  for (uint64_t c : n.latency.counts()) bytes += std::to_string(c).size() + 1;
  return bytes;
}

void AppendWindow(Grouped grouped, const std::string& name, int64_t from_s,
                  int64_t to_s, const ReportOptions& o,
                  std::vector<MeasurementReport>& out) {
  const size_t first = out.size();
  out.emplace_back();
  size_t rows = 0;
  size_t bytes = 0;
  for (auto& [prefix, nodes] : grouped) {
    MeasuredPrefix* p = nullptr;
    for (auto& [node, latency] : nodes) {
      MeasuredNode row{node, std::move(latency)};
      const size_t row_bytes = RowBytes(row);
      const bool full =
          rows > 0 && (rows + 1 > kMeasurementReportMaxRows ||
                       bytes + row_bytes > kMeasurementReportMaxBytes);
      // A new part also when the prefix is full: a part never repeats one.
      if (full ||
          (p && p->nodes.size() == kMeasurementReportMaxNodesPerPrefix)) {
        out.emplace_back();
        rows = 0;
        bytes = 0;
        p = nullptr;
      }
      if (!p) {
        p = &out.back().prefixes.emplace_back();
        p->prefix = prefix;
        bytes += 48;
      }
      p->nodes.push_back(std::move(row));
      ++rows;
      bytes += row_bytes;
    }
  }
  const size_t parts = out.size() - first;
  for (size_t i = first; i < out.size(); ++i) {
    MeasurementReport& r = out[i];
    r.name = parts == 1 ? name : name + "-" + std::to_string(i - first + 1);
    r.source = o.source;
    r.from_ms = from_s * 1000;
    r.to_ms = to_s * 1000;
  }
}

}  // namespace

std::vector<MeasurementReport> ReportMeasurements(
    const std::vector<Measurement>& measurements, const ReportOptions& o) {
  // Window start -> its samples grouped; 0 stands for the one window.
  std::map<int64_t, Grouped> windows;
  int64_t first = std::numeric_limits<int64_t>::max();
  int64_t last = std::numeric_limits<int64_t>::min();
  for (const Measurement& m : measurements) {
    const int length =
        m.client.family == IpFamily::kV4 ? o.v4_prefix : o.v6_prefix;
    const int64_t start =
        o.window_s > 0
            ? m.time - ((m.time % o.window_s) + o.window_s) % o.window_s
            : 0;
    windows[start][{Mask(m.client, length), length}][m.node].Add(m.ms);
    first = std::min(first, m.time);
    last = std::max(last, m.time);
  }
  std::vector<MeasurementReport> out;
  for (auto& [start, grouped] : windows) {
    if (o.window_s > 0) {
      AppendWindow(std::move(grouped), o.name + "-" + WindowName(start), start,
                   start + o.window_s - 1, o, out);
    } else {
      AppendWindow(std::move(grouped), o.name, first, last, o, out);
    }
  }
  return out;
}

json MeasurementReportToJson(const MeasurementReport& report) {
  // Through text: nlohmann converts between ordered and plain json only so.
  return json::parse(SerializeMeasurementReport(report));
}

std::string SerializeMeasurementReport(const MeasurementReport& report) {
  // The source text is the shipper's: never a throw on its bytes.
  return JsonText(ReportJson(report));
}

ParseMeasurementReportResult ParseMeasurementReport(const json& object,
                                                    std::string_view source) {
  return manifest::ParseReportObject<ParseMeasurementReportResult,
                                     MeasurementReport>(
      object, source, kMeasurementReportKind, &ParseMeasurementReportSpec);
}

ParseMeasurementReportResult ParseMeasurementReportText(
    std::string_view text, std::string_view source) {
  return manifest::ParseObjectText<ParseMeasurementReportResult>(
      text, source, &ParseMeasurementReport);
}

}  // namespace ax
