#include "pkg/scheduler/plugins/dynamicresources/extended_resources.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace ksched::scheduler::dra {
namespace {

using Mapping = api::ContainerExtendedResourceRequest;

api::Container GpuContainer(std::string name, const std::string& gpus, bool sidecar = false) {
  api::Container c;
  c.name = std::move(name);
  if (!gpus.empty()) c.resources.requests["example.com/gpu"] = api::Quantity::MustParse(gpus);
  if (sidecar) c.restart_policy = "Always";
  return c;
}

framework::ExtendedResourceClasses GpuClasses() {
  auto c = std::make_shared<api::DeviceClass>();
  c->metadata.name = "gpu";
  c->spec.extended_resource_name = "example.com/gpu";
  return framework::ExtendedResourceClasses({c});
}

std::vector<std::string> Names(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const api::DeviceRequest& d : r.requests) out.push_back(d.name + "=" + std::to_string(d.exactly->count));
  return out;
}

std::vector<std::string> Mappings(const ExtendedRequests& r) {
  std::vector<std::string> out;
  for (const Mapping& m : r.mappings) out.push_back(m.container_name + ":" + m.resource_name + ":" + m.request_name);
  return out;
}

TEST(ExtendedResourcesTest, InitContainersReuseTheDevicesOfLongLivedOnes) {
  api::Pod pod;
  pod.spec.init_containers = {GpuContainer("i0", "2"), GpuContainer("i1", "1", /*sidecar=*/true),
                              GpuContainer("i2", "3")};
  pod.spec.containers = {GpuContainer("c0", "1"), GpuContainer("c1", "")};
  ExtendedRequests r = CreateRequestsAndMappings(pod, {{"example.com/gpu", 7}}, GpuClasses());
  EXPECT_EQ(Names(r), (std::vector<std::string>{"container-1-request-0=1", "container-2-request-0=2",
                                                "container-3-request-0=1"}));
  for (const api::DeviceRequest& d : r.requests) {
    EXPECT_EQ(d.exactly->device_class_name, "gpu");
    EXPECT_EQ(d.exactly->allocation_mode, "ExactCount");
  }
  EXPECT_EQ(Mappings(r), (std::vector<std::string>{
                             "i1:example.com/gpu:container-1-request-0",
                             "c0:example.com/gpu:container-3-request-0",
                             "i0:example.com/gpu:container-1-request-0",
                             "i0:example.com/gpu:container-3-request-0",
                             "i2:example.com/gpu:container-3-request-0",
                             "i2:example.com/gpu:container-2-request-0",
                         }));
}

TEST(ExtendedResourcesTest, InitContainersShareTheLargestRequest) {
  api::Pod pod;
  pod.spec.init_containers = {GpuContainer("i0", "2"), GpuContainer("i1", "3")};
  pod.spec.containers = {GpuContainer("c0", "")};
  ExtendedRequests r = CreateRequestsAndMappings(pod, {{"example.com/gpu", 3}}, GpuClasses());
  EXPECT_EQ(Names(r), std::vector<std::string>{"container-1-request-0=3"});
  EXPECT_EQ(Mappings(r), (std::vector<std::string>{"i0:example.com/gpu:container-1-request-0",
                                                   "i1:example.com/gpu:container-1-request-0"}));
}

TEST(ExtendedResourcesTest, RequestIndexFollowsTheSortedResourceNamesAndSkipsFractions) {
  api::Pod pod;
  api::Container c = GpuContainer("c0", "1");
  c.resources.requests["cpu"] = api::Quantity::MustParse("1");
  c.resources.requests["deviceclass.resource.kubernetes.io/gpu"] = api::Quantity::MustParse("2");
  api::Container fraction = GpuContainer("c1", "500m");
  pod.spec.containers = {c, fraction};
  ExtendedRequests r = CreateRequestsAndMappings(
      pod, {{"example.com/gpu", 1}, {"deviceclass.resource.kubernetes.io/gpu", 2}, {"example.com/unmapped", 1}},
      GpuClasses());
  // cpu, deviceclass.resource.kubernetes.io/gpu, example.com/gpu.
  EXPECT_EQ(Names(r), (std::vector<std::string>{"container-0-request-1=2", "container-0-request-2=1"}));
  EXPECT_EQ(Mappings(r), (std::vector<std::string>{"c0:deviceclass.resource.kubernetes.io/gpu:container-0-request-1",
                                                   "c0:example.com/gpu:container-0-request-2"}));
}

TEST(ExtendedResourcesTest, FindsOnlyTheClaimThePodControls) {
  api::Pod pod;
  pod.metadata.name = "p";
  pod.metadata.namespace_ = "ns";
  pod.metadata.uid = "u";
  api::ResourceClaim mine = NewExtendedResourceClaim(pod, "tmp");
  EXPECT_EQ(mine.metadata.name, kSpecialClaimName);
  EXPECT_EQ(mine.metadata.uid, "tmp");
  EXPECT_EQ(mine.metadata.generate_name, "p-extended-resources-");
  EXPECT_TRUE(mine.spec.devices.requests.empty());
  api::ResourceClaim other_pod = mine;
  other_pod.metadata.owner_references[0].uid = "someone-else";
  api::ResourceClaim not_annotated = mine;
  not_annotated.metadata.annotations.clear();
  auto ptr = [](const api::ResourceClaim& c) { return std::make_shared<const api::ResourceClaim>(c); };
  EXPECT_EQ(FindExtendedResourceClaim(pod, {ptr(other_pod), ptr(not_annotated)}), nullptr);
  ClaimPtr found = FindExtendedResourceClaim(pod, {ptr(other_pod), ptr(mine)});
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->metadata.uid, "tmp");
}

TEST(ExtendedResourcesTest, MappedRequestsNeedAClassAndAQuantity) {
  const framework::ExtendedResourceClasses classes = GpuClasses();
  EXPECT_TRUE(HasDeviceClassMappedExtendedResource({{"example.com/gpu", api::Quantity::MustParse("1")}}, classes));
  EXPECT_FALSE(HasDeviceClassMappedExtendedResource({{"example.com/gpu", api::Quantity::MustParse("0")}}, classes));
  EXPECT_FALSE(HasDeviceClassMappedExtendedResource({{"example.com/tpu", api::Quantity::MustParse("1")}}, classes));
}

}  // namespace
}  // namespace ksched::scheduler::dra
