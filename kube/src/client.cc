// Kubernetes REST verbs on top of the transport (client.h): paths, content
// types, query parameters, pagination and Status -> Error.
#include "ax/kube/client.h"

#include "json_util.h"
#include "transport.h"

namespace ax::kube {
namespace {

constexpr char kJson[] = "application/json";
constexpr char kApplyPatch[] = "application/apply-patch+yaml";
constexpr char kMergePatch[] = "application/merge-patch+json";

Error InvalidRequest(std::string message) {
  return Error{0, std::string(kReasonInvalidRequest), std::move(message)};
}

Result<void> NeedsName(const Resource& resource, const char* verb) {
  if (resource.name.empty()) {
    return InvalidRequest(std::string(verb) + " " + ResourcePath(resource) +
                          ": no object name");
  }
  return {};
}

}  // namespace

Result<std::unique_ptr<Client>> Client::Create(const Config& config,
                                               ClientOptions options) {
  auto transport = Transport::Create(config, options);
  if (!transport) return transport.error();
  return std::unique_ptr<Client>(new Client(config, std::move(*transport)));
}

Client::Client(Config config, std::unique_ptr<Transport> transport)
    : config_(std::move(config)), transport_(std::move(transport)) {}

Client::~Client() = default;

Result<nlohmann::json> Client::Call(const char* method,
                                    const std::string& target,
                                    const nlohmann::json* body,
                                    const std::string& content_type,
                                    const CallOptions& call) {
  HttpRequest request{method,
                      target,
                      body ? Dump(*body) : std::string(),
                      body ? content_type : std::string(),
                      call,
                      nullptr};
  auto response = transport_->Send(request);
  if (!response) return response.error();
  if (response->status < 200 || response->status >= 300) {
    return ErrorFromResponse(response->status, response->body);
  }
  nlohmann::json parsed = ParseJson(response->body);
  if (parsed.is_discarded()) {
    return Error{
        response->status, std::string(kReasonBadResponse),
        std::string(method) + " " + target + ": the answer is no JSON"};
  }
  return parsed;
}

Result<nlohmann::json> Client::Get(const Resource& object,
                                   const CallOptions& call) {
  if (auto ok = NeedsName(object, "GET"); !ok) return ok.error();
  return Call("GET", ResourcePath(object), nullptr, {}, call);
}

Result<ObjectList> Client::List(const Resource& collection,
                                const ListOptions& options) {
  ObjectList list;
  std::string continue_token;
  do {
    const std::string target = WithQuery(
        ResourcePath(collection),
        {{"labelSelector", options.label_selector},
         {"fieldSelector", options.field_selector},
         {"limit", options.limit > 0 ? std::to_string(options.limit) : ""},
         {"continue", continue_token}});
    auto page = Call("GET", target, nullptr, {}, options.call);
    if (!page) return page.error();
    const nlohmann::json* metadata = ObjectField(*page, "metadata");
    const auto items = page->find("items");
    if (metadata == nullptr || items == page->end() ||
        !(items->is_array() || items->is_null())) {
      return Error{200, std::string(kReasonBadResponse),
                   "GET " + target + ": not a list"};
    }
    if (items->is_array()) {
      for (auto& item : *items) list.items.push_back(std::move(item));
    }
    // Every page carries the first page's resourceVersion: the list is one
    // consistent snapshot.
    list.resource_version = StringField(*metadata, "resourceVersion");
    continue_token = StringField(*metadata, "continue");
  } while (!continue_token.empty());
  return list;
}

Result<nlohmann::json> Client::Write(const char* method,
                                     const Resource& resource,
                                     std::string_view subresource,
                                     const nlohmann::json& body,
                                     const CallOptions& call) {
  if (auto ok = NeedsName(resource, method); !ok) return ok.error();
  return Call(method, ResourcePath(resource, subresource), &body, kJson, call);
}

Result<nlohmann::json> Client::Create(const Resource& collection,
                                      const nlohmann::json& object,
                                      const CallOptions& call) {
  return Call("POST", ResourcePath(collection.Named("")), &object, kJson, call);
}

Result<nlohmann::json> Client::Update(const Resource& object,
                                      const nlohmann::json& value,
                                      const CallOptions& call) {
  return Write("PUT", object, {}, value, call);
}

Result<nlohmann::json> Client::UpdateStatus(const Resource& object,
                                            const nlohmann::json& value,
                                            const CallOptions& call) {
  return Write("PUT", object, "status", value, call);
}

Result<nlohmann::json> Client::ApplyTo(const Resource& object,
                                       std::string_view subresource,
                                       const nlohmann::json& intent,
                                       const ApplyOptions& options) {
  if (auto ok = NeedsName(object, "PATCH"); !ok) return ok.error();
  if (options.field_manager.empty()) {
    return InvalidRequest("apply " + ResourcePath(object) +
                          ": a fieldManager is required");
  }
  const std::string target =
      WithQuery(ResourcePath(object, subresource),
                {{"fieldManager", options.field_manager},
                 {"force", options.force ? "true" : ""}});
  return Call("PATCH", target, &intent, kApplyPatch, options.call);
}

Result<nlohmann::json> Client::Apply(const Resource& object,
                                     const nlohmann::json& intent,
                                     const ApplyOptions& options) {
  return ApplyTo(object, {}, intent, options);
}

Result<nlohmann::json> Client::ApplyStatus(const Resource& object,
                                           const nlohmann::json& intent,
                                           const ApplyOptions& options) {
  return ApplyTo(object, "status", intent, options);
}

Result<nlohmann::json> Client::MergePatch(const Resource& object,
                                          const nlohmann::json& patch,
                                          const CallOptions& call) {
  if (auto ok = NeedsName(object, "PATCH"); !ok) return ok.error();
  return Call("PATCH", ResourcePath(object), &patch, kMergePatch, call);
}

Result<void> Client::Delete(const Resource& object, const CallOptions& call) {
  if (auto ok = NeedsName(object, "DELETE"); !ok) return ok.error();
  auto deleted = Call("DELETE", ResourcePath(object), nullptr, {}, call);
  if (!deleted) return deleted.error();
  return {};
}

Result<void> Client::GetStream(
    const std::string& target,
    const std::function<bool(std::string_view)>& on_data,
    const CallOptions& call) {
  HttpRequest request{"GET", target, {}, {}, call, on_data};
  auto response = transport_->Send(request);
  if (!response) return response.error();
  if (response->status < 200 || response->status >= 300) {
    return ErrorFromResponse(response->status, response->body);
  }
  return {};
}

}  // namespace ax::kube
