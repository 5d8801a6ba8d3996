// DecideRouteTable and ReadPreviousRouteTable (route_table_plan.h): publish
// on a changed content hash, refuse what is invalid or too large, honour a
// rollback annotation, and keep the history to the configured depth.
#include "ax/controller/route_table_plan.h"

#include <algorithm>
#include <charconv>

#include "ax/controller/history.h"
#include "ax/controller/object_ref.h"
#include "ax/enum_names.h"
#include "ax/snapshot_json.h"
#include "ax/snapshot_validate.h"

namespace ax::controller {
namespace {

using nlohmann::json;

constexpr NameTable<PublishOutcome, 5> kOutcomeNames{{
    {PublishOutcome::kPublished, "Published"},
    {PublishOutcome::kUnchanged, "Unchanged"},
    {PublishOutcome::kRejected, "Rejected"},
    {PublishOutcome::kRolledBack, "RolledBack"},
    {PublishOutcome::kHeld, "Held"},
}};

std::optional<uint64_t> ParseVersion(std::string_view text) {
  uint64_t v = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, v);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return v;
}

std::string InForce(const PreviousRouteTable& previous) {
  return previous.snapshot
             ? "version " + std::to_string(previous.snapshot->version) +
                   " stays in force"
             : "nothing is published yet";
}

RouteTableConfigMapOptions ConfigMapOptions(const PlanOptions& o,
                                            RouteTableRole role,
                                            uint64_t version) {
  return {.name = role == RouteTableRole::kCurrent
                      ? o.route_table_name
                      : HistoryConfigMapName(o.route_table_name, version),
          .namespace_name = o.namespace_name,
          .route_table = o.route_table_name,
          .role = role};
}

// `fresh` replaces `current`: labels and annotations others put on the
// current ConfigMap (a rollback annotation, kubectl's) survive, so do its
// owner references (a replace would drop them), and the current
// resourceVersion makes the write fail if someone wrote in between.
json ReplacingCurrent(json fresh, const json* current) {
  if (!current) return fresh;
  const json& meta = current->value("metadata", json::object());
  json& out = fresh["metadata"];
  for (const char* field : {"labels", "annotations"}) {
    json merged = meta.value(field, json::object());
    if (!merged.is_object()) merged = json::object();
    merged.update(out[field]);
    out[field] = std::move(merged);
  }
  if (const auto owners = meta.find("ownerReferences");
      owners != meta.end() && owners->is_array()) {
    out["ownerReferences"] = *owners;
  }
  if (const std::string rv = RefOf(*current).resource_version; !rv.empty()) {
    out["resourceVersion"] = rv;
  }
  return fresh;
}

void SetSizes(const RouteTablePayload& payload, RouteTableDecision& d) {
  d.snapshot_bytes = payload.document_bytes;
  d.payload_bytes = payload.payload_bytes;
  d.gzipped = payload.gzipped;
}

// The stored form of `snapshot`: text only when it fits, since a document too
// large as text may fit gzipped.
RouteTablePayload Encode(const Snapshot& snapshot, const PlanOptions& o) {
  return EncodeRouteTablePayload(
      SerializeSnapshot(snapshot),
      std::min(o.gzip_threshold_bytes, o.max_config_map_bytes));
}

// Why `payload` cannot be stored, or "". Sizes go into `detail`: the gzip
// size moves with generatedAtMs, and condition messages must hold still.
std::string TooLarge(const Snapshot& snapshot, const RouteTablePayload& payload,
                     const PreviousRouteTable& previous, const PlanOptions& o,
                     RouteTableDecision& d) {
  if (payload.payload_bytes <= o.max_config_map_bytes) return "";
  d.detail = std::to_string(payload.document_bytes) + " bytes as JSON, " +
             std::to_string(payload.payload_bytes) + " gzipped";
  return "version " + std::to_string(snapshot.version) +
         " does not fit the ConfigMap limit of " +
         std::to_string(o.max_config_map_bytes) + " bytes, even gzipped; " +
         InForce(previous);
}

// Writes `snapshot` as the current table, with its kept copy.
void Write(const Snapshot& snapshot, const RouteTablePayload& payload,
           const PreviousRouteTable& previous, const ObservedState& observed,
           RouteTableDecision& d) {
  const PlanOptions& o = observed.options;
  SetSizes(payload, d);
  d.in_force = &snapshot;
  d.config_map = ReplacingCurrent(
      MakeRouteTableConfigMap(
          payload, snapshot.version, snapshot.content_hash,
          ConfigMapOptions(o, RouteTableRole::kCurrent, snapshot.version)),
      previous.config_map);
  const HistoryPlan history = PlanHistory(observed.history, o.route_table_name,
                                          o.history_depth, snapshot.version);
  if (history.create_in_force) {
    d.history_creates.push_back(MakeRouteTableConfigMap(
        payload, snapshot.version, snapshot.content_hash,
        ConfigMapOptions(o, RouteTableRole::kHistory, snapshot.version)));
  }
  d.history_deletes = history.deletes;
}

// Nothing new goes out; the history still follows the table in force (a
// missing copy of it is made, versions beyond the depth go).
void KeepInForce(const PreviousRouteTable& previous,
                 const ObservedState& observed, RouteTableDecision& d) {
  const PlanOptions& o = observed.options;
  d.in_force = previous.snapshot ? &*previous.snapshot : nullptr;
  const uint64_t version = d.in_force ? d.in_force->version : 0;
  const HistoryPlan history = PlanHistory(observed.history, o.route_table_name,
                                          o.history_depth, version);
  if (history.create_in_force) {
    const RouteTablePayload payload = Encode(*d.in_force, o);
    d.history_creates.push_back(MakeRouteTableConfigMap(
        payload, version, d.in_force->content_hash,
        ConfigMapOptions(o, RouteTableRole::kHistory, version)));
  }
  d.history_deletes = history.deletes;
}

const json* FindHistory(const ObservedState& observed,
                        const std::string& name) {
  for (const json& cm : observed.history) {
    if (RefOf(cm).name == name) return &cm;
  }
  return nullptr;
}

RouteTableDecision Hold(std::string message, const PreviousRouteTable& previous,
                        const ObservedState& observed) {
  RouteTableDecision d;
  d.outcome = PublishOutcome::kHeld;
  d.reason = "RollbackFailed";
  d.message = std::move(message) + "; " + InForce(previous) +
              " and nothing is published until the annotation " +
              kRollbackAnnotation + " is fixed or removed";
  KeepInForce(previous, observed, d);
  return d;
}

RouteTableDecision DecideRollback(const PreviousRouteTable& previous,
                                  const ObservedState& observed) {
  const std::string& value = *previous.rollback_to;
  const std::optional<uint64_t> target = ParseVersion(value);
  const std::string annotation =
      std::string("annotation ") + kRollbackAnnotation;
  if (!target) {
    return Hold(annotation + " must be a version number, got \"" + value + "\"",
                previous, observed);
  }
  const std::string name =
      HistoryConfigMapName(observed.options.route_table_name, *target);
  const json* kept = FindHistory(observed, name);
  if (!kept) {
    return Hold(annotation + " asks for version " + value + ", but ConfigMap " +
                    name + " is not kept",
                previous, observed);
  }
  ParseRouteTableResult parsed = ParseRouteTableConfigMap(*kept);
  if (!parsed.snapshot) {
    return Hold(
        "kept version " + value + " is unreadable: " + parsed.error->ToString(),
        previous, observed);
  }
  RouteTableDecision d;
  d.outcome = PublishOutcome::kRolledBack;
  d.reason = "RolledBack";
  if (previous.snapshot &&
      previous.snapshot->content_hash == parsed.snapshot->content_hash) {
    KeepInForce(previous, observed, d);
    d.message = "serving the content of version " + value + " as version " +
                std::to_string(previous.snapshot->version) +
                "; remove the annotation " + kRollbackAnnotation +
                " to publish again";
    return d;
  }
  d.rolled_back = std::make_shared<Snapshot>(std::move(*parsed.snapshot));
  d.rolled_back->version = previous.highest_version + 1;
  d.rolled_back->generated_at_ms = observed.now_ms;
  const RouteTablePayload payload = Encode(*d.rolled_back, observed.options);
  if (std::string why =
          TooLarge(*d.rolled_back, payload, previous, observed.options, d);
      !why.empty()) {
    return Hold("kept version " + value + " does not fit: " + why, previous,
                observed);
  }
  Write(*d.rolled_back, payload, previous, observed, d);
  d.message = "rolled back to the content of version " + value +
              ", published as version " + std::to_string(d.in_force->version) +
              "; remove the annotation " + kRollbackAnnotation +
              " to publish again";
  return d;
}

}  // namespace

