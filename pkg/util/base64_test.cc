#include "pkg/util/base64.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace ksched::util {
namespace {

TEST(Base64Test, RoundTripsAndRejectsGarbage) {
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar",
                                                       std::string("\0\xff\x10", 3)}) {
    StatusOr<std::string> back = DecodeBase64(EncodeBase64(s));
    ASSERT_TRUE(back.ok()) << s;
    EXPECT_EQ(*back, s);
  }
  EXPECT_EQ(EncodeBase64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(EncodeBase64("fo"), "Zm8=");
  StatusOr<std::string> wrapped = DecodeBase64("Zm9v\nYmFy\n");
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(*wrapped, "foobar");
  StatusOr<std::string> unpadded = DecodeBase64("Zm8");
  ASSERT_TRUE(unpadded.ok());
  EXPECT_EQ(*unpadded, "fo");
  EXPECT_FALSE(DecodeBase64("Zm9v!").ok());
  EXPECT_FALSE(DecodeBase64("Z").ok());
  EXPECT_FALSE(DecodeBase64("Zm==Zm").ok());
}

}  // namespace
}  // namespace ksched::util
