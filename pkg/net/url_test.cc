#include "pkg/net/url.h"

#include <gtest/gtest.h>

namespace ksched::net {
namespace {

TEST(UrlTest, PercentDecode) {
  EXPECT_EQ(*PercentDecode("/api/v1/namespaces/a%20b/pods"), "/api/v1/namespaces/a b/pods");
  EXPECT_EQ(*PercentDecode("a+b"), "a+b");
  EXPECT_EQ(*PercentDecode("a+b", true), "a b");
  EXPECT_EQ(*PercentDecode("%2f%2F%7e"), "//~");
  for (const char* bad : {"%", "%z1", "%1", "abc%g0"}) {
    auto r = PercentDecode(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().code(), util::StatusCode::kInvalidArgument);
  }
}

TEST(UrlTest, ParseQueryLikeGo) {
  auto q = ParseQuery("labelSelector=app+in+%28web%2Cdb%29&&watch&limit=5&limit=6&=x");
  ASSERT_TRUE(q.ok());
  QueryParams want = {{"labelSelector", "app in (web,db)"}, {"watch", ""}, {"limit", "5"},
                      {"limit", "6"}, {"", "x"}};
  EXPECT_EQ(*q, want);
  EXPECT_FALSE(ParseQuery("a=%zz").ok());
  EXPECT_TRUE(ParseQuery("")->empty());
}

TEST(UrlTest, SplitTarget) {
  EXPECT_EQ(SplitTarget("/a/b?x=1&y=2"),
            (std::pair<std::string_view, std::string_view>{"/a/b", "x=1&y=2"}));
  EXPECT_EQ(SplitTarget("/a"), (std::pair<std::string_view, std::string_view>{"/a", ""}));
  EXPECT_EQ(SplitTarget("/a?q#frag"), (std::pair<std::string_view, std::string_view>{"/a", "q"}));
}

TEST(UrlTest, EscapingRoundTrips) {
  EXPECT_EQ(QueryEscape("app in (web,db)"), "app+in+%28web%2Cdb%29");
  EXPECT_EQ(PathEscape("a b/c;d@e:f"), "a%20b%2Fc%3Bd@e:f");
  EXPECT_EQ(EncodeQuery({{"fieldSelector", "metadata.name!=a"}, {"limit", "3"}}),
            "fieldSelector=metadata.name%21%3Da&limit=3");
  std::string all;
  for (int c = 0; c < 256; ++c) all.push_back(static_cast<char>(c));
  EXPECT_EQ(*PercentDecode(QueryEscape(all), true), all);
  EXPECT_EQ(*PercentDecode(PathEscape(all)), all);
}

}  // namespace
}  // namespace ksched::net
