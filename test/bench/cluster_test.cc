#include "test/bench/cluster.h"

#include <gtest/gtest.h>

#include <chrono>
#include <deque>
#include <thread>

#include "test/bench/claim_check.h"
#include "test/bench/informer_like_claims.h"

namespace ksched::bench {
namespace {

TEST(ScheduledCounterTest, CountsPerNamespaceAndInTotal) {
  ScheduledCounter c;
  c.Add("a", "p");
  c.Add("a", "p");
  c.Add("b", "p");
  EXPECT_EQ(c.Get("a"), 2);
  EXPECT_EQ(c.Get("b"), 1);
  EXPECT_EQ(c.Get("c"), 0);
  EXPECT_EQ(c.Total(), 3);
}

TEST(ScheduledCounterTest, BindTimesOnlyOnceKept) {
  ScheduledCounter c;
  c.Add("a", "before");
  c.KeepBindTimes();
  const auto t0 = std::chrono::steady_clock::now();
  c.Add("a", "after");
  EXPECT_FALSE(c.BoundAt("a", "before").has_value());
  ASSERT_TRUE(c.BoundAt("a", "after").has_value());
  EXPECT_GE(*c.BoundAt("a", "after"), t0);
  EXPECT_FALSE(c.BoundAt("b", "after").has_value());
  EXPECT_EQ(c.Get("a"), 2);
}

TEST(ScheduledCounterTest, WaitForReturnsAtOnceWhenReachedAndFalseWhenNot) {
  ScheduledCounter c;
  c.Add("a", "p");
  EXPECT_TRUE(c.WaitFor("a", 1, std::chrono::milliseconds(0)));
  EXPECT_FALSE(c.WaitFor("a", 2, std::chrono::milliseconds(0)));
  EXPECT_FALSE(c.WaitFor("b", 1, std::chrono::milliseconds(0)));
}

// The waiter is woken when its count is reached, even though Add only
// notifies then (and not for other namespaces or smaller counts).
TEST(ScheduledCounterTest, WaiterWakesWhenItsCountIsReached) {
  ScheduledCounter c;
  std::thread adder([&c] {
    for (int i = 0; i < 1000; ++i) {
      c.Add("other", "p");
      c.Add("ns", "p");
    }
  });
  // Generous: the adder needs microseconds; a lost wake-up would hit it.
  EXPECT_TRUE(c.WaitFor("ns", 1000, std::chrono::seconds(60)));
  adder.join();
  EXPECT_EQ(c.Get("ns"), 1000);
  // A second waiter on a count already passed returns at once.
  EXPECT_TRUE(c.WaitFor("ns", 10, std::chrono::milliseconds(0)));
}

// The e2e cluster's pipelined creates: every object lands (many batches,
// a partial last one), and a refused POST is reported with its HTTP code.
TEST(E2eClusterTest, PipelinedCreatesLandAndRefusalsAreReported) {
  ClusterOptions options;
  options.create_workers = 3;
  util::StatusOr<std::unique_ptr<Cluster>> cluster = NewE2eCluster(options);
  ASSERT_TRUE(cluster.ok()) << cluster.status().ToString();
  Cluster& c = **cluster;
  ASSERT_TRUE(c.CreateNamespace({{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "ns"}}}}).ok());
  std::vector<nlohmann::json> pods;
  for (int i = 0; i < 53; ++i) {
    pods.push_back({{"apiVersion", "v1"},
                    {"kind", "Pod"},
                    {"metadata", {{"name", "p" + std::to_string(i)}, {"namespace", "ns"}}},
                    {"spec", {{"schedulerName", "other"}, {"containers", {{{"name", "c"}, {"image", "pause"}}}}}}});
  }
  auto batch = c.PreparePods(pods);
  ASSERT_TRUE(batch.ok());
  util::Status created = c.CreatePods(**batch);
  ASSERT_TRUE(created.ok()) << created.ToString();
  // Again: every name is taken now.
  created = c.CreatePods(**batch);
  EXPECT_FALSE(created.ok());
  EXPECT_NE(created.message().find("HTTP 409"), std::string::npos) << created.ToString();
  c.Stop();
}

