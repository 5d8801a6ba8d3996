// How a Kubernetes object or collection is addressed: {group, version,
// plural, namespace, name} -> its REST path (/api/v1/... for the core group,
// /apis/GROUP/VERSION/... otherwise) plus percent-encoded query strings. Pure
// string building; which resources Ax uses is decided by the callers.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ax::kube {

struct Resource {
  std::string group;    // "" for the core group (ConfigMap, Event, Secret)
  std::string version;  // "v1", "v1alpha1"
  std::string plural;   // "configmaps", "leases", "probereports"
  // "" for a cluster-scoped resource, or for List/Watch across namespaces.
  std::string ns;
  std::string name;  // "" for the collection

  // Copies with the namespace / the name set.
  Resource In(std::string_view namespace_name) const;
  Resource Named(std::string_view object_name) const;
  // This resource type addressing `object`'s metadata.namespace and name.
  Resource For(const nlohmann::json& object) const;

  // An object's apiVersion: "v1" or "GROUP/VERSION".
  std::string ApiVersion() const;
};

// The built-in resources Ax's programs read and write.
Resource ConfigMaps();
Resource Events();
Resource Leases();
Resource Secrets();
Resource ServiceAccounts();

// "/api/v1/namespaces/NS/configmaps/NAME", "/apis/G/V/PLURAL", ... Parts
// left empty are left out; `subresource` ("status") is appended after NAME.
std::string ResourcePath(const Resource& resource,
                         std::string_view subresource = {});

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// path?k=v&k2=v2 with every key and value percent-encoded (continue tokens
// and label selectors hold '=', ',' and '!'); pairs with an empty value are
// left out.
std::string WithQuery(std::string path, const QueryParams& params);

// RFC 3986: everything but unreserved characters becomes %XX.
std::string PercentEncode(std::string_view text);

}  // namespace ax::kube