const char* PublishOutcomeName(PublishOutcome outcome) {
  return NameOf(kOutcomeNames, outcome);
}

PreviousRouteTable ReadPreviousRouteTable(const ObservedState& observed) {
  PreviousRouteTable p;
  p.highest_version = HighestHistoryVersion(observed.history,
                                            observed.options.route_table_name);
  if (!observed.route_table) return p;
  const json& cm = *observed.route_table;
  p.config_map = &cm;
  p.rollback_to = AnnotationOf(cm, kRollbackAnnotation);
  // Even an unreadable table's version annotation raises the floor: ax-dns
  // may have loaded it.
  if (auto v = AnnotationOf(cm, kSnapshotVersionAnnotation)) {
    p.highest_version =
        std::max(p.highest_version, ParseVersion(*v).value_or(0));
  }
  ParseRouteTableResult parsed = ParseRouteTableConfigMap(cm);
  if (parsed.snapshot) {
    p.highest_version = std::max(p.highest_version, parsed.snapshot->version);
    p.snapshot = std::move(parsed.snapshot);
    p.document_bytes = parsed.document_bytes;
    p.payload_bytes = parsed.payload_bytes;
    p.gzipped = parsed.gzipped;
  } else {
    p.error = std::move(parsed.error);
  }
  return p;
}

