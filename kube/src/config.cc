// Kubeconfig and in-cluster config loading (config.h). yaml-cpp throws on
// malformed input; every throw is caught here and becomes an Error naming the
// file.
#include "ax/kube/config.h"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>

#include "ax/runtime/base64.h"

namespace ax::kube {
namespace {

namespace fs = std::filesystem;

Error ConfigError(std::string message) {
  return Error{0, std::string(kReasonInvalidConfig), std::move(message)};
}

Result<std::string> ReadFile(const fs::path& path, std::string_view what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return ConfigError(std::string(what) + ": cannot read " + path.string());
  }
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Trim(const std::string& text) {
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return {};
  const auto last = text.find_last_not_of(" \t\r\n");
  return text.substr(first, last - first + 1);
}

// A kubeconfig file being read: the root node, where relative paths start,
// and the prefix of every error.
struct Kubeconfig {
  YAML::Node root;
  // Where relative paths start; nullopt: file references are refused (a
  // kubeconfig held in a Secret has no files beside it).
  std::optional<fs::path> dir;
  std::string where;  // "kubeconfig PATH"

  Error Fail(const std::string& message) const {
    return ConfigError(where + ": " + message);
  }

  // The `inner` map (context/cluster/user) of the entry named `name` in
  // the list `list` (contexts/clusters/users), or an error listing what
  // there is.
  Result<YAML::Node> Entry(const char* list, const char* inner,
                           const std::string& name) const {
    std::string have;
    for (const YAML::Node& entry : root[list]) {
      const std::string entry_name = entry["name"].as<std::string>("");
      if (entry_name == name) {
        const YAML::Node body = entry[inner];
        if (!body.IsMap()) {
          return Fail(std::string(list) + " entry \"" + name + "\" has no " +
                      inner + " map");
        }
        return body;
      }
      have += (have.empty() ? "" : ", ") + entry_name;
    }
    return Fail(std::string(list) + " has no entry named \"" + name +
                "\" (has: " + (have.empty() ? "none" : have) + ")");
  }

  // PEM from `field`-data (base64) or the file `field` names; nullopt when
  // neither is set.
  Result<std::optional<std::string>> Pem(const YAML::Node& node,
                                         const std::string& field,
                                         const std::string& owner) const {
    if (const YAML::Node data = node[field + "-data"]; data) {
      auto decoded = runtime::Base64DecodeLenient(data.as<std::string>());
      if (!decoded) {
        return Fail(owner + ": " + field + "-data is not valid base64");
      }
      return std::optional<std::string>(std::move(*decoded));
    }
    if (const YAML::Node file = node[field]; file) {
      if (!dir) return NoFiles(owner, field);
      auto text = ReadFile(*dir / file.as<std::string>(),
                           where + ": " + owner + ": " + field);
      if (!text) return text.error();
      return std::optional<std::string>(std::move(*text));
    }
    return std::optional<std::string>();
  }

