// Snapshot <-> JSON and the content hash. Each struct's JSON layout is written
// once, as a field list walked by both Writer and Reader, so the two directions
// cannot drift. No IO; no nlohmann exception leaves ParseSnapshot. The
// invariants ParseSnapshot enforces live in snapshot_validate.cc.
#include "ax/snapshot_json.h"

#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <concepts>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <type_traits>
#include <utility>

#include "ax/bounded_json.h"
#include "ax/hash.h"
#include "ax/json_text.h"
#include "ax/snapshot_limits.h"
#include "snapshot_doc.h"

namespace ax {
namespace {

using Json = nlohmann::json;
using snapshot_doc::Add, snapshot_doc::Child, snapshot_doc::Element,
    snapshot_doc::Errors, snapshot_doc::kCoordDecimals,
    snapshot_doc::kLatencyDecimals, snapshot_doc::kPercentDecimals,
    snapshot_doc::kScoreDecimals, snapshot_doc::kWeightDecimals,
    snapshot_doc::Quantise, snapshot_doc::Quote;

// A mangled document would otherwise list thousands of errors saying the same
// thing.
constexpr size_t kMaxErrors = 50;

// Enum <-> name, for every enum the document carries.
template <typename E, const char* (*kName)(E),
          std::optional<E> (*kParse)(std::string_view)>
struct EnumCodec {
  static const char* Name(E v) { return kName(v); }
  static std::optional<E> Parse(std::string_view n) { return kParse(n); }
};
template <typename E>
struct EnumNames;
template <>
struct EnumNames<Strategy> : EnumCodec<Strategy, StrategyName, ParseStrategy> {
};
template <>
struct EnumNames<AdminState>
    : EnumCodec<AdminState, AdminStateName, ParseAdminState> {};
template <>
struct EnumNames<Health> : EnumCodec<Health, HealthName, ParseHealth> {};
template <>
struct EnumNames<RouteSource>
    : EnumCodec<RouteSource, RouteSourceName, ParseRouteSource> {};

// Whether a nested value is a JSON object with named fields or a positional
// array (field key nullptr), the compact form used where size matters.
enum class Shape { kObject, kTuple };

// ---- The layout: one field list per struct, walked by Writer and Reader. ----
// Field lists take `auto& io, auto& value`: const values when writing.

constexpr auto kGeoFields = [](auto& io, auto& g) {
  io(nullptr, g.lat, kCoordDecimals);
  io(nullptr, g.lon, kCoordDecimals);
};

constexpr auto kNodeFields = [](auto& io, auto& n) {
  io("name", n.name);
  io("addrs", n.addresses);
  io("area", n.area);
  io("isp", n.isp);
  io.Optional("loc", n.has_location, n.location, kGeoFields, Shape::kTuple);
  io("weight", n.weight);
  io("admin", n.admin_state);
  io("health", n.health);
  io("latencyMs", n.latency_ms, kLatencyDecimals);
  io("util", n.utilisation, kScoreDecimals);
  io("upSinceMs", n.up_since_ms);
  io("redirectUrl", n.redirect_url);
};

constexpr auto kMatchFields = [](auto& io, auto& m) {
  io("countries", m.countries);
  io("subdivisions", m.subdivisions);
  io("cities", m.cities);
  io("asns", m.asns);
  io("isps", m.isps);
  io("cidrs", m.cidrs);
  io("catchAll", m.catch_all);
};

constexpr auto kRegionFields = [](auto& io, auto& r) {
  io("name", r.name);
  io("area", r.area);
  io("isp", r.isp);
  io.Nested("match", r.match, kMatchFields, Shape::kObject);
  io("fallbacks", r.fallback_regions);
  io.Index("vantageGroup", r.vantage_group);
};

constexpr auto kTtlFields = [](auto& io, auto& t) {
  io("steady", t.steady);
  io("failover", t.failover);
  io("canary", t.canary);
};

constexpr auto kFallbackFields = [](auto& io, auto& f) {
  io("cname", f.cname);
  io("addrs", f.addresses);
};

// [service, protocol, port]
constexpr auto kSrvFields = [](auto& io, auto& s) {
  io(nullptr, s.service);
  io(nullptr, s.protocol);
  io(nullptr, s.port);
};

constexpr auto kDomainFields = [](auto& io, auto& d) {
  io("name", d.name);
  io("fqdn", d.fqdn);
  io("zone", d.zone);
  io("strategy", d.strategy);
  io("maxAnswers", d.max_answers);
  io.Nested("ttl", d.ttl, kTtlFields, Shape::kObject);
  io("hysteresisPct", d.hysteresis_percent);
  io("slowStartMs", d.slow_start_ms);
  io.Nested("fallback", d.fallback, kFallbackFields, Shape::kObject);
  io("grpcConfig", d.grpc_service_config);
  io.List("srv", d.srv, kSrvFields, Shape::kTuple);
  io("routes", d.routes);
};

// [node, weight, health, load, latency, priority, rampStartMs]: candidates
// are most of the bulk. ValidateSnapshot's paths use these positions.
constexpr auto kCandidateFields = [](auto& io, auto& c) {
  io(nullptr, c.node);
  io(nullptr, c.weight, kWeightDecimals);
  io(nullptr, c.score.health, kScoreDecimals);
  io(nullptr, c.score.load, kScoreDecimals);
  io(nullptr, c.score.latency, kScoreDecimals);
  io(nullptr, c.score.priority, kScoreDecimals);
  io(nullptr, c.ramp_start_ms);
};

constexpr auto kRouteFields = [](auto& io, auto& r) {
  io("source", r.source);
  io("via", r.via);
  io.List("candidates", r.candidates, kCandidateFields, Shape::kTuple);
  io("rules", r.rules);
  io.Index("canary", r.canary);
  io("held", r.hysteresis_held);
  io("failoverUntilMs", r.failover_until_ms);
  io("spillShare", r.spill_share, kScoreDecimals);
  io.Index("spillRoute", r.spill_route);
};

constexpr auto kCanaryFields = [](auto& io, auto& c) {
  io("name", c.name);
  io("domain", c.domain);
  io("node", c.node);
  io("percent", c.percent, kPercentDecimals);
};

// [node, health, latencyMs, upVotes, downVotes, upSinceMs]: a group lists
// every node it measured.
constexpr auto kGroupNodeFields = [](auto& io, auto& v) {
  io(nullptr, v.node);
  io(nullptr, v.health);
  io(nullptr, v.latency_ms, kLatencyDecimals);
  io(nullptr, v.up_votes);
  io(nullptr, v.down_votes);
  io(nullptr, v.up_since_ms);
};

constexpr auto kVantageGroupFields = [](auto& io, auto& g) {
  io("name", g.name);
  io("vantages", g.vantages);
  io.List("nodes", g.nodes, kGroupNodeFields, Shape::kTuple);
};

constexpr auto kIspSetFields = [](auto& io, auto& s) {
  io("name", s.name);
  io("asns", s.asns);
  io("names", s.names);
};

constexpr auto kEvidenceFields = [](auto& io, auto& e) {
  io("samples", e.samples);
  io("bestNode", e.best_node);
  io("bestMs", e.best_ms, kLatencyDecimals);
  io("dbRegion", e.db_region);
  io("dbNode", e.db_node);
  io("dbMs", e.db_ms, kLatencyDecimals);
  io("from", e.from);
  io("to", e.to);
};

constexpr auto kGeoOverrideFields = [](auto& io, auto& o) {
  io("name", o.name);
  io("cidrs", o.cidrs);
  io("region", o.region);
  io("reason", o.reason);
  io("expiresAtMs", o.expires_at_ms);
  io.Optional("evidence", o.has_evidence, o.evidence, kEvidenceFields,
              Shape::kObject);
};

// Everything the content hash covers.
constexpr auto kContentFields = [](auto& io, auto& s) {
  io("formatVersion", s.format_version);
  io.List("nodes", s.nodes, kNodeFields, Shape::kObject);
  io.List("regions", s.regions, kRegionFields, Shape::kObject);
  io.List("domains", s.domains, kDomainFields, Shape::kObject);
  io.List("routes", s.routes, kRouteFields, Shape::kObject);
  io.List("canaries", s.canaries, kCanaryFields, Shape::kObject);
  io.List("vantageGroups", s.vantage_groups, kVantageGroupFields,
          Shape::kObject);
  io.List("ispSets", s.isp_sets, kIspSetFields, Shape::kObject);
  io.List("geoOverrides", s.geo_overrides, kGeoOverrideFields, Shape::kObject);
};

// Per-publication stamps, outside the hash (plus "contentHash" itself).
constexpr auto kStampFields = [](auto& io, auto& s) {
  io("version", s.version);
  io("generatedAtMs", s.generated_at_ms);
};

// ---- Quantiser: rounds in place, exactly as the Writer rounds on output ----

class Quantiser {
 public:
  template <typename T>
  void operator()(const char*, T&) {}
  void operator()(const char*, double& v, int decimals) {
    v = Quantise(v, decimals);
  }
  void Index(const char*, uint32_t&) {}
  template <typename T, typename F>
  void Nested(const char*, T& v, F fields, Shape) {
    fields(*this, v);
  }
  template <typename T, typename F>
  void Optional(const char*, bool present, T& v, F fields, Shape) {
    if (present) fields(*this, v);
  }
  template <typename T, typename F>
  void List(const char*, std::vector<T>& v, F fields, Shape) {
    for (T& e : v) fields(*this, e);
  }
};

// ---- Writer ----

Json Emit(const std::string& v) { return v; }
template <std::integral T>
Json Emit(T v) {
  return v;
}
Json Emit(const IpAddress& v) { return FormatIp(v); }
Json Emit(const IpPrefix& v) { return FormatPrefix(v); }
template <typename E>
requires std::is_enum_v<E> Json Emit(E v) { return EnumNames<E>::Name(v); }

class Writer {
 public:
  explicit Writer(Json& out) : out_(out) {}

