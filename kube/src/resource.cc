// REST paths and query strings (resource.h).
#include "ax/kube/resource.h"

#include "json_util.h"

namespace ax::kube {

Resource Resource::In(std::string_view namespace_name) const {
  Resource out = *this;
  out.ns = namespace_name;
  return out;
}

Resource Resource::Named(std::string_view object_name) const {
  Resource out = *this;
  out.name = object_name;
  return out;
}

Resource Resource::For(const nlohmann::json& object) const {
  Resource out = *this;
  out.ns = MetadataField(object, "namespace");
  out.name = MetadataField(object, "name");
  return out;
}

std::string Resource::ApiVersion() const {
  return group.empty() ? version : group + "/" + version;
}

Resource ConfigMaps() { return {"", "v1", "configmaps"}; }
Resource Events() { return {"", "v1", "events"}; }
Resource Leases() { return {"coordination.k8s.io", "v1", "leases"}; }
Resource Secrets() { return {"", "v1", "secrets"}; }
Resource ServiceAccounts() { return {"", "v1", "serviceaccounts"}; }

std::string ResourcePath(const Resource& resource,
                         std::string_view subresource) {
  std::string path = resource.group.empty()
                         ? "/api/" + resource.version
                         : "/apis/" + resource.group + "/" + resource.version;
  if (!resource.ns.empty()) path += "/namespaces/" + PercentEncode(resource.ns);
  path += "/" + resource.plural;
  if (!resource.name.empty()) path += "/" + PercentEncode(resource.name);
  if (!subresource.empty()) {
    path += "/";
    path += subresource;
  }
  return path;
}

std::string PercentEncode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((u >= 'A' && u <= 'Z') || (u >= 'a' && u <= 'z') ||
        (u >= '0' && u <= '9') || u == '-' || u == '.' || u == '_' ||
        u == '~') {
      out += c;
    } else {
      out += '%';
      out += kHex[u >> 4];
      out += kHex[u & 0xF];
    }
  }
  return out;
}

std::string WithQuery(std::string path, const QueryParams& params) {
  char separator = '?';
  for (const auto& [key, value] : params) {
    if (value.empty()) continue;
    path += separator;
    path += PercentEncode(key);
    path += '=';
    path += PercentEncode(value);
    separator = '&';
  }
  return path;
}

}  // namespace ax::kube
