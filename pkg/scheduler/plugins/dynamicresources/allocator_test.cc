// The structured allocator, on the behaviour kube's allocator test cases
// (k8s.io/dynamic-resource-allocation/structured, allocatortesting) pin
// down; the case names are kept in the test names' comments.
#include "pkg/scheduler/plugins/dynamicresources/allocator.h"
#include "pkg/scheduler/plugins/dynamicresources/allocator_test_util.h"
#include "pkg/scheduler/plugins/dynamicresources/pools.h"

#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace ksched::scheduler::dra {
namespace {

using AttrMap = std::map<std::string, api::DeviceAttributeValue>;
using CapMap = std::map<std::string, std::string>;

api::DeviceAttributeValue Str(std::string v) { api::DeviceAttributeValue a; a.string_value = std::move(v); return a; }
api::DeviceAttributeValue Int(int64_t v) { api::DeviceAttributeValue a; a.int_value = v; return a; }
api::DeviceAttributeValue Ver(std::string v) { api::DeviceAttributeValue a; a.version_value = std::move(v); return a; }

api::Device Dev(std::string name, CapMap capacity = {}, AttrMap attributes = {}) {
  api::Device d;
  d.name = std::move(name);
  d.attributes = std::move(attributes);
  for (auto& [k, v] : capacity) d.capacity[k].value = v;
  return d;
}

api::NodeSelector RegionSelector(const std::string& region) {
  api::NodeSelector s;
  s.node_selector_terms.push_back(api::NodeSelectorTerm{{api::NodeSelectorRequirement{"region", "In", {region}}}, {}});
  return s;
}

struct SliceOpts {
  std::string node;                           // nodeName
  std::optional<api::NodeSelector> selector;  // nodeSelector
  bool all_nodes = false;
  int64_t generation = 1;
  int64_t count = 1;
};

std::shared_ptr<const api::ResourceSlice> Slice(std::string name, std::string driver, std::string pool,
                                                std::vector<api::Device> devices, SliceOpts o = {"node-1"}) {
  auto s = std::make_shared<api::ResourceSlice>();
  s->metadata.name = std::move(name);
  s->spec.driver = std::move(driver);
  s->spec.pool = api::ResourcePool{std::move(pool), o.generation, o.count};
  if (!o.node.empty()) s->spec.node_name = o.node;
  s->spec.node_selector = o.selector;
  if (o.all_nodes) s->spec.all_nodes = true;
  s->spec.devices = std::move(devices);
  return s;
}

api::DeviceSelector Cel(std::string expression) {
  api::DeviceSelector s;
  s.cel = api::CELDeviceSelector{std::move(expression)};
  return s;
}

api::ExactDeviceRequest Exact(std::string class_name, int64_t count = 1, std::vector<api::DeviceSelector> selectors = {}) {
  api::ExactDeviceRequest r;
  r.device_class_name = std::move(class_name);
  r.allocation_mode = api::kDeviceAllocationModeExactCount;
  r.count = count;
  r.selectors = std::move(selectors);
  return r;
}

api::ExactDeviceRequest All(std::string class_name) {
  api::ExactDeviceRequest r;
  r.device_class_name = std::move(class_name);
  r.allocation_mode = api::kDeviceAllocationModeAll;
  return r;
}

api::DeviceRequest Req(std::string name, api::ExactDeviceRequest exactly) {
  return api::DeviceRequest{std::move(name), std::move(exactly), {}};
}

api::DeviceSubRequest Sub(std::string name, std::string class_name, int64_t count = 1,
                          std::vector<api::DeviceSelector> selectors = {}) {
  return api::DeviceSubRequest{std::move(name), std::move(class_name), std::move(selectors),
                               api::kDeviceAllocationModeExactCount, count};
}

api::DeviceRequest FirstAvailable(std::string name, std::vector<api::DeviceSubRequest> subs) {
  return api::DeviceRequest{std::move(name), std::nullopt, std::move(subs)};
}

std::shared_ptr<const api::ResourceClaim> Claim(std::string name, std::vector<api::DeviceRequest> requests,
                                                std::vector<api::DeviceConstraint> constraints = {},
                                                std::vector<api::DeviceClaimConfiguration> config = {}) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.name = std::move(name);
  c->spec.devices.requests = std::move(requests);
  c->spec.devices.constraints = std::move(constraints);
  c->spec.devices.config = std::move(config);
  return c;
}

api::DeviceConstraint Match(std::string attribute, std::vector<std::string> requests = {}) {
  return api::DeviceConstraint{std::move(requests), std::move(attribute)};
}

api::OpaqueDeviceConfiguration Opaque(std::string driver, std::string parameters) {
  return api::OpaqueDeviceConfiguration{std::move(driver), api::RawJson{std::move(parameters)}};
}

class AllocatorTest : public ::testing::Test {
 protected:
  AllocatorTest() {
    node_.metadata.name = "node-1";
    node_.metadata.labels["region"] = "region-1";
    AddClass("class-a", "driver-a");
    AddClass("class-b", "driver-b");
  }

  // A class selecting its driver's devices, as kube's test classes do.
  void AddClass(const std::string& name, const std::string& driver, std::vector<api::DeviceClassConfiguration> config = {}) {
    auto c = std::make_shared<api::DeviceClass>();
    c->metadata.name = name;
    c->spec.selectors.push_back(Cel("device.driver == \"" + driver + "\""));
    c->spec.config = std::move(config);
    classes_[name] = c;
  }

  // An allocator over the fixture's classes, slices and allocated devices.
  Allocator MakeAllocator(AllocatorFeatures features) {
    return Allocator(
        features, allocated_,
        [this](const std::string& name) -> std::shared_ptr<const api::DeviceClass> {
          auto it = classes_.find(name);
          return it == classes_.end() ? nullptr : it->second;
        },
        slices_, cel_);
  }

  util::StatusOr<std::optional<std::vector<api::AllocationResult>>> Allocate(
      const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims, AllocatorFeatures features = {}) {
    return Built(MakeAllocator(features).Allocate(node_, claims));
  }

  // The results as "request=driver/pool/device[+admin]" per claim.
  std::vector<std::vector<std::string>> Devices(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                                AllocatorFeatures features = {}) {
    auto r = Allocate(claims, features);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {{"<error>"}};
    if (!r->has_value()) return {};
    std::vector<std::vector<std::string>> out;
    for (const api::AllocationResult& a : **r) {
      out.emplace_back();
      for (const auto& d : a.devices.results) {
        out.back().push_back(d.request + "=" + d.driver + "/" + d.pool + "/" + d.device +
                             (d.admin_access.value_or(false) ? "+admin" : ""));
      }
    }
    return out;
  }

  // Allocator::Tally as "claim/request: reachable R, usable U[, reason N...]".
  std::vector<std::string> Tallies(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                                   AllocatorFeatures features = {}) {
    auto r = MakeAllocator(features).Tally(node_, claims);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    if (!r.ok()) return {"<error>"};
    std::vector<std::string> out;
    for (const RequestDeviceTally& t : *r) {
      std::string line = t.claim + "/" + t.request + ": reachable " + std::to_string(t.reachable) + ", usable " +
                         std::to_string(t.usable);
      for (const auto& [reason, n] : t.skipped) line += ", " + reason + " " + std::to_string(n);
      out.push_back(std::move(line));
    }
    return out;
  }

  std::string Error(const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims,
                    AllocatorFeatures features = {}) {
    auto r = Allocate(claims, features);
    EXPECT_FALSE(r.ok());
    return r.ok() ? "" : r.status().message();
  }

  api::Node node_;
  std::map<std::string, std::shared_ptr<const api::DeviceClass>> classes_;
  std::vector<std::shared_ptr<const api::ResourceSlice>> slices_;
  std::set<DeviceId> allocated_;
  CelCache cel_;
};

using Want = std::vector<std::vector<std::string>>;

