#include "pkg/scheduler/plugins/dynamicresources/claim_tracker.h"

#include <gtest/gtest.h>

#include "pkg/scheduler/framework/in_memory_listers.h"
#include "pkg/util/change_log.h"

namespace ksched::scheduler::dra {
namespace {

std::shared_ptr<api::ResourceClaim> Claim(const std::string& name, const std::string& rv,
                                          const std::string& device = "") {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.namespace_ = "ns";
  c->metadata.name = name;
  c->metadata.uid = name + "-uid";
  c->metadata.resource_version = rv;
  if (!device.empty()) {
    api::AllocationResult a;
    a.devices.results.push_back({"req", "drv", "pool", device, std::nullopt});
    c->status.allocation = a;
  }
  return c;
}

TEST(ClaimTrackerTest, MissingClaimHasKubesMessage) {
  framework::InMemoryLister<api::ResourceClaim> informer;
  ClaimTracker t(informer);
  util::StatusOr<ClaimPtr> c = t.Get("ns", "c");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), util::StatusCode::kNotFound);
  EXPECT_EQ(c.status().message(), "could not find ResourceClaim \"ns/c\"");
}

TEST(ClaimTrackerTest, InFlightAndAllocatedDevicesAreTaken) {
  framework::InMemoryLister<api::ResourceClaim> informer;
  informer.Set(Claim("a", "1", "gpu-0"));
  informer.Set(Claim("b", "1"));
  ClaimTracker t(informer);
  EXPECT_EQ(t.ListAllAllocatedDevices(), (std::set<DeviceId>{{"drv", "pool", "gpu-0"}}));
  EXPECT_FALSE(t.ClaimHasPendingAllocation("b-uid"));
  t.SignalClaimPendingAllocation("b-uid", Claim("b", "1", "gpu-1"));
  EXPECT_TRUE(t.ClaimHasPendingAllocation("b-uid"));
  EXPECT_EQ(t.PendingAllocations(), 1u);
  EXPECT_EQ(t.ListAllAllocatedDevices(), (std::set<DeviceId>{{"drv", "pool", "gpu-0"}, {"drv", "pool", "gpu-1"}}));
  EXPECT_TRUE(t.RemoveClaimPendingAllocation("b-uid"));
  EXPECT_FALSE(t.RemoveClaimPendingAllocation("b-uid"));
  EXPECT_EQ(t.ListAllAllocatedDevices(), (std::set<DeviceId>{{"drv", "pool", "gpu-0"}}));
}

TEST(ClaimTrackerTest, AssumedClaimStandsUntilTheInformerCatchesUp) {
  framework::InMemoryLister<api::ResourceClaim> informer;
  informer.Set(Claim("b", "5"));
  ClaimTracker t(informer);
  ASSERT_TRUE(t.AssumeClaimAfterAPICall(Claim("b", "6", "gpu-1")).ok());
  EXPECT_EQ((*t.Get("ns", "b"))->metadata.resource_version, "6");
  EXPECT_EQ(t.ListAllAllocatedDevices(), (std::set<DeviceId>{{"drv", "pool", "gpu-1"}}));
  // The informer delivers the write: its copy is served from then on.
  informer.Set(Claim("b", "6", "gpu-1"));
  EXPECT_EQ((*t.Get("ns", "b"))->metadata.resource_version, "6");
  informer.Set(Claim("b", "7"));
  EXPECT_EQ((*t.Get("ns", "b"))->metadata.resource_version, "7");
  EXPECT_TRUE(t.ListAllAllocatedDevices().empty());
  // An older version than the informer's is refused.
  EXPECT_FALSE(t.AssumeClaimAfterAPICall(Claim("b", "3")).ok());
  // Restore drops an assumption.
  ASSERT_TRUE(t.AssumeClaimAfterAPICall(Claim("b", "8", "gpu-2")).ok());
  t.AssumedClaimRestore("ns", "b");
  EXPECT_EQ((*t.Get("ns", "b"))->metadata.resource_version, "7");
}

// A claim holding a share of device `device` consuming `memory`.
std::shared_ptr<api::ResourceClaim> ShareClaim(const std::string& name, const std::string& device,
                                               const std::string& memory) {
  auto c = Claim(name, "1", device);
  api::DeviceRequestAllocationResult& r = c->status.allocation->devices.results[0];
  r.share_id = name + "-share";
  r.consumed_capacity["memory"] = api::Quantity::MustParse(memory);
  return c;
}

