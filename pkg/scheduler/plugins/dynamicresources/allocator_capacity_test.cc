// The allocator with consumable capacity (kube's allocatortesting cases
// "consumable-capacity-*", "distinct-attribute-*" and the shareID
// bookkeeping of the scheduler's allocated devices).
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "pkg/scheduler/plugins/dynamicresources/allocated_devices.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator_test_util.h"

namespace ksched::scheduler::dra {
namespace {

using api::Quantity;

const AllocatorFeatures kConsumable{.skip_unusable_pools = true,
                                    .device_taints = true,
                                    .partitionable_devices = true,
                                    .consumable_capacity = true,
                                    .capacity_known_when_off = true,
                                    .static_capacity_for_all = true,
                                    .distinct_per_device = true};

// A device of driver-a with "memory" capacity, shared when `multi`.
api::Device SharedDev(std::string name, std::string memory, bool multi = true,
                      std::optional<api::CapacityRequestPolicy> policy = std::nullopt) {
  api::Device d;
  d.name = std::move(name);
  d.capacity["memory"] = api::DeviceCapacity{std::move(memory), std::move(policy)};
  if (multi) d.allow_multiple_allocations = true;
  return d;
}

api::ExactDeviceRequest Asking(std::string memory, int64_t count = 1) {
  api::ExactDeviceRequest r;
  r.device_class_name = "class-a";
  r.allocation_mode = api::kDeviceAllocationModeExactCount;
  r.count = count;
  if (!memory.empty()) {
    r.capacity.emplace();
    r.capacity->requests["memory"] = Quantity::MustParse(memory);
  }
  return r;
}

std::shared_ptr<const api::ResourceClaim> ClaimOf(std::string name, std::vector<api::ExactDeviceRequest> requests,
                                                  std::vector<api::DeviceConstraint> constraints = {}) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.name = std::move(name);
  c->metadata.namespace_ = "default";
  for (size_t i = 0; i < requests.size(); ++i) {
    c->spec.devices.requests.push_back(api::DeviceRequest{"req-" + std::to_string(i), std::move(requests[i]), {}});
  }
  c->spec.devices.constraints = std::move(constraints);
  return c;
}

class CapacityAllocatorTest : public ::testing::Test {
 protected:
  CapacityAllocatorTest() {
    node_.metadata.name = "node-1";
    auto c = std::make_shared<api::DeviceClass>();
    c->metadata.name = "class-a";
    api::DeviceSelector s;
    s.cel = api::CELDeviceSelector{"device.driver == \"driver-a\""};
    c->spec.selectors.push_back(s);
    class_ = c;
  }

  void Publish(std::vector<api::Device> devices) {
    auto s = std::make_shared<api::ResourceSlice>();
    s->metadata.name = "slice";
    s->spec.driver = "driver-a";
    s->spec.pool = api::ResourcePool{"pool", 1, 1};
    s->spec.node_name = "node-1";
    s->spec.devices = std::move(devices);
    slices_ = {s};
  }

  util::StatusOr<std::optional<std::vector<api::AllocationResult>>> Run(
      const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims, AllocatorFeatures features = kConsumable) {
    int next = 0;
    Allocator allocator(
        features, allocated_, [this](const std::string& n) { return n == "class-a" ? class_ : nullptr; }, slices_,
        cel_, [&next] { return "share-" + std::to_string(next++); });
    return Built(allocator.Allocate(node_, claims));
  }

  // Per claim: "request=device[#shareID][ memory=amount]".
  std::vector<std::vector<std::string>> Picks(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                              AllocatorFeatures features = kConsumable) {
    auto r = Run(claims, features);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok() || !r->has_value()) return {};
    std::vector<std::vector<std::string>> out;
    for (const api::AllocationResult& a : **r) {
      out.emplace_back();
      for (const auto& d : a.devices.results) {
        std::string s = d.request + "=" + d.device;
        if (d.share_id) s += "#" + *d.share_id;
        for (const auto& [name, q] : d.consumed_capacity) s += " " + name + "=" + q.ToString();
        out.back().push_back(s);
      }
    }
    return out;
  }

  api::Node node_;
  std::shared_ptr<const api::DeviceClass> class_;
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices_;
  AllocatedState allocated_;
  CelCache cel_;
};

using Picked = std::vector<std::vector<std::string>>;

