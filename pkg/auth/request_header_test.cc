#include "pkg/auth/request_header.h"

#include <gtest/gtest.h>

namespace ksched::auth {
namespace {

net::Headers Make(std::initializer_list<std::pair<std::string, std::string>> fields) {
  net::Headers h;
  for (const auto& [k, v] : fields) h.Add(k, v);
  return h;
}

TEST(RequestHeaderTest, DefaultsAreKubeSchedulers) {
  RequestHeaderOptions o;
  EXPECT_EQ(o.username_headers, std::vector<std::string>{"x-remote-user"});
  EXPECT_EQ(o.group_headers, std::vector<std::string>{"x-remote-group"});
  EXPECT_EQ(o.extra_headers_prefixes, std::vector<std::string>{"x-remote-extra-"});
  EXPECT_TRUE(o.uid_headers.empty());
  EXPECT_TRUE(o.allowed_names.empty());
}

TEST(RequestHeaderTest, NoUsernameHeaderIsNotAuthenticated) {
  RequestHeaderAuthenticator a{RequestHeaderOptions{}};
  EXPECT_FALSE(a.Authenticate(Make({})).has_value());
  EXPECT_FALSE(a.Authenticate(Make({{"X-Remote-Group", "g"}})).has_value());
  EXPECT_FALSE(a.Authenticate(Make({{"X-Remote-User", ""}})).has_value());
}

TEST(RequestHeaderTest, FirstNonEmptyUsernameHeaderWinsCaseInsensitively) {
  RequestHeaderOptions o;
  o.username_headers = {" X-First ", "x-second"};
  RequestHeaderAuthenticator a(o);
  std::optional<UserInfo> u = a.Authenticate(Make({{"X-SECOND", "bob"}, {"x-first", "alice"}}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->name, "alice");
  u = a.Authenticate(Make({{"X-Second", "bob"}, {"X-First", ""}}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->name, "bob");
  // Only the first value of a header counts (Go's Header.Get).
  u = a.Authenticate(Make({{"X-First", "carol"}, {"X-First", "dave"}}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->name, "carol");
}

TEST(RequestHeaderTest, GroupsAreEveryNonEmptyValueOfEveryGroupHeaderInOrder) {
  RequestHeaderOptions o;
  o.group_headers = {"x-remote-group", "x-more-groups"};
  RequestHeaderAuthenticator a(o);
  std::optional<UserInfo> u = a.Authenticate(Make({{"X-More-Groups", "m1"},
                                                  {"X-Remote-User", "alice"},
                                                  {"X-Remote-Group", "g1"},
                                                  {"x-remote-group", ""},
                                                  {"X-REMOTE-GROUP", "g2, not-split"}}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->groups, (std::vector<std::string>{"g1", "g2, not-split", "m1"}));
}

TEST(RequestHeaderTest, ExtraKeysAreLowerCasedAndUnescaped) {
  RequestHeaderOptions o;
  o.extra_headers_prefixes = {"X-Remote-Extra-", "x-other-"};
  RequestHeaderAuthenticator a(o);
  std::optional<UserInfo> u = a.Authenticate(Make({{"X-Remote-User", "alice"},
                                                  {"X-Remote-Extra-Scopes", "read"},
                                                  {"x-remote-extra-scopes", "write"},
                                                  {"X-Remote-Extra-Example.com%2fTeam", "a"},
                                                  {"X-Remote-Extra-Bad%zz", "kept"},
                                                  {"X-Remote-Extra-Empty", ""},
                                                  {"X-Other-Scopes", "other"},
                                                  {"X-Remote-Extr", "not-a-match"}}));
  ASSERT_TRUE(u.has_value());
  std::map<std::string, std::vector<std::string>> want = {
      {"scopes", {"read", "write", "other"}},
      {"example.com/team", {"a"}},
      {"bad%zz", {"kept"}},
      {"empty", {""}},
  };
  EXPECT_EQ(u->extra, want);
}

TEST(RequestHeaderTest, UidIsTheFirstNonEmptyUidHeader) {
  RequestHeaderOptions o;
  RequestHeaderAuthenticator none(o);
  std::optional<UserInfo> u = none.Authenticate(Make({{"X-Remote-User", "alice"}, {"X-Remote-Uid", "1"}}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->uid, "");  // no uid headers configured (kube-scheduler's default)
  o.uid_headers = {"x-remote-uid", "x-uid"};
  RequestHeaderAuthenticator a(o);
  u = a.Authenticate(Make({{"X-Remote-User", "alice"}, {"X-Uid", "2"}, {"X-Remote-Uid", ""}}));
  ASSERT_TRUE(u.has_value());
  EXPECT_EQ(u->uid, "2");
}

TEST(RequestHeaderTest, AllowedNames) {
  RequestHeaderAuthenticator any{RequestHeaderOptions{}};
  EXPECT_TRUE(any.AllowedName("whatever"));
  RequestHeaderOptions o;
  o.allowed_names = {"front-proxy-client", "aggregator"};
  RequestHeaderAuthenticator a(o);
  EXPECT_TRUE(a.AllowedName("aggregator"));
  EXPECT_FALSE(a.AllowedName("Aggregator"));  // exact, as kube's set lookup
  EXPECT_FALSE(a.AllowedName(""));
  EXPECT_FALSE(a.AllowedName("admin"));
}

TEST(RequestHeaderTest, PathUnescape) {
  EXPECT_EQ(RequestHeaderAuthenticator::PathUnescape("a%2Fb%2fc+d"), "a/b/c+d");
  EXPECT_EQ(RequestHeaderAuthenticator::PathUnescape("plain"), "plain");
  EXPECT_FALSE(RequestHeaderAuthenticator::PathUnescape("bad%").has_value());
  EXPECT_FALSE(RequestHeaderAuthenticator::PathUnescape("bad%2").has_value());
  EXPECT_FALSE(RequestHeaderAuthenticator::PathUnescape("bad%g0").has_value());
}

}  // namespace
}  // namespace ksched::auth