  template <typename T>
  void operator()(const char* key, const T& v) {
    Slot(key) = Emit(v);
  }
  template <typename T>
  void operator()(const char* key, const std::vector<T>& v) {
    Json& array = Slot(key) = Json::array();
    for (const T& e : v) array.push_back(Emit(e));
  }
  void operator()(const char* key, double v, int decimals) {
    const double q = Quantise(v, decimals);
    // Whole numbers as integers: "1" rather than "1.0" for every default score.
    // NaN/inf fail the comparison and stay doubles (ValidateSnapshot rejects
    // them).
    if (q == std::trunc(q) && std::abs(q) < 1e15) {
      Slot(key) = static_cast<int64_t>(q);
    } else {
      Slot(key) = q;
    }
  }
  void Index(const char* key, uint32_t v) {
    Slot(key) = v == kNoIndex ? Json() : Json(v);
  }
  template <typename T, typename F>
  void Nested(const char* key, const T& v, F fields, Shape shape) {
    Writer sub(Slot(key) = Empty(shape));
    fields(sub, v);
  }
  template <typename T, typename F>
  void Optional(const char* key, bool present, const T& v, F fields,
                Shape shape) {
    if (present) {
      Nested(key, v, fields, shape);
    } else {
      Slot(key) = nullptr;
    }
  }
  template <typename T, typename F>
  void List(const char* key, const std::vector<T>& v, F fields, Shape shape) {
    Json& array = Slot(key) = Json::array();
    for (const T& e : v) {
      Writer sub(array.emplace_back(Empty(shape)));
      fields(sub, e);
    }
  }

