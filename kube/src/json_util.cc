// Exception-free JSON helpers (json_util.h).
#include "json_util.h"

namespace ax::kube {

const nlohmann::json* ObjectField(const nlohmann::json& obj,
                                  std::string_view key) {
  if (!obj.is_object()) return nullptr;
  const auto it = obj.find(key);
  return it != obj.end() && it->is_object() ? &*it : nullptr;
}

std::string StringField(const nlohmann::json& obj, std::string_view key) {
  if (!obj.is_object()) return {};
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>()
                                            : std::string();
}

std::string MetadataField(const nlohmann::json& obj, std::string_view key) {
  const nlohmann::json* metadata = ObjectField(obj, "metadata");
  return metadata ? StringField(*metadata, key) : std::string();
}

std::string Dump(const nlohmann::json& value) {
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json ParseJson(std::string_view text) {
  return nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
}

}  // namespace ax::kube
