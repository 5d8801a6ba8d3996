// Owner references (owner_references.h).
#include "ax/kube/owner_references.h"

#include <algorithm>

#include "json_util.h"

namespace ax::kube {

nlohmann::json OwnerReferenceTo(const nlohmann::json& owner) {
  return {{"apiVersion", StringField(owner, "apiVersion")},
          {"kind", StringField(owner, "kind")},
          {"name", MetadataField(owner, "name")},
          {"uid", MetadataField(owner, "uid")}};
}

void AddOwnerReferences(const nlohmann::json& owners, nlohmann::json* object) {
  if (!owners.is_array() || owners.empty() || !object->is_object()) return;
  nlohmann::json& meta = (*object)["metadata"];
  if (!meta.is_object()) meta = nlohmann::json::object();
  nlohmann::json& held = meta["ownerReferences"];
  if (!held.is_array()) held = nlohmann::json::array();
  for (const nlohmann::json& owner : owners) {
    const std::string uid = StringField(owner, "uid");
    const bool present =
        std::any_of(held.begin(), held.end(), [&](const nlohmann::json& ref) {
          return StringField(ref, "uid") == uid;
        });
    if (!present) held.push_back(owner);
  }
}

}  // namespace ax::kube
