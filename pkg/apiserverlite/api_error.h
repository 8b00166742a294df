// ApiError: a Kubernetes API failure (HTTP code, machine-readable reason,
// human message, details) and ApiResult<T>, a value or an ApiError.
//
// Every failure the server answers is built here, so the Status bodies carry
// the same reason strings, codes and message shapes as the real
// kube-apiserver ("pods \"x\" not found", "Operation cannot be fulfilled on
// pods \"x\": the object has been modified; ..."). Clients (client-go,
// kubectl, pkg/client) branch on `reason` and `code`, never on the message.
//
// Value types; no shared state; thread-compatible.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace ksched::apiserver {

struct ApiError {
  int code = 500;
  std::string reason;   // "NotFound", "AlreadyExists", "Conflict", ...
  std::string message;
  nlohmann::json details;  // object or null (omitted)

  // The metav1.Status body ({"kind":"Status","apiVersion":"v1",...}).
  nlohmann::json ToStatus() const;
};

// `resource` is the qualified resource as the real server prints it:
// "pods", "leases.coordination.k8s.io".
ApiError NotFoundError(const std::string& resource, const std::string& name);
ApiError AlreadyExistsError(const std::string& resource, const std::string& name);
// Optimistic-concurrency failure ("the object has been modified").
ApiError ConflictError(const std::string& resource, const std::string& name,
                       const std::string& why);
ApiError BadRequestError(const std::string& message);
// 403, e.g. admission refusing an object or deleting a protected namespace.
ApiError ForbiddenError(const std::string& resource, const std::string& name,
                        const std::string& why);
// 422; `kind` is the object kind ("Pod"), `field` the offending field path.
ApiError InvalidError(const std::string& kind, const std::string& name, const std::string& field,
                      const std::string& cause_reason, const std::string& detail);
// 410 with reason Expired (too old resourceVersion / continue token).
ApiError ExpiredError(const std::string& message);
ApiError TooManyRequestsError();
ApiError InternalError(const std::string& message);
ApiError ServiceUnavailableError(const std::string& message);
ApiError MethodNotAllowedError(const std::string& message);
ApiError UnsupportedMediaTypeError(const std::string& content_type);
ApiError NotAcceptableError(const std::string& message);
ApiError RequestEntityTooLargeError(size_t limit);
ApiError TooLargeResourceVersionError(uint64_t requested, uint64_t current);

// Either a T or an ApiError. Cheap to move.
template <class T>
class ApiResult {
 public:
  ApiResult(T value) : v_(std::move(value)) {}          // NOLINT: implicit by design
  ApiResult(ApiError error) : v_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return v_.index() == 0; }
  const T& value() const& { return std::get<0>(v_); }
  T& value() & { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  const ApiError& error() const { return std::get<1>(v_); }

 private:
  std::variant<T, ApiError> v_;
};

}  // namespace ksched::apiserver
