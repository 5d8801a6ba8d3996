// What every call of the Kubernetes client returns: a value or an Error. The
// library never throws across its API (ax-dns, which never throws, uses it), so
// failures are values carrying the HTTP status and the apiserver's Status
// reason/message. No I/O here; only the Status JSON -> Error mapping.
#pragma once

#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace ax::kube {

// Reasons for failures without an HTTP status (http_status == 0). With a
// status, `reason` is the apiserver's metav1.StatusReason ("NotFound",
// "Conflict", "AlreadyExists", "Forbidden", "Expired", "Invalid", ...).
inline constexpr std::string_view kReasonTransport = "Transport";
inline constexpr std::string_view kReasonCanceled = "Canceled";
inline constexpr std::string_view kReasonInvalidConfig = "InvalidConfig";
inline constexpr std::string_view kReasonInvalidRequest = "InvalidRequest";
inline constexpr std::string_view kReasonBadResponse = "BadResponse";

struct Error {
  // 0 when no HTTP response arrived (connection, TLS, timeout, canceled) or
  // the call never got as far as a request.
  int http_status = 0;
  std::string reason;
  std::string message;

  bool IsNotFound() const { return http_status == 404; }
  // 409 from a stale resourceVersion (a PUT to re-read and retry), not a
  // create of a name that exists.
  bool IsConflict() const {
    return http_status == 409 && reason != "AlreadyExists";
  }
  bool IsAlreadyExists() const {
    return http_status == 409 && reason == "AlreadyExists";
  }
  // 410: the resourceVersion is too old for the server (relist).
  bool IsGone() const { return http_status == 410; }
  bool IsForbidden() const { return http_status == 403; }
  bool IsUnauthorized() const { return http_status == 401; }
  bool IsCanceled() const {
    return http_status == 0 && reason == kReasonCanceled;
  }
  // "403 Forbidden: secrets is forbidden: ..." / "Transport: connection
  // refused".
  std::string ToString() const;
};

// An Error from an HTTP response: a metav1.Status body when there is one (its
// reason and message), else the status line's meaning and the body's start.
Error ErrorFromResponse(int http_status, std::string_view body);

// An Error from a metav1.Status object (a watch stream's ERROR event).
// `fallback_status` when it carries no code.
Error ErrorFromStatus(const nlohmann::json& status, int fallback_status);

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value)  // NOLINT(google-explicit-constructor): return value;
      : value_(std::in_place_index<0>, std::move(value)) {}
  Result(Error error)  // NOLINT(google-explicit-constructor): return error;
      : value_(std::in_place_index<1>, std::move(error)) {}

  bool ok() const { return value_.index() == 0; }
  explicit operator bool() const { return ok(); }

  T& value() & { return std::get<0>(value_); }
  const T& value() const& { return std::get<0>(value_); }
  T&& value() && { return std::get<0>(std::move(value_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

  const Error& error() const { return std::get<1>(value_); }

 private:
  std::variant<T, Error> value_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error)  // NOLINT(google-explicit-constructor): return error;
      : error_(std::move(error)) {}

  bool ok() const { return !error_.has_value(); }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return *error_; }

 private:
  std::optional<Error> error_;
};

}  // namespace ax::kube
