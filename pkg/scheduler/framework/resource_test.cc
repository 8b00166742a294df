#include "pkg/scheduler/framework/resource.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::framework {
namespace {

using testing::ToResourceList;

TEST(ResourceTest, FromResourceListCountsCoreAndScalarResources) {
  Resource r(ToResourceList({{"cpu", "1500m"},
                             {"memory", "1Gi"},
                             {"ephemeral-storage", "10Gi"},
                             {"pods", "110"},
                             {"nvidia.com/gpu", "2"},
                             {"hugepages-2Mi", "4Mi"},
                             {"unknown", "5"}}));
  EXPECT_EQ(r.milli_cpu, 1500);
  EXPECT_EQ(r.memory, int64_t{1} << 30);
  EXPECT_EQ(r.ephemeral_storage, int64_t{10} << 30);
  EXPECT_EQ(r.allowed_pod_number, 110);
  EXPECT_EQ(r.Scalar("nvidia.com/gpu"), 2);
  EXPECT_EQ(r.Scalar("hugepages-2Mi"), 4 << 20);
  // Names that are neither core nor scalar resources are not tracked.
  EXPECT_EQ(r.Scalar("unknown"), 0);
  EXPECT_EQ(r.scalar_resources.size(), 2u);
  EXPECT_EQ(r.Get("cpu"), 1500);
  EXPECT_EQ(r.Get("pods"), 110);
  EXPECT_EQ(r.Get("nvidia.com/gpu"), 2);
}

// Scalar resources live out of line: copies are deep, and having no map
// is the same as an empty one.
TEST(ResourceTest, ScalarResourcesAreAValue) {
  Resource none;
  EXPECT_TRUE(none.scalar_resources.empty());
  EXPECT_EQ(none.scalar_resources.begin(), none.scalar_resources.end());
  EXPECT_EQ(none.scalar_resources.find("example.com/foo"), none.scalar_resources.end());
  EXPECT_EQ(none.Scalar("example.com/foo"), 0);

  Resource a(ToResourceList({{"example.com/foo", "3"}}));
  Resource copy = a;
  copy.AddScalar("example.com/foo", 1);
  EXPECT_EQ(a.Scalar("example.com/foo"), 3);
  EXPECT_EQ(copy.Scalar("example.com/foo"), 4);
  EXPECT_FALSE(a == copy);
  copy = a;
  EXPECT_EQ(a, copy);
  copy = none;
  EXPECT_TRUE(copy.scalar_resources.empty());

  // A zeroed entry stays an entry, as in kube's map.
  Resource zeroed = a;
  zeroed.SetScalar("example.com/foo", 0);
  EXPECT_EQ(zeroed.scalar_resources.size(), 1u);
  EXPECT_FALSE(zeroed == none);
  EXPECT_TRUE(zeroed.IsZero());
  Resource emptied = a;
  emptied.scalar_resources = ScalarResources();
  EXPECT_EQ(emptied.scalar_resources.map(), ScalarResources::Map());
  EXPECT_EQ(emptied, none);
}

TEST(ResourceTest, AddAndSubAreInverse) {
  Resource a(ToResourceList({{"cpu", "1"}, {"memory", "1Gi"}, {"example.com/foo", "3"}}));
  Resource b(ToResourceList({{"cpu", "250m"}, {"example.com/foo", "1"}, {"example.com/bar", "7"}}));
  Resource sum = a;
  sum.Add(b);
  EXPECT_EQ(sum.milli_cpu, 1250);
  EXPECT_EQ(sum.Scalar("example.com/foo"), 4);
  EXPECT_EQ(sum.Scalar("example.com/bar"), 7);
  sum.Sub(b);
  EXPECT_EQ(sum.milli_cpu, a.milli_cpu);
  EXPECT_EQ(sum.memory, a.memory);
  EXPECT_EQ(sum.Scalar("example.com/foo"), 3);
  EXPECT_EQ(sum.Scalar("example.com/bar"), 0);
  sum.Sub(a);
  EXPECT_TRUE(sum.IsZero());
  EXPECT_FALSE(a.IsZero());
}

TEST(ResourceTest, SetMaxResourceRaisesOnly) {
  Resource r(ToResourceList({{"cpu", "2"}, {"memory", "1Gi"}, {"example.com/foo", "1"}}));
  r.SetMaxResource(ToResourceList({{"cpu", "1"}, {"memory", "2Gi"}, {"example.com/foo", "5"}, {"pods", "3"}}));
  EXPECT_EQ(r.milli_cpu, 2000);
  EXPECT_EQ(r.memory, int64_t{2} << 30);
  EXPECT_EQ(r.Scalar("example.com/foo"), 5);
  EXPECT_EQ(r.allowed_pod_number, 3);
}

}  // namespace
}  // namespace ksched::scheduler::framework
