#include "pkg/client/file.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ksched::client