// ---- ResourceClaims (claim_check.h, informer_like_claims.h)

std::shared_ptr<const api::ResourceSlice> SliceOn(const std::string& node, int devices) {
  auto s = std::make_shared<api::ResourceSlice>();
  s->metadata.name = "slice-" + node;
  s->spec.driver = "drv";
  s->spec.pool.name = "pool-" + node;
  s->spec.node_name = node;
  for (int i = 0; i < devices; ++i) s->spec.devices.push_back(api::Device{.name = "dev-" + std::to_string(i)});
  return s;
}

std::shared_ptr<const api::ResourceClaim> ClaimOn(const std::string& name, const std::string& node,
                                                  const std::string& device, const std::string& reserved_for) {
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.namespace_ = "ns";
  c->metadata.name = name;
  c->metadata.uid = "uid-" + name;
  if (!node.empty()) {
    api::AllocationResult a;
    a.devices.results.push_back({.request = "req-0", .driver = "drv", .pool = "pool-" + node, .device = device});
    c->status.allocation = a;
  }
  if (!reserved_for.empty()) c->status.reserved_for.push_back({.resource = "pods", .name = reserved_for, .uid = reserved_for});
  return c;
}

std::shared_ptr<const api::Pod> PodWith(const std::string& name, const std::string& node, const std::string& claim) {
  auto p = std::make_shared<api::Pod>();
  p->metadata.namespace_ = "ns";
  p->metadata.name = name;
  p->metadata.uid = name;
  p->spec.node_name = node;
  p->spec.resource_claims.push_back({.name = "resource", .resource_claim_name = claim});
  return p;
}

TEST(ClaimCheckTest, CountsPodsClaimsAndDevicesWhenAllIsWell) {
  auto check = CheckClaimAllocations(
      {PodWith("p0", "n0", "c0"), PodWith("p1", "n1", "c1"), std::make_shared<api::Pod>()},
      {ClaimOn("c0", "n0", "dev-0", "p0"), ClaimOn("c1", "n1", "dev-0", "p1"), ClaimOn("init", "n0", "dev-1", "")},
      {SliceOn("n0", 2), SliceOn("n1", 2)});
  ASSERT_TRUE(check.ok()) << check.status().ToString();
  EXPECT_EQ(check->pods, 2);
  EXPECT_EQ(check->claims, 2);
  EXPECT_EQ(check->devices, 3);
}

TEST(ClaimCheckTest, EachBrokenRuleFails) {
  const std::vector<std::shared_ptr<const api::ResourceSlice>> slices = {SliceOn("n0", 2), SliceOn("n1", 2)};
  auto fails_with = [&](const std::vector<std::shared_ptr<const api::Pod>>& pods,
                        const std::vector<std::shared_ptr<const api::ResourceClaim>>& claims, const std::string& want) {
    auto check = CheckClaimAllocations(pods, claims, slices);
    ASSERT_FALSE(check.ok()) << want;
    EXPECT_NE(check.status().message().find(want), std::string::npos) << check.status().message();
  };
  // The same device twice (an init claim and a pod's).
  fails_with({PodWith("p0", "n0", "c0")}, {ClaimOn("c0", "n0", "dev-0", "p0"), ClaimOn("init", "n0", "dev-0", "")},
             "device drv/pool-n0/dev-0 is allocated to claims");
  fails_with({PodWith("p0", "", "c0")}, {ClaimOn("c0", "n0", "dev-0", "p0")}, "has claims but no node");
  fails_with({PodWith("p0", "n0", "gone")}, {}, "ResourceClaim gone not found");
  fails_with({PodWith("p0", "n0", "c0")}, {ClaimOn("c0", "", "", "p0")}, "is not allocated");
  fails_with({PodWith("p0", "n0", "c0")}, {ClaimOn("c0", "n0", "dev-0", "")}, "is not reserved for it");
  fails_with({PodWith("p0", "n0", "c0")}, {ClaimOn("c0", "n1", "dev-0", "p0")}, "of node n1");
  fails_with({PodWith("p0", "n0", "c0")}, {ClaimOn("c0", "n0", "dev-9", "p0")}, "which no slice publishes");
}