RouteTableDecision DecideRouteTable(const Snapshot* built,
                                    const std::string& build_error,
                                    const PreviousRouteTable& previous,
                                    const ObservedState& observed) {
  if (previous.rollback_to) return DecideRollback(previous, observed);
  RouteTableDecision d;
  if (!built) {
    KeepInForce(previous, observed, d);
    d.outcome = PublishOutcome::kRejected;
    d.reason = "SnapshotBuildFailed";
    d.message = "building the snapshot failed: " + build_error + "; " +
                InForce(previous);
    return d;
  }
  if (previous.snapshot &&
      previous.snapshot->content_hash == built->content_hash) {
    KeepInForce(previous, observed, d);
    d.outcome = PublishOutcome::kUnchanged;
    d.reason = "SnapshotUnchanged";
    d.message = "version " + std::to_string(previous.snapshot->version) +
                " already has content " + built->content_hash;
    d.snapshot_bytes = previous.document_bytes;
    d.payload_bytes = previous.payload_bytes;
    d.gzipped = previous.gzipped;
    return d;
  }
  if (std::vector<SnapshotError> errors = ValidateSnapshot(*built);
      !errors.empty()) {
    KeepInForce(previous, observed, d);
    d.outcome = PublishOutcome::kRejected;
    d.reason = "SnapshotInvalid";
    d.message = "the built snapshot fails validation (" +
                std::to_string(errors.size()) +
                " errors, first: " + errors.front().ToString() + "); " +
                InForce(previous);
    return d;
  }
  const RouteTablePayload payload = Encode(*built, observed.options);
  if (std::string why =
          TooLarge(*built, payload, previous, observed.options, d);
      !why.empty()) {
    KeepInForce(previous, observed, d);
    SetSizes(payload, d);
    d.outcome = PublishOutcome::kRejected;
    d.reason = "SnapshotTooLarge";
    d.message = std::move(why);
    return d;
  }
  Write(*built, payload, previous, observed, d);
  d.outcome = PublishOutcome::kPublished;
  d.reason = "SnapshotPublished";
  d.message =
      "published version " + std::to_string(built->version) + " (" +
      built->content_hash + ", " + std::to_string(d.snapshot_bytes) +
      " bytes as JSON" +
      (d.gzipped ? ", " + std::to_string(d.payload_bytes) + " gzipped" : "") +
      ")";
  return d;
}

}  // namespace ax::controller