// Selector verdicts are remembered across searches per slice object: a
// new version of the slice is evaluated afresh, though its pool and device
// names are the same (kube remembers them by name).
TEST_F(AllocatorTest, SelectorVerdictsFollowTheSliceObject) {
  const auto claim = Claim("claim-0", {Req("req-0", Exact("class-a"))});
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  EXPECT_EQ(Devices({claim}), (Want{{"req-0=driver-a/pool-1/device-1"}}));
  EXPECT_EQ(Devices({claim}), (Want{{"req-0=driver-a/pool-1/device-1"}}));  // remembered
  EXPECT_GT(cel_.remembered(), 0u);
  slices_ = {Slice("s1", "driver-b", "pool-1", {Dev("device-1")})};  // class-a selects driver-a only
  EXPECT_EQ(Devices({claim}), Want{});
}

TEST(CelCacheTest, RemembersVerdictsOfLiveSliceObjectsOnly) {
  CelCache cache;
  CelCache::Compiled program = cache.GetOrCompile("device.driver == \"driver-a\"");
  std::shared_ptr<const api::ResourceSlice> slice = Slice("s1", "driver-a", "pool-1", {Dev("device-1")});
  const api::Device& device = slice->spec.devices[0];
  EXPECT_FALSE(cache.Recall(program, slice, device, false));
  cache.Remember(program, slice, device, false, true);
  EXPECT_EQ(cache.Recall(program, slice, device, false), std::optional<bool>(true));
  EXPECT_FALSE(cache.Recall(program, slice, device, true));  // another variant
  // Another object (a copy, or whatever later sits at a freed address) is not answered for.
  auto copy = std::make_shared<const api::ResourceSlice>(*slice);
  EXPECT_FALSE(cache.Recall(program, copy, device, false));
  // Verdicts of slices gone are swept as the memo grows, so it holds at
  // most about twice the live ones (a later slice may also take a freed
  // address and overwrite an entry).
  using Batch = std::vector<std::shared_ptr<const api::ResourceSlice>>;
  auto remember = [&](Batch& batch) {
    for (int i = 0; i < 3000; ++i) {
      batch.push_back(Slice("g", "driver-a", "pool-1", {Dev("d")}));
      cache.Remember(program, batch.back(), batch.back()->spec.devices[0], false, true);
    }
  };
  Batch first, second, third;
  remember(first);
  remember(second);
  first.clear();
  remember(third);
  EXPECT_LE(cache.remembered(), 2 * (1u + 3000u + 3000u));
  for (const Batch* b : {&second, &third}) {
    for (const auto& live : *b) EXPECT_EQ(cache.Recall(program, live, live->spec.devices[0], false), true);
  }
  EXPECT_EQ(cache.Recall(program, slice, device, false), std::optional<bool>(true));
}

TEST_F(AllocatorTest, SimpleAndNodeLocalSelector) {  // simple
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  auto r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a"))})});
  ASSERT_TRUE(r.ok() && r->has_value());
  const api::AllocationResult& a = (**r)[0];
  ASSERT_EQ(a.devices.results.size(), 1u);
  EXPECT_EQ(a.devices.results[0].device, "device-1");
  EXPECT_FALSE(a.devices.results[0].admin_access.has_value());
  ASSERT_TRUE(a.node_selector.has_value());
  const auto& term = a.node_selector->node_selector_terms.at(0);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].key, "metadata.name");
  EXPECT_EQ(term.match_fields[0].operator_, "In");
  EXPECT_EQ(term.match_fields[0].values, std::vector<std::string>{"node-1"});
  EXPECT_TRUE(term.match_expressions.empty());
}

TEST_F(AllocatorTest, EmptyAndNoClaims) {  // empty, no-claims-to-allocate
  auto r = Allocate({});
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_TRUE((*r)->empty());
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  EXPECT_EQ(Devices({Claim("claim-0", {})}), (Want{{}}));
}

TEST_F(AllocatorTest, DevicesOfOtherNodesAreNotReachable) {  // other-node, no-slices
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"node-2"})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), Want{});
  slices_.clear();
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), Want{});
}

TEST_F(AllocatorTest, BacktracksAcrossRequests) {  // small-and-large-backtrack-requests
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-2", {{"memory", "2Gi"}}), Dev("device-1", {{"memory", "1Gi"}})})};
  auto claim = Claim("claim-0", {Req("req-0", Exact("class-a", 1, {Cel(R"(device.capacity["driver-a"].memory.compareTo(quantity("1Gi")) >= 0)")})),
                                 Req("req-1", Exact("class-a", 1, {Cel(R"(device.capacity["driver-a"].memory.compareTo(quantity("2Gi")) >= 0)")}))});
  EXPECT_EQ(Devices({claim}), (Want{{"req-0=driver-a/pool-1/device-1", "req-1=driver-a/pool-1/device-2"}}));
}

TEST_F(AllocatorTest, BacktracksAcrossClaims) {  // small-and-large-backtrack-claims
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-2", {{"memory", "2Gi"}}), Dev("device-1", {{"memory", "1Gi"}})})};
  auto small = Claim("claim-0", {Req("req-0", Exact("class-a", 1, {Cel(R"(device.capacity["driver-a"].memory.compareTo(quantity("1Gi")) >= 0)")}))});
  auto large = Claim("claim-1", {Req("req-0", Exact("class-a", 1, {Cel(R"(device.capacity["driver-a"].memory.compareTo(quantity("2Gi")) >= 0)")}))});
  EXPECT_EQ(Devices({small, large}), (Want{{"req-0=driver-a/pool-1/device-1"}, {"req-0=driver-a/pool-1/device-2"}}));
}

TEST_F(AllocatorTest, OnlyTheNewestGenerationOfAPoolCounts) {  // obsolete-slice
  slices_ = {Slice("old", "driver-a", "pool-1", {Dev("device-old")}, {"node-1", std::nullopt, false, 1, 1}),
             Slice("new", "driver-a", "pool-1", {Dev("device-new")}, {"node-1", std::nullopt, false, 2, 1})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 2))})}), Want{});
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), (Want{{"req-0=driver-a/pool-1/device-new"}}));
}

TEST_F(AllocatorTest, DevicesSplitAcrossSlicesOfOnePool) {  // devices-split-across-different-slices
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2}),
             Slice("s2", "driver-a", "pool-1", {Dev("device-2")}, {"node-1", std::nullopt, false, 1, 2})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 2))})}),
            (Want{{"req-0=driver-a/pool-1/device-1", "req-0=driver-a/pool-1/device-2"}}));
}

TEST_F(AllocatorTest, NotEnoughSuitableDevices) {  // not-enough-suitable-devices
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Dev("device-2")})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 3))})}), Want{});
  // The class selects by driver: driver-b's request finds nothing here.
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-b"))})}), Want{});
}

TEST_F(AllocatorTest, UnknownClassIsAnError) {  // unknown-class
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  auto c = Claim("claim-0", {Req("req-0", Exact("no-such-class"))});
  EXPECT_EQ(Error({c}),
            "claim claim-0, request req-0: could not retrieve device class no-such-class: "
            "deviceclass.resource.k8s.io \"no-such-class\" not found");
}

TEST_F(AllocatorTest, ClassWithoutSelectorsTakesAnyDevice) {  // empty-class
  auto empty = std::make_shared<api::DeviceClass>();
  empty->metadata.name = "empty";
  classes_["empty"] = empty;
  slices_ = {Slice("s1", "driver-b", "pool-1", {Dev("device-1")})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("empty"))})}), (Want{{"req-0=driver-b/pool-1/device-1"}}));
}

TEST_F(AllocatorTest, AlreadyAllocatedDevicesAreSkipped) {  // already-allocated-devices
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Dev("device-2")})};
  allocated_ = {DeviceId{"driver-a", "pool-1", "device-1"}};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), (Want{{"req-0=driver-a/pool-1/device-2"}}));
  allocated_.insert(DeviceId{"driver-a", "pool-1", "device-2"});
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), Want{});
}

