#include "pkg/leaderelection/identity.h"

#include <gtest/gtest.h>

#include <regex>

namespace ksched::leaderelection {
namespace {

TEST(IdentityTest, HostnameUnderscoreUuid) {
  const std::regex uuid("[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}");
  std::string u = NewUuid();
  EXPECT_TRUE(std::regex_match(u, uuid)) << u;
  EXPECT_NE(NewUuid(), u);
  std::string id = DefaultIdentity();
  size_t sep = id.rfind('_');
  ASSERT_NE(sep, std::string::npos);
  EXPECT_GT(sep, 0u);
  EXPECT_TRUE(std::regex_match(id.substr(sep + 1), uuid)) << id;
  EXPECT_NE(DefaultIdentity(), id);
}

}  // namespace
}  // namespace ksched::leaderelection
