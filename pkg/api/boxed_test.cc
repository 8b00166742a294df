#include "pkg/api/boxed.h"

#include <gtest/gtest.h>

#include <string>

#include "pkg/api/codec.h"
#include "pkg/api/types.h"

namespace ksched::api {
namespace {

TEST(BoxedTest, CopiesAreDeepAndCompareByValue) {
  Boxed<std::string> a = std::string("x");
  Boxed<std::string> b = a;
  *b += "y";
  EXPECT_EQ(*a, "x");
  EXPECT_EQ(*b, "xy");
  EXPECT_FALSE(a == b);
  b = a;
  EXPECT_TRUE(a == b);
  b = std::nullopt;
  EXPECT_FALSE(b.has_value());
  EXPECT_TRUE(b == std::nullopt);
  EXPECT_FALSE(a == b);
  EXPECT_THROW(b.value(), std::bad_optional_access);
  b.emplace() = "z";
  EXPECT_EQ(b.value(), "z");
}

TEST(BoxedTest, AVolumeSourceRoundTrips) {
  const std::string text =
      R"({"metadata":{"name":"p"},"spec":{"volumes":[{"name":"data","csi":{"driver":"ebs.csi.aws.com"}}]}})";
  auto parsed = ParseJson(text);
  ASSERT_TRUE(parsed.ok());
  // The JSON text's fast reader and the tree decoder both fill the box.
  for (auto pod : {FromJsonText<Pod>(text), FromJson<Pod>(*parsed)}) {
    ASSERT_TRUE(pod.ok()) << pod.status().message();
    ASSERT_EQ(pod->spec.volumes.size(), 1u);
    const Volume& volume = pod->spec.volumes[0];
    ASSERT_TRUE(volume.csi);
    EXPECT_EQ(volume.csi->driver, "ebs.csi.aws.com");
    EXPECT_FALSE(volume.image);
    EXPECT_EQ(ToJson(*pod)["spec"]["volumes"][0].dump(), R"({"csi":{"driver":"ebs.csi.aws.com"},"name":"data"})");
  }
}

}  // namespace
}  // namespace ksched::api