 private:
  static Json Empty(Shape shape) {
    return shape == Shape::kObject ? Json::object() : Json::array();
  }
  Json& Slot(const char* key) {
    return key != nullptr ? out_[key] : out_.emplace_back();
  }

  Json& out_;
};

// ---- Reader ----

// Reads the fields of one JSON object (or positional array) into a struct,
// recording every problem with its path instead of throwing.
class Reader {
 public:
  Reader(const Json& in, std::string path, Errors& errors)
      : in_(in), path_(std::move(path)), errors_(errors) {}

  template <typename T>
  void operator()(const char* key, T& v) {
    Read(key, [&](const Json& x, const std::string& p) { Convert(x, p, v); });
  }
  template <typename T>
  void operator()(const char* key, std::vector<T>& v) {
    Read(key, [&](const Json& x, const std::string& p) {
      if (!Expect(x.is_array(), p, "expected an array")) return;
      v.resize(x.size());
      for (size_t i = 0; i < x.size(); ++i) Convert(x[i], Element(p, i), v[i]);
    });
  }
  void operator()(const char* key, double& v, int decimals) {
    Read(key, [&](const Json& x, const std::string& p) {
      if (Expect(x.is_number(), p, "expected a number")) {
        v = Quantise(x.get<double>(), decimals);
      }
    });
  }
  void Index(const char* key, uint32_t& v) {
    Read(key, [&](const Json& x, const std::string& p) {
      if (x.is_null()) {
        v = kNoIndex;
      } else {
        Convert(x, p, v);
      }
    });
  }
  template <typename T, typename F>
  void Nested(const char* key, T& v, F fields, Shape shape) {
    Read(key, [&](const Json& x, const std::string& p) {
      Sub(x, p, v, fields, shape);
    });
  }
  template <typename T, typename F>
  void Optional(const char* key, bool& present, T& v, F fields, Shape shape) {
    Read(key, [&](const Json& x, const std::string& p) {
      present = !x.is_null();
      if (present) Sub(x, p, v, fields, shape);
    });
  }
  template <typename T, typename F>
  void List(const char* key, std::vector<T>& v, F fields, Shape shape) {
    Read(key, [&](const Json& x, const std::string& p) {
      if (!Expect(x.is_array(), p, "expected an array")) return;
      v.resize(x.size());
      for (size_t i = 0; i < x.size(); ++i) {
        Sub(x[i], Element(p, i), v[i], fields, shape);
      }
    });
  }

