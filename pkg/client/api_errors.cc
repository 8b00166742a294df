#include "pkg/client/api_errors.h"

namespace ksched::client {

namespace {

constexpr size_t kMaxBodyInMessage = 512;

std::string StringField(const nlohmann::json& j, const char* key) {
  if (!j.is_object()) return "";
  auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return "";
  return it->get<std::string>();
}

// The Kubernetes reason for a code when the body carries none.
const char* DefaultReason(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Gone";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "";
  }
}

std::string Compose(std::string_view context, int code, const std::string& reason, const std::string& detail) {
  std::string msg(context);
  if (!msg.empty()) msg += ": ";
  msg += std::to_string(code);
  if (!reason.empty()) msg += " " + reason;
  if (!detail.empty()) msg += ": " + detail;
  return msg;
}

// The code for a response that carries a metav1.Status object.
util::StatusCode StatusCodeForApiStatus(int code, const std::string& reason, const nlohmann::json& status) {
  if (code == 504 && IsResourceVersionTooLarge(status)) return util::StatusCode::kGone;
  return StatusCodeForHttp(code, reason);
}

}  // namespace

bool IsResourceVersionTooLarge(const nlohmann::json& status) {
  if (!status.is_object()) return false;
  auto details = status.find("details");
  if (details != status.end() && details->is_object()) {
    auto causes = details->find("causes");
    if (causes != details->end() && causes->is_array()) {
      for (const nlohmann::json& cause : *causes) {
        if (StringField(cause, "reason") == "ResourceVersionTooLarge") return true;
        if (StringField(cause, "message") == "Too large resource version") return true;
      }
    }
  }
  return StringField(status, "message").find("Too large non-consistent resource version") != std::string::npos;
}

util::StatusCode StatusCodeForHttp(int code, std::string_view reason) {
  using util::StatusCode;
  switch (code) {
    case 404: return StatusCode::kNotFound;
    case 409: return reason == "AlreadyExists" ? StatusCode::kAlreadyExists : StatusCode::kConflict;
    case 410: return StatusCode::kGone;
    case 400:
    case 415:
    case 422: return StatusCode::kInvalidArgument;
    case 429: return StatusCode::kUnavailable;
    default: break;
  }
  if (code >= 500 && code <= 599) return StatusCode::kUnavailable;
  return StatusCode::kInternal;
}

util::Status StatusFromApiStatus(const nlohmann::json& status, std::string_view context) {
  int code = 0;
  if (status.is_object()) {
    auto it = status.find("code");
    if (it != status.end() && it->is_number_integer()) code = it->get<int>();
  }
  std::string reason = StringField(status, "reason");
  if (reason.empty()) reason = DefaultReason(code);
  std::string message = StringField(status, "message");
  if (code == 0) {
    // A Status without a code (or not a Status at all) still ends the watch:
    // report it verbatim as an internal error.
    std::string dump = status.dump();
    if (dump.size() > kMaxBodyInMessage) dump = dump.substr(0, kMaxBodyInMessage) + "...";
    return util::Status(util::StatusCode::kInternal,
                        std::string(context) + (context.empty() ? "" : ": ") + "error status " + dump);
  }
  return util::Status(StatusCodeForApiStatus(code, reason, status), Compose(context, code, reason, message));
}

util::Status StatusFromHttpResponse(std::string_view verb, std::string_view path, int http_code,
                                    std::string_view reason_phrase, std::string_view body) {
  std::string context = std::string(verb) + " " + std::string(path);
  nlohmann::json j = nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  std::string reason;
  std::string detail;
  const bool is_status = !j.is_discarded() && StringField(j, "kind") == "Status";
  if (is_status) {
    reason = StringField(j, "reason");
    detail = StringField(j, "message");
  } else {
    detail = std::string(body.substr(0, kMaxBodyInMessage));
    if (body.size() > kMaxBodyInMessage) detail += "...";
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == '\r')) detail.pop_back();
  }
  if (reason.empty()) reason = DefaultReason(http_code);
  if (reason.empty()) reason = std::string(reason_phrase);
  util::StatusCode code = is_status ? StatusCodeForApiStatus(http_code, reason, j) : StatusCodeForHttp(http_code, reason);
  return util::Status(code, Compose(context, http_code, reason, detail));
}

util::Status ServerMessageStatus(std::string_view verb, std::string_view path, int http_code,
                                 std::string_view reason_phrase, std::string_view body) {
  util::Status full = StatusFromHttpResponse(verb, path, http_code, reason_phrase, body);
  nlohmann::json j = nlohmann::json::parse(body.begin(), body.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || StringField(j, "kind") != "Status") return full;
  std::string message = StringField(j, "message");
  if (message.empty()) return full;
  return util::Status(full.code(), std::move(message));
}

}  // namespace ksched::client
