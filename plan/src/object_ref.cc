// RefOf (object_ref.h): identifying fields of an API object, read leniently
// (a missing field is empty) because the parsers report malformed objects.
#include "ax/controller/object_ref.h"

#include <nlohmann/json.hpp>

namespace ax::controller {
namespace {

std::string StringField(const nlohmann::json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

ObjectRef RefOf(const nlohmann::json& object) {
  ObjectRef ref;
  if (!object.is_object()) return ref;
  ref.api_version = StringField(object, "apiVersion");
  ref.kind = StringField(object, "kind");
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return ref;
  ref.namespace_name = StringField(*meta, "namespace");
  ref.name = StringField(*meta, "name");
  ref.uid = StringField(*meta, "uid");
  ref.resource_version = StringField(*meta, "resourceVersion");
  if (auto g = meta->find("generation");
      g != meta->end() && g->is_number_integer())
    ref.generation = g->get<int64_t>();
  return ref;
}

std::optional<std::string> AnnotationOf(const nlohmann::json& object,
                                        std::string_view key) {
  if (!object.is_object()) return std::nullopt;
  auto meta = object.find("metadata");
  if (meta == object.end() || !meta->is_object()) return std::nullopt;
  auto annotations = meta->find("annotations");
  if (annotations == meta->end() || !annotations->is_object()) {
    return std::nullopt;
  }
  auto value = annotations->find(key);
  if (value == annotations->end() || !value->is_string()) return std::nullopt;
  return value->get<std::string>();
}

}  // namespace ax::controller
