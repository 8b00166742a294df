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

}  // namespace
}  // namespace ksched::client