TEST(ClaimTrackerTest, SharesOfAllocatedAndInFlightClaimsAddUpOnce) {
  framework::InMemoryLister<api::ResourceClaim> informer;
  informer.Set(ShareClaim("a", "gpu-0", "1Gi"));
  informer.Set(ShareClaim("b", "gpu-0", "2Gi"));
  ClaimTracker t(informer);
  t.SignalClaimPendingAllocation("c-uid", ShareClaim("c", "gpu-0", "4Gi"));
  // b's write has reached the informer while b is still in flight: once.
  t.SignalClaimPendingAllocation("b-uid", ShareClaim("b", "gpu-0", "2Gi"));
  AllocatedState state = t.ListAllocatedState(true);
  const DeviceId gpu{"drv", "pool", "gpu-0"};
  EXPECT_FALSE(state.TakenWhole(gpu));
  EXPECT_TRUE(state.HasShares(gpu));
  EXPECT_EQ(state.Consumed(gpu)->at("memory").ToString(), "7Gi");
  // Gate off: the device is simply taken.
  AllocatedState off = t.ListAllocatedState(false);
  EXPECT_TRUE(off.TakenWhole(gpu));
  EXPECT_EQ(off.Consumed(gpu), nullptr);
  // Once b's PreBind is done and c's allocation dropped, b counts from the
  // informer alone.
  t.RemoveClaimPendingAllocation("b-uid");
  t.RemoveClaimPendingAllocation("c-uid");
  EXPECT_EQ(t.ListAllocatedState(true).Consumed(gpu)->at("memory").ToString(), "3Gi");
}

// An in-flight allocation counts in place of its claim's listed copy in
// every view until it is dropped, while the informer moves the listed copy
// underneath; a view kept meanwhile stays as it was.
TEST(ClaimTrackerTest, InFlightAllocationsStandInForTheListedCopyAcrossViews) {
  framework::InMemoryLister<api::ResourceClaim> informer;
  informer.Set(Claim("a", "1", "gpu-0"));
  informer.Set(Claim("b", "1", "gpu-3"));
  ClaimTracker t(informer);
  auto held = [](const AllocatedState& state) {
    std::set<std::string> out;
    for (const char* device : {"gpu-0", "gpu-1", "gpu-2", "gpu-3", "gpu-4"}) {
      if (state.Holds({"drv", "pool", device})) out.insert(device);
    }
    return out;
  };
  t.SignalClaimPendingAllocation("a-uid", Claim("a", "2", "gpu-1"));
  const AllocatedState kept = t.ListAllocatedState(false);
  EXPECT_EQ(held(kept), (std::set<std::string>{"gpu-1", "gpu-3"}));
  EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-1", "gpu-3"})) << "asked again";
  informer.Set(Claim("a", "3", "gpu-2"));  // the listed copy moves while a is in flight
  t.SignalClaimPendingAllocation("c-uid", Claim("c", "1", "gpu-4"));
  EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-1", "gpu-3", "gpu-4"}));
  informer.Delete("ns", "b");
  t.RemoveClaimPendingAllocation("a-uid");
  EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-2", "gpu-4"}));
  t.RemoveClaimPendingAllocation("c-uid");
  EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-2"}));
  EXPECT_EQ(held(kept), (std::set<std::string>{"gpu-1", "gpu-3"}));
}

// A lister that keeps no record of changes: the tracker lists every claim.
class ListingOnly final : public framework::ObjectLister<api::ResourceClaim> {
 public:
  explicit ListingOnly(const framework::ObjectLister<api::ResourceClaim>& of) : of_(of) {}
  ClaimPtr Get(std::string_view ns, std::string_view name) const override { return of_.Get(ns, name); }
  std::vector<ClaimPtr> List(std::string_view ns = {}) const override { return of_.List(ns); }

 private:
  const framework::ObjectLister<api::ResourceClaim>& of_;
};