  // Reports what the field list did not ask for: unknown keys would otherwise
  // escape the content hash, extra elements would be silently dropped.
  void Finish() {
    if (in_.is_array()) {
      if (next_ < in_.size()) {
        Fail(path_, "has " + std::to_string(in_.size()) +
                        " elements, expected " + std::to_string(next_));
      }
      return;
    }
    for (const auto& item : in_.items()) {
      if (std::find(seen_.begin(), seen_.end(), item.key()) == seen_.end()) {
        Fail(Child(path_, item.key()), "unknown key");
      }
    }
  }

 private:
  template <typename F>
  void Read(const char* key, F convert) {
    std::string p;
    if (const Json* x = Slot(key, p)) convert(*x, p);
  }

  // The value for `key`, or the next array element for nullptr; null when
  // missing.
  const Json* Slot(const char* key, std::string& p) {
    if (key == nullptr) {
      p = Element(path_, next_);
      if (next_ >= in_.size()) {
        ++next_;
        Fail(p, "missing element");
        return nullptr;
      }
      return &in_[next_++];
    }
    p = Child(path_, key);
    seen_.emplace_back(key);
    const auto it = in_.find(key);
    if (it == in_.end()) {
      Fail(p, "required key missing");
      return nullptr;
    }
    return &*it;
  }

  template <typename T, typename F>
  void Sub(const Json& x, const std::string& p, T& v, F fields, Shape shape) {
    if (shape == Shape::kObject) {
      if (!Expect(x.is_object(), p, "expected an object")) return;
    } else if (!Expect(x.is_array(), p, "expected an array")) {
      return;
    }
    Reader sub(x, p, errors_);
    fields(sub, v);
    sub.Finish();
  }

  void Convert(const Json& x, const std::string& p, std::string& v) {
    if (Expect(x.is_string(), p, "expected a string")) {
      v = x.get_ref<const std::string&>();
    }
  }
  void Convert(const Json& x, const std::string& p, bool& v) {
    if (Expect(x.is_boolean(), p, "expected true or false")) v = x.get<bool>();
  }
  template <std::integral T>
  void Convert(const Json& x, const std::string& p, T& v) {
    if (!Expect(x.is_number_integer(), p, "expected an integer")) return;
    if (x.is_number_unsigned()) {
      const auto u = x.get<uint64_t>();
      if (Expect(std::in_range<T>(u), p, "out of range")) v = static_cast<T>(u);
      return;
    }
    const auto i = x.get<int64_t>();
    if (Expect(std::in_range<T>(i), p,
               i < 0 ? "must not be negative" : "out of range")) {
      v = static_cast<T>(i);
    }
  }
  void Convert(const Json& x, const std::string& p, IpAddress& v) {
    if (!Expect(x.is_string(), p, "expected an IP address string")) return;
    const auto& text = x.get_ref<const std::string&>();
    if (const auto ip = ParseIp(text)) {
      v = *ip;
    } else {
      Fail(p, "invalid IP address " + Quote(text));
    }
  }
  void Convert(const Json& x, const std::string& p, IpPrefix& v) {
    if (!Expect(x.is_string(), p, "expected a CIDR string")) return;
    const auto& text = x.get_ref<const std::string&>();
    std::string why;
    if (const auto prefix = ParsePrefix(text, &why)) {
      v = *prefix;
    } else {
      Fail(p, "invalid CIDR " + Quote(text) + ": " + why);
    }
  }
  template <typename E>
  requires std::is_enum_v<E>
  void Convert(const Json& x, const std::string& p, E& v) {
    if (!Expect(x.is_string(), p, "expected a name")) return;
    const auto& text = x.get_ref<const std::string&>();
    if (const auto e = EnumNames<E>::Parse(text)) {
      v = *e;
    } else {
      Fail(p, "unknown name " + Quote(text));
    }
  }

  bool Expect(bool ok, const std::string& p, const char* message) {
    if (!ok) Fail(p, message);
    return ok;
  }
  void Fail(std::string p, std::string message) {
    Add(errors_, std::move(p), std::move(message));
  }