// Searches over pools kept between cycles skip the devices a search saw
// held, and look again once a hold in the pool is removed.
TEST_F(AllocatorTest, HeldDevicesAreSkippedUntilOneIsFreed) {
  auto pools = std::make_shared<const SlicePools>(std::vector<SlicePtr>{
      Slice("s1", "driver-a", "pool-1", {Dev("device-0"), Dev("device-1")}, SliceOpts{"node-1", {}, false, 1, 2}),
      Slice("s2", "driver-a", "pool-1", {Dev("device-2"), Dev("device-3")}, SliceOpts{"node-1", {}, false, 1, 2})});
  const auto claim = Claim("claim-0", {Req("req-0", Exact("class-a"))});
  api::ExactDeviceRequest admin_request = Exact("class-a");
  admin_request.admin_access = true;
  const auto admin = Claim("claim-1", {Req("req-0", admin_request)});
  AllocatedCounts counts;
  auto pick = [&](const std::shared_ptr<const api::ResourceClaim>& c) -> std::string {
    AllocatorFeatures features;
    features.admin_access = true;
    Allocator allocator(features, counts.State(), [this](const std::string& name) { return classes_.at(name); }, pools,
                        cel_);
    auto found = Built(allocator.Allocate(node_, {c}));
    EXPECT_TRUE(found.ok()) << found.status().ToString();
    if (!found.ok() || !found->has_value()) return "none";
    const api::DeviceRequestAllocationResult& r = (**found)[0].devices.results.at(0);
    return r.device + (r.admin_access.value_or(false) ? "+admin" : "");
  };
  auto take = [&](const std::string& device) {
    api::AllocationResult a;
    a.devices.results = {api::DeviceRequestAllocationResult{"req-0", "driver-a", "pool-1", device, std::nullopt, {}}};
    return a;
  };
  for (const char* device : {"device-0", "device-1", "device-2"}) {
    EXPECT_EQ(pick(claim), device);
    counts.Add(take(device), true);
  }
  EXPECT_EQ(pick(claim), "device-3");
  EXPECT_EQ(pick(admin), "device-0+admin") << "admin access ignores holds";
  counts.Add(take("device-3"), true);
  EXPECT_EQ(pick(claim), "none");
  EXPECT_EQ(pick(claim), "none");
  counts.Remove(take("device-1"), true);
  EXPECT_EQ(pick(claim), "device-1");
  counts.Add(take("device-1"), true);
  counts.Remove(take("device-2"), true);
  EXPECT_EQ(pick(claim), "device-2");
}

TEST_F(AllocatorTest, AllDevices) {  // all-devices-single, all-devices-many, all-devices-no-slices
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}),
             Slice("s2", "driver-a", "pool-2", {Dev("device-2"), Dev("device-3")}),
             Slice("s3", "driver-b", "pool-1", {Dev("device-4")})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", All("class-a"))})}),
            (Want{{"req-0=driver-a/pool-1/device-1", "req-0=driver-a/pool-2/device-2", "req-0=driver-a/pool-2/device-3"}}));
  slices_.clear();
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", All("class-a"))})}), Want{});  // at least one device
}

TEST_F(AllocatorTest, AllDevicesOfAnIncompletePoolIsAnError) {  // all-devices-of-the-incomplete-pool
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2})};
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", All("class-a"))})}),
            "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being updated");
  // An ExactCount request still uses the pool, as kube's allocator does.
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), (Want{{"req-0=driver-a/pool-1/device-1"}}));
}

TEST_F(AllocatorTest, AllDevicesPlusAnother) {  // all-devices-plus-another(-reversed), all-devices-no-solution
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}), Slice("s2", "driver-b", "pool-1", {Dev("device-1")})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", All("class-a"))}), Claim("claim-1", {Req("req-0", Exact("class-b"))})}),
            (Want{{"req-0=driver-a/pool-1/device-1"}, {"req-0=driver-b/pool-1/device-1"}}));
  // Both want driver-a's only device.
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))}), Claim("claim-1", {Req("req-0", All("class-a"))})}),
            Want{});
}

TEST_F(AllocatorTest, AllDevicesSomeAllocated) {  // all-devices-some-allocated(-admin-access)
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Dev("device-2")})};
  allocated_ = {DeviceId{"driver-a", "pool-1", "device-1"}};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", All("class-a"))})}), Want{});
  api::ExactDeviceRequest admin = All("class-a");
  admin.admin_access = true;
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", admin)})}),
            (Want{{"req-0=driver-a/pool-1/device-1+admin", "req-0=driver-a/pool-1/device-2+admin"}}));
}

TEST_F(AllocatorTest, AdminAccessSharesDevicesButNotWithinItsClaim) {
  // admin-access-claims-device-allocating-for-non-admin-access
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Dev("device-2")})};
  api::ExactDeviceRequest admin = Exact("class-a");
  admin.admin_access = true;
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))}), Claim("claim-1", {Req("req-0", admin)})}),
            (Want{{"req-0=driver-a/pool-1/device-1"}, {"req-0=driver-a/pool-1/device-1+admin"}}));
  // count-devices-some-allocated-admin-access: within one claim, two
  // different devices.
  api::ExactDeviceRequest two = Exact("class-a", 2);
  two.admin_access = true;
  allocated_ = {DeviceId{"driver-a", "pool-1", "device-1"}};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", two)})}),
            (Want{{"req-0=driver-a/pool-1/device-1+admin", "req-0=driver-a/pool-1/device-2+admin"}}));
}

TEST_F(AllocatorTest, AdminAccessDisabledIsAnError) {  // admin-access-disabled
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  api::ExactDeviceRequest admin = Exact("class-a");
  admin.admin_access = false;  // set at all: refused while the feature is off
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", admin)})}, AllocatorFeatures{false, true}),
            "claim claim-0, request req-0: admin access is requested, but the feature is disabled");
}

TEST_F(AllocatorTest, NetworkAttachedDevices) {  // network-attached-device, local-and-network-attached-devices
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"", RegionSelector("region-1")})};
  auto r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a"))})});
  ASSERT_TRUE(r.ok() && r->has_value());
  ASSERT_TRUE((**r)[0].node_selector.has_value());
  const auto& term = (**r)[0].node_selector->node_selector_terms.at(0);
  ASSERT_EQ(term.match_expressions.size(), 1u);
  EXPECT_EQ(term.match_expressions[0].key, "region");
  EXPECT_TRUE(term.match_fields.empty());
  // unsuccessful-allocation-network-attached-device
  node_.metadata.labels["region"] = "region-2";
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), Want{});
  // A device of every node leaves the claim usable anywhere; a local one
  // beside it pins it to the node.
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"", std::nullopt, true}),
             Slice("s2", "driver-b", "pool-1", {Dev("device-1")})};
  r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a"))})});
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_FALSE((**r)[0].node_selector.has_value());
  r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a")), Req("req-1", Exact("class-b"))})});
  ASSERT_TRUE(r.ok() && r->has_value());
  ASSERT_TRUE((**r)[0].node_selector.has_value());
  EXPECT_EQ((**r)[0].node_selector->node_selector_terms.at(0).match_fields.at(0).values,
            std::vector<std::string>{"node-1"});
}

TEST_F(AllocatorTest, MatchAttributeConstraints) {
  auto attrs = [](std::string version, std::string s, int64_t i) {
    return AttrMap{{"driverVersion", Ver(std::move(version))}, {"stringAttribute", Str(std::move(s))}, {"intAttribute", Int(i)}};
  };
  // with-constraint-for-request-retry: device-1 fits the first constraint
  // but not the second, so the search backtracks.
  slices_ = {Slice("s1", "driver-a", "pool-1",
                   {Dev("device-1", {}, attrs("1.0.0", "a", 1)), Dev("device-2", {}, attrs("2.0.0", "b", 1)),
                    Dev("device-3", {}, attrs("3.0.0", "b", 2))})};
  auto claim = Claim("claim-0", {Req("req-0", Exact("class-a")), Req("req-1", Exact("class-a"))},
                     {Match("driver-a/driverVersion", {"req-0"}), Match("driver-a/stringAttribute")});
  EXPECT_EQ(Devices({claim}), (Want{{"req-0=driver-a/pool-1/device-2", "req-1=driver-a/pool-1/device-3"}}));
  // with-constraint-not-matching-int-attribute: only device-1 and device-2
  // share an intAttribute value.
  claim = Claim("claim-0", {Req("req-0", Exact("class-a", 2))}, {Match("driver-a/intAttribute")});
  EXPECT_EQ(Devices({claim}), (Want{{"req-0=driver-a/pool-1/device-1", "req-0=driver-a/pool-1/device-2"}}));
  claim = Claim("claim-0", {Req("req-0", Exact("class-a", 3))}, {Match("driver-a/intAttribute")});
  EXPECT_EQ(Devices({claim}), Want{});
  // with-constraint-non-existent-attribute
  claim = Claim("claim-0", {Req("req-0", Exact("class-a"))}, {Match("driver-a/missing")});
  EXPECT_EQ(Devices({claim}), Want{});
  // Another domain's attribute is looked up by its full name only.
  claim = Claim("claim-0", {Req("req-0", Exact("class-a"))}, {Match("other.example.com/stringAttribute")});
  EXPECT_EQ(Devices({claim}), Want{});
}

