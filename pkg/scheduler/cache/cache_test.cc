#include "pkg/scheduler/cache/cache.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "pkg/scheduler/framework/test_objects.h"

namespace ksched::scheduler::cache {
namespace {

using framework::testing::MakeNode;
using framework::testing::MakePod;
using std::chrono::seconds;
using Strings = std::vector<std::string>;

int64_t RequestedCPU(const Cache& c, const std::string& node) {
  util::StatusOr<framework::NodeInfo> ni = c.GetNodeInfo(node);
  return ni.ok() ? ni->requested().milli_cpu : -1;
}

Strings NodeNames(const framework::NodeInfoList& l) {
  Strings out;
  for (const framework::NodeInfo* ni : l) out.push_back(ni->node_name());
  return out;
}

class CacheTest : public ::testing::Test {
 protected:
  explicit CacheTest(util::Duration ttl = util::Duration::zero())
      : cache_(CacheOptions{&clock_, ttl, seconds(1)}) {}

  void AddNodes(const Strings& names) {
    for (const std::string& n : names) cache_.AddNode(MakeNode(n).Capacity({{"cpu", "4"}}).Obj());
  }

  util::FakeClock clock_;
  Cache cache_;
};

TEST_F(CacheTest, AssumeForgetFinish) {
  AddNodes({"n1"});
  auto pod = MakePod("p").Node("n1").Req({{"cpu", "1"}}).Obj();
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  EXPECT_TRUE(cache_.IsAssumedPod(*pod));
  EXPECT_EQ(cache_.PodCount(), 1u);
  EXPECT_EQ(cache_.AssumedPodCount(), 1u);
  EXPECT_EQ(RequestedCPU(cache_, "n1"), 1000);
  EXPECT_EQ(cache_.GetPod(*pod), pod);

  util::Status again = cache_.AssumePod(pod);
  EXPECT_EQ(again.code(), util::StatusCode::kAlreadyExists);
  EXPECT_EQ(again.message(), "pod default/p-uid(default/p) is in the cache, so can't be assumed");

  // Forgetting with another node is refused.
  util::Status wrong = cache_.ForgetPod(*MakePod("p").Node("n2").Obj());
  EXPECT_EQ(wrong.message(), "pod default/p-uid(default/p) was assumed on n2 but assigned to n1");

  ASSERT_TRUE(cache_.FinishBinding(*pod).ok());
  ASSERT_TRUE(cache_.ForgetPod(*pod).ok());
  EXPECT_FALSE(cache_.IsAssumedPod(*pod));
  EXPECT_EQ(cache_.PodCount(), 0u);
  EXPECT_EQ(RequestedCPU(cache_, "n1"), 0);
  EXPECT_EQ(cache_.GetPod(*pod), nullptr);
  EXPECT_EQ(cache_.ForgetPod(*pod).message(), "pod default/p-uid(default/p) wasn't assumed so cannot be forgotten");
}

// The scheduling cycle assumes the PodInfo it scheduled: the node accounts
// it, and its derived data is shared rather than computed again.
TEST_F(CacheTest, AssumePodInfoKeepsItsDerivedData) {
  AddNodes({"n1"});
  framework::PodInfo queued(MakePod("p").Req({{"cpu", "1"}}).Obj());
  auto assumed_pod = std::make_shared<api::Pod>(queued.pod());
  assumed_pod->spec.node_name = "n1";
  framework::PodInfo assumed = queued;
  assumed.UpdateAssumed(assumed_pod);
  EXPECT_EQ(&assumed.requests(), &queued.requests());
  ASSERT_TRUE(cache_.AssumePod(std::make_shared<const framework::PodInfo>(assumed)).ok());
  EXPECT_TRUE(cache_.IsAssumedPod(*assumed_pod));
  EXPECT_EQ(cache_.GetPod(*assumed_pod), assumed_pod);
  util::StatusOr<framework::NodeInfo> ni = cache_.GetNodeInfo("n1");
  ASSERT_TRUE(ni.ok());
  ASSERT_EQ(ni->pods().size(), 1u);
  EXPECT_EQ(&ni->pods()[0]->requests(), &queued.requests());
  EXPECT_EQ(ni->requested().milli_cpu, 1000);
}

TEST_F(CacheTest, InformerAddConfirmsAssumedPod) {
  AddNodes({"n1"});
  auto assumed = MakePod("p").Node("n1").Req({{"cpu", "1"}}).Obj();
  ASSERT_TRUE(cache_.AssumePod(assumed).ok());
  auto bound = MakePod("p").Node("n1").Req({{"cpu", "1"}}).Label("bound", "yes").Obj();
  ASSERT_TRUE(cache_.AddPod(bound).ok());
  EXPECT_FALSE(cache_.IsAssumedPod(*bound));
  EXPECT_EQ(cache_.GetPod(*bound), bound);
  EXPECT_EQ(RequestedCPU(cache_, "n1"), 1000);
  EXPECT_EQ(cache_.PodCount(), 1u);
  // A confirmed pod cannot be forgotten.
  EXPECT_FALSE(cache_.ForgetPod(*bound).ok());
  // And is no longer re-added.
  EXPECT_EQ(cache_.AddPod(bound).code(), util::StatusCode::kAlreadyExists);
}

TEST_F(CacheTest, InformerAddOnAnotherNodeMovesAssumedPod) {
  AddNodes({"n1", "n2"});
  ASSERT_TRUE(cache_.AssumePod(MakePod("p").Node("n1").Req({{"cpu", "1"}}).Obj()).ok());
  auto elsewhere = MakePod("p").Node("n2").Req({{"cpu", "1"}}).Obj();
  ASSERT_TRUE(cache_.AddPod(elsewhere).ok());
  EXPECT_EQ(RequestedCPU(cache_, "n1"), 0);
  EXPECT_EQ(RequestedCPU(cache_, "n2"), 1000);
  EXPECT_FALSE(cache_.IsAssumedPod(*elsewhere));
}

TEST_F(CacheTest, UpdatePodFollowsTheInformer) {
  AddNodes({"n1", "n2"});
  auto v1 = MakePod("p").Node("n1").Req({{"cpu", "1"}}).Obj();
  ASSERT_TRUE(cache_.AddPod(v1).ok());
  auto v2 = MakePod("p").Node("n1").Req({{"cpu", "2"}}).Obj();
  ASSERT_TRUE(cache_.UpdatePod(v1, v2).ok());
  EXPECT_EQ(RequestedCPU(cache_, "n1"), 2000);
  // An update naming another node moves the pod.
  auto v3 = MakePod("p").Node("n2").Req({{"cpu", "3"}}).Obj();
  ASSERT_TRUE(cache_.UpdatePod(v2, v3).ok());
  EXPECT_EQ(RequestedCPU(cache_, "n1"), 0);
  EXPECT_EQ(RequestedCPU(cache_, "n2"), 3000);
  EXPECT_EQ(cache_.GetPod(*v1), v3);

  auto unknown = MakePod("q").Node("n1").Obj();
  EXPECT_EQ(cache_.UpdatePod(unknown, unknown).code(), util::StatusCode::kNotFound);
  EXPECT_EQ(cache_.RemovePod(*unknown).code(), util::StatusCode::kNotFound);

  auto assumed = MakePod("a").Node("n1").Obj();
  ASSERT_TRUE(cache_.AssumePod(assumed).ok());
  EXPECT_EQ(cache_.UpdatePod(assumed, assumed).message(),
            "assumed pod default/a-uid(default/a) should not be updated");

  ASSERT_TRUE(cache_.RemovePod(*v3).ok());
  EXPECT_EQ(RequestedCPU(cache_, "n2"), 0);
}

TEST_F(CacheTest, RemovedNodeStaysAsGhostUntilItsPodsAreGone) {
  AddNodes({"n1", "n2"});
  auto pod = MakePod("p").Node("n1").Req({{"cpu", "1"}}).Obj();
  ASSERT_TRUE(cache_.AddPod(pod).ok());
  Snapshot snap;
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(snap.NumNodes(), 2u);

  ASSERT_TRUE(cache_.RemoveNode(*MakeNode("n1").Obj()).ok());
  EXPECT_EQ(cache_.NodeCount(), 2u);  // n2 and the ghost of n1
  util::StatusOr<framework::NodeInfo> ghost = cache_.GetNodeInfo("n1");
  ASSERT_TRUE(ghost.ok());
  EXPECT_EQ(ghost->node(), nullptr);
  EXPECT_EQ(ghost->pods().size(), 1u);
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"n2"}));
  EXPECT_FALSE(snap.Get("n1").ok());
  EXPECT_EQ(cache_.GetPod(*pod), pod);  // still known, e.g. for its delete event

  ASSERT_TRUE(cache_.RemovePod(*pod).ok());
  EXPECT_EQ(cache_.NodeCount(), 1u);
  EXPECT_EQ(cache_.RemoveNode(*MakeNode("n1").Obj()).message(), "node n1 is not found");

  // A pod for an unknown node creates a ghost that the node's Add revives.
  ASSERT_TRUE(cache_.AddPod(MakePod("early").Node("n3").Req({{"cpu", "1"}}).Obj()).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"n2"}));
  AddNodes({"n3"});
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"n2", "n3"}));
  EXPECT_EQ((*snap.Get("n3"))->requested().milli_cpu, 1000);
}