// The tally kept between calls follows every kind of change, whether the
// lister names the changed claims or they are found by listing them all;
// earlier views keep what they saw.
TEST(ClaimTrackerTest, AllocatedStateFollowsTheClaims) {
  for (bool listing_only : {false, true}) {
    SCOPED_TRACE(listing_only ? "listing every claim" : "reading the changed claims");
    framework::InMemoryLister<api::ResourceClaim> informer;
    ListingOnly listing(informer);
    informer.Set(Claim("a", "1", "gpu-0"));
    informer.Set(Claim("b", "1"));
    ClaimTracker t(listing_only ? static_cast<const framework::ObjectLister<api::ResourceClaim>&>(listing) : informer);
    auto held = [](const AllocatedState& state) {
      std::set<std::string> out;
      for (const char* device : {"gpu-0", "gpu-1", "gpu-2", "gpu-3"}) {
        if (state.Holds({"drv", "pool", device})) out.insert(device);
      }
      return out;
    };
    AllocatedState first = t.ListAllocatedState(false);
    EXPECT_EQ(held(first), (std::set<std::string>{"gpu-0"}));
    informer.Set(Claim("b", "2", "gpu-1"));  // allocated
    EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-0", "gpu-1"}));
    informer.Set(Claim("a", "2", "gpu-2"));  // reallocated elsewhere
    ASSERT_TRUE(t.AssumeClaimAfterAPICall(Claim("b", "3", "gpu-3")).ok());
    EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-2", "gpu-3"}));
    t.AssumedClaimRestore("ns", "b");
    informer.Delete("ns", "a");
    EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-1"}));
    informer.Set(Claim("b", "4"));  // deallocated
    EXPECT_TRUE(held(t.ListAllocatedState(false)).empty());
    EXPECT_EQ(held(first), (std::set<std::string>{"gpu-0"}));
    // More changes than the lister keeps between two looks: listed again.
    for (size_t i = 0; i <= util::ChangeLog::kReaderCapacity; ++i) {
      informer.Set(Claim("c", std::to_string(10 + i), i % 2 == 0 ? "gpu-0" : "gpu-1"));
    }
    EXPECT_EQ(held(t.ListAllocatedState(false)), (std::set<std::string>{"gpu-0"}));
  }
}

// A new version of a claim that holds the same devices (reservedFor,
// finalizers), and an in-flight claim whose write the informer has, keep
// the pool's mark: searches go on skipping what they know is held. A
// changed allocation ends it.
TEST(ClaimTrackerTest, UnchangedHoldsKeepThePoolMark) {
  framework::InMemoryLister<api::ResourceClaim> informer;
  informer.Set(Claim("a", "1", "gpu-0"));
  ClaimTracker t(informer);
  const PoolMark first = t.ListAllocatedState(false).Mark("drv", "pool");
  auto reserved = Claim("a", "2", "gpu-0");
  reserved->status.reserved_for.push_back({"", "pods", "p", "p-uid"});
  informer.Set(reserved);
  EXPECT_TRUE(t.ListAllocatedState(false).Mark("drv", "pool").Continues(first));
  t.SignalClaimPendingAllocation("a-uid", Claim("a", "2", "gpu-0"));
  AllocatedState in_flight = t.ListAllocatedState(false);
  EXPECT_TRUE(in_flight.Mark("drv", "pool").Continues(first));
  EXPECT_TRUE(in_flight.TakenWhole({"drv", "pool", "gpu-0"}));
  t.RemoveClaimPendingAllocation("a-uid");
  informer.Set(Claim("a", "3", "gpu-1"));
  AllocatedState moved = t.ListAllocatedState(false);
  EXPECT_FALSE(moved.Mark("drv", "pool").Continues(first));
  EXPECT_FALSE(moved.Holds({"drv", "pool", "gpu-0"}));
  EXPECT_TRUE(moved.TakenWhole({"drv", "pool", "gpu-1"}));
}

TEST(ClaimTrackerTest, SharedPerLister) {
  framework::InMemoryLister<api::ResourceClaim> one;
  framework::InMemoryLister<api::ResourceClaim> two;
  std::shared_ptr<ClaimTracker> a = SharedClaimTracker(one);
  EXPECT_EQ(SharedClaimTracker(one), a);
  EXPECT_NE(SharedClaimTracker(two), a);
  a->SignalClaimPendingAllocation("x", Claim("x", "1"));
  EXPECT_TRUE(SharedClaimTracker(one)->ClaimHasPendingAllocation("x"));
}

}  // namespace
}  // namespace ksched::scheduler::dra
