// REST calls to the Kubernetes API over HTTPS: get, paginated list, create,
// update (PUT), server-side apply, merge patch, the status subresource and
// delete, on objects as JSON. Every call returns a Result (never throws) and
// runs under a timeout; a CancelToken aborts it from another thread. Thread-
// safe: calls from many threads each use their own pooled connection.
// Watches build on GetStream (watch.h); nothing here retries.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "ax/kube/cancel.h"
#include "ax/kube/config.h"
#include "ax/kube/resource.h"
#include "ax/kube/result.h"
#include "ax/kube/token_source.h"

namespace ax::kube {

struct ClientOptions {
  std::chrono::milliseconds connect_timeout{5000};
  // Per read and per write of a request (the longest silence tolerated),
  // unless a call says otherwise.
  std::chrono::milliseconds request_timeout{30000};
  std::string user_agent = "ax";
  size_t max_idle_connections = 4;
  std::chrono::seconds token_reload{60};
  // The clock deciding when the token file is re-read (tests inject one).
  TokenSource::Clock token_clock = std::chrono::steady_clock::now;
};

// Per call: a shorter or longer timeout than the client's, a cancel token.
struct CallOptions {
  std::chrono::milliseconds timeout{0};  // 0: ClientOptions::request_timeout
  CancelToken* cancel = nullptr;
};

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  // Page size: List follows `continue` tokens until the last page. 0: the
  // server's choice (one page, everything).
  int64_t limit = 500;
  CallOptions call;
};

struct ObjectList {
  std::vector<nlohmann::json> items;
  // The list's metadata.resourceVersion: where a watch resumes.
  std::string resource_version;
};

struct ApplyOptions {
  std::string field_manager;  // required by the apiserver for apply
  // Take over fields another manager owns (for objects we own outright).
  bool force = false;
  CallOptions call;
};

class Transport;

class Client {
 public:
  // Fails on unusable TLS material or server URL; never connects here.
  static Result<std::unique_ptr<Client>> Create(const Config& config,
                                                ClientOptions options = {});
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  const Config& config() const { return config_; }

  // `object` names one object (name set); `collection` has no name. The
  // namespace goes in the Resource, not in the object's metadata.
  Result<nlohmann::json> Get(const Resource& object,
                             const CallOptions& call = {});
  // Every page, concatenated. A `continue` token that expires mid-way (410)
  // is an error: list again from the start.
  Result<ObjectList> List(const Resource& collection,
                          const ListOptions& options = {});
  Result<nlohmann::json> Create(const Resource& collection,
                                const nlohmann::json& object,
                                const CallOptions& call = {});
  // PUT: `object` carries the metadata.resourceVersion it was read at; a
  // stale one gets 409 Conflict (see UpdateWithRetry in conflict_retry.h).
  Result<nlohmann::json> Update(const Resource& object,
                                const nlohmann::json& value,
                                const CallOptions& call = {});
  Result<nlohmann::json> UpdateStatus(const Resource& object,
                                      const nlohmann::json& value,
                                      const CallOptions& call = {});
  // Server-side apply: PATCH application/apply-patch+yaml with `intent` (a
  // JSON body, which is YAML) holding apiVersion, kind, metadata.name and
  // only the fields this manager owns. Creates the object if missing.
  Result<nlohmann::json> Apply(const Resource& object,
                               const nlohmann::json& intent,
                               const ApplyOptions& options);
  Result<nlohmann::json> ApplyStatus(const Resource& object,
                                     const nlohmann::json& intent,
                                     const ApplyOptions& options);
  // JSON merge patch (RFC 7386), e.g. bumping an Event's count.
  Result<nlohmann::json> MergePatch(const Resource& object,
                                    const nlohmann::json& patch,
                                    const CallOptions& call = {});
  // 404 is an error like any other; callers that do not care check it.
  Result<void> Delete(const Resource& object, const CallOptions& call = {});

  // A GET of `target` (path and query) whose 2xx body goes to `on_data` as
  // it arrives; on_data returns false to stop reading, which ends the call
  // without an error. A non-2xx answer becomes the Error.
  Result<void> GetStream(const std::string& target,
                         const std::function<bool(std::string_view)>& on_data,
                         const CallOptions& call);

 private:
  Client(Config config, std::unique_ptr<Transport> transport);

  Result<nlohmann::json> Call(const char* method, const std::string& target,
                              const nlohmann::json* body,
                              const std::string& content_type,
                              const CallOptions& call);
  Result<nlohmann::json> Write(const char* method, const Resource& resource,
                               std::string_view subresource,
                               const nlohmann::json& body,
                               const CallOptions& call);
  Result<nlohmann::json> ApplyTo(const Resource& object,
                                 std::string_view subresource,
                                 const nlohmann::json& intent,
                                 const ApplyOptions& options);

  const Config config_;
  std::unique_ptr<Transport> transport_;
};

}  // namespace ax::kube