TEST_F(CacheTest, SnapshotCopiesOnlyChangedNodes) {
  AddNodes({"n1", "n2", "n3"});
  Snapshot snap;
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(snap.copied_in_last_update(), 3u);
  const framework::NodeInfo* n1 = *snap.Get("n1");
  const framework::NodeInfo* n2 = *snap.Get("n2");
  const int64_t g1 = n1->generation();
  const int64_t g2 = n2->generation();
  const framework::NodeInfoList list_before = snap.List();

  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(snap.copied_in_last_update(), 0u);

  ASSERT_TRUE(cache_.AddPod(MakePod("p").Node("n2").Req({{"cpu", "1"}}).Obj()).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(snap.copied_in_last_update(), 1u);
  // Same objects (updated in place), same list.
  EXPECT_EQ(*snap.Get("n1"), n1);
  EXPECT_EQ(*snap.Get("n2"), n2);
  EXPECT_EQ(snap.List(), list_before);
  EXPECT_EQ(n1->generation(), g1);
  EXPECT_GT(n2->generation(), g2);
  EXPECT_EQ(n2->requested().milli_cpu, 1000);
  EXPECT_EQ(snap.generation(), n2->generation());

  // The cache's own NodeInfo moved on; the snapshot keeps the old view
  // until the next update.
  ASSERT_TRUE(cache_.AddPod(MakePod("q").Node("n2").Req({{"cpu", "1"}}).Obj()).ok());
  EXPECT_EQ(n2->requested().milli_cpu, 1000);
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(n2->requested().milli_cpu, 2000);

  // Node added: lists rebuilt (the other nodes are not copied again).
  AddNodes({"n4"});
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(snap.copied_in_last_update(), 1u);
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"n1", "n2", "n3", "n4"}));
  // Node removed.
  ASSERT_TRUE(cache_.RemoveNode(*MakeNode("n3").Obj()).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"n1", "n2", "n4"}));
  EXPECT_EQ(*snap.Get("n1"), n1);
}

