// ParseMemberSecret (member_secret.h): base64 data -> kubeconfig text ->
// kube::Config, each failure naming the Secret and its key.
#include "member_secret.h"

#include "ax/runtime/base64.h"

namespace ax::controller {
namespace {

using nlohmann::json;

// The decoded value of data[key]; nullopt when absent, "" with `error` set
// when it does not decode.
std::optional<std::string> DataValue(const json& secret, const char* key,
                                     const std::string& where,
                                     std::string* error) {
  const json data = secret.value("data", json::object());
  const auto it = data.find(key);
  if (it == data.end() || !it->is_string()) return std::nullopt;
  auto decoded = runtime::Base64DecodeLenient(it->get<std::string>());
  if (!decoded) {
    *error = where + ": data." + key + " is not valid base64";
    return std::string();
  }
  return std::move(*decoded);
}

}  // namespace

MemberSpecResult ParseMemberSecret(const json& secret,
                                   const std::string& default_namespace) {
  MemberSpecResult result;
  const json meta = secret.value("metadata", json::object());
  MemberSpec spec;
  spec.name = meta.value("name", std::string());
  spec.secret_version = meta.value("resourceVersion", std::string());
  spec.secret = kube::ReferenceTo(secret);
  spec.secret.api_version = "v1";
  spec.secret.kind = "Secret";
  const std::string where =
      "Secret " + meta.value("namespace", std::string()) + "/" + spec.name;
  auto kubeconfig =
      DataValue(secret, kMemberKubeconfigKey, where, &result.error);
  if (!result.error.empty()) return result;
  if (!kubeconfig || kubeconfig->empty()) {
    result.error = where + ": has no data." + kMemberKubeconfigKey +
                   " (the member's kubeconfig)";
    return result;
  }
  auto config = kube::ParseKubeconfigText(
      *kubeconfig, where + " data." + kMemberKubeconfigKey);
  if (!config) {
    result.error = config.error().message;
    return result;
  }
  spec.config = std::move(*config);
  auto ns = DataValue(secret, kMemberNamespaceKey, where, &result.error);
  if (!result.error.empty()) return result;
  spec.namespace_name = ns && !ns->empty() ? *ns : default_namespace;
  result.spec = std::move(spec);
  return result;
}

}  // namespace ax::controller
