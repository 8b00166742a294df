#include "pkg/scheduler/framework/device_class_resolver.h"

#include <chrono>
#include <memory>
#include <optional>
#include <string>

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/in_memory_listers.h"

namespace ksched::scheduler::framework {
namespace {

std::shared_ptr<const api::DeviceClass> Class(std::string name, std::optional<std::string> extended,
                                              int created_seconds = 0) {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = std::move(name);
  c->metadata.creation_timestamp = api::Time(std::chrono::seconds(created_seconds));
  c->spec.extended_resource_name = std::move(extended);
  return c;
}

TEST(DeviceClassResolverTest, ExplicitAndImplicitNames) {
  InMemoryLister<api::DeviceClass> classes;
  classes.Set(Class("gpu", "example.com/gpu"));
  classes.Set(Class("nic", std::nullopt));
  DeviceClassResolver resolver(classes);
  auto m = resolver.Snapshot();
  ASSERT_NE(m->Lookup("example.com/gpu"), nullptr);
  EXPECT_EQ(m->Lookup("example.com/gpu")->metadata.name, "gpu");
  ASSERT_NE(m->Lookup("deviceclass.resource.kubernetes.io/gpu"), nullptr);
  ASSERT_NE(m->Lookup("deviceclass.resource.kubernetes.io/nic"), nullptr);
  EXPECT_EQ(m->Lookup("deviceclass.resource.kubernetes.io/nic")->metadata.name, "nic");
  EXPECT_EQ(m->Lookup("example.com/nic"), nullptr);
  EXPECT_EQ(m->Lookup("nic"), nullptr);
}

TEST(DeviceClassResolverTest, OldestClassWinsAName) {
  InMemoryLister<api::DeviceClass> classes;
  classes.Set(Class("a-new", "example.com/gpu", 20));
  classes.Set(Class("b-old", "example.com/gpu", 10));
  classes.Set(Class("c-old", "example.com/gpu", 10));
  DeviceClassResolver resolver(classes);
  EXPECT_EQ(resolver.Snapshot()->Lookup("example.com/gpu")->metadata.name, "b-old");
}

TEST(DeviceClassResolverTest, FollowsTheLister) {
  InMemoryLister<api::DeviceClass> classes;
  DeviceClassResolver resolver(classes);
  auto empty = resolver.Snapshot();
  EXPECT_TRUE(empty->empty());
  // Unchanged lister: the same snapshot.
  EXPECT_EQ(resolver.Snapshot(), empty);
  classes.Set(Class("gpu", "example.com/gpu"));
  EXPECT_NE(resolver.Snapshot()->Lookup("example.com/gpu"), nullptr);
  classes.Set(Class("gpu", std::nullopt));
  EXPECT_EQ(resolver.Snapshot()->Lookup("example.com/gpu"), nullptr);
  classes.Delete("", "gpu");
  EXPECT_EQ(resolver.Snapshot()->Lookup("deviceclass.resource.kubernetes.io/gpu"), nullptr);
}

TEST(DeviceClassResolverTest, DraExtendedResourceNames) {
  EXPECT_TRUE(IsDraExtendedResourceName("example.com/gpu"));
  EXPECT_TRUE(IsDraExtendedResourceName("deviceclass.resource.kubernetes.io/gpu"));
  EXPECT_FALSE(IsDraExtendedResourceName("cpu"));
  EXPECT_FALSE(IsDraExtendedResourceName("hugepages-2Mi"));
}

}  // namespace
}  // namespace ksched::scheduler::framework
