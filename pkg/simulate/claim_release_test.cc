#include "pkg/simulate/claim_release.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace ksched::simulate {
namespace {

constexpr char kProtection[] = "resource.kubernetes.io/delete-protection";

api::Pod PodNamed(const std::string& name) {
  api::Pod p;
  p.metadata.namespace_ = "ns";
  p.metadata.name = name;
  p.metadata.uid = "uid-" + name;
  return p;
}

api::ResourceClaimConsumerReference ReservedFor(const std::string& pod) {
  return {"", "pods", pod, "uid-" + pod};
}

// A claim allocated by the scheduler (finalizer, allocation) and reserved
// for the named pods.
std::shared_ptr<api::ResourceClaim> Allocated(const std::string& name, std::initializer_list<std::string> pods,
                                              const std::string& ns = "ns") {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.namespace_ = ns;
  c->metadata.name = name;
  c->metadata.uid = "claim-" + name;
  c->metadata.resource_version = "41";
  c->metadata.finalizers = {"other.example.com/keep", kProtection};
  api::AllocationResult a;
  a.devices.results.push_back({"gpu", "gpu.example.com", "n1", "gpu-0", std::nullopt});
  c->status.allocation = a;
  for (const std::string& p : pods) c->status.reserved_for.push_back(ReservedFor(p));
  return c;
}

TEST(ReleasePodClaimsTest, TheLastReservationGoneDeallocatesTheClaim) {
  scheduler::framework::InMemoryLister<api::ResourceClaim> claims;
  claims.Set(Allocated("mine", {"victim"}));
  std::vector<Effects::ClaimUpdate> updates = ReleasePodClaims(claims, PodNamed("victim"));
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].old_claim->metadata.resource_version, "41");
  auto now = claims.Get("ns", "mine");
  ASSERT_NE(now, nullptr);
  EXPECT_EQ(now, updates[0].new_claim);
  EXPECT_TRUE(now->status.reserved_for.empty());
  EXPECT_FALSE(now->status.allocation.has_value());
  EXPECT_EQ(now->metadata.finalizers, std::vector<std::string>{"other.example.com/keep"});
  EXPECT_EQ(now->metadata.resource_version, "42");
}

TEST(ReleasePodClaimsTest, AClaimStillReservedForAnotherPodStaysAllocated) {
  scheduler::framework::InMemoryLister<api::ResourceClaim> claims;
  claims.Set(Allocated("shared", {"victim", "other"}));
  ASSERT_EQ(ReleasePodClaims(claims, PodNamed("victim")).size(), 1u);
  auto now = claims.Get("ns", "shared");
  ASSERT_NE(now, nullptr);
  ASSERT_EQ(now->status.reserved_for.size(), 1u);
  EXPECT_EQ(now->status.reserved_for[0].name, "other");
  EXPECT_TRUE(now->status.allocation.has_value());
  EXPECT_EQ(now->metadata.finalizers.size(), 2u);
}

TEST(ReleasePodClaimsTest, AClaimWithoutTheSchedulersFinalizerKeepsItsAllocation) {
  // Not allocated by a scheduler: the controller only drops the reservation.
  scheduler::framework::InMemoryLister<api::ResourceClaim> claims;
  auto c = Allocated("driver", {"victim"});
  c->metadata.finalizers = {};
  claims.Set(c);
  ASSERT_EQ(ReleasePodClaims(claims, PodNamed("victim")).size(), 1u);
  auto now = claims.Get("ns", "driver");
  ASSERT_NE(now, nullptr);
  EXPECT_TRUE(now->status.reserved_for.empty());
  EXPECT_TRUE(now->status.allocation.has_value());
}

TEST(ReleasePodClaimsTest, AGeneratedClaimOfTheGonePodIsDeleted) {
  scheduler::framework::InMemoryLister<api::ResourceClaim> claims;
  auto c = Allocated("victim-gpu-x1", {"victim"});
  c->metadata.owner_references.push_back({"v1", "Pod", "victim", "uid-victim", true, true});
  claims.Set(c);
  std::vector<Effects::ClaimUpdate> updates = ReleasePodClaims(claims, PodNamed("victim"));
  ASSERT_EQ(updates.size(), 1u);
  EXPECT_EQ(updates[0].new_claim, nullptr);
  EXPECT_EQ(claims.Get("ns", "victim-gpu-x1"), nullptr);
}

TEST(ReleasePodClaimsTest, OtherPodsAndNamespacesAreLeftAlone) {
  scheduler::framework::InMemoryLister<api::ResourceClaim> claims;
  claims.Set(Allocated("theirs", {"other"}));
  claims.Set(Allocated("elsewhere", {"victim"}, "ns2"));  // same pod name, another namespace
  EXPECT_TRUE(ReleasePodClaims(claims, PodNamed("victim")).empty());
  EXPECT_EQ(claims.Get("ns", "theirs")->metadata.resource_version, "41");
  EXPECT_EQ(claims.Get("ns2", "elsewhere")->status.reserved_for.size(), 1u);
}

}  // namespace
}  // namespace ksched::simulate