TEST_F(AllocatorTest, ConstraintBreakingAllModeIsAnError) {  // with-constraint-not-matching-int-attribute-all-devices
  slices_ = {Slice("s1", "driver-a", "pool-1",
                   {Dev("device-1", {}, {{"intAttribute", Int(1)}}), Dev("device-2", {}, {{"intAttribute", Int(2)}})})};
  auto claim = Claim("claim-0", {Req("req-0", All("class-a"))}, {Match("driver-a/intAttribute")});
  EXPECT_EQ(Error({claim}),
            "claim claim-0, request req-0: cannot add device driver-a/pool-1/device-2 because a claim constraint "
            "would not be satisfied");
}

TEST_F(AllocatorTest, ClassAndClaimConfiguration) {
  // with-class-device-config-with-multiple-request-and-configs
  AddClass("class-a", "driver-a", {api::DeviceClassConfiguration{Opaque("driver-a", R"({"a":1})")}});
  AddClass("class-b", "driver-b", {api::DeviceClassConfiguration{Opaque("driver-b", R"({"b":1})")}});
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-0"), Dev("device-1")}),
             Slice("s2", "driver-b", "pool-1", {Dev("device-1")})};
  // claim-with-device-config: claim configs for all requests and for one.
  auto claim = Claim("claim-0", {Req("req-0", Exact("class-a")), Req("req-1", Exact("class-a")), Req("req-2", Exact("class-b"))},
                     {}, {api::DeviceClaimConfiguration{{}, Opaque("driver-a", R"({"all":true})")},
                          api::DeviceClaimConfiguration{{"req-2"}, Opaque("driver-b", R"({"two":true})")}});
  auto r = Allocate({claim});
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  const auto& config = (**r)[0].devices.config;
  ASSERT_EQ(config.size(), 4u);
  EXPECT_EQ(config[0].source, "FromClass");
  EXPECT_EQ(config[0].requests, (std::vector<std::string>{"req-0", "req-1"}));
  EXPECT_EQ(config[0].opaque->parameters.text, R"({"a":1})");
  EXPECT_EQ(config[1].source, "FromClass");
  EXPECT_EQ(config[1].requests, std::vector<std::string>{"req-2"});
  EXPECT_EQ(config[2].source, "FromClaim");
  EXPECT_TRUE(config[2].requests.empty());
  EXPECT_EQ(config[3].source, "FromClaim");
  EXPECT_EQ(config[3].requests, std::vector<std::string>{"req-2"});
}

TEST_F(AllocatorTest, PrioritizedList) {
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1", {{"memory", "4Gi"}})})};
  const std::string big = R"(device.capacity["driver-a"].memory.compareTo(quantity("8Gi")) >= 0)";
  // prioritized-list-first-unavailable
  auto claim = Claim("claim-0", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 1, {Cel(big)}), Sub("sub-1", "class-a")})});
  EXPECT_EQ(Devices({claim}), (Want{{"req-0/sub-1=driver-a/pool-1/device-1"}}));
  // prioritized-list-non-available
  claim = Claim("claim-0", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 2), Sub("sub-1", "class-b")})});
  EXPECT_EQ(Devices({claim}), Want{});
  // prioritized-list-disabled
  claim = Claim("claim-0", {FirstAvailable("req-0", {Sub("sub-0", "class-a")})});
  EXPECT_EQ(Error({claim}, AllocatorFeatures{true, false}),
            "claim claim-0, request req-0: has subrequests, but the DRAPrioritizedList feature is disabled");
}

TEST_F(AllocatorTest, PrioritizedListBacktracksAndConfiguresTheChosenSubrequest) {
  // prioritized-list-with-backtracking, prioritized-list-device-config,
  // prioritized-list-class-config
  AddClass("class-a", "driver-a", {api::DeviceClassConfiguration{Opaque("driver-a", "{}")}});
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1", {{"memory", "8Gi"}}), Dev("device-2", {{"memory", "2Gi"}})})};
  const std::string big = R"(device.capacity["driver-a"].memory.compareTo(quantity("8Gi")) >= 0)";
  // req-0 first takes the big device with sub-0; req-1 needs it, so req-0
  // falls back to sub-1 with the small one.
  auto claim = Claim("claim-0",
                     {FirstAvailable("req-0", {Sub("sub-0", "class-a"), Sub("sub-1", "class-a")}),
                      Req("req-1", Exact("class-a", 1, {Cel(big)}))},
                     {}, {api::DeviceClaimConfiguration{{"req-0/sub-0"}, Opaque("driver-a", R"({"x":0})")},
                          api::DeviceClaimConfiguration{{"req-0/sub-1"}, Opaque("driver-a", R"({"x":1})")}});
  auto r = Allocate({claim});
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  const auto& results = (**r)[0].devices.results;
  ASSERT_EQ(results.size(), 2u);
  // The subrequest named in the result is the first one: the search backtracks
  // over devices first (device-2 for sub-0), not over subrequests.
  EXPECT_EQ(results[0].request, "req-0/sub-0");
  EXPECT_EQ(results[0].device, "device-2");
  EXPECT_EQ(results[1].request, "req-1");
  EXPECT_EQ(results[1].device, "device-1");
  const auto& config = (**r)[0].devices.config;
  ASSERT_EQ(config.size(), 2u);
  EXPECT_EQ(config[0].source, "FromClass");
  EXPECT_EQ(config[0].requests, (std::vector<std::string>{"req-0/sub-0", "req-1"}));
  EXPECT_EQ(config[1].source, "FromClaim");
  EXPECT_EQ(config[1].requests, std::vector<std::string>{"req-0/sub-0"});
}

TEST_F(AllocatorTest, ConstraintsNameSubrequests) {  // prioritized-list-subrequests-with-constraints-ref-sub-request
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1", {{"memory", "8Gi"}}, {{"driverVersion", Ver("1.0.0")}})}),
             Slice("s2", "driver-a", "pool-2", {Dev("device-2", {{"memory", "2Gi"}}, {{"driverVersion", Ver("2.0.0")}})}),
             Slice("s3", "driver-a", "pool-3", {Dev("device-3", {{"memory", "1Gi"}}, {{"driverVersion", Ver("1.0.0")}})})};
  const std::string at_least = R"(device.capacity["driver-a"].memory.compareTo(quantity("%s")) >= 0)";
  auto sel = [&](const std::string& q) {
    std::string e = at_least;
    e.replace(e.find("%s"), 2, q);
    return Cel(e);
  };
  auto claim = Claim("claim-0",
                     {Req("req-0", Exact("class-a", 1, {sel("8Gi")})),
                      FirstAvailable("req-1", {Sub("sub-0", "class-a", 1, {sel("2Gi")}), Sub("sub-1", "class-a", 1, {sel("1Gi")})})},
                     {Match("driver-a/driverVersion", {"req-0", "req-1/sub-0"})});
  // sub-0 only fits device-2, whose version differs; sub-1 is not
  // constrained and takes device-2, the first free device in pool order.
  EXPECT_EQ(Devices({claim}), (Want{{"req-0=driver-a/pool-1/device-1", "req-1/sub-1=driver-a/pool-2/device-2"}}));
}

