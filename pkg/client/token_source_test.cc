#include "pkg/client/token_source.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "pkg/client/test_util.h"

namespace ksched::client {
namespace {

using std::chrono::seconds;

TEST(BearerTokenSourceTest, StaticToken) {
  util::FakeClock clock;
  BearerTokenSource s("abc", "", std::chrono::minutes(1), clock);
  EXPECT_TRUE(s.configured());
  EXPECT_EQ(s.Token(), "abc");
  BearerTokenSource none("", "", std::chrono::minutes(1), clock);
  EXPECT_FALSE(none.configured());
  EXPECT_EQ(none.Token(), "");
}

TEST(BearerTokenSourceTest, RereadsRotatedFileAfterRefreshPeriod) {
  testing::TempDir dir;
  std::string file = dir.Write("token", "first\n");
  util::FakeClock clock;
  BearerTokenSource s("", file, std::chrono::minutes(1), clock);
  EXPECT_EQ(s.Token(), "first");

  dir.Write("token", "second");
  EXPECT_EQ(s.Token(), "first");  // cached
  clock.Step(seconds(59));
  EXPECT_EQ(s.Token(), "first");
  clock.Step(seconds(1));
  EXPECT_EQ(s.Token(), "second");

  // A missing or empty file during rotation keeps the last good token.
  std::filesystem::remove(file);
  clock.Step(seconds(61));
  EXPECT_EQ(s.Token(), "second");
  dir.Write("token", "  \n");
  clock.Step(seconds(61));
  EXPECT_EQ(s.Token(), "second");
  dir.Write("token", "third");
  EXPECT_EQ(s.Token(), "second");  // the failed read also counted as a read
  clock.Step(seconds(61));
  EXPECT_EQ(s.Token(), "third");
}

TEST(BearerTokenSourceTest, StaticTokenIsTheFallbackUntilTheFileIsRead) {
  testing::TempDir dir;
  util::FakeClock clock;
  BearerTokenSource s("fallback", dir.path() + "/token", std::chrono::minutes(1), clock);
  EXPECT_EQ(s.Token(), "fallback");
  dir.Write("token", "fromfile");
  clock.Step(seconds(60));
  EXPECT_EQ(s.Token(), "fromfile");
}

}  // namespace
}  // namespace ksched::client