TEST_F(CacheTest, SnapshotListIsZoneInterleaved) {
  for (auto [name, zone] : std::vector<std::pair<const char*, const char*>>{
           {"a1", "z1"}, {"a2", "z1"}, {"a3", "z1"}, {"b1", "z2"}, {"c1", "z3"}, {"c2", "z3"}}) {
    cache_.AddNode(MakeNode(name).Zone(zone).Obj());
  }
  Snapshot snap;
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"a1", "b1", "c1", "a2", "c2", "a3"}));
  // A zone change reorders.
  cache_.UpdateNode(MakeNode("a1").Zone("z1").Obj(), MakeNode("a1").Zone("z2").Obj());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"a2", "b1", "c1", "a3", "a1", "c2"}));
}

// The snapshot's map keys are views of its NodeInfos' node names: a node
// updated to a new object, or removed from the cache, keeps a key that
// points at memory its NodeInfo holds (the sanitizers and valgrind check).
TEST_F(CacheTest, SnapshotKeysFollowTheirNodeObjects) {
  std::shared_ptr<const api::Node> v1 = MakeNode("node-with-a-long-name-1").Obj();
  cache_.AddNode(v1);
  cache_.AddNode(MakeNode("node-with-a-long-name-2").Obj());
  Snapshot snap;
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  std::shared_ptr<const api::Node> v2 = MakeNode("node-with-a-long-name-1").Label("v", "2").Obj();
  cache_.UpdateNode(v1, v2);
  v1.reset();
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  v2.reset();  // the cache and the snapshot still hold it
  auto got = snap.Get(std::string("node-with-a-long-name-1"));
  ASSERT_TRUE(got.ok());
  EXPECT_EQ((*got)->node()->metadata.labels.at("v"), "2");

  // Removed from the cache: the snapshot's entry keeps its Node until the
  // next update drops it, looking the cache up by that key.
  ASSERT_TRUE(cache_.RemoveNode(*MakeNode("node-with-a-long-name-2").Obj()).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.List()), (Strings{"node-with-a-long-name-1"}));
  EXPECT_FALSE(snap.Get("node-with-a-long-name-2").ok());
}