TEST_F(AllocatorTest, SelectorErrorsAreErrorsNotMismatches) {
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  // A CEL runtime error: the attribute does not exist.
  auto claim = Claim("claim-0", {Req("req-0", Exact("class-a", 1, {Cel(R"(device.attributes["driver-a"].model == "x")")}))});
  std::string err = Error({claim});
  EXPECT_EQ(err.rfind("claim claim-0: selector #0: CEL runtime error: ", 0), 0u) << err;
  // A selector that does not compile.
  claim = Claim("claim-0", {Req("req-0", Exact("class-a", 1, {Cel("device.driver ==")}))});
  err = Error({claim});
  EXPECT_EQ(err.rfind("claim claim-0: selector #0: CEL compile error: ", 0), 0u) << err;
  // A class's broken selector names the class.
  AddClass("class-x", "driver-a");
  auto broken = std::make_shared<api::DeviceClass>(*classes_["class-x"]);
  broken->spec.selectors[0] = Cel("device.attributes[\"x\"].y > 1");
  classes_["class-x"] = broken;
  err = Error({Claim("claim-0", {Req("req-0", Exact("class-x"))})});
  EXPECT_EQ(err.rfind("class class-x: selector #0: CEL runtime error: ", 0), 0u) << err;
  // unknown-selector: no CEL in the selector.
  claim = Claim("claim-0", {Req("req-0", Exact("class-a", 1, {api::DeviceSelector{}}))});
  EXPECT_EQ(Error({claim}), "claim claim-0, request req-0, selector #0: CEL expression empty (unsupported selector type?)");
}

TEST_F(AllocatorTest, UnsupportedRequestsAreErrors) {  // unknown-allocation-mode, unknown-constraint
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  api::ExactDeviceRequest r = Exact("class-a");
  r.allocation_mode = "Other";
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", r)})}), "claim claim-0, request req-0: unsupported count mode Other");
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", Exact("class-a"))}, {api::DeviceConstraint{}})}),
            "claim claim-0, constraint #0: empty constraint (unsupported constraint type?)");
  EXPECT_EQ(Error({Claim("claim-0", {api::DeviceRequest{"req-0", std::nullopt, {}}})}),
            "claim claim-0, request req-0: missing device class name (unsupported request type?)");
}

// A claim's requests are checked once per allocator (one cycle), yet each
// node's search meets their errors in kube's order: request by request,
// the node's pools (All mode) after the request's own checks.
TEST_F(AllocatorTest, RequestChecksAreSharedByNodesInKubesOrder) {
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2})};
  const auto all_then_unknown = Claim("claim-0", {Req("req-0", All("class-a")), Req("req-1", Exact("class-x"))});
  const std::string incomplete =
      "claim claim-0, request req-0: asks for all devices, but resource pool driver-a/pool-1 is currently being "
      "updated";
  int lookups = 0;
  Allocator allocator(
      AllocatorFeatures{}, allocated_,
      [&](const std::string& name) -> std::shared_ptr<const api::DeviceClass> {
        ++lookups;
        auto it = classes_.find(name);
        return it == classes_.end() ? nullptr : it->second;
      },
      slices_, cel_);
  api::Node other = node_;
  other.metadata.name = "node-2";
  for (const api::Node* node : {&node_, &other, &node_}) {
    auto r = allocator.Allocate(*node, {all_then_unknown});
    ASSERT_FALSE(r.ok());
    // node-2 reaches no pool, so All finds nothing there and the next
    // request's error comes first.
    EXPECT_EQ(r.status().message(), node == &other ? "claim claim-0, request req-1: could not retrieve device class "
                                                     "class-x: deviceclass.resource.k8s.io \"class-x\" not found"
                                                   : incomplete);
  }
  EXPECT_EQ(lookups, 2);  // class-a and class-x, once each
  const auto unknown_then_all = Claim("claim-1", {Req("req-0", Exact("class-x")), Req("req-1", All("class-a"))});
  EXPECT_EQ(Error({unknown_then_all}),
            "claim claim-1, request req-0: could not retrieve device class class-x: deviceclass.resource.k8s.io "
            "\"class-x\" not found");
  // A class selector without CEL (the API server refuses one) is an error
  // when a device meets it.
  auto no_cel = std::make_shared<api::DeviceClass>(*classes_["class-a"]);
  no_cel->spec.selectors.push_back(api::DeviceSelector{});
  classes_["class-a"] = no_cel;
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")})};
  EXPECT_EQ(Error({Claim("claim-2", {Req("req-0", Exact("class-a"))})}),
            "class class-a: selector #1: CEL expression empty (unsupported selector type?)");
}

// Filter runs an allocator's searches on many nodes at once: they share
// the claims' request table (built by whichever search comes first) and
// the CEL cache. Run under TSan to check the sharing.
TEST_F(AllocatorTest, ConcurrentSearchesShareTheRequestTable) {
  std::vector<api::Node> nodes(8, node_);
  for (size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].metadata.name = "node-" + std::to_string(i);
    slices_.push_back(Slice("s" + std::to_string(i), "driver-a", "pool-" + std::to_string(i),
                            {Dev("device-1"), Dev("device-2")}, {nodes[i].metadata.name}));
  }
  const auto claim = Claim("claim-0", {Req("req-0", Exact("class-a", 2, {Cel("device.driver == \"driver-a\"")}))});
  const Allocator allocator = MakeAllocator({});
  std::vector<int> found(nodes.size(), 0);
  std::vector<std::thread> threads;
  for (size_t i = 0; i < nodes.size(); ++i) {
    threads.emplace_back([&, i] {
      for (int round = 0; round < 20; ++round) {
        auto fits = allocator.Fits(nodes[i], {claim});
        auto allocation = allocator.Allocate(nodes[i], {claim});
        if (fits.ok() && *fits && allocation.ok() && allocation->has_value() &&
            (*allocation)->Build()[0].devices.results.size() == 2) {
          ++found[i];
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  EXPECT_EQ(found, std::vector<int>(nodes.size(), 20));
}

TEST_F(AllocatorTest, AtMost32DevicesPerClaim) {  // too-many-devices-single-request, many-devices-okay, too-many-devices-total
  std::vector<api::Device> devices;
  for (int i = 0; i < 40; ++i) devices.push_back(Dev("device-" + std::to_string(100 + i)));
  slices_ = {Slice("s1", "driver-a", "pool-1", devices)};
  auto r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a", 32))})});
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((**r)[0].devices.results.size(), 32u);
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", Exact("class-a", 33))})}),
            "claim claim-0: number of requested devices 33 exceeds the claim limit of 32");
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", Exact("class-a", 16)), Req("req-1", Exact("class-a", 17))})}),
            "claim claim-0: number of requested devices 33 exceeds the claim limit of 32");
  // All over 40 devices: more than fit in one claim's result.
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", All("class-a"))})}),
            "claim claim-0: number of requested devices 40 exceeds the claim limit of 32");
}

TEST_F(AllocatorTest, InvalidPoolIsAnErrorOnceSearched) {  // duplicate-slice
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2}),
             Slice("s2", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2})};
  EXPECT_EQ(Error({Claim("claim-0", {Req("req-0", Exact("class-a"))})}),
            "pool pool-1 is invalid: duplicate device name device-1");
}

