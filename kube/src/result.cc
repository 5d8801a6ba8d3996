// Error text and the metav1.Status -> Error mapping (result.h).
#include "ax/kube/result.h"

#include <nlohmann/json.hpp>

#include "json_util.h"

namespace ax::kube {
namespace {

// The metav1.StatusReason the apiserver would use for a bare status code
// (what a proxy or a non-Kubernetes server in front of it answers).
std::string_view ReasonForCode(int code) {
  switch (code) {
    case 400:
      return "BadRequest";
    case 401:
      return "Unauthorized";
    case 403:
      return "Forbidden";
    case 404:
      return "NotFound";
    case 405:
      return "MethodNotAllowed";
    case 406:
      return "NotAcceptable";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 413:
      return "RequestEntityTooLarge";
    case 415:
      return "UnsupportedMediaType";
    case 422:
      return "Invalid";
    case 429:
      return "TooManyRequests";
    case 500:
      return "InternalError";
    case 503:
      return "ServiceUnavailable";
    case 504:
      return "Timeout";
    default:
      return "Unknown";
  }
}

constexpr size_t kMaxBodyInMessage = 512;

}  // namespace

std::string Error::ToString() const {
  std::string out;
  if (http_status != 0) out = std::to_string(http_status) + " ";
  out += reason.empty() ? "Unknown" : reason;
  if (!message.empty()) out += ": " + message;
  return out;
}

Error ErrorFromStatus(const nlohmann::json& status, int fallback_status) {
  Error error;
  error.http_status = fallback_status;
  if (status.is_object()) {
    const auto code = status.find("code");
    if (code != status.end() && code->is_number_integer()) {
      error.http_status = code->get<int>();
    }
  }
  error.reason = StringField(status, "reason");
  error.message = StringField(status, "message");
  if (error.reason.empty()) error.reason = ReasonForCode(error.http_status);
  return error;
}

Error ErrorFromResponse(int http_status, std::string_view body) {
  const nlohmann::json parsed = ParseJson(body);
  if (StringField(parsed, "kind") == "Status") {
    // The HTTP status wins over the body's code: it is what happened.
    Error error = ErrorFromStatus(parsed, http_status);
    error.http_status = http_status;
    return error;
  }
  Error error{http_status, std::string(ReasonForCode(http_status)), {}};
  error.message = std::string(body.substr(0, kMaxBodyInMessage));
  return error;
}

}  // namespace ax::kube
