#include "pkg/client/api_errors.h"

#include <gtest/gtest.h>

namespace ksched::client {
namespace {

std::string StatusBody(int code, const std::string& reason, const std::string& message) {
  return nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                        {"code", code},     {"reason", reason},  {"message", message}}
      .dump();
}

TEST(ApiErrorsTest, MapsHttpCodesAndReasons) {
  using util::StatusCode;
  EXPECT_EQ(StatusCodeForHttp(404, "NotFound"), StatusCode::kNotFound);
  EXPECT_EQ(StatusCodeForHttp(409, "Conflict"), StatusCode::kConflict);
  EXPECT_EQ(StatusCodeForHttp(409, "AlreadyExists"), StatusCode::kAlreadyExists);
  EXPECT_EQ(StatusCodeForHttp(410, "Expired"), StatusCode::kGone);
  EXPECT_EQ(StatusCodeForHttp(422, "Invalid"), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusCodeForHttp(400, "BadRequest"), StatusCode::kInvalidArgument);
  EXPECT_EQ(StatusCodeForHttp(429, "TooManyRequests"), StatusCode::kUnavailable);
  EXPECT_EQ(StatusCodeForHttp(500, "InternalError"), StatusCode::kUnavailable);
  EXPECT_EQ(StatusCodeForHttp(503, ""), StatusCode::kUnavailable);
  EXPECT_EQ(StatusCodeForHttp(403, "Forbidden"), StatusCode::kInternal);
}

TEST(ApiErrorsTest, MessageCarriesRequestCodeReasonAndServerMessage) {
  util::Status s = StatusFromHttpResponse("GET", "/api/v1/namespaces/default/pods/x", 404, "Not Found",
                                          StatusBody(404, "NotFound", "pods \"x\" not found"));
  EXPECT_EQ(s.code(), util::StatusCode::kNotFound);
  EXPECT_EQ(s.message(), "GET /api/v1/namespaces/default/pods/x: 404 NotFound: pods \"x\" not found");

  util::Status exists = StatusFromHttpResponse("POST", "/api/v1/namespaces/d/pods", 409, "Conflict",
                                               StatusBody(409, "AlreadyExists", "pods \"x\" already exists"));
  EXPECT_EQ(exists.code(), util::StatusCode::kAlreadyExists);
  util::Status conflict = StatusFromHttpResponse("PUT", "/p", 409, "Conflict",
                                                 StatusBody(409, "Conflict", "the object has been modified"));
  EXPECT_EQ(conflict.code(), util::StatusCode::kConflict);
}

// As client-go's StatusError: the message is the server's alone; the code is
// StatusFromHttpResponse's. No Status message: the full wording.
TEST(ApiErrorsTest, ServerMessageStatusIsTheStatusMessageAlone) {
  util::Status s = ServerMessageStatus("POST", "/api/v1/namespaces/t/pods/app/binding", 409, "Conflict",
                                       StatusBody(409, "Conflict",
                                                  "Operation cannot be fulfilled on pods/binding \"app\": pod app "
                                                  "is already assigned to node \"n1\""));
  EXPECT_EQ(s.code(), util::StatusCode::kConflict);
  EXPECT_EQ(s.message(),
            "Operation cannot be fulfilled on pods/binding \"app\": pod app is already assigned to node \"n1\"");
  util::Status plain = ServerMessageStatus("GET", "/x", 502, "Bad Gateway", "upstream broke\n");
  EXPECT_EQ(plain.code(), util::StatusCode::kUnavailable);
  EXPECT_EQ(plain.message(), "GET /x: 502 Bad Gateway: upstream broke");
}

TEST(ApiErrorsTest, NonStatusBodiesAreQuotedAndTruncated) {
  util::Status s = StatusFromHttpResponse("GET", "/x", 502, "Bad Gateway", "upstream broke\n");
  EXPECT_EQ(s.code(), util::StatusCode::kUnavailable);
  EXPECT_EQ(s.message(), "GET /x: 502 Bad Gateway: upstream broke");
  util::Status big = StatusFromHttpResponse("GET", "/x", 500, "", std::string(5000, 'a'));
  EXPECT_LT(big.message().size(), 600u);
}

TEST(ApiErrorsTest, StatusObjectsFromWatchErrorEvents) {
  nlohmann::json gone = {{"kind", "Status"}, {"code", 410}, {"reason", "Expired"},
                         {"message", "too old resource version: 5 (10)"}};
  util::Status s = StatusFromApiStatus(gone, "watch /api/v1/pods");
  EXPECT_EQ(s.code(), util::StatusCode::kGone);
  EXPECT_EQ(s.message(), "watch /api/v1/pods: 410 Expired: too old resource version: 5 (10)");

  util::Status no_code = StatusFromApiStatus(nlohmann::json{{"message", "?"}}, "watch x");
  EXPECT_EQ(no_code.code(), util::StatusCode::kInternal);
}

// What kube-apiserver answers for a resourceVersion newer than its own (its
// watch cache after an etcd restore): 504 Timeout with a ResourceVersionTooLarge
// cause. The resource version is unusable, like an expired one: kGone.
nlohmann::json TooLargeResourceVersion() {
  return {{"kind", "Status"},
          {"apiVersion", "v1"},
          {"status", "Failure"},
          {"message", "Timeout: Too large resource version: 20, current: 10"},
          {"reason", "Timeout"},
          {"details", {{"causes", {{{"reason", "ResourceVersionTooLarge"}, {"message", "Too large resource version"}}}},
                       {"retryAfterSeconds", 1}}},
          {"code", 504}};
}

TEST(ApiErrorsTest, TooLargeResourceVersionIsGone) {
  util::Status s = StatusFromHttpResponse("GET", "/api/v1/pods", 504, "Gateway Timeout",
                                          TooLargeResourceVersion().dump());
  EXPECT_EQ(s.code(), util::StatusCode::kGone);
  EXPECT_EQ(s.message(), "GET /api/v1/pods: 504 Timeout: Timeout: Too large resource version: 20, current: 10");
  EXPECT_EQ(StatusFromApiStatus(TooLargeResourceVersion(), "watch /api/v1/pods").code(), util::StatusCode::kGone);

  // Servers before 1.18.6 say it only in the cause's message, before 1.17
  // only in the Status message.
  nlohmann::json by_cause_message = TooLargeResourceVersion();
  by_cause_message["details"]["causes"][0].erase("reason");
  EXPECT_EQ(StatusFromApiStatus(by_cause_message, "").code(), util::StatusCode::kGone);
  nlohmann::json old = {{"kind", "Status"}, {"code", 504}, {"reason", "Timeout"},
                        {"message", "Too large non-consistent resource version: 20, current: 10"}};
  EXPECT_EQ(StatusFromApiStatus(old, "").code(), util::StatusCode::kGone);

  // Any other 504 stays transient.
  nlohmann::json timeout = {{"kind", "Status"}, {"code", 504}, {"reason", "Timeout"}, {"message", "request timed out"}};
  EXPECT_EQ(StatusFromApiStatus(timeout, "").code(), util::StatusCode::kUnavailable);
  EXPECT_EQ(StatusFromHttpResponse("GET", "/x", 504, "Gateway Timeout", "").code(), util::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace ksched::client