// kube 1.35 on (AllocatorFeatures::skip_unusable_pools).
TEST_F(AllocatorTest, UnusablePoolsGiveNoDevicesFrom135) {
  AllocatorFeatures v135;
  v135.skip_unusable_pools = true;
  auto one = [] { return std::vector{Claim("claim-0", {Req("req-0", Exact("class-a"))})}; };
  // An incomplete pool: used by 1.34, skipped from 1.35.
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2})};
  EXPECT_EQ(Devices(one()), (Want{{"req-0=driver-a/pool-1/device-1"}}));
  EXPECT_EQ(Devices(one(), v135), Want{});
  // Complete once the pool's slice for another node counts too.
  slices_.push_back(Slice("s2", "driver-a", "pool-1", {Dev("device-2")}, {"node-2", std::nullopt, false, 1, 2}));
  EXPECT_EQ(Devices(one(), v135), (Want{{"req-0=driver-a/pool-1/device-1"}}));
  // A newer generation elsewhere makes the node's slices obsolete: no pool.
  slices_.push_back(Slice("s3", "driver-a", "pool-1", {Dev("device-3")}, {"node-2", std::nullopt, false, 2, 2}));
  EXPECT_EQ(Devices(one(), v135), Want{});
  // An invalid pool: an error for 1.34; for 1.35 skipped, and when nothing
  // else serves the claim, this node fails with kube's reason.
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2}),
             Slice("s2", "driver-a", "pool-1", {Dev("device-1")}, {"node-1", std::nullopt, false, 1, 2})};
  auto r = Allocate(one(), v135);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), util::StatusCode::kUnavailable);
  EXPECT_EQ(r.status().message(), "invalid resource pools were encountered");
  slices_.push_back(Slice("s3", "driver-a", "pool-2", {Dev("device-9")}, {"node-1", std::nullopt, false, 1, 1}));
  EXPECT_EQ(Devices(one(), v135), (Want{{"req-0=driver-a/pool-2/device-9"}}));
}

TEST_F(AllocatorTest, SeveralDriversAndClaimsInOrder) {  // several-different-drivers
  slices_ = {Slice("s2", "driver-b", "pool-1", {Dev("device-1")}), Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Dev("device-2")})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a")), Req("req-1", Exact("class-b"))}),
                     Claim("claim-1", {Req("req-0", Exact("class-a"))})}),
            (Want{{"req-0=driver-a/pool-1/device-1", "req-1=driver-b/pool-1/device-1"}, {"req-0=driver-a/pool-1/device-2"}}));
  EXPECT_EQ(cel_.size(), 2u);  // the two class selectors, compiled once each
}

api::DeviceSubRequest AllSub(std::string name, std::string class_name, std::vector<api::DeviceSelector> selectors = {}) {
  return api::DeviceSubRequest{std::move(name), std::move(class_name), std::move(selectors),
                               api::kDeviceAllocationModeAll, 0};
}

// kube v1.34 searches the rest of an All subrequest as the request's first
// subrequest: with fewer devices than sub-0's count, sub-1 cannot finish.
TEST_F(AllocatorTest, AllSubrequestGoesOnAsTheFirstSubrequest) {
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Dev("device-2")})};
  auto claim = Claim("claim-0", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 3), AllSub("sub-1", "class-a"),
                                                           Sub("sub-2", "class-a", 3)})});
  EXPECT_EQ(Devices({claim}), Want{});
  // Only sub-0's constraint bites: its first try fails on the second
  // device; as sub-1's continuation it needs one device, which fits.
  slices_ = {Slice("s1", "driver-a", "pool-1",
                   {Dev("device-1", {}, {{"numa", Int(0)}}), Dev("device-2", {}, {{"numa", Int(1)}})})};
  claim = Claim("claim-0", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 2), AllSub("sub-1", "class-a")})},
                {Match("driver-a/numa", {"req-0/sub-0"})});
  EXPECT_EQ(Devices({claim}), (Want{{"req-0/sub-1=driver-a/pool-1/device-1", "req-0/sub-0=driver-a/pool-1/device-2"}}));
  // The continuation selects as sub-0 does: no big device, no allocation.
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1", {{"memory", "4Gi"}}), Dev("device-2", {{"memory", "4Gi"}})})};
  const std::string big = R"(device.capacity["driver-a"].memory.compareTo(quantity("8Gi")) >= 0)";
  claim = Claim("claim-0", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 2, {Cel(big)}), AllSub("sub-1", "class-a")})});
  EXPECT_EQ(Devices({claim}), Want{});
}

// kube v1.34 selects a request's second subrequest under the first's
// cache key: when both are All, the second takes the first's devices.
TEST_F(AllocatorTest, SecondAllSubrequestTakesTheFirstsDevices) {
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1", {{"memory", "4Gi"}}), Dev("device-2", {{"memory", "4Gi"}})})};
  const std::string big = R"(device.capacity["driver-a"].memory.compareTo(quantity("8Gi")) >= 0)";
  // sub-0 matches no device, so sub-1 has none either.
  auto claim = Claim("claim-0", {FirstAvailable("req-0", {AllSub("sub-0", "class-a", {Cel(big)}), AllSub("sub-1", "class-a")})});
  EXPECT_EQ(Devices({claim}), Want{});
  // Not so after an ExactCount first subrequest: sub-2 finds its own
  // devices, and goes on as sub-0, whose one device it has already.
  claim = Claim("claim-0", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 1, {Cel(big)}), AllSub("sub-1", "class-a", {Cel(big)}),
                                                      AllSub("sub-2", "class-a")})});
  EXPECT_EQ(Devices({claim}), (Want{{"req-0/sub-2=driver-a/pool-1/device-1"}}));
}

// A subrequest that would put its claim over 32 devices gives way to the
// next; when all do, the first claim's failure is kube's error
// ("allocation max size exceeded"), a later claim's a plain mismatch.
TEST_F(AllocatorTest, SubrequestsOverTheDeviceLimit) {  // prioritized-list-max-allocation-results
  std::vector<api::Device> devices;
  for (int i = 0; i < 40; ++i) devices.push_back(Dev("device-" + std::to_string(100 + i), {}, {{"tag", Str(i < 2 ? "a" : "b")}}));
  slices_ = {Slice("s1", "driver-a", "pool-1", devices), Slice("s2", "driver-b", "pool-1", {Dev("device-1")})};
  auto claim = Claim("claim-1", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 31), Sub("sub-1", "class-a")}),
                                 Req("req-1", Exact("class-a", 2))});
  EXPECT_EQ(Devices({claim}), (Want{{"req-0/sub-1=driver-a/pool-1/device-100", "req-1=driver-a/pool-1/device-101",
                                     "req-1=driver-a/pool-1/device-102"}}));
  // sub-1 (All: two devices) goes on as sub-0 (see above), so it too ends
  // with 31 devices before req-1's two.
  claim = Claim("claim-1", {FirstAvailable("req-0", {Sub("sub-0", "class-a", 31),
                                                     AllSub("sub-1", "class-a", {Cel(R"(device.attributes["driver-a"].tag == "a")")})}),
                            Req("req-1", Exact("class-a", 2))});
  EXPECT_EQ(Error({claim}), "allocation max size exceeded");
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-b"))}), claim}), Want{});
}


api::Device Tainted(std::string name, std::string key, std::string effect) {
  api::Device d = Dev(std::move(name));
  d.taints.push_back(api::DeviceTaint{std::move(key), "", std::move(effect), std::nullopt});
  return d;
}

api::DeviceToleration Tolerate(std::string key) { return api::DeviceToleration{std::move(key), "Exists", "", "", 60}; }

TEST_F(AllocatorTest, TaintedDevicesNeedTolerations) {  // tainted-device-*
  const AllocatorFeatures taints{.device_taints = true};
  slices_ = {Slice("s1", "driver-a", "pool-1",
                   {Tainted("device-1", "broken", "NoSchedule"), Tainted("device-2", "gone", "NoExecute"),
                    Tainted("device-3", "note", "None"), Dev("device-4")})};
  // Off (kube 1.34, 1.35): taints are not looked at.
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}), (Want{{"req-0=driver-a/pool-1/device-1"}}));
  // On: NoSchedule and NoExecute keep a device, None does not.
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 2))})}, taints),
            (Want{{"req-0=driver-a/pool-1/device-3", "req-0=driver-a/pool-1/device-4"}}));
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 3))})}, taints), Want{});

  // A tolerating request takes the device, and the result carries its tolerations.
  api::ExactDeviceRequest tolerant = Exact("class-a");
  tolerant.tolerations = {Tolerate("broken")};
  auto r = Allocate({Claim("claim-0", {Req("req-0", tolerant)})}, taints);
  ASSERT_TRUE(r.ok() && r->has_value());
  const api::DeviceRequestAllocationResult& d = (**r)[0].devices.results.at(0);
  EXPECT_EQ(d.device, "device-1");
  ASSERT_EQ(d.tolerations.size(), 1u);
  EXPECT_EQ(d.tolerations[0].key, "broken");
  EXPECT_EQ(d.tolerations[0].toleration_seconds, 60);
}