  Error NoFiles(const std::string& owner, const std::string& field) const {
    return Fail(
        owner + ": " + field +
        " names a file, which a kubeconfig without a folder cannot "
        "have: inline it (" +
        (field == "tokenFile" ? std::string("token") : field + "-data") + ")");
  }
};

Result<void> ReadCluster(const Kubeconfig& kc, const std::string& name,
                         Config* config) {
  auto cluster = kc.Entry("clusters", "cluster", name);
  if (!cluster) return cluster.error();
  const std::string owner = "cluster \"" + name + "\"";
  config->server = (*cluster)["server"].as<std::string>("");
  if (config->server.empty()) return kc.Fail(owner + " has no server");
  config->insecure_skip_tls_verify =
      (*cluster)["insecure-skip-tls-verify"].as<bool>(false);
  auto ca = kc.Pem(*cluster, "certificate-authority", owner);
  if (!ca) return ca.error();
  if (*ca) config->ca_pem = std::move(**ca);
  return {};
}

Result<void> ReadUser(const Kubeconfig& kc, const std::string& name,
                      Config* config) {
  auto user = kc.Entry("users", "user", name);
  if (!user) return user.error();
  const std::string owner = "user \"" + name + "\"";
  for (const char* plugin : {"exec", "auth-provider"}) {
    if ((*user)[plugin]) {
      return kc.Fail(owner + " uses " + plugin +
                     ", which ax does not support: use client-certificate, "
                     "token or tokenFile");
    }
  }
  auto cert = kc.Pem(*user, "client-certificate", owner);
  if (!cert) return cert.error();
  auto key = kc.Pem(*user, "client-key", owner);
  if (!key) return key.error();
  if (cert->has_value() != key->has_value()) {
    return kc.Fail(owner + " has " +
                   (cert->has_value() ? "client-certificate(-data) but no "
                                        "client-key(-data)"
                                      : "client-key(-data) but no "
                                        "client-certificate(-data)"));
  }
  if (*cert) {
    config->client_cert_pem = std::move(**cert);
    config->client_key_pem = std::move(**key);
  }
  config->token = (*user)["token"].as<std::string>("");
  if (const YAML::Node file = (*user)["tokenFile"]; file) {
    if (!kc.dir) return kc.NoFiles(owner, "tokenFile");
    config->token_file = (*kc.dir / file.as<std::string>()).string();
    auto token =
        ReadFile(config->token_file, kc.where + ": " + owner + ": tokenFile");
    if (!token) return token.error();
  }
  return {};
}

Result<Config> ParseKubeconfig(const Kubeconfig& kc, std::string_view wanted) {
  std::string context_name(wanted);
  if (context_name.empty()) {
    context_name = kc.root["current-context"].as<std::string>("");
    if (context_name.empty()) {
      return kc.Fail("no current-context set and no context given");
    }
  }
  auto context = kc.Entry("contexts", "context", context_name);
  if (!context) return context.error();
  const std::string owner = "context \"" + context_name + "\"";
  const std::string cluster = (*context)["cluster"].as<std::string>("");
  if (cluster.empty()) return kc.Fail(owner + " has no cluster");
  const std::string user = (*context)["user"].as<std::string>("");

  Config config;
  config.source = kc.where + " (context " + context_name + ")";
  if (auto ns = (*context)["namespace"].as<std::string>(""); !ns.empty()) {
    config.default_namespace = ns;
  }
  if (auto ok = ReadCluster(kc, cluster, &config); !ok) return ok.error();
  if (!user.empty()) {
    if (auto ok = ReadUser(kc, user, &config); !ok) return ok.error();
  }
  return config;
}

// "host:port", bracketing an IPv6 literal.
std::string JoinHostPort(const std::string& host, const std::string& port) {
  return host.find(':') != std::string::npos ? "[" + host + "]:" + port
                                             : host + ":" + port;
}

const char* Env(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : nullptr;
}

Result<Config> ParseText(Kubeconfig& kc, const std::string& text,
                         std::string_view context) {
  try {
    kc.root = YAML::Load(text);
    if (!kc.root.IsMap()) return kc.Fail("not a YAML/JSON map");
    return ParseKubeconfig(kc, context);
  } catch (const YAML::Exception& e) {
    return kc.Fail(e.what());
  }
}

}  // namespace

Result<Config> LoadKubeconfig(const std::string& path,
                              std::string_view context) {
  Kubeconfig kc;
  kc.where = "kubeconfig " + path;
  std::error_code ec;
  kc.dir = fs::absolute(fs::path(path), ec).parent_path();
  auto text = ReadFile(path, "kubeconfig");
  if (!text) return text.error();
  return ParseText(kc, *text, context);
}

Result<Config> ParseKubeconfigText(const std::string& text, std::string where) {
  Kubeconfig kc;
  kc.where = std::move(where);
  return ParseText(kc, text, {});
}

Result<Config> InClusterConfig(std::string_view dir) {
  const char* host = Env("KUBERNETES_SERVICE_HOST");
  const char* port = Env("KUBERNETES_SERVICE_PORT");
  if (host == nullptr || port == nullptr) {
    return ConfigError(
        "in-cluster config: KUBERNETES_SERVICE_HOST and "
        "KUBERNETES_SERVICE_PORT must both be set (not running in a pod?)");
  }
  const fs::path base(dir);
  Config config;
  config.server = "https://" + JoinHostPort(host, port);
  config.source = "in-cluster (" + base.string() + ")";
  config.token_file = (base / "token").string();
  auto token = ReadFile(config.token_file, "in-cluster config: token");
  if (!token) return token.error();
  auto ca = ReadFile(base / "ca.crt", "in-cluster config: ca.crt");
  if (!ca) return ca.error();
  config.ca_pem = std::move(*ca);
  if (fs::exists(base / "namespace")) {
    auto ns = ReadFile(base / "namespace", "in-cluster config: namespace");
    if (!ns) return ns.error();
    if (std::string trimmed = Trim(*ns); !trimmed.empty()) {
      config.default_namespace = std::move(trimmed);
    }
  }
  return config;
}

Result<Config> LoadConfig(std::string_view kubeconfig,
                          std::string_view context) {
  if (!kubeconfig.empty())
    return LoadKubeconfig(std::string(kubeconfig), context);
  if (const char* list = Env("KUBECONFIG")) {
    std::istringstream paths(list);
    for (std::string path; std::getline(paths, path, ':');) {
      std::error_code ec;
      if (!path.empty() && fs::exists(path, ec)) {
        return LoadKubeconfig(path, context);
      }
    }
    return ConfigError(std::string("KUBECONFIG=") + list +
                       ": none of its files exists");
  }
  if (Env("KUBERNETES_SERVICE_HOST") != nullptr) return InClusterConfig();
  if (const char* home = Env("HOME")) {
    const fs::path path = fs::path(home) / ".kube" / "config";
    std::error_code ec;
    if (fs::exists(path, ec)) return LoadKubeconfig(path.string(), context);
  }
  return ConfigError(
      "no Kubernetes config: no kubeconfig given, KUBECONFIG unset, not in a "
      "pod (KUBERNETES_SERVICE_HOST unset) and no $HOME/.kube/config");
}

}  // namespace ax::kube