TEST_F(CapacityAllocatorTest, ClaimsShareADeviceWhileItsCapacityLasts) {
  Publish({SharedDev("gpu", "10Gi")});
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("4Gi")}), ClaimOf("b", {Asking("6Gi")})}),
            (Picked{{"req-0=gpu#share-0 memory=4Gi"}, {"req-0=gpu#share-1 memory=6Gi"}}));
  // A third claim finds no room.
  auto r = Run({ClaimOf("a", {Asking("4Gi")}), ClaimOf("b", {Asking("6Gi")}), ClaimOf("c", {Asking("1")})});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(CapacityAllocatorTest, AllocatedSharesCountAgainstTheCapacity) {
  Publish({SharedDev("gpu", "10Gi")});
  allocated_ = AllocatedState(DeviceHolds{{{"driver-a", "pool", "gpu"}, {0, 1, {{"memory", Quantity::MustParse("8Gi")}}}}});
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("2Gi")})}), (Picked{{"req-0=gpu#share-0 memory=2Gi"}}));
  auto r = Run({ClaimOf("a", {Asking("3Gi")})});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(CapacityAllocatorTest, ASharedDeviceTakenWholeIsInUse) {
  Publish({SharedDev("gpu", "10Gi")});
  allocated_ = AllocatedState(DeviceHolds{{{"driver-a", "pool", "gpu"}, {1, 0, {}}}});  // allocated without a shareID
  auto r = Run({ClaimOf("a", {Asking("1Gi")})});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(CapacityAllocatorTest, NoRequestConsumesTheDefaultOrEverything) {
  api::CapacityRequestPolicy policy;
  policy.default_value = Quantity::MustParse("2Gi");
  Publish({SharedDev("gpu", "4Gi", true, policy), SharedDev("whole", "4Gi")});
  EXPECT_EQ(Picks({ClaimOf("a", {Asking(""), Asking(""), Asking("")})}),
            (Picked{{"req-0=gpu#share-0 memory=2Gi", "req-1=gpu#share-1 memory=2Gi",
                     "req-2=whole#share-2 memory=4Gi"}}));
  auto r = Run({ClaimOf("a", {Asking(""), Asking(""), Asking(""), Asking("")})});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(CapacityAllocatorTest, RequestsRoundUpPerPolicy) {
  api::CapacityRequestPolicy policy;
  policy.valid_range = api::CapacityRequestPolicyRange{Quantity::MustParse("1Gi"), Quantity::MustParse("8Gi"),
                                                        Quantity::MustParse("1Gi")};
  Publish({SharedDev("gpu", "8Gi", true, policy)});
  // 1500Mi rounds up to 2Gi: three of them fit 8Gi, a fifth would not.
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("1500Mi")}), ClaimOf("b", {Asking("1500Mi")})}),
            (Picked{{"req-0=gpu#share-0 memory=2Gi"}, {"req-0=gpu#share-1 memory=2Gi"}}));
  std::vector<std::shared_ptr<const api::ResourceClaim>> five;
  for (int i = 0; i < 5; ++i) five.push_back(ClaimOf("c" + std::to_string(i), {Asking("1500Mi")}));
  auto r = Run(five);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  // Over the range's max: the device does not fit at all.
  auto big = Run({ClaimOf("a", {Asking("9Gi")})});
  ASSERT_TRUE(big.ok());
  EXPECT_FALSE(big->has_value());
}

TEST_F(CapacityAllocatorTest, OneRequestTakesASharedDeviceOnce) {
  Publish({SharedDev("gpu-0", "10Gi"), SharedDev("gpu-1", "10Gi")});
  // Count 2: one share of each device, never two of one.
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("1Gi", 2)})}),
            (Picked{{"req-0=gpu-0#share-0 memory=1Gi", "req-0=gpu-1#share-1 memory=1Gi"}}));
  Publish({SharedDev("gpu-0", "10Gi")});
  auto r = Run({ClaimOf("a", {Asking("1Gi", 2)})});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  // Two requests of one claim may share it.
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("1Gi"), Asking("1Gi")})}),
            (Picked{{"req-0=gpu-0#share-0 memory=1Gi", "req-1=gpu-0#share-1 memory=1Gi"}}));
}