  const Json& in_;
  std::string path_;
  Errors& errors_;
  size_t next_ = 0;                     // next position, for tuples
  std::vector<std::string_view> seen_;  // keys asked for, for objects
};

// Invalid UTF-8 in a name becomes U+FFFD instead of an exception; parse ->
// serialise then still reproduces the bytes.
std::string Dump(const Json& j) { return JsonText(j); }

Json ContentJson(const Snapshot& s) {
  Json j = Json::object();
  Writer w(j);
  kContentFields(w, s);
  return j;
}

std::string HashOf(std::string_view canonical) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "fnv1a64:%016" PRIx64, Fnv1a64(canonical));
  return buf;
}

// The version gates everything else: another version may mean another layout.
bool CheckFormatVersion(const Json& root, Errors& errors) {
  const auto it = root.find("formatVersion");
  if (it == root.end()) {
    Add(errors, "formatVersion", "required key missing");
    return false;
  }
  if (!it->is_number_integer() ||
      it->get<int64_t>() != kSnapshotFormatVersion) {
    Add(errors, "formatVersion",
        "unsupported format version " + Quote(Dump(*it)) +
            "; this build reads " + std::to_string(kSnapshotFormatVersion));
    return false;
  }
  return true;
}

// The sizes of the top-level lists, read off the document before anything is
// built from it.
SnapshotCounts DocumentCounts(const Json& root) {
  const auto size = [&root](const char* key) -> size_t {
    const auto it = root.find(key);
    return it != root.end() && it->is_array() ? it->size() : 0;
  };
  return {.nodes = size("nodes"),
          .regions = size("regions"),
          .domains = size("domains"),
          .routes = size("routes"),
          .canaries = size("canaries"),
          .vantage_groups = size("vantageGroups"),
          .isp_sets = size("ispSets"),
          .geo_overrides = size("geoOverrides")};
}

}  // namespace

void QuantiseSnapshot(Snapshot& snapshot) {
  Quantiser q;
  kContentFields(q, snapshot);
}

std::string ComputeContentHash(const Snapshot& snapshot) {
  return HashOf(Dump(ContentJson(snapshot)));
}

std::string SerializeSnapshot(const Snapshot& snapshot) {
  Json j = ContentJson(snapshot);
  const std::string hash = HashOf(Dump(j));
  Writer w(j);
  kStampFields(w, snapshot);
  w("contentHash", hash);
  return Dump(j);
}

ParseSnapshotResult ParseSnapshot(std::string_view document) {
  ParseSnapshotResult result;
  Errors& errors = result.errors;
  if (document.size() > kSnapshotMaxDocumentBytes) {
    Add(errors, "",
        std::to_string(document.size()) + " bytes, over the limit of " +
            std::to_string(kSnapshotMaxDocumentBytes));
    return result;
  }
  try {
    std::string parse_error;
    std::optional<Json> parsed = ParseBoundedJson(
        document,
        {.max_depth = kSnapshotMaxDepth, .max_values = kSnapshotMaxJsonValues},
        &parse_error);
    if (!parsed) {
      Add(errors, "", parse_error);
      return result;
    }
    Json& root = *parsed;
    if (!root.is_object()) {
      Add(errors, "", "expected a JSON object");
      return result;
    }
    errors = CheckSnapshotCounts(DocumentCounts(root));
    if (!errors.empty()) return result;
    if (!CheckFormatVersion(root, errors)) return result;

    Snapshot s;
    std::string stated_hash;
    Reader reader(root, "", errors);
    kContentFields(reader, s);
    kStampFields(reader, s);
    reader("contentHash", stated_hash);
    reader.Finish();
    if (errors.empty()) {
      s.content_hash = ComputeContentHash(s);
      if (s.content_hash != stated_hash) {
        Add(errors, "contentHash",
            "is " + Quote(stated_hash) + " but the content hashes to " +
                s.content_hash + ": the document was altered or truncated");
      }
      for (SnapshotError& e : ValidateSnapshot(s))
        errors.push_back(std::move(e));
      if (errors.empty()) {
        IndexSnapshot(s);
        result.snapshot = std::move(s);
      }
    }
  } catch (const std::exception& e) {
    // Not expected (bad_alloc at worst); the caller keeps its last good
    // snapshot.
    Add(errors, "", std::string("internal error: ") + e.what());
  }
  if (errors.size() > kMaxErrors) {
    const size_t more = errors.size() - (kMaxErrors - 1);
    errors.resize(kMaxErrors - 1);
    Add(errors, "", std::to_string(more) + " more errors not shown");
  }
  return result;
}

}  // namespace ax
