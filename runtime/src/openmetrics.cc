// OpenMetrics text: https://github.com/OpenObservability/OpenMetrics
// (specification/OpenMetrics.md). Escaping, number forms and suffix rules
// follow its ABNF.
#include "ax/runtime/openmetrics.h"

#include <prometheus/text_serializer.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ax::runtime {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) {
    s.remove_prefix(1);
  }
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) {
    s.remove_suffix(1);
  }
  return s;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

bool EndsWith(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.substr(s.size() - suffix.size()) == suffix;
}

// Shortest round-trip form; +Inf/-Inf/NaN as the format spells them.
std::string Number(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

// le and quantile values in canonical float form ("1.0", not "1").
std::string FloatLabel(double v) {
  std::string s = Number(v);
  if (s.find_first_of(".eIN") == std::string::npos) s += ".0";
  return s;
}

// Label values: backslash, double quote and line feed escaped. HELP text uses
// the same escaped-string rule.
std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string Labels(const std::vector<ClientMetric::Label>& labels,
                   std::string_view extra_name = {},
                   std::string_view extra_value = {}) {
  if (labels.empty() && extra_name.empty()) return "";
  std::string out = "{";
  const char* sep = "";
  for (const auto& l : labels) {
    out += sep + l.name + "=\"" + Escape(l.value) + "\"";
    sep = ",";
  }
  if (!extra_name.empty()) {
    out +=
        sep + std::string(extra_name) + "=\"" + std::string(extra_value) + "\"";
  }
  return out + "}";
}

void Sample(std::string& out, std::string_view name, const std::string& labels,
            const std::string& value) {
  out.append(name).append(labels).append(" ").append(value).append("\n");
}

const char* TypeName(MetricType type) {
  switch (type) {
    case MetricType::Counter:
      return "counter";
    case MetricType::Gauge:
      return "gauge";
    case MetricType::Histogram:
      return "histogram";
    case MetricType::Summary:
      return "summary";
    default:
      return "unknown";
  }
}

void Family(std::string& out, const MetricFamily& f) {
  std::string base = f.name;
  if (f.type == MetricType::Counter && EndsWith(base, "_total")) {
    base.resize(base.size() - 6);
  }
  out += "# TYPE " + base + " " + TypeName(f.type) + "\n";
  for (const char* unit : {"seconds", "bytes"}) {
    if (EndsWith(base, std::string("_") + unit)) {
      out += "# UNIT " + base + " " + unit + "\n";
    }
  }
  if (!f.help.empty()) out += "# HELP " + base + " " + Escape(f.help) + "\n";
  for (const ClientMetric& m : f.metric) {
    const std::string labels = Labels(m.label);
    switch (f.type) {
      case MetricType::Counter:
        Sample(out, base + "_total", labels, Number(m.counter.value));
        break;
      case MetricType::Gauge:
        Sample(out, base, labels, Number(m.gauge.value));
        break;
      case MetricType::Histogram:
        for (const auto& b : m.histogram.bucket) {
          Sample(out, base + "_bucket",
                 Labels(m.label, "le", FloatLabel(b.upper_bound)),
                 std::to_string(b.cumulative_count));
        }
        Sample(out, base + "_count", labels,
               std::to_string(m.histogram.sample_count));
        Sample(out, base + "_sum", labels, Number(m.histogram.sample_sum));
        break;
      case MetricType::Summary:
        for (const auto& q : m.summary.quantile) {
          Sample(out, base, Labels(m.label, "quantile", FloatLabel(q.quantile)),
                 Number(q.value));
        }
        Sample(out, base + "_count", labels,
               std::to_string(m.summary.sample_count));
        Sample(out, base + "_sum", labels, Number(m.summary.sample_sum));
        break;
      default:
        Sample(out, base, labels, Number(m.untyped.value));
    }
  }
}

}  // namespace

bool PrefersOpenMetrics(std::string_view accept) {
  double openmetrics = 0, text = 0;
  while (!accept.empty()) {
    const size_t comma = std::min(accept.find(','), accept.size());
    std::string_view range = accept.substr(0, comma);
    accept.remove_prefix(std::min(comma + 1, accept.size()));
    const size_t semi = std::min(range.find(';'), range.size());
    const std::string_view type = Trim(range.substr(0, semi));
    double q = 1;
    std::string_view params = range.substr(semi);
    while (!params.empty()) {
      params.remove_prefix(1);  // ';'
      const size_t next = std::min(params.find(';'), params.size());
      const std::string_view param = Trim(params.substr(0, next));
      if (param.size() > 2 && EqualsIgnoreCase(param.substr(0, 2), "q=")) {
        q = std::strtod(std::string(param.substr(2)).c_str(), nullptr);
      }
      params.remove_prefix(next);
    }
    if (EqualsIgnoreCase(type, "application/openmetrics-text")) {
      openmetrics = std::max(openmetrics, q);
    } else if (EqualsIgnoreCase(type, "text/plain") ||
               EqualsIgnoreCase(type, "text/*") || type == "*/*") {
      text = std::max(text, q);
    }
  }
  return openmetrics > 0 && openmetrics >= text;
}

std::string SerializeOpenMetrics(const std::vector<MetricFamily>& families) {
  std::string out;
  for (const MetricFamily& f : families) Family(out, f);
  out += "# EOF\n";
  return out;
}

MetricsPage RenderMetrics(const std::vector<prometheus::MetricFamily>& families,
                          std::string_view accept) {
  if (PrefersOpenMetrics(accept)) {
    return {kOpenMetricsContentType, SerializeOpenMetrics(families)};
  }
  return {kPrometheusTextContentType,
          prometheus::TextSerializer().Serialize(families)};
}

}  // namespace ax::runtime
