#include "pkg/auth/delegating_auth.h"

#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>

namespace ksched::auth {
namespace {

using namespace std::chrono_literals;

// Knows one token per user; counts reviews so tests see the cache.
class FakeTokenReviewer : public TokenReviewer {
 public:
  util::StatusOr<TokenReviewResult> Review(const std::string& token) override {
    ++calls;
    if (fail) return util::Status(util::StatusCode::kUnavailable, "API server down");
    TokenReviewResult r;
    auto it = users.find(token);
    if (it == users.end()) {
      r.error = "invalid bearer token";
      return r;
    }
    r.authenticated = true;
    r.user = it->second;
    return r;
  }
  std::map<std::string, UserInfo> users;
  std::atomic<int> calls{0};
  bool fail = false;
};

// Allows "user path" pairs it was told about.
class FakeAccessReviewer : public AccessReviewer {
 public:
  util::StatusOr<AccessReviewResult> Review(const UserInfo& user, const std::string& path,
                                            const std::string& verb) override {
    ++calls;
    last_verb = verb;
    if (fail) return util::Status(util::StatusCode::kUnavailable, "API server down");
    AccessReviewResult r;
    r.allowed = allowed.count(user.name + " " + path) > 0;
    if (!r.allowed) r.reason = "no RBAC policy matched";
    return r;
  }
  std::set<std::string> allowed;
  std::atomic<int> calls{0};
  std::string last_verb;
  bool fail = false;
};

class DelegatingAuthTest : public ::testing::Test {
 protected:
  DelegatingAuthTest() : auth_(&tokens_, &access_, DelegatingAuthOptions{}, clock_) {
    tokens_.users["prom-token"] = UserInfo{"system:serviceaccount:monitoring:prometheus", "u1", {"system:serviceaccounts"}, {}};
    tokens_.users["other-token"] = UserInfo{"system:serviceaccount:default:other", "u2", {}, {}};
    tokens_.users["admin-token"] = UserInfo{"admin", "u3", {"system:masters"}, {}};
    access_.allowed.insert("system:serviceaccount:monitoring:prometheus /metrics");
  }
  static Credentials Bearer(const std::string& token) {
    Credentials c;
    c.authorization = "Bearer " + token;
    return c;
  }

