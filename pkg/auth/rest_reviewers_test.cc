#include "pkg/auth/rest_reviewers.h"

#include <gtest/gtest.h>

namespace ksched::auth {
namespace {

TEST(RestReviewers, TokenReviewBodyAndAnswer) {
  nlohmann::json body = TokenReviewBody("abc");
  EXPECT_EQ(body["apiVersion"], "authentication.k8s.io/v1");
  EXPECT_EQ(body["kind"], "TokenReview");
  EXPECT_EQ(body["spec"]["token"], "abc");

  auto ok = ParseTokenReview(nlohmann::json::parse(R"({"status":{"authenticated":true,"user":{
      "username":"system:serviceaccount:ns:sa","uid":"42","groups":["system:serviceaccounts","g2"],
      "extra":{"authentication.kubernetes.io/pod-name":["p"]}}}})"));
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->authenticated);
  EXPECT_EQ(ok->user.name, "system:serviceaccount:ns:sa");
  EXPECT_EQ(ok->user.uid, "42");
  EXPECT_EQ(ok->user.groups, (std::vector<std::string>{"system:serviceaccounts", "g2"}));
  EXPECT_EQ(ok->user.extra.at("authentication.kubernetes.io/pod-name"), std::vector<std::string>{"p"});

  auto no = ParseTokenReview(nlohmann::json::parse(R"({"status":{"authenticated":false,"error":"expired"}})"));
  ASSERT_TRUE(no.ok());
  EXPECT_FALSE(no->authenticated);
  EXPECT_EQ(no->error, "expired");
  // An empty status is "not authenticated", as the API server sends it.
  auto empty = ParseTokenReview(nlohmann::json::parse(R"({"status":{}})"));
  ASSERT_TRUE(empty.ok());
  EXPECT_FALSE(empty->authenticated);
  EXPECT_FALSE(ParseTokenReview(nlohmann::json::parse("{}")).ok());
  EXPECT_FALSE(ParseTokenReview(nlohmann::json::parse(R"({"status":{"authenticated":true}})")).ok());
}

TEST(RestReviewers, SubjectAccessReviewBodyAndAnswer) {
  UserInfo u{"alice", "7", {"g"}, {{"k", {"v"}}}};
  nlohmann::json body = SubjectAccessReviewBody(u, "/metrics", "get");
  EXPECT_EQ(body["apiVersion"], "authorization.k8s.io/v1");
  EXPECT_EQ(body["kind"], "SubjectAccessReview");
  EXPECT_EQ(body["spec"]["user"], "alice");
  EXPECT_EQ(body["spec"]["uid"], "7");
  EXPECT_EQ(body["spec"]["groups"], nlohmann::json::array({"g"}));
  EXPECT_EQ(body["spec"]["extra"]["k"], nlohmann::json::array({"v"}));
  EXPECT_EQ(body["spec"]["nonResourceAttributes"]["path"], "/metrics");
  EXPECT_EQ(body["spec"]["nonResourceAttributes"]["verb"], "get");
  EXPECT_FALSE(body["spec"].contains("resourceAttributes"));

  auto yes = ParseSubjectAccessReview(nlohmann::json::parse(R"({"status":{"allowed":true,"reason":"RBAC"}})"));
  ASSERT_TRUE(yes.ok());
  EXPECT_TRUE(yes->allowed);
  auto no = ParseSubjectAccessReview(nlohmann::json::parse(R"({"status":{"allowed":false,"denied":true}})"));
  ASSERT_TRUE(no.ok());
  EXPECT_FALSE(no->allowed);
  EXPECT_TRUE(no->denied);
  EXPECT_FALSE(ParseSubjectAccessReview(nlohmann::json::parse("[]")).ok());
}

}  // namespace
}  // namespace ksched::auth
