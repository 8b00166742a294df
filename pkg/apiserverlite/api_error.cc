#include "pkg/apiserverlite/api_error.h"

#include <fmt/format.h>

namespace ksched::apiserver {

namespace {

// Splits "leases.coordination.k8s.io" into details {group, kind}, the way
// the real server fills StatusDetails from a GroupResource.
nlohmann::json ResourceDetails(const std::string& resource, const std::string& name) {
  nlohmann::json d = nlohmann::json::object();
  if (!name.empty()) d["name"] = name;
  auto dot = resource.find('.');
  if (dot == std::string::npos) {
    d["kind"] = resource;
  } else {
    d["group"] = resource.substr(dot + 1);
    d["kind"] = resource.substr(0, dot);
  }
  return d;
}

// field.ErrorType strings as the real validation errors print them.
std::string CauseReasonText(const std::string& cause_reason) {
  if (cause_reason == "FieldValueRequired") return "Required value";
  if (cause_reason == "FieldValueForbidden") return "Forbidden";
  if (cause_reason == "FieldValueNotSupported") return "Unsupported value";
  if (cause_reason == "FieldValueDuplicate") return "Duplicate value";
  return "Invalid value";
}

}  // namespace

nlohmann::json ApiError::ToStatus() const {
  nlohmann::json s = {{"kind", "Status"},
                      {"apiVersion", "v1"},
                      {"metadata", nlohmann::json::object()},
                      {"status", "Failure"},
                      {"message", message},
                      {"reason", reason}};
  if (details.is_object() && !details.empty()) s["details"] = details;
  s["code"] = code;
  return s;
}

ApiError NotFoundError(const std::string& resource, const std::string& name) {
  return {404, "NotFound", fmt::format("{} \"{}\" not found", resource, name),
          ResourceDetails(resource, name)};
}

ApiError AlreadyExistsError(const std::string& resource, const std::string& name) {
  return {409, "AlreadyExists", fmt::format("{} \"{}\" already exists", resource, name),
          ResourceDetails(resource, name)};
}

ApiError ConflictError(const std::string& resource, const std::string& name,
                       const std::string& why) {
  return {409, "Conflict",
          fmt::format("Operation cannot be fulfilled on {} \"{}\": {}", resource, name, why),
          ResourceDetails(resource, name)};
}

ApiError BadRequestError(const std::string& message) {
  return {400, "BadRequest", message, nullptr};
}

ApiError ForbiddenError(const std::string& resource, const std::string& name,
                        const std::string& why) {
  return {403, "Forbidden", fmt::format("{} \"{}\" is forbidden: {}", resource, name, why),
          ResourceDetails(resource, name)};
}

ApiError InvalidError(const std::string& kind, const std::string& name, const std::string& field,
                      const std::string& cause_reason, const std::string& detail) {
  std::string cause_message = fmt::format("{}: {}", CauseReasonText(cause_reason), detail);
  nlohmann::json details = {{"name", name},
                            {"kind", kind},
                            {"causes",
                             {{{"reason", cause_reason},
                               {"message", cause_message},
                               {"field", field}}}}};
  return {422, "Invalid",
          fmt::format("{} \"{}\" is invalid: {}: {}", kind, name, field, cause_message), details};
}

ApiError ExpiredError(const std::string& message) { return {410, "Expired", message, nullptr}; }

ApiError TooManyRequestsError() {
  return {429, "TooManyRequests", "Too many requests, please try again later.",
          {{"retryAfterSeconds", 1}}};
}

ApiError InternalError(const std::string& message) {
  return {500, "InternalError",
          fmt::format("Internal error occurred: {}", message),
          {{"causes", {{{"message", message}}}}}};
}

ApiError ServiceUnavailableError(const std::string& message) {
  return {503, "ServiceUnavailable", message, nullptr};
}

ApiError MethodNotAllowedError(const std::string& message) {
  return {405, "MethodNotAllowed", message, nullptr};
}

ApiError UnsupportedMediaTypeError(const std::string& content_type) {
  return {415, "UnsupportedMediaType",
          fmt::format("the body of the request was in an unknown format - accepted media types "
                      "include: application/json, application/merge-patch+json, "
                      "application/strategic-merge-patch+json, application/json-patch+json "
                      "(got \"{}\")",
                      content_type),
          nullptr};
}

ApiError NotAcceptableError(const std::string& message) {
  return {406, "NotAcceptable", message, nullptr};
}

ApiError RequestEntityTooLargeError(size_t limit) {
  return {413, "RequestEntityTooLarge",
          fmt::format("Request entity too large: limit is {}", limit), nullptr};
}

ApiError TooLargeResourceVersionError(uint64_t requested, uint64_t current) {
  return {504, "Timeout",
          fmt::format("Timeout: Too large resource version: {}, current: {}", requested, current),
          {{"causes",
            {{{"reason", "ResourceVersionTooLarge"},
              {"message", "Too large resource version"}}}},
           {"retryAfterSeconds", 1}}};
}

}  // namespace ksched::apiserver
