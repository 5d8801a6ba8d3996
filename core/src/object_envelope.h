// Internal to core/src: the parts every gslb.ax.io report object shares
// (ProbeReport, MeasurementReport): apiVersion, kind and metadata, read
// strictly except for what Kubernetes adds to metadata, and written in the
// order kubectl shows objects. Nothing here knows a spec.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ax/model_parse.h"
#include "manifest_fields.h"

namespace ax::manifest {

// Reads apiVersion (must be kApiVersion), kind (must be `kind`) and
// metadata.name / metadata.namespace from `top`, naming the object in `ctx`
// as "Kind/name"; accepts a status nobody reads.
void ReadObjectEnvelope(Context& ctx, Fields& top, std::string_view kind,
                        std::string& name, std::string& namespace_name);

// {apiVersion, kind, metadata {name[, namespace]}}: spec goes after.
nlohmann::ordered_json ObjectEnvelopeJson(std::string_view kind,
                                          const std::string& name,
                                          const std::string& namespace_name);

// One report object read strictly: a map, its envelope (kind `kind`), then
// `read_spec(ctx, top, object)` for the rest. `Result` has `errors` and an
// optional `report`, set only when nothing failed.
template <typename Result, typename Object, typename ReadSpec>
Result ParseReportObject(const json& value, std::string_view source,
                         std::string_view kind, ReadSpec read_spec) {
  Result result;
  Context ctx(source, result.errors);
  if (!value.is_object()) {
    ctx.Error("", "a " + std::string(kind) + " must be a map, got " +
                      Describe(value));
    return result;
  }
  Object object;
  {
    Fields top(ctx, &value, "");
    ReadObjectEnvelope(ctx, top, kind, object.name, object.namespace_name);
    read_spec(ctx, top, object);
  }
  if (result.errors.empty()) result.report = std::move(object);
  return result;
}

// Parses `text` as JSON and hands it to `parse`; malformed JSON is one error.
template <typename Result, typename Parse>
Result ParseObjectText(std::string_view text, std::string_view source,
                       Parse parse) {
  const json object = json::parse(text.begin(), text.end(), nullptr,
                                  /*allow_exceptions=*/false);
  if (object.is_discarded()) {
    Result result;
    result.errors.push_back({std::string(source), "", "", "not valid JSON"});
    return result;
  }
  return parse(object, source);
}

}  // namespace ax::manifest
