// A member cluster as the control plane is told about it: a Secret in the
// operator's namespace, selected by label, whose `kubeconfig` key holds the
// credentials the operator uses there (everything inline) and whose optional
// `namespace` key names where ax-dns reads the route table in the member
// (else the operator's own namespace). Pure parsing; watching the Secrets and
// using the credentials are member_set.h's and member_link.h's.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "ax/kube/config.h"
#include "ax/kube/event_recorder.h"

namespace ax::controller {

inline constexpr char kMemberKubeconfigKey[] = "kubeconfig";
inline constexpr char kMemberNamespaceKey[] = "namespace";

struct MemberSpec {
  std::string name;            // the Secret's name: the member's name
  std::string namespace_name;  // in the member
  kube::Config config;
  // The Secret as read: a new resourceVersion (a rotation) replaces the
  // member's link; Events about the member go to this object.
  std::string secret_version;
  kube::ObjectReference secret;
};

struct MemberSpecResult {
  std::optional<MemberSpec> spec;
  // When !spec: what is wrong, naming the Secret and the key.
  std::string error;
};

// `secret` as the API returns it (data base64); `default_namespace` is the
// operator's.
MemberSpecResult ParseMemberSecret(const nlohmann::json& secret,
                                   const std::string& default_namespace);

}  // namespace ax::controller