// The scheduler's writes are checked against the stored claim and reach
// the informer only through the delivery queue, in the order stored; the
// harness's own writes are delivered at once.
TEST(InformerLikeClaimsTest, WritesAreCheckedStoredAndDeliveredInOrder) {
  std::atomic<int64_t> rv{100};
  std::deque<std::function<void()>> queued;
  std::vector<std::string> delivered;  // resourceVersions
  InformerLikeClaims claims(
      rv, [&](std::function<void()> d) { queued.push_back(std::move(d)); },
      [&](const std::shared_ptr<const api::ResourceClaim>& c) { delivered.push_back(c->metadata.resource_version); });
  auto c = std::make_shared<api::ResourceClaim>();
  c->metadata.namespace_ = "ns";
  c->metadata.name = "c";
  c->metadata.uid = "u";
  c->metadata.resource_version = "7";
  ASSERT_TRUE(claims.Create(c).ok());
  EXPECT_EQ(claims.Create(c).code(), util::StatusCode::kAlreadyExists);
  EXPECT_EQ(delivered, std::vector<std::string>{"7"});

  api::ResourceClaim with_finalizer = *c;
  with_finalizer.metadata.finalizers.push_back("f");
  with_finalizer.status.reserved_for.push_back({.uid = "ignored"});
  auto updated = claims.UpdateResourceClaim(with_finalizer);
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_EQ(updated->metadata.resource_version, "101");
  EXPECT_TRUE(updated->status.reserved_for.empty());  // a PUT of the claim keeps its status
  // Stale: the first write's version is gone.
  EXPECT_EQ(claims.UpdateResourceClaimStatus(with_finalizer).status().code(), util::StatusCode::kConflict);
  api::ResourceClaim reserve = *updated;
  reserve.status.reserved_for.push_back({.resource = "pods", .name = "p", .uid = "pod-uid"});
  auto reserved = claims.UpdateResourceClaimStatus(reserve);
  ASSERT_TRUE(reserved.ok()) << reserved.status().ToString();
  EXPECT_EQ(reserved->metadata.finalizers, std::vector<std::string>{"f"});
  EXPECT_EQ(claims.RemoveResourceClaimReservation("ns", "c", "other-uid", "pod-uid").status().code(),
            util::StatusCode::kConflict);
  auto removed = claims.RemoveResourceClaimReservation("ns", "c", "u", "pod-uid");
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(removed->status.reserved_for.empty());
  EXPECT_EQ(claims.GetResourceClaim("ns", "missing").status().code(), util::StatusCode::kNotFound);
  EXPECT_EQ(claims.GetResourceClaim("ns", "c")->metadata.resource_version, "103");

  // Nothing of the scheduler's reached the informer until delivered.
  EXPECT_EQ(delivered.size(), 1u);
  ASSERT_EQ(queued.size(), 3u);
  for (auto& d : queued) d();
  EXPECT_EQ(delivered, (std::vector<std::string>{"7", "101", "102", "103"}));

  // SetStatus (allocResourceClaims) is delivered at once.
  ASSERT_TRUE(claims.SetStatus("ns", "c", api::ResourceClaimStatus{}).ok());
  EXPECT_EQ(delivered.back(), "104");
  EXPECT_EQ(claims.List().size(), 1u);
}

}  // namespace
}  // namespace ksched::bench
