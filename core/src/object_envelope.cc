// The report objects' envelope (object_envelope.h).
#include "object_envelope.h"

#include "ax/model.h"
#include "manifest_formats.h"

namespace ax::manifest {

void ReadObjectEnvelope(Context& ctx, Fields& top, std::string_view kind,
                        std::string& name, std::string& namespace_name) {
  {
    // Kubernetes adds uid, resourceVersion, ownerReferences, ...: allow.
    Fields metadata = top.Sub("metadata", Fields::Unknown::kAllow);
    const json* found = metadata.Find("name");
    ctx.SetObject(std::string(kind) + (found && found->is_string()
                                           ? "/" + found->get<std::string>()
                                           : std::string()));
    metadata.ReadRequired("name", name, &DecodeFormat<&ReadObjectName>);
    metadata.Read("namespace", namespace_name);
  }
  std::string api_version, read_kind;
  top.ReadRequired("apiVersion", api_version);
  top.ReadRequired("kind", read_kind);
  if (!api_version.empty() && api_version != kApiVersion) {
    ctx.Error("apiVersion", "must be " + std::string(kApiVersion) + ", got \"" +
                                api_version + "\"");
  }
  if (!read_kind.empty() && read_kind != kind) {
    ctx.Error("kind",
              "must be " + std::string(kind) + ", got \"" + read_kind + "\"");
  }
  top.Find("status");  // nothing reads it; Kubernetes may add one
}

nlohmann::ordered_json ObjectEnvelopeJson(std::string_view kind,
                                          const std::string& name,
                                          const std::string& namespace_name) {
  nlohmann::ordered_json metadata = {{"name", name}};
  if (!namespace_name.empty()) metadata["namespace"] = namespace_name;
  return {{"apiVersion", kApiVersion},
          {"kind", kind},
          {"metadata", std::move(metadata)}};
}

}  // namespace ax::manifest
