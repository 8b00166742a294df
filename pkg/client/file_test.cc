#include "pkg/client/file.h"

#include <gtest/gtest.h>

#include <vector>

#include "pkg/client/test_util.h"

namespace ksched::client {
namespace {

TEST(FileTest, ReadsWholeFileAndReportsMissingOnes) {
  testing::TempDir dir;
  std::string path = dir.Write("a.txt", std::string("x\0y", 3));
  util::StatusOr<std::string> got = ReadFileToString(path);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(*got, std::string("x\0y", 3));

  util::StatusOr<std::string> missing = ReadFileToString(dir.path() + "/nope");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), util::StatusCode::kNotFound);
  EXPECT_NE(missing.status().message().find(dir.path() + "/nope"), std::string::npos);
}

TEST(FileTest, ResolvesRelativePathsAgainstBase) {
  EXPECT_EQ(ResolvePath("/etc/kube", "certs/ca.crt"), "/etc/kube/certs/ca.crt");
  EXPECT_EQ(ResolvePath("/etc/kube", "../ca.crt"), "/etc/ca.crt");
  EXPECT_EQ(ResolvePath("/etc/kube", "/abs/ca.crt"), "/abs/ca.crt");
  EXPECT_EQ(ResolvePath("/etc/kube", ""), "");
}

TEST(FileTest, Base64RoundTripsAndRejectsGarbage) {
  for (const std::string& s : std::vector<std::string>{"", "f", "fo", "foo", "foob", "fooba", "foobar",
                                                       std::string("\0\xff\x10", 3)}) {
    util::StatusOr<std::string> back = DecodeBase64(EncodeBase64(s));
    ASSERT_TRUE(back.ok()) << s;
    EXPECT_EQ(*back, s);
  }
  EXPECT_EQ(EncodeBase64("foobar"), "Zm9vYmFy");
  EXPECT_EQ(EncodeBase64("fo"), "Zm8=");
  util::StatusOr<std::string> wrapped = DecodeBase64("Zm9v\nYmFy\n");
  ASSERT_TRUE(wrapped.ok());
  EXPECT_EQ(*wrapped, "foobar");
  util::StatusOr<std::string> unpadded = DecodeBase64("Zm8");
  ASSERT_TRUE(unpadded.ok());
  EXPECT_EQ(*unpadded, "fo");
  EXPECT_FALSE(DecodeBase64("Zm9v!").ok());
  EXPECT_FALSE(DecodeBase64("Z").ok());
  EXPECT_FALSE(DecodeBase64("Zm==Zm").ok());
}

}  // namespace
}  // namespace ksched::client