TEST_F(AllocatorTest, AllOverATaintedDeviceFails) {  // tainted-all-devices
  const AllocatorFeatures taints{.device_taints = true};
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Tainted("device-2", "broken", "NoSchedule")})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", All("class-a"))})}, taints), Want{});
  api::ExactDeviceRequest all = All("class-a");
  all.tolerations = {Tolerate("broken")};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", all)})}, taints),
            (Want{{"req-0=driver-a/pool-1/device-1", "req-0=driver-a/pool-1/device-2"}}));
}

TEST_F(AllocatorTest, TolerationsArePerSubrequest) {  // prioritized-list-tainted
  const AllocatorFeatures taints{.device_taints = true};
  slices_ = {Slice("s1", "driver-a", "pool-1", {Tainted("device-1", "broken", "NoSchedule")})};
  api::DeviceSubRequest tolerant = Sub("tolerant", "class-a");
  tolerant.tolerations = {Tolerate("broken")};
  EXPECT_EQ(Devices({Claim("claim-0", {FirstAvailable("req-0", {Sub("plain", "class-a"), tolerant})})}, taints),
            (Want{{"req-0/tolerant=driver-a/pool-1/device-1"}}));
}

// A GPU of 80Gi memory and 8 compute units, published as counters, and
// partitions of it that consume them (kube's partitionable-devices cases).
api::CounterSet Gpu(std::string name, std::string memory = "80Gi", std::string units = "8") {
  api::CounterSet set;
  set.name = std::move(name);
  set.counters["memory"].value = api::Quantity::MustParse(memory);
  set.counters["units"].value = api::Quantity::MustParse(units);
  return set;
}

api::Device Partition(std::string name, std::string gpu, std::string memory, std::string units = "") {
  api::Device d = Dev(std::move(name));
  api::DeviceCounterConsumption consumption;
  consumption.counter_set = std::move(gpu);
  consumption.counters["memory"].value = api::Quantity::MustParse(memory);
  if (!units.empty()) consumption.counters["units"].value = api::Quantity::MustParse(units);
  d.consumes_counters.push_back(std::move(consumption));
  return d;
}

std::shared_ptr<const api::ResourceSlice> CounterSlice(std::string name, std::string pool,
                                                       std::vector<api::CounterSet> sets, SliceOpts o = {"node-1"}) {
  auto s = std::const_pointer_cast<api::ResourceSlice>(Slice(std::move(name), "driver-a", std::move(pool), {}, o));
  s->spec.shared_counters = std::move(sets);
  return s;
}

const AllocatorFeatures kPartitionable{.skip_unusable_pools = true, .partitionable_devices = true};

TEST_F(AllocatorTest, PartitionsShareTheirDevicesCounters) {  // partitionable-devices-*
  const SliceOpts two{"node-1", std::nullopt, false, 1, 2};
  slices_ = {CounterSlice("counters", "pool-1", {Gpu("gpu-0")}, two),
             Slice("partitions", "driver-a", "pool-1",
                   {Partition("whole", "gpu-0", "80Gi", "8"), Partition("half-a", "gpu-0", "40Gi", "4"),
                    Partition("half-b", "gpu-0", "40Gi", "4"), Partition("quarter", "gpu-0", "20Gi")},
                   two)};
  auto claim = [](int64_t count) { return std::vector{Claim("claim-0", {Req("req-0", Exact("class-a", count))})}; };
  // The whole GPU uses every counter: nothing else fits beside it.
  EXPECT_EQ(Devices(claim(1), kPartitionable), (Want{{"req-0=driver-a/pool-1/whole"}}));
  EXPECT_EQ(Devices(claim(2), kPartitionable),
            (Want{{"req-0=driver-a/pool-1/half-a", "req-0=driver-a/pool-1/half-b"}}));
  EXPECT_EQ(Devices(claim(3), kPartitionable), Want{});  // 40 + 40 + 20 > 80
  // Counters consumed by allocated devices are gone: beside the quarter
  // the whole GPU no longer fits.
  allocated_ = {DeviceId{"driver-a", "pool-1", "quarter"}};
  EXPECT_EQ(Devices(claim(1), kPartitionable), (Want{{"req-0=driver-a/pool-1/half-a"}}));
  EXPECT_EQ(Devices(claim(2), kPartitionable), Want{});
  allocated_ = {DeviceId{"driver-a", "pool-1", "half-a"}, DeviceId{"driver-a", "pool-1", "half-b"}};
  EXPECT_EQ(Devices(claim(1), kPartitionable), Want{});
  // Without the feature the counter slice publishes nothing (it still
  // counts towards the pool's slices) and devices that consume counters
  // are never taken.
  allocated_.clear();
  AllocatorFeatures off = kPartitionable;
  off.partitionable_devices = false;
  EXPECT_EQ(Devices(claim(1), off), Want{});
  slices_[1] = Slice("partitions", "driver-a", "pool-1", {Partition("whole", "gpu-0", "80Gi"), Dev("plain")});
  EXPECT_EQ(Devices(claim(1), off), (Want{{"req-0=driver-a/pool-1/plain"}}));
}

TEST_F(AllocatorTest, OverConsumedCountersBlockThePool) {
  // An allocated device that over-consumes one counter set leaves a negative
  // count, and kube then takes no counter-consuming device of the pool, even
  // one drawing on another set.
  const SliceOpts two{"node-1", std::nullopt, false, 1, 2};
  slices_ = {CounterSlice("counters", "pool-1", {Gpu("gpu-0", "10Gi"), Gpu("gpu-1")}, two),
             Slice("partitions", "driver-a", "pool-1",
                   {Partition("big", "gpu-0", "20Gi"), Partition("other", "gpu-1", "10Gi"), Dev("plain")}, two)};
  allocated_ = {DeviceId{"driver-a", "pool-1", "big"}};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a"))})}, kPartitionable),
            (Want{{"req-0=driver-a/pool-1/plain"}}));
}

TEST_F(AllocatorTest, BadCountersMakeThePoolInvalid) {
  const SliceOpts two{"node-1", std::nullopt, false, 1, 2};
  auto one = [] { return std::vector{Claim("claim-0", {Req("req-0", Exact("class-a"))})}; };
  for (const auto& [device, reason] :
       {std::pair{Partition("p", "gpu-9", "1Gi"), "counter set gpu-9 not found"},
        std::pair{Partition("p", "gpu-0", "1Gi"), ""}}) {
    api::Device d = device;
    slices_ = {CounterSlice("counters", "pool-1", {Gpu("gpu-0")}, two), Slice("devices", "driver-a", "pool-1", {d}, two)};
    auto r = Allocate(one(), kPartitionable);
    if (std::string(reason).empty()) {
      ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
    } else {
      ASSERT_FALSE(r.ok());
      EXPECT_EQ(r.status().message(), "invalid resource pools were encountered");
    }
  }
  api::Device unknown_counter = Partition("p", "gpu-0", "1Gi");
  unknown_counter.consumes_counters[0].counters["watts"].value = api::Quantity::MustParse("100");
  slices_ = {CounterSlice("counters", "pool-1", {Gpu("gpu-0")}, two),
             Slice("devices", "driver-a", "pool-1", {unknown_counter}, two)};
  auto pools = GatherPools(slices_, node_, {.whole_pool_counts = true, .partitionable_devices = true});
  ASSERT_TRUE(pools.ok());
  EXPECT_EQ(pools->at(0).invalid_reason, "counter watts not found in counter set gpu-0");
  slices_ = {CounterSlice("counters", "pool-1", {Gpu("gpu-0"), Gpu("gpu-0")}, two),
             Slice("devices", "driver-a", "pool-1", {Partition("p", "gpu-0", "1Gi")}, two)};
  pools = GatherPools(slices_, node_, {.whole_pool_counts = true, .partitionable_devices = true});
  ASSERT_TRUE(pools.ok());
  EXPECT_EQ(pools->at(0).invalid_reason, "duplicate counter set name gpu-0");
}