TEST_F(CapacityAllocatorTest, ExclusiveDevicesAreCheckedButNotShared) {
  Publish({SharedDev("small", "2Gi", false), SharedDev("big", "8Gi", false)});
  // The capacity request skips the small device; no shareID on an
  // exclusive device.
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("4Gi")})}), (Picked{{"req-0=big"}}));
  auto r = Run({ClaimOf("a", {Asking("4Gi")}), ClaimOf("b", {Asking("1Gi")}), ClaimOf("c", {Asking("1Gi")})});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
}

TEST_F(CapacityAllocatorTest, RequestForAMissingCapacitySkipsTheDevice) {
  api::Device other = SharedDev("other", "1");
  other.capacity.clear();
  other.capacity["bandwidth"] = api::DeviceCapacity{"10", std::nullopt};
  Publish({other, SharedDev("gpu", "10Gi")});
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("1Gi")})}), (Picked{{"req-0=gpu#share-0 memory=1Gi"}}));
}

TEST_F(CapacityAllocatorTest, GateOff) {
  Publish({SharedDev("gpu", "10Gi")});
  AllocatorFeatures off = kConsumable;
  off.consumable_capacity = false;
  // kube 1.36 on: capacity requests are an error.
  auto r = Run({ClaimOf("a", {Asking("1Gi")})}, off);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "claim default/a, request req-0: has capacity requests, but the DRAConsumableCapacity feature is disabled");
  // kube 1.35: ignored, and the device is exclusive.
  off.capacity_known_when_off = false;
  EXPECT_EQ(Picks({ClaimOf("a", {Asking("1Gi")})}, off), (Picked{{"req-0=gpu"}}));
  auto two = Run({ClaimOf("a", {Asking("1Gi")}), ClaimOf("b", {Asking("1Gi")})}, off);
  ASSERT_TRUE(two.ok());
  EXPECT_FALSE(two->has_value());
}

TEST_F(CapacityAllocatorTest, DistinctAttribute) {
  auto dev = [](std::string name, int64_t numa) {
    api::Device d = SharedDev(std::move(name), "10Gi", false);
    api::DeviceAttributeValue v;
    v.int_value = numa;
    d.attributes["driver-a/numa"] = v;
    return d;
  };
  Publish({dev("a0", 0), dev("a1", 0), dev("b1", 1)});
  api::DeviceConstraint distinct;
  distinct.distinct_attribute = "driver-a/numa";
  EXPECT_EQ(Picks({ClaimOf("c", {Asking("", 2)}, {distinct})}), (Picked{{"req-0=a0", "req-0=b1"}}));
  // Three devices, two NUMA nodes: no allocation. kube 1.36 remembers one
  // value per request (the last device's), so a0, b1, a2 passes there.
  Publish({dev("a0", 0), dev("b1", 1), dev("a2", 0)});
  auto three = Run({ClaimOf("c", {Asking("", 3)}, {distinct})});
  ASSERT_TRUE(three.ok());
  EXPECT_FALSE(three->has_value());
  AllocatorFeatures v136 = kConsumable;
  v136.distinct_per_device = false;
  EXPECT_EQ(Picks({ClaimOf("c", {Asking("", 3)}, {distinct})}, v136), (Picked{{"req-0=a0", "req-0=b1", "req-0=a2"}}));
  AllocatorFeatures off = kConsumable;
  off.consumable_capacity = false;
  off.capacity_known_when_off = false;
  auto r = Run({ClaimOf("c", {Asking("", 2)}, {distinct})}, off);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("empty constraint"), std::string::npos);
}

TEST_F(CapacityAllocatorTest, AllRequestAndTakenCapacity) {
  Publish({SharedDev("gpu-0", "10Gi"), SharedDev("gpu-1", "10Gi")});
  allocated_ = AllocatedState(DeviceHolds{{{"driver-a", "pool", "gpu-1"}, {0, 1, {{"memory", Quantity::MustParse("10Gi")}}}}});
  api::ExactDeviceRequest all = Asking("1Gi");
  all.allocation_mode = api::kDeviceAllocationModeAll;
  all.count = 0;
  // kube 1.37: gpu-1 is picked by its whole capacity, has no room, and
  // fails the request.
  auto r = Run({ClaimOf("a", {all})});
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->has_value());
  // kube 1.36: gpu-1 is left out.
  AllocatorFeatures v136 = kConsumable;
  v136.static_capacity_for_all = false;
  EXPECT_EQ(Picks({ClaimOf("a", {all})}, v136), (Picked{{"req-0=gpu-0#share-0 memory=1Gi"}}));
}

}  // namespace
}  // namespace ksched::scheduler::dra