  util::FakeClock clock_;
  FakeTokenReviewer tokens_;
  FakeAccessReviewer access_;
  DelegatingAuth auth_;
};

TEST_F(DelegatingAuthTest, NoTokenIs401AndAsksNothing) {
  EXPECT_EQ(auth_.Check({}, "/metrics", "GET").http_status, 401);
  Credentials basic;
  basic.authorization = "Basic dXNlcjpwYXNz";
  EXPECT_EQ(auth_.Check(basic, "/metrics", "GET").http_status, 401);
  EXPECT_EQ(auth_.Check(Bearer(""), "/metrics", "GET").http_status, 401);
  EXPECT_EQ(tokens_.calls, 0);
  EXPECT_EQ(access_.calls, 0);
}

// kube's union authenticator: the front proxy's user, then the client
// certificate's, then the token; the first that authenticates is the user.
TEST_F(DelegatingAuthTest, RequestHeaderThenCertificateThenToken) {
  access_.allowed.insert("proxied-alice /metrics");
  access_.allowed.insert("cert-bob /metrics");
  Credentials all = Bearer("prom-token");
  all.certificate_user = UserInfo{"cert-bob", "", {}, {}};
  all.request_header_user = UserInfo{"proxied-alice", "", {"team"}, {}};
  Decision d = auth_.Check(all, "/metrics", "GET");
  EXPECT_EQ(d.http_status, 200);
  ASSERT_TRUE(d.user.has_value());
  EXPECT_EQ(d.user->name, "proxied-alice");
  EXPECT_EQ(d.user->groups, (std::vector<std::string>{"team", "system:authenticated"}));
  EXPECT_EQ(tokens_.calls, 0);

  Credentials cert_and_token = Bearer("prom-token");
  cert_and_token.certificate_user = UserInfo{"cert-bob", "", {}, {}};
  d = auth_.Check(cert_and_token, "/metrics", "GET");
  ASSERT_TRUE(d.user.has_value());
  EXPECT_EQ(d.user->name, "cert-bob");
  EXPECT_EQ(tokens_.calls, 0);

  // A proxied user is authorized as itself: denied paths stay denied.
  Credentials proxied;
  proxied.request_header_user = UserInfo{"proxied-alice", "", {}, {}};
  EXPECT_EQ(auth_.Check(proxied, "/configz", "GET").http_status, 403);
  // ... and system:masters from the proxy's headers is honoured, as kube.
  proxied.request_header_user->groups = {"system:masters"};
  EXPECT_EQ(auth_.Check(proxied, "/configz", "GET").http_status, 200);
}

TEST_F(DelegatingAuthTest, InvalidTokenIs401) {
  EXPECT_EQ(auth_.Check(Bearer("forged"), "/metrics", "GET").http_status, 401);
  EXPECT_EQ(access_.calls, 0);
}

TEST_F(DelegatingAuthTest, DeniedIs403AllowedIs200) {
  Decision denied = auth_.Check(Bearer("other-token"), "/metrics", "GET");
  EXPECT_EQ(denied.http_status, 403);
  EXPECT_NE(denied.message.find("cannot get path \"/metrics\""), std::string::npos) << denied.message;
  Decision allowed = auth_.Check(Bearer("prom-token"), "/metrics", "GET");
  EXPECT_EQ(allowed.http_status, 200);
  ASSERT_TRUE(allowed.user.has_value());
  EXPECT_EQ(allowed.user->name, "system:serviceaccount:monitoring:prometheus");
  EXPECT_EQ(access_.last_verb, "get");
  // Allowed on /metrics is not allowed on /configz.
  EXPECT_EQ(auth_.Check(Bearer("prom-token"), "/configz", "GET").http_status, 403);
  // HEAD is authorized as "get".
  EXPECT_EQ(auth_.Check(Bearer("prom-token"), "/metrics", "HEAD").http_status, 200);
  EXPECT_EQ(access_.last_verb, "get");
  // The scheme is case-insensitive.
  Credentials lower;
  lower.authorization = "bearer prom-token";
  EXPECT_EQ(auth_.Check(lower, "/metrics", "GET").http_status, 200);
}

TEST_F(DelegatingAuthTest, AlwaysAllowedPathsNeedNoCredentials) {
  for (const char* p : {"/healthz", "/readyz", "/livez"}) {
    EXPECT_EQ(auth_.Check({}, p, "GET").http_status, 200) << p;
  }
  // Exact paths: a sub-check is not in the list.
  EXPECT_EQ(auth_.Check({}, "/livez/ping", "GET").http_status, 401);
  EXPECT_EQ(tokens_.calls + access_.calls, 0);

  DelegatingAuthOptions o;
  o.always_allow_paths = {"/debug/*"};
  DelegatingAuth prefixed(&tokens_, &access_, o, clock_);
  EXPECT_EQ(prefixed.Check({}, "/debug/pending", "GET").http_status, 200);
  EXPECT_EQ(prefixed.Check({}, "/healthz", "GET").http_status, 401);
}

TEST_F(DelegatingAuthTest, SystemMastersSkipTheAccessReview) {
  EXPECT_EQ(auth_.Check(Bearer("admin-token"), "/configz", "GET").http_status, 200);
  EXPECT_EQ(access_.calls, 0);
}

TEST_F(DelegatingAuthTest, VerifiedClientCertificateAuthenticates) {
  Credentials c;
  c.certificate_user = UserInfo{"system:serviceaccount:monitoring:prometheus", "", {}, {}};
  EXPECT_EQ(auth_.Check(c, "/metrics", "GET").http_status, 200);
  EXPECT_EQ(tokens_.calls, 0);
  c.certificate_user = UserInfo{"someone", "", {}, {}};
  EXPECT_EQ(auth_.Check(c, "/metrics", "GET").http_status, 403);
}

TEST_F(DelegatingAuthTest, ReviewFailures) {
  tokens_.fail = true;
  EXPECT_EQ(auth_.Check(Bearer("prom-token"), "/metrics", "GET").http_status, 401);
  tokens_.fail = false;
  access_.fail = true;
  EXPECT_EQ(auth_.Check(Bearer("prom-token"), "/metrics", "GET").http_status, 500);
  access_.fail = false;
  // Failures were not cached.
  EXPECT_EQ(auth_.Check(Bearer("prom-token"), "/metrics", "GET").http_status, 200);
}

TEST_F(DelegatingAuthTest, AnswersAreCachedForTheirTtl) {
  EXPECT_EQ(auth_.Check(Bearer("prom-token"), "/metrics", "GET").http_status, 200);
  EXPECT_EQ(auth_.Check(Bearer("other-token"), "/metrics", "GET").http_status, 403);
  EXPECT_EQ(auth_.Check(Bearer("forged"), "/metrics", "GET").http_status, 401);
  EXPECT_EQ(tokens_.calls, 3);
  EXPECT_EQ(access_.calls, 2);

  // Within 10 s every answer comes from the caches, even when the policy
  // changed meanwhile (as in kube).
  clock_.Step(9s);
  access_.allowed.insert("system:serviceaccount:default:other /metrics");
  tokens_.users["forged"] = UserInfo{"late", "", {}, {}};
  EXPECT_EQ(auth_.Check(Bearer("prom-token"), "/metrics", "GET").http_status, 200);
  EXPECT_EQ(auth_.Check(Bearer("other-token"), "/metrics", "GET").http_status, 403);
  EXPECT_EQ(auth_.Check(Bearer("forged"), "/metrics", "GET").http_status, 401);
  EXPECT_EQ(tokens_.calls, 3);
  EXPECT_EQ(access_.calls, 2);

  clock_.Step(1s);
  EXPECT_EQ(auth_.Check(Bearer("other-token"), "/metrics", "GET").http_status, 200);
  EXPECT_EQ(auth_.Check(Bearer("forged"), "/metrics", "GET").http_status, 403);
  EXPECT_EQ(tokens_.calls, 5);
}

TEST_F(DelegatingAuthTest, TtlsComeFromTheOptions) {
  DelegatingAuthOptions o;
  o.token_cache_ttl = 1min;
  o.authorized_ttl = 5min;
  o.unauthorized_ttl = 30s;
  DelegatingAuth auth(&tokens_, &access_, o, clock_);
  auth.Check(Bearer("prom-token"), "/metrics", "GET");
  auth.Check(Bearer("other-token"), "/metrics", "GET");
  clock_.Step(31s);
  auth.Check(Bearer("prom-token"), "/metrics", "GET");   // both cached
  auth.Check(Bearer("other-token"), "/metrics", "GET");  // denial expired
  EXPECT_EQ(tokens_.calls, 2);
  EXPECT_EQ(access_.calls, 3);
  clock_.Step(30s);
  auth.Check(Bearer("prom-token"), "/metrics", "GET");  // token expired, access not
  EXPECT_EQ(tokens_.calls, 3);
  EXPECT_EQ(access_.calls, 3);
}

TEST_F(DelegatingAuthTest, CacheIsBounded) {
  DelegatingAuthOptions o;
  o.max_cache_entries = 4;
  DelegatingAuth auth(&tokens_, &access_, o, clock_);
  for (int i = 0; i < 100; ++i) auth.Check(Bearer("forged-" + std::to_string(i)), "/metrics", "GET");
  // Still answers, and the known token is reviewed again after the flood.
  EXPECT_EQ(auth.Check(Bearer("prom-token"), "/metrics", "GET").http_status, 200);
}

TEST(DelegatingAuthStatic, VerbAndBearer) {
  EXPECT_EQ(DelegatingAuth::Verb("GET"), "get");
  EXPECT_EQ(DelegatingAuth::Verb("HEAD"), "get");
  EXPECT_EQ(DelegatingAuth::Verb("POST"), "post");
  EXPECT_EQ(DelegatingAuth::BearerToken("Bearer abc"), "abc");
  EXPECT_EQ(DelegatingAuth::BearerToken("BEARER  abc "), "abc");
  EXPECT_FALSE(DelegatingAuth::BearerToken("Basic abc").has_value());
  EXPECT_FALSE(DelegatingAuth::BearerToken("Bearer").has_value());
}

TEST(DelegatingAuthStatic, NoAccessReviewerDeniesAllButAlwaysAllowed) {
  util::FakeClock clock;
  FakeTokenReviewer tokens;
  tokens.users["t"] = UserInfo{"u", "", {}, {}};
  DelegatingAuth auth(&tokens, nullptr, DelegatingAuthOptions{}, clock);
  Credentials c;
  c.authorization = "Bearer t";
  EXPECT_EQ(auth.Check(c, "/metrics", "GET").http_status, 403);
  EXPECT_EQ(auth.Check({}, "/healthz", "GET").http_status, 200);
}

}  // namespace
}  // namespace ksched::auth