TEST_F(AllocatorTest, PerDeviceNodeSelection) {  // partitionable-devices-per-device-node-selection
  // One slice publishes devices of several nodes; a counter set on node-2
  // is shared with node-1's device (a multi-host device).
  auto on = [](std::string name, std::string node, std::string memory) {
    api::Device d = Partition(std::move(name), "gpu-0", std::move(memory));
    d.node_name = std::move(node);
    return d;
  };
  api::Device everywhere = Partition("everywhere", "gpu-0", "10Gi");
  everywhere.all_nodes = true;
  api::Device in_region = Partition("in-region", "gpu-0", "10Gi");
  in_region.node_selector = RegionSelector("region-1");
  auto devices = std::const_pointer_cast<api::ResourceSlice>(
      Slice("devices", "driver-a", "pool-1", {on("far", "node-2", "20Gi"), on("near", "node-1", "50Gi"), everywhere, in_region},
            {"", std::nullopt, false, 1, 2}));
  devices->spec.per_device_node_selection = true;
  slices_ = {CounterSlice("counters", "pool-1", {Gpu("gpu-0")}, {"node-2", std::nullopt, false, 1, 2}), devices};
  auto r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a", 3))})}, kPartitionable);
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  const api::AllocationResult& a = (**r)[0];
  ASSERT_EQ(a.devices.results.size(), 3u);
  EXPECT_EQ(a.devices.results[0].device, "near");
  EXPECT_EQ(a.devices.results[1].device, "everywhere");
  EXPECT_EQ(a.devices.results[2].device, "in-region");
  // A device of this node pins the claim to it.
  ASSERT_TRUE(a.node_selector.has_value());
  EXPECT_EQ(a.node_selector->node_selector_terms.at(0).match_fields.at(0).values, std::vector<std::string>{"node-1"});
  // far's counters count when it is allocated, though it is on another node.
  allocated_ = {DeviceId{"driver-a", "pool-1", "far"}};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 3))})}, kPartitionable), Want{});
  // Only the devices that do not pin: the node selector is the region's.
  allocated_ = {DeviceId{"driver-a", "pool-1", "near"}};
  r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a", 2))})}, kPartitionable);
  ASSERT_TRUE(r.ok() && r->has_value());
  ASSERT_TRUE((**r)[0].node_selector.has_value());
  EXPECT_EQ((**r)[0].node_selector->node_selector_terms.at(0).match_expressions.at(0).key, "region");
}

// A device whose allocation waits for its driver (kube's binding
// conditions).
api::Device Binding(std::string name, bool binds_to_node = false) {
  api::Device d = Dev(std::move(name));
  d.binding_conditions = {"Attached"};
  d.binding_failure_conditions = {"AttachFailed"};
  if (binds_to_node) d.binds_to_node = true;
  return d;
}

TEST_F(AllocatorTest, BindingConditionDevicesOnlyWithTheGate) {  // device-binding-conditions-*
  const AllocatorFeatures on{.skip_unusable_pools = true, .binding_conditions = true};
  slices_ = {Slice("s1", "driver-a", "pool-1", {Binding("device-1"), Dev("device-2")})};
  // Off: such a device is never taken, by All neither.
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 1))})}), (Want{{"req-0=driver-a/pool-1/device-2"}}));
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 2))})}), Want{});
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", All("class-a"))})}), (Want{{"req-0=driver-a/pool-1/device-2"}}));
  // On: taken, in slice order within its pool; the result carries the
  // device's conditions.
  auto r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a", 1))})}, on);
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  const api::DeviceRequestAllocationResult& d = (**r)[0].devices.results.at(0);
  EXPECT_EQ(d.device, "device-1");
  EXPECT_EQ(d.binding_conditions, std::vector<std::string>{"Attached"});
  EXPECT_EQ(d.binding_failure_conditions, std::vector<std::string>{"AttachFailed"});
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", All("class-a"))})}, on),
            (Want{{"req-0=driver-a/pool-1/device-1", "req-0=driver-a/pool-1/device-2"}}));
}

TEST_F(AllocatorTest, PoolsWithBindingConditionsComeLast) {  // device-binding-conditions-pool-order
  const AllocatorFeatures on{.skip_unusable_pools = true, .binding_conditions = true};
  // pool-1 sorts first but has a device with binding conditions: the whole
  // pool, its plain device too, is searched after pool-2.
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("plain-1"), Binding("bound-1")}),
             Slice("s2", "driver-a", "pool-2", {Dev("plain-2")})};
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 1))})}, on),
            (Want{{"req-0=driver-a/pool-2/plain-2"}}));
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 2))})}, on),
            (Want{{"req-0=driver-a/pool-2/plain-2", "req-0=driver-a/pool-1/plain-1"}}));
  // Off: (driver, pool) order only.
  EXPECT_EQ(Devices({Claim("claim-0", {Req("req-0", Exact("class-a", 1))})}),
            (Want{{"req-0=driver-a/pool-1/plain-1"}}));
}

TEST_F(AllocatorTest, BindsToNodePinsTheAllocationToTheNode) {  // binds-to-node
  const AllocatorFeatures on{.skip_unusable_pools = true, .binding_conditions = true};
  slices_ = {Slice("s1", "driver-a", "pool-1", {Binding("device-1", /*binds_to_node=*/true)},
                   {"", RegionSelector("region-1")})};
  auto r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a"))})}, on);
  ASSERT_TRUE(r.ok() && r->has_value()) << r.status().ToString();
  ASSERT_TRUE((**r)[0].node_selector.has_value());
  const auto& term = (**r)[0].node_selector->node_selector_terms.at(0);
  ASSERT_EQ(term.match_fields.size(), 1u);
  EXPECT_EQ(term.match_fields[0].key, "metadata.name");
  EXPECT_EQ(term.match_fields[0].values, std::vector<std::string>{"node-1"});
  EXPECT_TRUE(term.match_expressions.empty());
  // Without bindsToNode the slice's selector is the allocation's.
  slices_ = {Slice("s1", "driver-a", "pool-1", {Binding("device-1")}, {"", RegionSelector("region-1")})};
  r = Allocate({Claim("claim-0", {Req("req-0", Exact("class-a"))})}, on);
  ASSERT_TRUE(r.ok() && r->has_value());
  EXPECT_EQ((**r)[0].node_selector->node_selector_terms.at(0).match_expressions.at(0).key, "region");
}

// --explain's tally: each device of the node's pools counted once per
// request, by the first reason it cannot serve it.
TEST_F(AllocatorTest, TallySaysWhyEachDeviceCannotServeARequest) {
  api::Device tainted = Dev("device-3");
  tainted.taints.push_back(api::DeviceTaint{"example.com/broken", "", "NoSchedule", std::nullopt});
  slices_ = {Slice("s1", "driver-a", "pool-1", {Dev("device-1"), Dev("device-2"), tainted}),
             Slice("s2", "driver-b", "pool-2", {Dev("device-b")}),
             Slice("elsewhere", "driver-a", "pool-3", {Dev("far")}, {"node-2"})};
  allocated_ = {DeviceId{"driver-a", "pool-1", "device-2"}};
  const AllocatorFeatures taints{.device_taints = true};
  const auto claim = Claim("claim-0", {Req("req-0", Exact("class-a")),
                                       FirstAvailable("req-1", {Sub("big", "class-b", 2), Sub("small", "class-a")})});
  EXPECT_EQ(Tallies({claim}, taints),
            (std::vector<std::string>{
                "claim-0/req-0: reachable 4, usable 1, a taint the request does not tolerate 1, allocated 1, "
                "the class or the request does not select it 1",
                "claim-0/req-1/big: reachable 4, usable 1, the class or the request does not select it 3",
                "claim-0/req-1/small: reachable 4, usable 1, a taint the request does not tolerate 1, allocated 1, "
                "the class or the request does not select it 1"}));
  // Without the taint feature the tainted device is usable.
  EXPECT_EQ(Tallies({Claim("claim-0", {Req("req-0", Exact("class-a"))})})[0],
            "claim-0/req-0: reachable 4, usable 2, allocated 1, the class or the request does not select it 1");
}

}  // namespace
}  // namespace ksched::scheduler::dra