TEST_F(CacheTest, AffinityListsAndPVCsFollowPods) {
  AddNodes({"n1", "n2"});
  Snapshot snap;
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_TRUE(snap.HavePodsWithAffinityList().empty());

  auto anti = MakePod("anti").Node("n2").RequiredPodAffinity("zone", {{"a", "b"}}, /*anti=*/true).PVC("data").Obj();
  auto pref = MakePod("pref").Node("n1").PreferredPodAffinity(1, "zone", {{"a", "b"}}).Obj();
  ASSERT_TRUE(cache_.AddPod(anti).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.HavePodsWithAffinityList()), (Strings{"n2"}));
  EXPECT_EQ(NodeNames(snap.HavePodsWithRequiredAntiAffinityList()), (Strings{"n2"}));
  EXPECT_TRUE(snap.IsPVCUsedByPods("default/data"));

  ASSERT_TRUE(cache_.AddPod(pref).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.HavePodsWithAffinityList()), (Strings{"n1", "n2"}));
  EXPECT_EQ(NodeNames(snap.HavePodsWithRequiredAntiAffinityList()), (Strings{"n2"}));

  ASSERT_TRUE(cache_.RemovePod(*anti).ok());
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ(NodeNames(snap.HavePodsWithAffinityList()), (Strings{"n1"}));
  EXPECT_TRUE(snap.HavePodsWithRequiredAntiAffinityList().empty());
  EXPECT_FALSE(snap.IsPVCUsedByPods("default/data"));
}

TEST_F(CacheTest, ImageStatesCountNodes) {
  cache_.AddNode(MakeNode("n1").Image({"nginx:1", "docker.io/nginx:1"}, 100).Obj());
  cache_.AddNode(MakeNode("n2").Image({"nginx:1"}, 100).Obj());
  Snapshot snap;
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ((*snap.Get("n1"))->image_states().at("nginx:1"), (framework::ImageStateSummary{100, 2}));
  EXPECT_EQ((*snap.Get("n1"))->image_states().at("docker.io/nginx:1").num_nodes, 1);
  EXPECT_EQ((*snap.Get("n2"))->image_states().size(), 1u);

  ASSERT_TRUE(cache_.RemoveNode(*MakeNode("n2").Image({"nginx:1"}, 100).Obj()).ok());
  ASSERT_TRUE(cache_.AddPod(MakePod("p").Node("n1").Obj()).ok());  // n1 changes, so it is copied again
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  EXPECT_EQ((*snap.Get("n1"))->image_states().at("nginx:1").num_nodes, 1);
}

