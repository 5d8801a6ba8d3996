// Where the apiserver is and how to authenticate to it: from a kubeconfig
// file (a named or the current context) or from inside a pod (service-account
// token, CA and namespace files), in controller-runtime's lookup order. Reads
// files and environment only; TLS and HTTP live in the client.
#pragma once

#include <string>
#include <string_view>

#include "ax/kube/result.h"

namespace ax::kube {

inline constexpr std::string_view kServiceAccountDir =
    "/var/run/secrets/kubernetes.io/serviceaccount";

struct Config {
  std::string server;  // "https://host:port" (http:// only for local proxies)
  // Trust: PEM CA certificates; empty means the system's roots.
  std::string ca_pem;
  bool insecure_skip_tls_verify = false;
  // Client certificate authentication (PEM), both or neither.
  std::string client_cert_pem;
  std::string client_key_pem;
  // Bearer token authentication. A token file is re-read periodically (the
  // kubelet rotates projected service-account tokens); its last good content
  // wins over `token`, as in client-go.
  std::string token;
  std::string token_file;
  // The context's namespace, or the pod's; "default" when neither says.
  std::string default_namespace = "default";
  // What this came from, for logs: "kubeconfig PATH (context NAME)" or
  // "in-cluster (DIR)".
  std::string source;
};

// Reads a kubeconfig (YAML or JSON). `context` empty: its current-context.
// Supports per cluster server, certificate-authority(-data) and
// insecure-skip-tls-verify; per user client-certificate(-data),
// client-key(-data), token and tokenFile. File paths are relative to the
// kubeconfig's folder. Errors name the file, the entry and the missing or
// unsupported field (exec and auth-provider plugins are not supported).
Result<Config> LoadKubeconfig(const std::string& path,
                              std::string_view context = {});

// A kubeconfig's text (a Secret's `kubeconfig` key), its current context.
// `where` prefixes every error ("Secret ns/name key kubeconfig"). Everything
// must be inline (*-data, token): a file reference is refused by name.
Result<Config> ParseKubeconfigText(const std::string& text, std::string where);

// The in-cluster config: KUBERNETES_SERVICE_HOST/PORT from the environment,
// DIR/token (read now to fail early, then re-read by the client), DIR/ca.crt
// and DIR/namespace (optional). `dir` is the service-account mount; tests
// point it elsewhere.
Result<Config> InClusterConfig(std::string_view dir = kServiceAccountDir);

// The first that applies, as controller-runtime does: `kubeconfig` if given;
// $KUBECONFIG (its first existing file: lists are not merged); in-cluster
// when KUBERNETES_SERVICE_HOST is set; $HOME/.kube/config.
Result<Config> LoadConfig(std::string_view kubeconfig = {},
                          std::string_view context = {});

}  // namespace ax::kube
