// Mapping API server failures to util::Status (client-go's apierrors, as
// status codes).
//
//   404 NotFound                      -> kNotFound
//   409 Conflict                      -> kConflict; reason AlreadyExists -> kAlreadyExists
//   410 Gone / Expired                -> kGone (resourceVersion too old: relist)
//   504 "Too large resource version"  -> kGone (the server has not reached that
//                                        resourceVersion, e.g. after an etcd
//                                        restore: as unusable as an expired one;
//                                        client-go's isTooLargeResourceVersionError)
//   400 BadRequest, 415, 422 Invalid  -> kInvalidArgument
//   429 TooManyRequests, 5xx          -> kUnavailable (transient)
//   401, 403, other codes             -> kInternal (not retried; the message names the code)
//
// The message carries the request, the HTTP code, the Kubernetes reason and
// the server's Status message, e.g.
//   GET /api/v1/namespaces/default/pods/x: 404 NotFound: pods "x" not found
//
// Thread-safety: free functions without shared state.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

#include "pkg/util/status.h"

namespace ksched::client {

// The code for an HTTP status and the Status object's reason (may be empty).
util::StatusCode StatusCodeForHttp(int http_code, std::string_view reason);

// Whether a metav1.Status object says that the requested resourceVersion is
// newer than the server's: a ResourceVersionTooLarge cause, or (servers
// before 1.18.6 / 1.17) the cause's or the Status's message.
bool IsResourceVersionTooLarge(const nlohmann::json& status);

// Builds the error for a non-2xx response; `body` is the raw response body
// (a metav1.Status when the server is a Kubernetes API server).
util::Status StatusFromHttpResponse(std::string_view verb, std::string_view path, int http_code,
                                    std::string_view reason_phrase, std::string_view body);

// The same error worded as client-go's StatusError reads: the Status body's
// message alone, so a message that reaches a pod's Events and conditions
// (a binding's 409) is kube-scheduler's. A body that is no Status with a
// message gives StatusFromHttpResponse's wording. The code is the same.
util::Status ServerMessageStatus(std::string_view verb, std::string_view path, int http_code,
                                 std::string_view reason_phrase, std::string_view body);

// Builds the error carried by a metav1.Status object, e.g. the object of a
// watch ERROR event. `context` prefixes the message.
util::Status StatusFromApiStatus(const nlohmann::json& status, std::string_view context);

}  // namespace ksched::client