TEST_F(CacheTest, DumpAndCounts) {
  AddNodes({"n1"});
  ASSERT_TRUE(cache_.AddPod(MakePod("a").Node("n1").Obj()).ok());
  ASSERT_TRUE(cache_.AssumePod(MakePod("b").Node("n1").Obj()).ok());
  CacheDump d = cache_.Dump();
  ASSERT_EQ(d.nodes.size(), 1u);
  EXPECT_EQ(d.nodes.at("n1").pods().size(), 2u);
  EXPECT_EQ(d.assumed_pods, (std::set<std::string>{"default/b-uid"}));
  EXPECT_EQ(cache_.NodeCount(), 1u);
  EXPECT_EQ(cache_.PodCount(), 2u);
}

TEST_F(CacheTest, AssumedPodsNeverExpireWithoutTTL) {
  AddNodes({"n1"});
  auto pod = MakePod("p").Node("n1").Obj();
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  ASSERT_TRUE(cache_.FinishBinding(*pod).ok());
  clock_.Step(std::chrono::hours(24));
  cache_.CleanupExpiredAssumedPods();
  EXPECT_TRUE(cache_.IsAssumedPod(*pod));
}

class CacheTTLTest : public CacheTest {
 protected:
  CacheTTLTest() : CacheTest(seconds(30)) {}
};

TEST_F(CacheTTLTest, FinishedBindingsExpireAfterTTL) {
  AddNodes({"n1"});
  auto finished = MakePod("finished").Node("n1").Req({{"cpu", "1"}}).Obj();
  auto binding = MakePod("binding").Node("n1").Req({{"cpu", "1"}}).Obj();
  ASSERT_TRUE(cache_.AssumePod(finished).ok());
  ASSERT_TRUE(cache_.AssumePod(binding).ok());
  ASSERT_TRUE(cache_.FinishBinding(*finished).ok());

  clock_.Step(seconds(29));
  cache_.CleanupExpiredAssumedPods();
  EXPECT_TRUE(cache_.IsAssumedPod(*finished));
  clock_.Step(seconds(2));
  cache_.CleanupExpiredAssumedPods();
  EXPECT_FALSE(cache_.IsAssumedPod(*finished));
  EXPECT_EQ(cache_.GetPod(*finished), nullptr);
  // The binding still in progress never expires.
  EXPECT_TRUE(cache_.IsAssumedPod(*binding));
  EXPECT_EQ(RequestedCPU(cache_, "n1"), 1000);
}

TEST_F(CacheTTLTest, RunLoopExpiresOnTheClock) {
  AddNodes({"n1"});
  auto pod = MakePod("p").Node("n1").Obj();
  ASSERT_TRUE(cache_.AssumePod(pod).ok());
  ASSERT_TRUE(cache_.FinishBinding(*pod).ok());
  cache_.Run();
  cache_.Run();  // idempotent
  clock_.Step(seconds(40));
  // The loop notices the step within a few of its polling slices; bound the
  // wait in real time only to fail instead of hanging.
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (cache_.IsAssumedPod(*pod) && std::chrono::steady_clock::now() < give_up) std::this_thread::yield();
  EXPECT_FALSE(cache_.IsAssumedPod(*pod));
  cache_.Stop();
  cache_.Stop();
}

TEST_F(CacheTest, ConcurrentUpdatesAndSnapshots) {
  AddNodes({"n1", "n2", "n3", "n4"});
  std::vector<std::thread> writers;
  for (int t = 0; t < 3; ++t) {
    writers.emplace_back([this, t] {
      for (int i = 0; i < 200; ++i) {
        auto pod = MakePod("p" + std::to_string(t) + "-" + std::to_string(i))
                       .Node("n" + std::to_string(1 + i % 4))
                       .Req({{"cpu", "10m"}})
                       .Obj();
        ASSERT_TRUE(cache_.AssumePod(pod).ok());
        if (i % 2 == 0) {
          ASSERT_TRUE(cache_.ForgetPod(*pod).ok());
        }
      }
    });
  }
  Snapshot snap;
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  for (auto& w : writers) w.join();
  ASSERT_TRUE(cache_.UpdateSnapshot(snap).ok());
  int64_t total = 0;
  for (const framework::NodeInfo* ni : snap.List()) total += ni->requested().milli_cpu;
  EXPECT_EQ(total, 3 * 100 * 10);
  EXPECT_EQ(cache_.PodCount(), 300u);
}

}  // namespace
}  // namespace ksched::scheduler::cache
