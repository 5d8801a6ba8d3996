// YamlDocument (yaml_out.h).
#include "axctl/yaml_out.h"

namespace ax {
namespace {

using Json = nlohmann::ordered_json;

bool IsBlockMap(const Json& v) { return v.is_object() && !v.empty(); }

bool IsBlockList(const Json& v) {
  if (!v.is_array() || v.empty()) return false;
  for (const Json& item : v) {
    if (!IsBlockMap(item)) return false;
  }
  return true;
}

void AppendMap(const Json& map, size_t indent, std::string& out,
               bool first_inline = false);

void AppendValue(const Json& value, size_t indent, std::string& out) {
  if (IsBlockMap(value)) {
    out.push_back('\n');
    AppendMap(value, indent + 2, out);
  } else if (IsBlockList(value)) {
    // Items at the key's indentation, as kubectl prints them.
    out.push_back('\n');
    for (const Json& item : value) {
      out.append(indent, ' ').append("- ");
      AppendMap(item, indent + 2, out, /*first_inline=*/true);
    }
  } else {
    out.append(" ").append(value.dump()).push_back('\n');
  }
}

void AppendMap(const Json& map, size_t indent, std::string& out,
               bool first_inline) {
  bool first = true;
  for (const auto& [key, value] : map.items()) {
    if (!(first && first_inline)) out.append(indent, ' ');
    first = false;
    out.append(key).push_back(':');
    AppendValue(value, indent, out);
  }
}

}  // namespace

std::string YamlDocument(const Json& object) {
  std::string out = "---\n";
  AppendMap(object, 0, out);
  return out;
}

}  // namespace ax
